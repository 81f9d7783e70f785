"""The agent port served as MCP tools (official `mcp` SDK, streamable HTTP on a TCP port).

One tool per action of the vocabulary, generated from the action table (`_actions`, through
`_generate.tool_function`), plus `computer` in the computer-use schema; `screenshot` returns an image content block plus a JSON
text block with its size and scale. Tools run the (blocking) action in a worker thread so a
long `wait` never stalls other requests.
"""

from __future__ import annotations

import asyncio
import functools
import hmac
import json
import secrets
import socket
import threading
import time
from typing import Any

from simbridge._agent_port import _actions
from simbridge._agent_port._generate import tool_function
from simbridge._agent_port._port import AgentPort
from simbridge._agent_port._screen import Screenshot
from simbridge._errors import HarnessError, SimbridgeError, error_loc

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

#: largest encoded image in one tool result: its base64 (4/3 of it) plus the JSON around it stays
#: under the MCP SDK clients' 1 MiB limit on one server-sent event
MAX_IMAGE_BYTES = 700_000


def new_token() -> str:
    """A per-episode bearer token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def _one_line(text: str, n: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


#: what the MCP `computer` tool says of itself (its arguments are described by the table)
COMPUTER_DOC = (
    "Computer-use actions in Anthropic's and Inspect AI's schema: key (repeat), hold_key, type (press_enter; "
    "coordinate clicks first), cursor_position, mouse_move, left_mouse_down, left_mouse_up, left_click, "
    "left_click_drag, right_click, middle_click, back_click, forward_click, double_click, triple_click, scroll "
    "(scroll_direction up/down/left/right, scroll_amount; `text` holds modifier keys), wait (duration in s), "
    "screenshot, zoom (region [x0, y0, x1, y1]); `actions` runs a list of them. Keys in xdotool spelling. "
    "Every action returns the screen after it. Coordinates are in the screenshots' pixels."
)


def build_server(
    port: AgentPort,
    *,
    session: Any = lambda: None,
    computer_screenshot: bool = True,
    max_image_bytes: int | None = MAX_IMAGE_BYTES,
) -> Any:
    """An MCPServer whose tools run actions on `port`: one per action of the vocabulary, generated
    from the action table, plus `computer`, the `task` prompt and the simbridge://task resource.

    `session()` names the client that acts (the MCP session the episode is bound to), written
    into each action's line in actions.jsonl. `computer_screenshot`: the `computer` tool returns
    the screen after each action (as Anthropic's reference computer-use loop does).
    `max_image_bytes`: screenshots larger than this are re-encoded smaller (same format)."""
    return PortTools(
        port, session=session, computer_screenshot=computer_screenshot, max_image_bytes=max_image_bytes
    ).server()


def _ok(value: Any = None) -> str:
    return json.dumps({"ok": True} if value is None else value)


def _fit_note(shot: Any, asked: float) -> str:
    """What a screenshot shrunk below the asked scale (to fit the transport) says about it."""
    if shot.scale >= asked - 1e-9:
        return ""
    return (
        f"scaled to {shot.scale:.4g} to fit the transport's message limit: screen pixel = image pixel / "
        f"{shot.scale:.4g} (ask for jpeg or a smaller scale for a sharper image)"
    )


def _image(shot: Any, note: str = "") -> list[Any]:
    """A screenshot as tool content: its size and scale as JSON, then the image."""
    from mcp.server.mcpserver import Image

    meta: dict[str, Any] = {"width": shot.width, "height": shot.height, "scale": shot.scale, "format": shot.format}
    if note:
        meta["note"] = note
    return [json.dumps(meta), Image(data=shot.data, format=shot.format)]


class PortTools:
    """The MCP face of one AgentPort: runs each tool call as port actions (in a worker thread) and
    turns their results into tool content by the table's return kind."""

    def __init__(
        self,
        port: AgentPort,
        *,
        session: Any = lambda: None,
        computer_screenshot: bool = True,
        max_image_bytes: int | None = MAX_IMAGE_BYTES,
    ) -> None:
        self.port = port
        self.session = session
        self.computer_screenshot = computer_screenshot
        self.max_image_bytes = max_image_bytes
        #: the `computer` tool's screenshots are scaled down (never up again) when a full one would not
        #: fit the transport; its coordinates are in those images' pixels and mapped back to the screen
        self.computer_scale = 1.0

    def server(self) -> Any:
        """The MCPServer: the `task` prompt and resource, one tool per action, the `computer` tool."""
        brief_text = _brief_text(self.port)
        instructions = INSTRUCTIONS + ("\n\n" + brief_text if brief_text else "")
        mcp = _refusing_server_class()("simbridge-agent-port", instructions=instructions, log_level="WARNING")
        mcp.port_tools = self
        mcp.prompt(
            name="task", description="The task: instruction for this simulator, documents, time limit, controls"
        )(self.task_prompt)
        mcp.resource(
            "simbridge://task",
            name="task",
            mime_type="application/json",
            description="The task as JSON (what the `task` tool returns)",
        )(self.task_resource)
        for spec in _actions.VOCABULARY.values():
            mcp.add_tool(self.action_tool(spec), name=spec.kind, structured_output=False)
        computer = tool_function("computer", _actions.computer_args("mcp"), self.computer, doc=COMPUTER_DOC)
        mcp.add_tool(computer, name="computer", structured_output=False)
        return mcp

    def task_prompt(self) -> str:
        self.port.first_call.set()
        return _brief_text(self.port) or "no task description"

    def task_resource(self) -> str:
        self.port.first_call.set()
        return json.dumps(self.port.brief or {})

    async def run(self, kind: str, **args: Any) -> Any:
        """One port action in a worker thread; a refusal or fault raised as the tool's error."""
        import anyio
        from mcp.server.mcpserver.exceptions import ToolError

        try:
            return await anyio.to_thread.run_sync(
                lambda: self.port.execute(kind, args, session=self.session(), max_image_bytes=self.max_image_bytes)
            )
        except SimbridgeError as exc:  # the agent's mistake, the episode's state or a harness fault: say which
            raise ToolError(_one_line(str(exc), 500)) from exc

    def action_tool(self, spec: _actions.ActionSpec) -> Any:
        """The tool function of one action, its signature and description from the table."""

        async def act(**args: Any) -> Any:
            return self.encode(spec, args, await self.run(spec.kind, **args))

        returns = list[Any] if spec.returns.encoding == "image" else str
        return tool_function(spec.kind, spec.params, act, doc=spec.doc, returns=returns)

    def encode(self, spec: _actions.ActionSpec, args: dict[str, Any], result: Any) -> Any:
        """An action's result as tool content, by its return kind."""
        encoding = spec.returns.encoding
        if encoding == "image":
            scale = args.get("scale", 1.0)
            return _image(result, _fit_note(result, scale if isinstance(scale, (int, float)) else 1.0))
        if encoding == "text":
            return str(result)
        if encoding == "brief":
            return json.dumps({**dict(result), "text": _brief_text(self.port)})
        return _ok(result)

    async def computer(self, **given: Any) -> Any:
        """The `computer` tool: one computer-use call as its port actions, answered with the last one's
        result or (`computer_screenshot`) the screen after it."""
        args = {k: v for k, v in given.items() if v is not None}
        out, calls = await self._computer_actions(args)
        if isinstance(out, Screenshot):
            zoomed = calls[-1][0] == "screenshot" and "region" in calls[-1][1]
            return _image(out, "" if zoomed else _fit_note(out, 1.0))
        if isinstance(out, tuple):
            scale = self.computer_scale
            return json.dumps({"x": round(out[0] * scale), "y": round(out[1] * scale)})
        if self.computer_screenshot and not self.port.over:
            shot = await self.run("screenshot", scale=self.computer_scale)
            self.computer_scale = min(self.computer_scale, shot.scale)
            return _image(shot, _fit_note(shot, 1.0))
        return _ok()

    async def _computer_actions(self, args: dict[str, Any]) -> tuple[Any, list[tuple[str, dict[str, Any]]]]:
        """One computer-tool call's port actions, run in turn: the last one's result, and the actions."""
        from mcp.server.mcpserver.exceptions import ToolError

        scale = self.computer_scale
        try:
            calls = _actions.computer_call(args, scale)
        except SimbridgeError as exc:
            msg = _one_line(str(exc))
            self.port.refuse("computer", args, msg, session=self.session())
            raise ToolError(msg) from None
        out: Any = None
        for kind, kw in calls:
            if kind == "screenshot" and "region" not in kw and scale < 1.0:
                kw = {**kw, "scale": scale}
            out = await self.run(kind, **kw)
            if kind == "screenshot" and "region" not in kw:
                self.computer_scale = min(self.computer_scale, out.scale)
        return out, calls


@functools.cache
def _refusing_server_class() -> Any:
    """MCPServer whose every refused call is the agent's mistake: one line back, one line in
    actions.jsonl (through its `port_tools`)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from pydantic import ValidationError

    class RefusingServer(MCPServer):
        port_tools: PortTools

        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                cause = exc.__cause__
                if isinstance(cause, (SimbridgeError, ToolError)):
                    raise  # raised by a tool function: the port has logged it
                if isinstance(cause, ValidationError):
                    why = "; ".join(f"{error_loc(e['loc'], top='arguments')}: {e['msg']}" for e in cause.errors()[:3])
                    msg = _one_line(f"{name}: invalid arguments: {why}")
                elif str(exc).startswith("Unknown tool"):
                    msg = _one_line(f"unknown tool {name!r} (tools/list shows the tools)")
                else:
                    msg = _one_line(f"{name}: {exc}")
                tools = self.port_tools
                tools.port.refuse(name, arguments, msg, session=tools.session())
                raise ToolError(msg) from None

    return RefusingServer


def _brief_text(port: AgentPort) -> str:
    from simbridge._agent_port._brief import TaskBrief

    return TaskBrief.model_validate(port.brief).text() if port.brief else ""


class ClientWatch:
    """ASGI middleware in front of the MCP app: admits one agent and watches whether it is
    connected, so the runner can tell an agent that went away from one that thinks.

    Admission (one agent per episode): with a `token`, every request must carry
    `Authorization: Bearer TOKEN` (else HTTP 401). The episode is bound to the first
    authenticated session: a session-based client (the initialize handshake of MCP before
    2026-07-28) by the `Mcp-Session-Id` the server gives it; a client of the stateless protocol
    (2026-07-28), which has no session, by its network address. Once bound, a second session (a
    new initialize, another session id, a stateless request beside a session or from another
    address) gets HTTP 403. Every refusal is kept in `refusals` (t_wall, peer, reason), for
    episode.json. Without a token (opted out) any client on the network is admitted and bound
    the same way.

    A client is connected from its first request on. A session-based client has left when it
    closes its session (DELETE) or, when it holds the server's event stream open (GET, as the
    official SDK does in that mode), when that stream closes with no request in flight. The
    stateless protocol has no connection to lose: there silence is the only sign, so
    `idle_for_s` says how long no request has been in flight. A new request undoes either."""

    #: refusals kept for episode.json (later ones are only counted)
    MAX_REFUSALS_KEPT = 200

    def __init__(self, app: Any, *, token: str | None = None, clock: Any = None) -> None:
        self.app, self.token = app, token
        self._now = clock or time.monotonic
        self.seen_client = threading.Event()
        self.in_flight = 0
        self.streams = 0
        self.had_stream = False
        self.left_at: float | None = None
        self.last_active: float | None = None
        self.rejected = 0
        #: requests refused: {t_wall, peer, reason, method}
        self.refusals: list[dict[str, Any]] = []
        #: what the episode is bound to: None, ("pending", peer), ("session", id), ("stateless", host)
        self.bound: tuple[str, str] | None = None
        #: the bound client as written into actions.jsonl ("mcp-session:1a2b3c4d", "mcp-stateless@127.0.0.1")
        self.label: str | None = None
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

    def _refuse_note(self, peer: str, method: str, reason: str) -> None:
        with self._lock:
            self.rejected += 1
            if len(self.refusals) < self.MAX_REFUSALS_KEPT:
                self.refusals.append(
                    {"t_wall": round(time.time(), 4), "peer": peer, "method": method, "reason": reason}
                )

    def _admit(self, headers: dict[str, str], peer_host: str) -> str | None:
        """Bind the episode to this request's session or check that it is the bound one: the
        reason it is refused, or None."""
        from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

        pv = headers.get("mcp-protocol-version")
        stateless = pv is not None and pv not in HANDSHAKE_PROTOCOL_VERSIONS
        sid = headers.get("mcp-session-id")
        with self._lock:
            bound = self.bound
            if bound is None:
                if stateless:
                    self.bound, self.label = ("stateless", peer_host), f"mcp-stateless@{peer_host}"
                    return None
                if sid is None:  # a new session's initialize: bound once the server names the session
                    self.bound = ("pending", peer_host)
                    return None
                return "unknown session id (no session is open)"
            kind, value = bound
            if kind == "stateless":
                if not stateless:
                    return f"the episode is bound to a stateless client at {value}: a second session is refused"
                if peer_host != value:
                    return f"the episode is bound to the client at {value}; a request from {peer_host} is refused"
                return None
            if kind == "pending":
                return "the episode is being bound to another session: a second session is refused"
            if stateless or sid is None:
                return "the episode is bound to another MCP session: a second session is refused"
            if not hmac.compare_digest(sid, value):
                return "the episode is bound to another MCP session: its session id is required"
            return None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        client = scope.get("client") or ("?", 0)
        peer_host, peer = str(client[0]), f"{client[0]}:{client[1]}"
        method = scope.get("method", "")
        if self.token is not None and not hmac.compare_digest(
            headers.get("authorization", "").encode("latin-1"), f"Bearer {self.token}".encode("latin-1")
        ):
            reason = "no bearer token" if "authorization" not in headers else "wrong bearer token"
            self._refuse_note(peer, method, reason)
            await _http_error(
                send, 401, f"unauthorized ({reason}): this agent port needs 'Authorization: Bearer <token>'"
            )
            return
        refused = self._admit(headers, peer_host)
        if refused is not None:
            self._refuse_note(peer, method, refused)
            await _http_error(send, 403, f"forbidden: {refused}")
            return
        with self._lock:
            self.in_flight += 1
            self.left_at = None
            if method == "GET":
                self.streams += 1
                self.had_stream = True
        self.seen_client.set()
        pending = self.bound is not None and self.bound[0] == "pending"

        async def send_watching(message: Any) -> None:
            if pending and message.get("type") == "http.response.start":
                sid = next(
                    (v.decode("latin-1") for k, v in message.get("headers", []) if k.lower() == b"mcp-session-id"), None
                )
                with self._lock:
                    if self.bound is not None and self.bound[0] == "pending":
                        if sid:
                            self.bound, self.label = ("session", sid), f"mcp-session:{sid[:8]}"
                        else:  # the handshake failed: the next client may bind
                            self.bound = None
            await send(message)

        try:
            await self.app(scope, receive, send_watching)
        finally:
            with self._lock:
                if pending and self.bound is not None and self.bound[0] == "pending":
                    self.bound = None
                self.in_flight -= 1
                self.last_active = self._now()
                if method == "GET":
                    self.streams -= 1
                if method == "DELETE" or (self.had_stream and self.streams == 0 and self.in_flight == 0):
                    self.left_at = self._now()


async def _http_error(send: Any, status: int, text: str) -> None:
    """The refusal as a JSON-RPC error body (MCP SDK clients show its message to the agent)."""
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": text}}).encode()
    headers = [(b"content-type", b"application/json")]
    if status == 401:
        headers.append((b"www-authenticate", b"Bearer"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class McpPortServer:
    """Serves an AgentPort over streamable HTTP at `http://HOST:PORT/mcp` on a background thread.

    `tcp_port=0` picks a free port; a fixed one lets an agent started separately know the URL.
    With `token`, every request must carry `Authorization: Bearer TOKEN`; the runner gives each
    episode a fresh one (`new_token()`) unless the run opts out. The episode is bound to the first
    authenticated session (see `ClientWatch`). `computer_screenshot`: the `computer` tool returns
    the screen after each action."""

    def __init__(
        self,
        port: AgentPort,
        *,
        host: str = "127.0.0.1",
        tcp_port: int = 0,
        token: str | None = None,
        computer_screenshot: bool = True,
        max_image_bytes: int | None = MAX_IMAGE_BYTES,
    ) -> None:
        self.agent_port = port
        self.host = host
        self.token = token
        self.computer_screenshot = computer_screenshot
        self.max_image_bytes = max_image_bytes
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

    def refusals(self) -> list[dict[str, Any]]:
        """The requests refused so far (t_wall, peer, method, reason)."""
        return list(self.watch.refusals) if self.watch is not None else []

    def start(self, timeout_s: float = 15.0) -> "McpPortServer":
        import uvicorn

        def session() -> str | None:
            return self.watch.label if self.watch is not None else None

        app = build_server(
            self.agent_port,
            session=session,
            computer_screenshot=self.computer_screenshot,
            max_image_bytes=self.max_image_bytes,
        ).streamable_http_app(host=self.host)
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
