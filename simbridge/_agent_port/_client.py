"""The agent's side of the port: one typed API, two transports.

`AgentPortClient` is what an agent programs against. `DirectClient` calls an in-process
`AgentPort` (built-in agents: no serialization on the screenshot path); `McpClient` talks to
the port's MCP server over streamable HTTP (an agent in another process, or another machine
once the sandbox is a VM). Both run exactly the same actions through the same logging.
"""

from __future__ import annotations

import abc
import asyncio
import base64
import json
import threading
from typing import Any

from simbridge._agent_port._actions import VOCABULARY, computer_call, to_wire
from simbridge._agent_port._client_actions import ClientActions
from simbridge._agent_port._port import ActionError, AgentPort, EpisodeOver, NotReady
from simbridge._agent_port._screen import ImageFormat, Screenshot
from simbridge._errors import SimbridgeError


class AgentPortClient(ClientActions, abc.ABC):
    """Screen out, keyboard and mouse in. Coordinates are screen pixels (divide a scaled
    screenshot's pixel coordinates by its `scale`). Every call raises `EpisodeOver` once the
    episode has ended (time limit, crash, done).

    One method per action of the port's vocabulary (`screenshot`, `key`, `click`, `drag`, `wait`,
    `done`, ...), generated from the action table (`_actions.VOCABULARY`, see `ClientActions`),
    plus `computer` for a computer-use tool call."""

    @abc.abstractmethod
    def _call(self, kind: str, args: dict[str, Any]) -> Any: ...

    def execute(self, kind: str, args: dict[str, Any]) -> Any:
        """Run the action `kind` with its arguments as the port takes them; the port's result as
        it comes (the typed methods convert it). For a caller that holds actions as data."""
        return self._call(kind, args)

    def _act(self, kind: str, args: dict[str, Any]) -> Any:
        """Run one action: its arguments as the port takes them, its result as the table's return type."""
        return VOCABULARY[kind].returns.convert(self._call(kind, to_wire(kind, args)))

    def close(self) -> None:
        pass

    # -- computer use (Inspect AI's `computer` tool, Anthropic's computer-use tool input)
    def computer(self, **args: Any) -> Any:
        """Run one computer-tool call (`action="left_click", coordinate=[x, y]`, ...) as the
        port action(s) `_actions.computer_call` names; returns the last one's result."""
        result = None
        for kind, kw in computer_call(args):
            result = getattr(self, kind)(**kw)
        return result


class DirectClient(AgentPortClient):
    """In-process client of an AgentPort (same actions, same log, no transport); its actions are
    logged with `session` (default "direct")."""

    def __init__(self, port: AgentPort, *, session: str = "direct") -> None:
        self._port = port
        self.session = session

    def _call(self, kind: str, args: dict[str, Any]) -> Any:
        return self._port.execute(kind, args, session=self.session)

    def computer(self, **args: Any) -> Any:
        """As `AgentPortClient.computer`; a call refused before it becomes a port action (an
        unknown or unavailable computer-use action) is logged too."""
        try:
            computer_call(args)
        except SimbridgeError as exc:
            self._port.refuse("computer", args, str(exc), session=self.session)
            raise ActionError(str(exc)) from None
        return super().computer(**args)


class McpClient(AgentPortClient):
    """Client of the port's MCP server (streamable HTTP), usable from synchronous code: the MCP
    session lives on a private event loop thread."""

    def __init__(
        self, url: str, *, timeout_s: float = 60.0, token: str | None = None, ready_timeout_s: float = 600.0
    ) -> None:
        """`url` is the port's MCP URL or the run's status file (agent_port.json), which holds the
        URL and the episode's token; `token` defaults to the status file's, else $SIMBRIDGE_AGENT_TOKEN."""
        import os

        from mcp import Client

        if not url.startswith(("http://", "https://")):
            url, token = _from_status_file(url, token)
        if token is None:
            token = os.environ.get("SIMBRIDGE_AGENT_TOKEN") or None
        self.url = url
        self._timeout = timeout_s
        #: how long calls are retried while the episode has not started yet
        self.ready_timeout_s = ready_timeout_s
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mcp-client", daemon=True)
        self._thread.start()
        server: Any = url
        if token is not None:
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            server = streamable_http_client(
                url, http_client=create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
            )
        # a session (the initialize handshake): the port binds the episode to it, so no other
        # client, even one holding the token, can act in this agent's episode
        self._client = Client(server, read_timeout_seconds=timeout_s, mode="legacy")
        try:
            self._run(self._client.__aenter__())
        except Exception as exc:
            self._stop_loop()
            raise SimbridgeError(f"cannot connect to the agent port at {url}: {_why(exc)}") from None

    def _run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(self._timeout + 5)

    def _call(self, kind: str, args: dict[str, Any]) -> Any:
        import time

        t_end = time.monotonic() + self.ready_timeout_s
        while True:
            res = self._run(self._client.call_tool(kind, {k: v for k, v in args.items() if v is not None}))
            texts = [c.text for c in res.content if getattr(c, "type", "") == "text"]
            if not getattr(res, "is_error", False):
                break
            msg = " ".join(texts) or "error"
            if "episode over" in msg:
                raise EpisodeOver(msg)
            if "episode not started yet" in msg and time.monotonic() < t_end:
                continue  # the port waited its bound; the simulator is still starting
            if "episode not started yet" in msg:
                raise NotReady(msg)
            raise SimbridgeError(f"{kind}: {msg}")
        for c in res.content:
            if getattr(c, "type", "") == "image":
                meta = json.loads(texts[0]) if texts else {}
                fmt: ImageFormat = "jpeg" if "jpeg" in c.mime_type else "png"
                return Screenshot(
                    base64.b64decode(c.data),
                    fmt,
                    int(meta.get("width", 0)),
                    int(meta.get("height", 0)),
                    float(meta.get("scale", 1.0)),
                )
        if not texts:
            return None
        try:
            return json.loads(texts[0])
        except json.JSONDecodeError:
            return texts[0]

    def _stop_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    def close(self) -> None:
        try:
            self._run(self._client.__aexit__(None, None, None))
        except Exception:
            pass
        self._stop_loop()


def _why(exc: BaseException) -> str:
    """The innermost cause of a transport failure, readable (an HTTP 401/403 says so)."""
    while getattr(exc, "exceptions", None):  # an exception group (anyio's task groups)
        exc = exc.exceptions[0]  # type: ignore[attr-defined]
    error = getattr(exc, "error", None)  # the SDK's MCPError: the server's JSON-RPC error
    if error is not None and getattr(error, "message", None):
        return str(error.message)
    response = getattr(exc, "response", None)
    if response is not None and getattr(response, "status_code", None):
        try:
            detail = response.json().get("error", "")
        except Exception:
            detail = ""
        return f"HTTP {response.status_code}" + (f": {detail}" if detail else "")
    return f"{type(exc).__name__}: {exc}"


def _from_status_file(path: str, token: str | None) -> tuple[str, str | None]:
    """The MCP URL and token from a run's agent port status file (agent_port.json)."""
    from pathlib import Path

    try:
        st = json.loads(Path(path).read_text())
        url = str(st["mcp_url"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SimbridgeError(f"{path}: not an agent port URL nor a readable agent_port.json ({exc})") from None
    return url, token if token is not None else (st.get("token") or None)


def connect(url: str, **kw: Any) -> McpClient:
    """Connect to an agent port's MCP endpoint: `connect("http://127.0.0.1:8765/mcp", token=TOKEN)`,
    or `connect("runs/…/agent_port.json")` (URL and token from the run's status file)."""
    return McpClient(url, **kw)
