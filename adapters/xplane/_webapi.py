"""X-Plane Web API client (X-Plane 12.1.1+): REST over httpx, WebSocket subscriptions.

Shapes from developer.x-plane.com/article/x-plane-web-api (official) and, for message details,
the unofficial OpenAPI/AsyncAPI description (lyestarzalt/X-Plane-WebAPI-OpenAPI). Versions:
v1 = 12.1.1 (datarefs), v2 = 12.1.4 (commands, capabilities), v3 = 12.4.0 (`/flight`).
Dataref ids are valid only until X-Plane restarts, so they are looked up per session.
"""

from __future__ import annotations

import base64
import itertools
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import httpx

from simbridge import HarnessError

WEB_PORT = 8086


class WebApiClient:
    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = WEB_PORT,
        *,
        version: str = "v2",
        timeout_s: float = 5.0,
        ws_url: str | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base = f"http://{host}:{port}/api"
        self.version = version
        self.ws_url = ws_url or f"ws://{host}:{port}/api/{version}"
        self.http = httpx.Client(base_url=self.base, timeout=timeout_s, transport=transport)
        self._ids: dict[str, int] = {}
        self._cmd_ids: dict[str, int] = {}

    # -- plumbing
    def _call(self, method: str, path: str, **kw: Any) -> Any:
        try:
            r = self.http.request(method, path, **kw)
        except httpx.HTTPError as exc:
            raise HarnessError(f"X-Plane Web API {method} {self.base}{path}: {exc}") from None
        if r.status_code >= 400:
            raise HarnessError(f"X-Plane Web API {method} {path}: HTTP {r.status_code}: {r.text[:200]}")
        return r.json() if r.content else None

    def capabilities(self) -> dict[str, Any]:
        """`GET /api/capabilities`: supported API versions and the X-Plane version (v2+)."""
        return self._call("GET", "/capabilities")

    # -- datarefs
    def dataref_ids(self, names: Iterable[str]) -> dict[str, int]:
        """Name -> id via `GET /api/vN/datarefs?filter[name]=...`; unknown names raise."""
        want = [n for n in dict.fromkeys(names) if n not in self._ids]
        for start in range(0, len(want), 50):
            chunk = want[start : start + 50]
            params = [("filter[name]", n) for n in chunk] + [("fields", "id,name,value_type")]
            data = self._call("GET", f"/{self.version}/datarefs", params=params)["data"]
            for item in data:
                self._ids[item["name"]] = int(item["id"])
            missing = [n for n in chunk if n not in self._ids]
            if missing:
                raise HarnessError(f"X-Plane Web API: unknown dataref(s) {missing}")
        return {n: self._ids[n] for n in names}

    def get(self, name: str, index: int | None = None) -> Any:
        """A dataref's value: a number, a list, or bytes for data datarefs (sent base64)."""
        did = self.dataref_ids([name])[name]
        params = {"index": index} if index is not None else None
        value = self._call("GET", f"/{self.version}/datarefs/{did}/value", params=params)["data"]
        if isinstance(value, str):
            return base64.b64decode(value)
        return value

    def get_many(self, names: Sequence[str]) -> dict[str, Any]:
        return {n: self.get(n) for n in names}

    def set(self, name: str, value: Any, index: int | None = None) -> None:
        did = self.dataref_ids([name])[name]
        params = {"index": index} if index is not None else None
        if isinstance(value, (bytes, bytearray)):
            value = base64.b64encode(value).decode()
        self._call("PATCH", f"/{self.version}/datarefs/{did}/value", params=params, json={"data": value})

    # -- commands
    def command_id(self, name: str) -> int:
        if name not in self._cmd_ids:
            data = self._call("GET", f"/{self.version}/commands", params={"filter[name]": name, "fields": "id,name"})[
                "data"
            ]
            if not data:
                raise HarnessError(f"X-Plane Web API: unknown command {name!r}")
            self._cmd_ids[name] = int(data[0]["id"])
        return self._cmd_ids[name]

    def command(self, name: str, duration_s: float = 0.0) -> None:
        """Activate a command for `duration_s` (0 = press and release; at most 10 s)."""
        if not 0 <= duration_s <= 10:
            raise ValueError("duration_s must be within 0..10")
        self._call("POST", f"/{self.version}/command/{self.command_id(name)}/activate", json={"duration": duration_s})

    # -- flights (v3, X-Plane 12.4+)
    def start_flight(self, flight: Mapping[str, Any]) -> None:
        """`POST /api/v3/flight`: end the current flight and start this one (Flight Initialization JSON)."""
        self._call("POST", "/v3/flight", json={"data": dict(flight)})

    # -- websocket
    def subscribe(self, names: Sequence[str]) -> "WebSocketSubscription":
        ids = self.dataref_ids(names)
        return WebSocketSubscription(self.ws_url, ids)

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> "WebApiClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class WebSocketSubscription:
    """`dataref_subscribe_values` over the WebSocket; `updates()` yields name -> value changes.

    X-Plane sends only the values that changed, about 10 times a second; RREF is the fast path.
    """

    def __init__(self, url: str, ids: Mapping[str, int], *, open_timeout_s: float = 5.0) -> None:
        from websockets.sync.client import connect

        self._names = {i: n for n, i in ids.items()}
        self._req = itertools.count(1)
        self._backlog: list[dict[str, Any]] = []
        try:
            self.ws = connect(url, open_timeout=open_timeout_s).__enter__()  # closed in close()
        except (OSError, TimeoutError) as exc:
            raise HarnessError(f"X-Plane Web API WebSocket {url}: {exc}") from None
        self.request("dataref_subscribe_values", {"datarefs": [{"id": i} for i in ids.values()]})

    def request(self, kind: str, params: Mapping[str, Any], timeout_s: float = 5.0) -> None:
        req_id = next(self._req)
        self.ws.send(json.dumps({"req_id": req_id, "type": kind, "params": dict(params)}))
        while True:
            msg = json.loads(self.ws.recv(timeout=timeout_s))
            if msg.get("type") == "result" and msg.get("req_id") == req_id:
                if not msg.get("success", False):
                    raise HarnessError(f"X-Plane Web API: {kind} failed: {msg.get('error_message') or msg}")
                return
            self._backlog.append(msg)

    def updates(self, timeout_s: float = 1.0) -> dict[str, Any]:
        """The next `dataref_update_values` message as name -> value (empty on timeout)."""
        msg = self._backlog.pop(0) if self._backlog else None
        if msg is None:
            try:
                msg = json.loads(self.ws.recv(timeout=timeout_s))
            except TimeoutError:
                return {}
        if msg.get("type") != "dataref_update_values":
            return {}
        return {self._names.get(int(k), k): v for k, v in msg.get("data", {}).items()}

    def set_values(self, values: Mapping[int, Any]) -> None:
        self.request("dataref_set_values", {"datarefs": [{"id": i, "value": v} for i, v in values.items()]})

    def close(self) -> None:
        try:
            self.request("dataref_unsubscribe_values", {"datarefs": "all"}, timeout_s=1.0)
        except Exception:  # closing anyway
            pass
        self.ws.close()
