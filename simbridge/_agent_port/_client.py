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
from collections.abc import Sequence
from typing import Any

from simbridge._agent_port._actions import computer_call
from simbridge._agent_port._port import ActionError, AgentPort, EpisodeOver, NotReady
from simbridge._agent_port._screen import ImageFormat, Screenshot
from simbridge._errors import SimbridgeError


class AgentPortClient(abc.ABC):
    """Screen out, keyboard and mouse in. Coordinates are screen pixels (divide a scaled
    screenshot's pixel coordinates by its `scale`). Every call raises `EpisodeOver` once the
    episode has ended (time limit, crash, done)."""

    @abc.abstractmethod
    def _call(self, kind: str, args: dict[str, Any]) -> Any: ...

    def close(self) -> None:
        pass

    # -- the task
    def task(self) -> dict[str, Any]:
        """What the agent is told: instruction for this simulator, documents, time limit, clock,
        controls (a TaskBrief as a dict, with the prompt text under "text" over MCP)."""
        return dict(self._call("task", {}))

    # -- observation
    def screenshot(
        self, format: ImageFormat = "png", scale: float = 1.0, quality: int = 80, region: Sequence[int] | None = None
    ) -> Screenshot:
        """The screen; `region` [x0, y0, x1, y1] crops it at screen resolution (a zoom)."""
        return self._call(
            "screenshot",
            {
                "format": format,
                "scale": scale,
                "quality": quality,
                "region": None if region is None else [int(v) for v in region],
            },
        )

    def cursor_position(self) -> tuple[int, int]:
        x, y = self._call("cursor_position", {})
        return int(x), int(y)

    def elapsed(self) -> float:
        """The task clock: simulator seconds since the episode started."""
        return float(self._call("elapsed", {}))

    # -- keyboard
    def key(self, keys: str, hold_s: float = 0.05, repeat: int = 1) -> None:
        """Tap a key or combination ('Left', 'ctrl+a', 'F1'), held `hold_s`, `repeat` times."""
        self._call("key", {"keys": keys, "hold_s": hold_s, "repeat": repeat})

    def key_down(self, keys: str) -> None:
        self._call("key_down", {"keys": keys})

    def key_up(self, keys: str) -> None:
        self._call("key_up", {"keys": keys})

    def type(self, text: str, x: int | None = None, y: int | None = None, press_enter: bool | None = None) -> None:
        """Type text; with (x, y) click there first; `press_enter` presses Return after it."""
        self._call("type", {"text": text, "x": x, "y": y, "press_enter": press_enter})

    # -- mouse
    def mouse_move(self, x: int, y: int) -> None:
        self._call("mouse_move", {"x": x, "y": y})

    def click(
        self,
        x: int | None = None,
        y: int | None = None,
        button: str = "left",
        count: int = 1,
        modifiers: str | None = None,
    ) -> None:
        """Click `count` times; `modifiers` ('shift', 'ctrl+alt') are held around the click."""
        self._call("click", {"x": x, "y": y, "button": button, "count": count, "modifiers": modifiers})

    def double_click(
        self, x: int | None = None, y: int | None = None, button: str = "left", modifiers: str | None = None
    ) -> None:
        self._call("double_click", {"x": x, "y": y, "button": button, "modifiers": modifiers})

    def drag(self, path: Sequence[Sequence[int]], button: str = "left", duration_s: float = 0.3) -> None:
        """Press at path[0], move through the points, release at path[-1]."""
        self._call("drag", {"path": [[int(p[0]), int(p[1])] for p in path], "button": button, "duration_s": duration_s})

    def scroll(
        self, x: int | None = None, y: int | None = None, dx: int = 0, dy: int = 0, modifiers: str | None = None
    ) -> None:
        """Wheel clicks at (x, y): dy > 0 scrolls down, dx > 0 right."""
        self._call("scroll", {"x": x, "y": y, "dx": dx, "dy": dy, "modifiers": modifiers})

    def mouse_down(self, button: str = "left", x: int | None = None, y: int | None = None) -> None:
        self._call("mouse_down", {"button": button, "x": x, "y": y})

    def mouse_up(self, button: str = "left", x: int | None = None, y: int | None = None) -> None:
        self._call("mouse_up", {"button": button, "x": x, "y": y})

    # -- the agent's folder (task inputs under input/, work products such as answer.json)
    def list_files(self) -> list[dict[str, Any]]:
        """Files in the agent's folder: [{path, bytes, writable}]."""
        return list(self._call("list_files", {}))

    def read_file(self, path: str, encoding: str = "text") -> str:
        """A file from the agent's folder, e.g. 'input/load.json'; `encoding="base64"` for a PDF."""
        return str(self._call("read_file", {"path": path, "encoding": encoding}))

    def write_file(self, path: str, text: str) -> int:
        """Write a text file (e.g. 'answer.json') into the agent's folder; returns its size in bytes."""
        return int(self._call("write_file", {"path": path, "text": text}))

    # -- computer use (Inspect AI's `computer` tool, Anthropic's computer-use tool input)
    def computer(self, **args: Any) -> Any:
        """Run one computer-tool call (`action="left_click", coordinate=[x, y]`, ...) as the
        port action(s) `_actions.computer_call` names; returns the last one's result."""
        result = None
        for kind, kw in computer_call(args):
            result = getattr(self, kind)(**kw)
        return result

    # -- time and ending
    def wait(self, seconds: float) -> None:
        """Let `seconds` of task time pass (in lockstep: exactly that much simulator time)."""
        self._call("wait", {"seconds": seconds})

    def done(self, reason: str = "") -> None:
        """The agent believes the task is complete: ends the episode (status `completed`)."""
        self._call("done", {"reason": reason})

    def give_up(self, reason: str = "") -> None:
        """The agent stops without completing: ends the episode (status `agent_quit`)."""
        self._call("give_up", {"reason": reason})


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
