"""The agent port served as MCP tools (official `mcp` SDK, streamable HTTP on a TCP port).

One tool per action of the vocabulary; `screenshot` returns an image content block plus a JSON
text block with its size and scale. Tools run the (blocking) action in a worker thread so a
long `wait` never stalls other requests.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from typing import Any

from simbridge._agent_port import _actions
from simbridge._agent_port._port import AgentPort
from simbridge._agent_port._screen import Screenshot
from simbridge._errors import HarnessError

INSTRUCTIONS = (
    "You control a computer screen showing a simulator. Call `task` (or read the `task` prompt or "
    "the simbridge://task resource) for what to do. Observe with `screenshot`; act with "
    "`key`, `type`, `click`, `drag`, `scroll` and the other mouse tools (screen pixel coordinates), "
    "or with the single `computer` tool in Anthropic's computer-use schema; `wait` lets task time "
    "pass. Task documents are in your folder under input/ (`list_files`, `read_file`); write "
    "requested work products there with `write_file` (e.g. answer.json). Actions wait until the "
    "episode has started. Call `done` when the task is complete or `give_up` to stop; nothing is "
    "accepted after that."
)

#: the computer-use actions served by the `computer` tool (Inspect's and Anthropic's schema)
COMPUTER_ACTIONS = _actions.COMPUTER_ACTIONS


def build_server(port: AgentPort) -> Any:
    """An MCPServer whose tools run actions on `port`."""
    import anyio
    from mcp.server.mcpserver import Image, MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    from simbridge._agent_port._client import DirectClient
    from simbridge._errors import SimbridgeError

    brief_text = _brief_text(port)
    instructions = INSTRUCTIONS + ("\n\n" + brief_text if brief_text else "")
    mcp = MCPServer("simbridge-agent-port", instructions=instructions, log_level="WARNING")

    async def run(kind: str, **args: Any) -> Any:
        try:
            return await anyio.to_thread.run_sync(lambda: port.execute(kind, args))
        except SimbridgeError as exc:  # the agent's mistake, the episode's state or a harness fault: say which
            raise ToolError(str(exc)) from exc

    def image(shot: Any) -> list[Any]:
        meta = {"width": shot.width, "height": shot.height, "scale": shot.scale, "format": shot.format}
        return [json.dumps(meta), Image(data=shot.data, format=shot.format)]

    @mcp.prompt(name="task", description="The task: instruction for this simulator, documents, time limit, controls")
    def task_prompt() -> str:
        port.first_call.set()
        return _brief_text(port) or "no task description"

    @mcp.resource(
        "simbridge://task",
        name="task",
        mime_type="application/json",
        description="The task as JSON (what the `task` tool returns)",
    )
    def task_resource() -> str:
        port.first_call.set()
        return json.dumps(port.brief or {})

    @mcp.tool(name="task", structured_output=False)
    async def task_tool() -> str:
        """The task: instruction for this simulator, input documents, time limit, clock and controls (JSON,
        with the same text as the `task` prompt under "text"). Served before the episode starts."""
        brief = await run("task")
        return json.dumps({**dict(brief), "text": _brief_text(port)})

    @mcp.tool(structured_output=False)
    async def computer(
        action: str | None = None,
        coordinate: list[int] | None = None,
        text: str | None = None,
        duration: float | None = None,
        scroll_direction: str | None = None,
        scroll_amount: int | None = None,
        start_coordinate: list[int] | None = None,
        region: list[int] | None = None,
        repeat: int | None = None,
        press_enter: bool | None = None,
        actions: list[dict[str, Any]] | None = None,
    ) -> Any:
        """Computer-use actions in Anthropic's and Inspect AI's schema: key (repeat), hold_key, type (press_enter;
        coordinate clicks first), cursor_position, mouse_move, left_mouse_down, left_mouse_up, left_click,
        left_click_drag, right_click, middle_click, back_click, forward_click, double_click, triple_click, scroll
        (scroll_direction up/down/left/right, scroll_amount; `text` holds modifier keys), wait (duration in s),
        screenshot, zoom (region [x0, y0, x1, y1]); `actions` runs a list of them. Keys in xdotool spelling."""
        args = {
            k: v
            for k, v in dict(
                action=action,
                coordinate=coordinate,
                text=text,
                duration=duration,
                scroll_direction=scroll_direction,
                scroll_amount=scroll_amount,
                start_coordinate=start_coordinate,
                region=region,
                repeat=repeat,
                press_enter=press_enter,
                actions=actions,
            ).items()
            if v is not None
        }
        try:
            out = await anyio.to_thread.run_sync(lambda: DirectClient(port).computer(**args))
        except SimbridgeError as exc:
            raise ToolError(str(exc)) from exc
        if isinstance(out, Screenshot):
            return image(out)
        if isinstance(out, tuple):
            return json.dumps({"x": out[0], "y": out[1]})
        return ok()

    def ok(value: Any = None) -> str:
        return json.dumps({"ok": True} if value is None else value)

    @mcp.tool(structured_output=False)
    async def screenshot(
        format: str = "png", scale: float = 1.0, quality: int = 80, region: list[int] | None = None
    ) -> list[Any]:
        """Capture the whole screen. format: png or jpeg; scale < 1 shrinks the image (click
        coordinates stay in screen pixels: image pixel / scale); region [x0, y0, x1, y1] crops it."""
        return image(await run("screenshot", format=format, scale=scale, quality=quality, region=region))

    @mcp.tool(structured_output=False)
    async def key(keys: str, hold_s: float = 0.05, repeat: int = 1) -> str:
        """Tap a key or combination in X keysym/xdotool spelling: 'Left', 'Return', 'ctrl+a', 'F1', 'b'."""
        return ok(await run("key", keys=keys, hold_s=hold_s, repeat=repeat))

    @mcp.tool(structured_output=False)
    async def key_down(keys: str) -> str:
        """Press and keep holding a key (release with key_up)."""
        return ok(await run("key_down", keys=keys))

    @mcp.tool(structured_output=False)
    async def key_up(keys: str) -> str:
        """Release a key held with key_down."""
        return ok(await run("key_up", keys=keys))

    @mcp.tool(name="type", structured_output=False)
    async def type_(text: str, x: int | None = None, y: int | None = None, press_enter: bool | None = None) -> str:
        """Type text as key presses (with x, y: click there first; press_enter: Return after it)."""
        return ok(await run("type", text=text, x=x, y=y, press_enter=press_enter))

    @mcp.tool(structured_output=False)
    async def mouse_move(x: int, y: int) -> str:
        """Move the pointer to screen pixel (x, y)."""
        return ok(await run("mouse_move", x=x, y=y))

    @mcp.tool(structured_output=False)
    async def click(
        x: int | None = None, y: int | None = None, button: str = "left", count: int = 1, modifiers: str | None = None
    ) -> str:
        """Click at (x, y) (or where the pointer is). button: left, middle, right, back, forward;
        modifiers ('shift', 'ctrl') are held around the click."""
        return ok(await run("click", x=x, y=y, button=button, count=count, modifiers=modifiers))

    @mcp.tool(structured_output=False)
    async def double_click(
        x: int | None = None, y: int | None = None, button: str = "left", modifiers: str | None = None
    ) -> str:
        """Double-click at (x, y)."""
        return ok(await run("double_click", x=x, y=y, button=button, modifiers=modifiers))

    @mcp.tool(structured_output=False)
    async def drag(path: list[list[int]], button: str = "left", duration_s: float = 0.3) -> str:
        """Press at path[0], move through each [x, y] point, release at the last."""
        return ok(await run("drag", path=path, button=button, duration_s=duration_s))

    @mcp.tool(structured_output=False)
    async def scroll(
        x: int | None = None, y: int | None = None, dx: int = 0, dy: int = 0, modifiers: str | None = None
    ) -> str:
        """Scroll the wheel at (x, y): dy > 0 down, dy < 0 up, dx > 0 right (in wheel clicks)."""
        return ok(await run("scroll", x=x, y=y, dx=dx, dy=dy, modifiers=modifiers))

    @mcp.tool(structured_output=False)
    async def mouse_down(button: str = "left", x: int | None = None, y: int | None = None) -> str:
        """Press a mouse button (optionally after moving to (x, y))."""
        return ok(await run("mouse_down", button=button, x=x, y=y))

    @mcp.tool(structured_output=False)
    async def mouse_up(button: str = "left", x: int | None = None, y: int | None = None) -> str:
        """Release a mouse button (optionally after moving to (x, y))."""
        return ok(await run("mouse_up", button=button, x=x, y=y))

    @mcp.tool(structured_output=False)
    async def cursor_position() -> str:
        """The pointer's screen position as [x, y]."""
        return json.dumps(list(await run("cursor_position")))

    @mcp.tool(structured_output=False)
    async def wait(seconds: float) -> str:
        """Let this many seconds of task time pass."""
        return ok(await run("wait", seconds=seconds))

    @mcp.tool(structured_output=False)
    async def elapsed() -> str:
        """Seconds of task time since the episode started."""
        return json.dumps(await run("elapsed"))

    @mcp.tool(structured_output=False)
    async def list_files() -> str:
        """Files in your folder (task inputs under input/, read-only) as JSON [{path, bytes, writable}]."""
        return json.dumps(await run("list_files"))

    @mcp.tool(structured_output=False)
    async def read_file(path: str, encoding: str = "text") -> str:
        """A file in your folder, e.g. 'input/load.json'; encoding 'base64' for PDFs and images."""
        return str(await run("read_file", path=path, encoding=encoding))

    @mcp.tool(structured_output=False)
    async def write_file(path: str, text: str) -> str:
        """Write a text file into your folder (e.g. 'answer.json' when the task asks for it)."""
        return ok(await run("write_file", path=path, text=text))

    @mcp.tool(structured_output=False)
    async def done(reason: str = "") -> str:
        """Declare the task complete; ends the episode."""
        return ok(await run("done", reason=reason))

    @mcp.tool(structured_output=False)
    async def give_up(reason: str = "") -> str:
        """Stop without completing the task; ends the episode."""
        return ok(await run("give_up", reason=reason))

    return mcp


def _brief_text(port: AgentPort) -> str:
    from simbridge._agent_port._brief import TaskBrief

    return TaskBrief.model_validate(port.brief).text() if port.brief else ""


class ClientWatch:
    """ASGI middleware in front of the MCP app: checks the bearer token and watches whether an
    agent is connected, so the runner can tell an agent that went away from one that thinks.

    A client is connected from its first request on. A session-based client (the initialize
    handshake of MCP before 2026-07-28) has left when it closes its session (DELETE) or, when it
    holds the server's event stream open (GET, as the official SDK does in that mode), when that
    stream closes with no request in flight. The stateless protocol (2026-07-28, the official
    SDK's default) has no connection to lose: there silence is the only sign, so `idle_for_s`
    says how long no request has been in flight. A new request undoes either."""

    def __init__(self, app: Any, *, token: str | None = None, clock: Any = None) -> None:
        import time

        self.app, self.token = app, token
        self._now = clock or time.monotonic
        self.seen_client = threading.Event()
        self.in_flight = 0
        self.streams = 0
        self.had_stream = False
        self.left_at: float | None = None
        self.last_active: float | None = None
        self.rejected = 0
        self._lock = threading.Lock()

    def gone_for_s(self) -> float:
        """Seconds since the client left (0 while it is connected or has not come yet)."""
        with self._lock:
            return 0.0 if self.left_at is None else self._now() - self.left_at

    def idle_for_s(self) -> float:
        """Seconds with no request in flight since the last one ended (0 while one runs or before the first)."""
        with self._lock:
            if self.last_active is None or self.in_flight > 0:
                return 0.0
            return self._now() - self.last_active

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if self.token is not None and headers.get("authorization", "") != f"Bearer {self.token}":
            self.rejected += 1
            body = json.dumps({"error": "unauthorized: this agent port needs 'Authorization: Bearer <token>'"}).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        method = scope.get("method", "")
        with self._lock:
            self.in_flight += 1
            self.left_at = None
            if method == "GET":
                self.streams += 1
                self.had_stream = True
        self.seen_client.set()
        try:
            await self.app(scope, receive, send)
        finally:
            with self._lock:
                self.in_flight -= 1
                self.last_active = self._now()
                if method == "GET":
                    self.streams -= 1
                if method == "DELETE" or (self.had_stream and self.streams == 0 and self.in_flight == 0):
                    self.left_at = self._now()


class McpPortServer:
    """Serves an AgentPort over streamable HTTP at `http://HOST:PORT/mcp` on a background thread.

    `tcp_port=0` picks a free port; a fixed one lets an agent started separately know the URL.
    With `token`, every request must carry `Authorization: Bearer TOKEN` (for remote agents)."""

    def __init__(
        self, port: AgentPort, *, host: str = "127.0.0.1", tcp_port: int = 0, token: str | None = None
    ) -> None:
        self.agent_port = port
        self.host = host
        self.token = token
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self._sock.bind((host, tcp_port))
        except OSError as exc:
            self._sock.close()
            raise HarnessError(f"agent port: cannot listen on {host}:{tcp_port}: {exc.strerror or exc}") from None
        self.tcp_port = self._sock.getsockname()[1]
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        self.url = f"http://{shown}:{self.tcp_port}/mcp"
        self.watch: ClientWatch | None = None
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def start(self, timeout_s: float = 15.0) -> "McpPortServer":
        import uvicorn

        app = build_server(self.agent_port).streamable_http_app(host=self.host)
        self.watch = ClientWatch(app, token=self.token)
        config = uvicorn.Config(self.watch, log_level="warning", lifespan="on")
        self._server = uvicorn.Server(config)

        def serve() -> None:
            try:
                asyncio.run(self._server.serve(sockets=[self._sock]))
            except BaseException as exc:  # reported by start()
                self._error = exc

        self._thread = threading.Thread(target=serve, name="agent-port-mcp", daemon=True)
        self._thread.start()
        import time

        t_end = time.monotonic() + timeout_s
        while not self._server.started:
            if self._error is not None or not self._thread.is_alive():
                raise HarnessError(f"agent port MCP server failed to start: {self._error}")
            if time.monotonic() > t_end:
                raise HarnessError("agent port MCP server did not start in time")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(5)
        try:
            self._sock.close()
        except OSError:
            pass
