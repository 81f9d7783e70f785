"""The agent port's screen and input, behind one seam with two implementations.

- `x11`: the sandbox's X display, reached directly (`ScreenGrabber` grabs with mss, `XInput`
  types through XTEST). The default.
- `guest`: the guest service (`simbridge guest`, `simbridge.guest`) running inside the sandbox
  or guest OS, reached over one authenticated TCP connection per episode: it grabs with mss and
  types and clicks with pyautogui. Any OS the service runs on (Windows for MSFS) can be played.

`AgentPort` only ever uses `transport.screen` (size, screenshot, grab_bgr, close) and
`transport.input` (key_down/key_up/key, type_text, mouse_move, button, click, scroll,
cursor_position, release_all, close), so every front door (MCP, Python client, Inspect,
Gymnasium) works through either.

Selection (`open_transport`): `SIMBRIDGE_AGENT_TRANSPORT=x11|guest`. For `guest`,
`SIMBRIDGE_GUEST_ADDR=HOST:PORT` and `SIMBRIDGE_GUEST_TOKEN_FILE` (or `SIMBRIDGE_GUEST_TOKEN`)
name a running service; without an address the port starts a local service itself, as a
separate process on the sandbox's display, with a fresh token (how the tests run it).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
import zlib
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from simbridge._agent_port._input import click_by_buttons
from simbridge._agent_port._screen import ScreenGrabber
from simbridge._errors import HarnessError, SimbridgeError
from simbridge.guest import _protocol as proto

TRANSPORT_ENV = "SIMBRIDGE_AGENT_TRANSPORT"
ADDR_ENV = "SIMBRIDGE_GUEST_ADDR"
TOKEN_FILE_ENV = "SIMBRIDGE_GUEST_TOKEN_FILE"
TOKEN_ENV = "SIMBRIDGE_GUEST_TOKEN"
ZLIB_ENV = "SIMBRIDGE_GUEST_ZLIB"
#: the guest service's port inside an isolated sandbox the runner starts it in (`for_sandbox`)
GUEST_PORT = 7010
#: how long connecting (and the local service's start) may take before it is a harness fault
CONNECT_TIMEOUT_S = 20.0


class Screen(Protocol):
    @property
    def size(self) -> tuple[int, int]: ...

    def grab_bgr(self) -> np.ndarray: ...

    def screenshot(self, fmt: Any = "png", **kw: Any) -> Any: ...

    def close(self) -> None: ...


class Input(Protocol):
    def key_down(self, combo: str) -> None: ...

    def key_up(self, combo: str) -> None: ...

    def key(self, combo: str, hold_s: float = 0.05, repeat: int = 1) -> None: ...

    def type_text(self, text: str, interval_s: float = 0.03) -> None: ...

    def mouse_move(self, x: int, y: int) -> None: ...

    def cursor_position(self) -> tuple[int, int]: ...

    def button(self, button: str | int, down: bool) -> None: ...

    def click(
        self, button: str | int = "left", count: int = 1, hold_s: float = 0.03, interval_s: float = 0.08
    ) -> None: ...

    def scroll(self, dx: int = 0, dy: int = 0) -> None: ...

    def release_all(self) -> None: ...

    def close(self) -> None: ...


@dataclass
class Transport:
    """One episode's screen and input: `kind` is "x11" or "guest"."""

    kind: str
    screen: Any
    input: Any
    client: GuestClient | None = None

    def close(self) -> None:
        try:
            self.input.close()
        finally:
            self.screen.close()
            if self.client is not None:
                self.client.close()


def x11(display: str) -> Transport:
    from simbridge._agent_port._input import XInput

    return Transport("x11", ScreenGrabber(display), XInput(display))


class GuestClient:
    """The host's one connection to a guest service: authenticated, one request at a time."""

    def __init__(self, addr: str, token: str, *, timeout_s: float = CONNECT_TIMEOUT_S, proc: Any = None) -> None:
        host, _, port = addr.rpartition(":")
        if not host or not port.isdigit():
            raise SimbridgeError(f"guest service address {addr!r} is not HOST:PORT")
        self.addr, self._proc = addr, proc
        #: zlib level the guest compresses frames with: 1 over a network (screen content shrinks
        #: 10-50×), 0 on loopback, where copying 4 MB costs less than compressing it
        #: ($SIMBRIDGE_GUEST_ZLIB=0..9 overrides: raw frames suit a fast LAN, 4 MB is 33 ms at 1 Gbit/s)
        self.zlib_level = 0 if host.strip("[]") in ("127.0.0.1", "::1", "localhost") else 1
        level = os.environ.get(ZLIB_ENV, "").strip()
        if level:
            if not (level.isdigit() and 0 <= int(level) <= 9):
                raise SimbridgeError(f"${ZLIB_ENV}={level!r}: not a zlib level 0..9")
            self.zlib_level = int(level)
        self._lock = threading.Lock()
        t_end = time.monotonic() + timeout_s
        while True:
            try:
                self._sock = socket.create_connection((host.strip("[]"), int(port)), timeout=5)
                break
            except OSError as exc:
                if time.monotonic() > t_end:
                    raise HarnessError(f"guest service {addr}: cannot connect: {exc}") from None
                time.sleep(0.1)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            hello, _ = proto.recv(self._sock)
            if hello.get("service") != proto.SERVICE or hello.get("version") != proto.VERSION:
                raise HarnessError(
                    f"guest service {addr}: not a simbridge guest service v{proto.VERSION}: {hello!r:.200}"
                )
            mine = proto.new_nonce()
            proto.send(
                self._sock, {"op": "auth", "mac": proto.mac(token, "host", str(hello.get("nonce"))), "nonce": mine}
            )
            reply, _ = proto.recv(self._sock)
        except (OSError, proto.ProtocolError) as exc:
            self._sock.close()
            raise HarnessError(f"guest service {addr}: handshake failed: {exc}") from None
        if not reply.get("ok"):
            self._sock.close()
            raise HarnessError(f"guest service {addr} refused the episode's token: {reply.get('error')}")
        if not proto.check_mac(token, "guest", mine, reply.get("mac")):
            self._sock.close()
            raise HarnessError(f"guest service {addr} did not prove it holds the episode's token")
        self._sock.settimeout(None)
        self.screen_size = (int(reply["screen"][0]), int(reply["screen"][1]))
        self.platform = str(reply.get("platform", ""))

    def call(self, op: str, **args: Any) -> tuple[dict[str, Any], bytes | None]:
        with self._lock:
            try:
                proto.send(self._sock, {"op": op, **args})
                reply, payload = proto.recv(self._sock)
            except (OSError, proto.ProtocolError) as exc:
                raise HarnessError(f"guest service {self.addr}: connection lost during {op}: {exc}") from None
        if not reply.get("ok"):
            err = str(reply.get("error", "failed"))
            raise (HarnessError if reply.get("fault") else SimbridgeError)(f"guest service: {op}: {err}")
        return reply, payload

    def close(self) -> None:
        try:
            self._sock.close()
        except OSError:
            pass
        if self._proc is not None:
            self._proc.terminate()
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(5)


class GuestScreen(ScreenGrabber):
    """The guest's screen: grabbed there (mss), encoded here exactly as the X11 path encodes."""

    def __init__(self, client: GuestClient) -> None:
        super().__init__(client.addr)
        self.client = client

    @property
    def size(self) -> tuple[int, int]:
        return self.client.screen_size

    def grab_bgr(self) -> np.ndarray:
        import cv2

        reply, payload = self.client.call("grab", zlib=self.client.zlib_level)
        data = zlib.decompress(payload or b"") if reply.get("zlib") else (payload or b"")
        w, h = int(reply["w"]), int(reply["h"])
        bgra = np.frombuffer(data, np.uint8).reshape(h, w, 4)
        self.client.screen_size = (w, h)
        return cv2.cvtColor(bgra, cv2.COLOR_BGRA2BGR)

    def close(self) -> None:
        pass


class GuestInput:
    """The guest's keyboard and mouse (pyautogui there), with XInput's methods."""

    def __init__(self, client: GuestClient) -> None:
        self.client = client

    def key_down(self, combo: str) -> None:
        self.client.call("key_down", keys=combo)

    def key_up(self, combo: str) -> None:
        self.client.call("key_up", keys=combo)

    def key(self, combo: str, hold_s: float = 0.05, repeat: int = 1) -> None:
        for _ in range(max(1, int(repeat))):
            self.client.call("key", keys=combo, hold_s=float(hold_s))

    def type_text(self, text: str, interval_s: float = 0.03) -> None:
        self.client.call("type", text=text, interval_s=float(interval_s))

    def mouse_move(self, x: int, y: int) -> None:
        self.client.call("move", x=int(x), y=int(y))

    def cursor_position(self) -> tuple[int, int]:
        reply, _ = self.client.call("position")
        return int(reply["position"][0]), int(reply["position"][1])

    def button(self, button: str | int, down: bool) -> None:
        names = {1: "left", 2: "middle", 3: "right", 4: "wheel_up", 5: "wheel_down", 6: "wheel_left", 7: "wheel_right"}
        self.client.call(
            "button", button=names.get(button, str(button)) if isinstance(button, int) else button, down=down
        )

    def click(self, button: str | int = "left", count: int = 1, hold_s: float = 0.03, interval_s: float = 0.08) -> None:
        click_by_buttons(self.button, button, count, hold_s, interval_s)

    def scroll(self, dx: int = 0, dy: int = 0) -> None:
        self.client.call("scroll", dx=int(dx), dy=int(dy))

    def release_all(self) -> None:
        self.client.call("release_all")

    def close(self) -> None:
        try:
            self.release_all()
        except SimbridgeError:
            pass


def guest(addr: str, token: str, *, proc: Any = None) -> Transport:
    client = GuestClient(addr, token, proc=proc)
    return Transport("guest", GuestScreen(client), GuestInput(client), client)


def spawn_local_guest(display: str, *, timeout_s: float = CONNECT_TIMEOUT_S) -> Transport:
    """Start `simbridge guest` as a separate process on `display` (127.0.0.1, a free port, a
    fresh token given on its stdin) and connect to it; the process ends with the transport."""
    import secrets

    token = secrets.token_hex(32)
    env = {**os.environ, "DISPLAY": display}
    env.pop(TOKEN_ENV, None)
    cmd = [sys.executable, "-m", "simbridge._cli", "guest", "--listen", "127.0.0.1:0", "--token-stdin", "--once"]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(token + "\n")
    proc.stdin.close()
    line = ""
    box: list[str] = []
    reader = threading.Thread(target=lambda: box.append(proc.stdout.readline() if proc.stdout else ""), daemon=True)
    reader.start()
    reader.join(timeout_s)
    line = box[0] if box else ""
    if "listening on " not in line:
        proc.kill()
        proc.wait(5)
        raise HarnessError(
            f"local guest service on {display} did not start (exit {proc.returncode}, said {line!r:.200})"
        )
    addr = line.rsplit("listening on ", 1)[1].strip()
    try:
        return guest(addr, token, proc=proc)
    except BaseException:
        proc.kill()
        proc.wait(5)
        raise


def guest_port_needed() -> bool:
    """Whether an isolated sandbox must open GUEST_PORT to the host (like a state port): the
    guest transport is chosen and no running service is named."""
    kind = (os.environ.get(TRANSPORT_ENV) or "x11").strip().lower()
    return kind == "guest" and not os.environ.get(ADDR_ENV, "").strip()


def for_sandbox(sandbox: Any, *, timeout_s: float = CONNECT_TIMEOUT_S) -> Transport | None:
    """The runner's transport for a provider's sandbox. None (AgentPort picks: X11, or a local
    guest service) unless the guest transport is chosen for a sandbox that starts the guest
    service itself (its `guest_start`) and no running service is named: then `simbridge guest` is started *inside* it, as
    the simulator's user on its display, listening on GUEST_PORT (which the provider opened to
    the host, `guest_port_needed`), with a fresh token on its stdin, and reached at the
    sandbox's address."""
    start = getattr(sandbox, "guest_start", "")
    if not guest_port_needed() or start not in ("stdio", "supervisor") or sandbox.spawn is None:
        return None
    import secrets

    token = secrets.token_hex(32)
    argv = [sandbox.python, "-m", "simbridge._cli", "guest", "--listen", f"0.0.0.0:{GUEST_PORT}", "--token-stdin"]
    if start == "supervisor":
        return _vm_guest(sandbox, argv + ["--once"], token, timeout_s * sandbox.timeout_scale)
    proc = sandbox.spawn(argv + ["--once"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        proc.stdin.write(token + "\n")
        proc.stdin.close()
        box: list[str] = []
        reader = threading.Thread(target=lambda: box.append(proc.stdout.readline()), daemon=True)
        reader.start()
        reader.join(timeout_s)
        if not box or "listening on " not in box[0]:
            raise HarnessError(f"guest service in the sandbox did not start (said {(box or [''])[0]!r:.200})")
        return guest(f"{sandbox.host_addr}:{GUEST_PORT}", token, proc=proc)
    except BaseException:
        proc.kill()
        raise


def _vm_guest(sandbox: Any, argv: list[str], token: str, timeout_s: float) -> Transport:
    """The guest service inside a VM guest: started by the guest supervisor as the simulator's
    user on the guest's display, the token handed over the supervisor's channel (its stdin, never
    its argv); reached through the port QEMU forwards to the host's loopback. QEMU accepts a
    forwarded connection before anything listens in the guest, so the service's log is read
    until it says it listens."""
    proc = sandbox.spawn(argv, name="simbridge-guest", input=token + "\n")
    t_end = time.monotonic() + timeout_s
    said = ""
    try:
        while "listening on " not in said:
            if proc.poll() is not None or time.monotonic() > t_end:
                raise HarnessError(
                    f"guest service in the VM did not start (exit {proc.returncode}, said {said!r:.300})"
                )
            time.sleep(0.3)
            said = proc.log_tail(2000)
        host, port = sandbox.forward(GUEST_PORT)
        transport = guest(f"{host}:{port}", token, proc=proc)
        if transport.client is not None and not os.environ.get(ZLIB_ENV, "").strip():
            # the forwarded loopback port crosses QEMU's user-mode network (a few MB/s), not
            # loopback: frames are compressed in the guest as over a network
            transport.client.zlib_level = 1
        return transport
    except BaseException:
        proc.kill()
        raise


def open_transport(display: str, kind: str | None = None) -> Transport:
    """The transport `kind` (default: $SIMBRIDGE_AGENT_TRANSPORT, else x11) for `display`."""
    kind = (kind or os.environ.get(TRANSPORT_ENV) or "x11").strip().lower()
    if kind == "x11":
        return x11(display)
    if kind != "guest":
        raise SimbridgeError(f"${TRANSPORT_ENV}={kind!r}: not a transport (x11 or guest)")
    addr = os.environ.get(ADDR_ENV, "").strip()
    if not addr:
        return spawn_local_guest(display)
    token_file = os.environ.get(TOKEN_FILE_ENV, "").strip()
    if token_file:
        from simbridge._inputs import read_input_text

        try:
            token = read_input_text(token_file, "a token file", limit=64 << 10).strip()
        except SimbridgeError as exc:
            raise SimbridgeError(f"${TOKEN_FILE_ENV}={exc}") from None
    else:
        token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        raise SimbridgeError(f"${ADDR_ENV} is set but no token: set ${TOKEN_FILE_ENV} or ${TOKEN_ENV}")
    return guest(addr, token)
