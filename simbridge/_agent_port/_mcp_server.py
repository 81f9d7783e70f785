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

from simbridge._agent_port._port import AgentPort
from simbridge._errors import HarnessError

INSTRUCTIONS = (
    "You control a computer screen showing a simulator. Observe with `screenshot`; act with "
    "`key`, `type`, `click`, `drag`, `scroll` and the other mouse tools (screen pixel coordinates); "
    "`wait` lets task time pass. Task documents are in your folder under input/ (`list_files`, "
    "`read_file`); write requested work products there with `write_file` (e.g. answer.json). "
    "Call `done` when the task is complete or `give_up` to stop."
)


def build_server(port: AgentPort) -> Any:
    """An MCPServer whose tools run actions on `port`."""
    import anyio
    from mcp.server.mcpserver import Image, MCPServer

    mcp = MCPServer("simbridge-agent-port", instructions=INSTRUCTIONS, log_level="WARNING")

    from mcp.server.mcpserver.exceptions import ToolError

    from simbridge._errors import SimbridgeError

    async def run(kind: str, **args: Any) -> Any:
        try:
            return await anyio.to_thread.run_sync(lambda: port.execute(kind, args))
        except SimbridgeError as exc:  # the agent's mistake or the episode's end: tell the agent why
            raise ToolError(str(exc)) from exc

    def ok(value: Any = None) -> str:
        return json.dumps({"ok": True} if value is None else value)

    @mcp.tool(structured_output=False)
    async def screenshot(format: str = "png", scale: float = 1.0, quality: int = 80) -> list[Any]:
        """Capture the whole screen. format: png or jpeg; scale < 1 shrinks the image (click
        coordinates stay in screen pixels: image pixel / scale)."""
        shot = await run("screenshot", format=format, scale=scale, quality=quality)
        meta = {"width": shot.width, "height": shot.height, "scale": shot.scale, "format": shot.format}
        return [json.dumps(meta), Image(data=shot.data, format=shot.format)]

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
    async def type_(text: str) -> str:
        """Type text as key presses."""
        return ok(await run("type", text=text))

    @mcp.tool(structured_output=False)
    async def mouse_move(x: int, y: int) -> str:
        """Move the pointer to screen pixel (x, y)."""
        return ok(await run("mouse_move", x=x, y=y))

    @mcp.tool(structured_output=False)
    async def click(x: int | None = None, y: int | None = None, button: str = "left", count: int = 1) -> str:
        """Click at (x, y) (or where the pointer is). button: left, middle, right."""
        return ok(await run("click", x=x, y=y, button=button, count=count))

    @mcp.tool(structured_output=False)
    async def double_click(x: int | None = None, y: int | None = None, button: str = "left") -> str:
        """Double-click at (x, y)."""
        return ok(await run("double_click", x=x, y=y, button=button))

    @mcp.tool(structured_output=False)
    async def drag(path: list[list[int]], button: str = "left", duration_s: float = 0.3) -> str:
        """Press at path[0], move through each [x, y] point, release at the last."""
        return ok(await run("drag", path=path, button=button, duration_s=duration_s))

    @mcp.tool(structured_output=False)
    async def scroll(x: int | None = None, y: int | None = None, dx: int = 0, dy: int = 0) -> str:
        """Scroll the wheel at (x, y): dy > 0 down, dy < 0 up, dx > 0 right (in wheel clicks)."""
        return ok(await run("scroll", x=x, y=y, dx=dx, dy=dy))

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


class McpPortServer:
    """Serves an AgentPort over streamable HTTP at `http://HOST:PORT/mcp` on a background thread."""

    def __init__(self, port: AgentPort, *, host: str = "127.0.0.1", tcp_port: int = 0) -> None:
        self.agent_port = port
        self.host = host
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, tcp_port))
        self.tcp_port = self._sock.getsockname()[1]
        self.url = f"http://{host}:{self.tcp_port}/mcp"
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def start(self, timeout_s: float = 15.0) -> "McpPortServer":
        import uvicorn

        app = build_server(self.agent_port).streamable_http_app(host=self.host)
        config = uvicorn.Config(app, log_level="warning", lifespan="on")
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
