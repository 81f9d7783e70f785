"""The guest service: screen capture (mss) and keyboard/mouse (pyautogui) served to the host.

Runs inside the sandbox or guest OS, next to the simulator, as one small process. It listens on
one TCP address; the host opens one connection per episode and authenticates with that
episode's token (see `_protocol`). Built to be exposed on a lab network:

- every connection is served in its own thread, so a silent or slow peer holds only itself;
  at most `MAX_PENDING` connections may be authenticating at once (a newcomer past that drops
  the oldest one, from the address with the most, so a flood cannot lock the host out) and at
  most `MAX_SESSIONS` may be authenticated (another is refused with "busy", at once);
- the whole handshake has one deadline (`HANDSHAKE_TIMEOUT_S`), however the bytes trickle in;
  before authentication a frame is at most `MAX_AUTH_FRAME` bytes, never carries a payload,
  and is checked for nesting before it is parsed, so an unauthenticated peer costs kilobytes;
- after authentication a request is at most `MAX_REQUEST_FRAME` bytes and must arrive whole
  within `FRAME_TIMEOUT_S` once begun; each request is checked field by field (types, ranges:
  `MAX_HOLD_S`, `MAX_SCROLL`, `MAX_TYPE_CHARS`, ...) before the desktop is touched, and a bad one
  is answered `{"ok": false, "error": "bad request ..."}` (the agent's input, never `"fault"`);
- long actions (holds, typing, scrolling) are cut short when the host closes the connection or
  the service stops, releasing what they pressed;
- a token file emptied or unreadable refuses that connection ("authentication failed"), logged,
  and the service goes on; no connection's failure ends the service.

Requests on one connection are served in order; desktop calls of all connections are serialised.
When a connection closes, every key and button it still holds is released.
"""

from __future__ import annotations

import importlib
import logging
import math
import platform
import selectors
import socket
import sys
import threading
import time
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from simbridge._errors import HarnessError, SimbridgeError
from simbridge.guest import _protocol as proto
from simbridge.guest._keys import combo_keys, to_pyautogui

log = logging.getLogger("simbridge.guest")

#: SDL drops a key's second tap if it comes sooner than this after the first release (as _input)
MIN_TAP_SPACING_S = 0.020
#: X11 only: names added to pyautogui's key table (pyautogui name -> X keysym)
X11_EXTRA_KEYS = {"kp_enter": "KP_Enter"}
#: the whole handshake (hello, the host's proof, the reply) must be over within this
HANDSHAKE_TIMEOUT_S = 10.0
AUTH_TIMEOUT_S = HANDSHAKE_TIMEOUT_S  # the earlier name
#: connections authenticating at once; one more drops the oldest (of the busiest address)
MAX_PENDING = 16
#: authenticated host connections at once (one per episode; more are refused with "busy")
MAX_SESSIONS = 4
#: largest frame before authentication (the host's proof is ~130 bytes)
MAX_AUTH_FRAME = 1024
#: largest request after authentication (a `type` of MAX_TYPE_CHARS astral characters, escaped)
MAX_REQUEST_FRAME = 256 << 10
#: a request longer than MAX_REQUEST_FRAME but at most this is read past (dropped as it comes)
#: and answered as a request error; a longer one ends the connection
MAX_DISCARD = 16 << 20
#: once a request's first byte has arrived, the rest must follow within this
FRAME_TIMEOUT_S = 30.0
#: a reply (a screen grab) the host does not read within this ends the connection
SEND_TIMEOUT_S = 60.0
#: bounds of the input actions (the agent port's own are within them: hold 0-60 s, scroll ±100,
#: 10,000 characters of text, a key combination of 200 characters)
MAX_HOLD_S = 60.0
MAX_SCROLL = 100
MAX_TYPE_CHARS = 10_000
MAX_TYPE_INTERVAL_S = 1.0
MAX_KEYS_CHARS = 200
MAX_COORD = 32767
#: how often a long action looks whether it should stop
_POLL_S = 0.05
#: the port's button names pyautogui can press (wheel buttons become scroll clicks)
_MOUSE = {"left": "left", "middle": "middle", "right": "right"}
_WHEEL = {"wheel_up": (0, 1), "wheel_down": (0, -1), "wheel_left": (-1, 0), "wheel_right": (1, 0)}
#: characters of `type` text pressed as named keys
_TYPED_KEYS = {" ": "space", "\n": "Return", "\r": "Return", "\t": "Tab"}


class BadRequest(SimbridgeError):
    """A request refused before the desktop is touched (wrong type, out of bounds): the sender's
    mistake, answered as a request error."""


class DesktopFault(Exception):
    """The guest's screen or input devices failed (display gone): a fault of the guest."""


class Interrupted(Exception):
    """A long action cut short: the host closed its connection, or the service is stopping."""


class Desktop:
    """The guest's screen and input devices: mss and pyautogui, fail-safe corner off, no pauses.
    Every call to them runs in one worker thread (connections are served in threads of their
    own); a failure inside them is a DesktopFault."""

    def __init__(self) -> None:
        #: the one thread every device call runs in: calls of all connections are serialised, the
        #: libraries see one thread (as Xlib and GDI like), and the screen grabs' large buffers
        #: are made and freed in one place instead of one allocator arena per connection thread
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="guest-desktop")
        self.last_release: dict[str, float] = {}
        try:
            self.worker.submit(self._open).result()
        except BaseException:
            self.worker.shutdown(wait=False)
            raise

    def _open(self) -> None:
        import mss

        # pyautogui imports MouseInfo (a Tk helper app we never use), which calls sys.exit() on a
        # Linux without tkinter; marked absent, pyautogui skips it (it catches the ImportError)
        sys.modules.setdefault("mouseinfo", None)  # type: ignore[arg-type]
        pyautogui: Any = importlib.import_module("pyautogui")  # untyped (no stubs)

        pyautogui.FAILSAFE = False  # the agent may well click a corner of the screen
        pyautogui.PAUSE = 0  # pacing is the host's (its pacer holds keys for simulator time)
        pyautogui.MINIMUM_DURATION = 0
        self.gui = pyautogui
        mapping = getattr(pyautogui.platformModule, "keyboardMapping", None)
        xdisplay = getattr(pyautogui.platformModule, "_display", None)
        if mapping is not None and xdisplay is not None:  # X11: keys pyautogui's table lacks, by keysym
            from Xlib import XK

            for name, keysym in X11_EXTRA_KEYS.items():
                mapping.setdefault(name, xdisplay.keysym_to_keycode(XK.string_to_keysym(keysym)) or None)
        self.known = frozenset(pyautogui.KEYBOARD_KEYS) | frozenset(mapping or ())
        factory = getattr(mss, "MSS", None) or mss.mss
        self.sct = factory()
        # X11: pyautogui silently ignores a key the layout lacks (keycode None); refuse it instead
        self._mapping: dict[str, Any] | None = getattr(pyautogui.platformModule, "keyboardMapping", None)

    def _call(self, what: str, fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        try:
            return self.worker.submit(fn, *args, **kw).result()
        except Exception as exc:
            raise DesktopFault(f"{what}: {type(exc).__name__}: {exc}") from exc

    @property
    def size(self) -> tuple[int, int]:
        mon = self._call("screen size", lambda: self.sct.monitors[0])
        return int(mon["width"]), int(mon["height"])

    def grab(self) -> tuple[int, int, bytes]:
        """The whole screen as BGRA bytes (mss's native layout)."""

        def shot() -> tuple[int, int, bytes]:
            s = self.sct.grab(self.sct.monitors[0])
            return s.width, s.height, bytes(s.bgra)

        return self._call("grab", shot)

    def _checked(self, keys: list[str]) -> list[str]:
        if self._mapping is not None:
            for k in keys:
                if not self._mapping.get(k):
                    raise SimbridgeError(f"key {k!r} is not on the guest's keyboard layout")
        return keys

    def keys(self, combo: str) -> list[str]:
        return self._checked(combo_keys(combo, self.known))

    def char_key(self, ch: str) -> str:
        """The key that types one character of text (space, newline and tab by name)."""
        name = _TYPED_KEYS.get(ch, ch)
        return self._checked([to_pyautogui(name, self.known)])[0]

    def key_down(self, k: str, pause: Callable[[float], None]) -> None:
        last = self.last_release.get(k)
        if last is not None and time.monotonic() - last < MIN_TAP_SPACING_S:
            pause(MIN_TAP_SPACING_S - (time.monotonic() - last))
        self._call("key down", self.gui.keyDown, k, _pause=False)

    def key_up(self, k: str) -> None:
        self._call("key up", self.gui.keyUp, k, _pause=False)
        self.last_release[k] = time.monotonic()

    def move(self, x: int, y: int) -> None:
        self._call("move", self.gui.moveTo, int(x), int(y), _pause=False)

    def position(self) -> tuple[int, int]:
        p = self._call("position", self.gui.position)
        return int(p[0]), int(p[1])

    def mouse(self, button: str, down: bool) -> None:
        def press() -> None:
            x, y = self.gui.position()
            (self.gui.mouseDown if down else self.gui.mouseUp)(x, y, button=_MOUSE[button], _pause=False)

        self._call("button", press)

    def wheel(self, vertical: int, horizontal: int) -> None:
        """One wheel click (pyautogui's sense: vertical > 0 is up)."""
        if vertical:
            self._call("scroll", self.gui.scroll, vertical, _pause=False)
        if horizontal:
            self._call("scroll", self.gui.hscroll, horizontal, _pause=False)


class Hands:
    """One connection's use of the desktop: what it holds (released when it ends) and its pause,
    which raises Interrupted when the host has gone or the service stops."""

    def __init__(self, desk: Desktop, pause: Callable[[float], None]) -> None:
        self.desk, self.pause = desk, pause
        self.held_keys: list[str] = []
        self.held_buttons: set[str] = set()

    def key_down(self, combo: str) -> None:
        for k in self.desk.keys(combo):
            self.desk.key_down(k, self.pause)
            self.held_keys.append(k)

    def key_up(self, combo: str) -> None:
        for k in reversed(self.desk.keys(combo)):
            self.desk.key_up(k)
            if k in self.held_keys:
                self.held_keys.remove(k)

    def _tap(self, keys: list[str], hold_s: float) -> None:
        try:
            for k in keys:
                self.desk.key_down(k, self.pause)
                self.held_keys.append(k)
            self.pause(hold_s)
        finally:  # released even when cut short
            for k in reversed(keys):
                if k in self.held_keys:
                    self.held_keys.remove(k)
                    self.desk.key_up(k)

    def key(self, combo: str, hold_s: float = 0.05) -> None:
        self._tap(self.desk.keys(combo), hold_s)

    def type_text(self, text: str, interval_s: float = 0.03) -> None:
        keys = [self.desk.char_key(ch) for ch in text]  # every character checked before the first is typed
        for k in keys:
            self._tap([k], interval_s / 2)
            self.pause(interval_s / 2)

    def button(self, button: str, down: bool) -> None:
        if button in _WHEEL:
            if down:
                dx, dy = _WHEEL[button]
                self.scroll(-dx, -dy)  # scroll() takes the port's sense: dy > 0 is down
            return
        if button not in _MOUSE:
            raise SimbridgeError(f"button {button!r} cannot be pressed in this guest (pyautogui has no such button)")
        self.desk.mouse(button, down)
        if down:
            self.held_buttons.add(button)
        else:
            self.held_buttons.discard(button)

    def scroll(self, dx: int, dy: int) -> None:
        """Wheel clicks in the port's sense: dy > 0 scrolls down, dx > 0 scrolls right."""
        for _ in range(abs(dy)):
            self.desk.wheel(-1 if dy > 0 else 1, 0)
            self.pause(0.01)
        for _ in range(abs(dx)):
            self.desk.wheel(0, 1 if dx > 0 else -1)
            self.pause(0.01)

    def release_all(self) -> None:
        for k in reversed(list(self.held_keys)):
            try:
                self.desk.key_up(k)
            except DesktopFault:
                pass
        self.held_keys.clear()
        for b in list(self.held_buttons):
            try:
                self.desk.mouse(b, False)
            except DesktopFault:
                pass
        self.held_buttons.clear()


# ---------------------------------------------------------------- requests
def _number(req: dict[str, Any], name: str, default: Any, lo: float, hi: float, *, integer: bool = False) -> Any:
    v = req.get(name, default)
    if v is None or isinstance(v, bool) or not isinstance(v, int if integer else (int, float)):
        raise BadRequest(f"{name} must be {'an integer' if integer else 'a number'}, not {type(v).__name__}")
    if isinstance(v, float) and not math.isfinite(v):
        raise BadRequest(f"{name} must be a finite number")
    if not lo <= v <= hi:
        raise BadRequest(f"{name} {v!r:.40} is outside {lo:g}..{hi:g}")
    return v


def _text(req: dict[str, Any], name: str, limit: int) -> str:
    if name not in req:
        raise BadRequest(f"missing field {name!r}")
    v = req[name]
    if not isinstance(v, str):
        raise BadRequest(f"{name} must be text, not {type(v).__name__}")
    if len(v) > limit:
        raise BadRequest(f"{name} of {len(v)} characters is longer than {limit}")
    return v


def _flag(req: dict[str, Any], name: str) -> bool:
    v = req.get(name)
    if not isinstance(v, bool):
        raise BadRequest(f"{name} must be true or false")
    return v


def check_request(req: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The request's op and its arguments, every field checked (type and bounds) before anything
    is done: BadRequest names the first wrong one."""
    op = req.get("op")
    if not isinstance(op, str):
        raise BadRequest("a request names its op as text")
    if op in ("size", "position", "release_all", "ping"):
        return op, {}
    if op == "grab":
        return op, {"level": _number(req, "zlib", 1, 0, 9, integer=True)}
    if op in ("key_down", "key_up"):
        return op, {"combo": _text(req, "keys", MAX_KEYS_CHARS)}
    if op == "key":
        return op, {
            "combo": _text(req, "keys", MAX_KEYS_CHARS),
            "hold_s": float(_number(req, "hold_s", 0.05, 0.0, MAX_HOLD_S)),
        }
    if op == "type":
        return op, {
            "text": _text(req, "text", MAX_TYPE_CHARS),
            "interval_s": float(_number(req, "interval_s", 0.03, 0.0, MAX_TYPE_INTERVAL_S)),
        }
    if op == "move":
        return op, {
            "x": _number(req, "x", None, -MAX_COORD, MAX_COORD, integer=True),
            "y": _number(req, "y", None, -MAX_COORD, MAX_COORD, integer=True),
        }
    if op == "button":
        return op, {"button": _text(req, "button", 32), "down": _flag(req, "down")}
    if op == "scroll":
        return op, {
            "dx": _number(req, "dx", 0, -MAX_SCROLL, MAX_SCROLL, integer=True),
            "dy": _number(req, "dy", 0, -MAX_SCROLL, MAX_SCROLL, integer=True),
        }
    raise BadRequest(f"unknown op {op[:40]!r}")


def handle(hands: Hands, req: dict[str, Any]) -> tuple[dict[str, Any], bytes | None]:
    """Serve one request: (reply, binary payload or None). A request error (BadRequest, an unknown
    key) is `{"ok": false, "error": ...}`; a DesktopFault or Interrupted propagates."""
    desk = hands.desk
    op, a = check_request(req)
    if op == "size":
        return {"ok": True, "size": list(desk.size)}, None
    if op == "grab":
        w, h, bgra = desk.grab()
        data = zlib.compress(bgra, a["level"]) if a["level"] > 0 else bgra
        return {"ok": True, "w": w, "h": h, "pixels": "bgra", "zlib": a["level"] > 0}, data
    if op == "position":
        return {"ok": True, "position": list(desk.position())}, None
    if op == "ping":
        return {"ok": True, "t": time.time()}, None
    if op == "key_down":
        hands.key_down(a["combo"])
    elif op == "key_up":
        hands.key_up(a["combo"])
    elif op == "key":
        hands.key(a["combo"], a["hold_s"])
    elif op == "type":
        hands.type_text(a["text"], a["interval_s"])
    elif op == "move":
        desk.move(a["x"], a["y"])
    elif op == "button":
        hands.button(a["button"], a["down"])
    elif op == "scroll":
        hands.scroll(a["dx"], a["dy"])
    elif op == "release_all":
        hands.release_all()
    return {"ok": True}, None


def answer(hands: Hands, req: dict[str, Any]) -> tuple[dict[str, Any], bytes | None]:
    """`handle`, its errors as replies: the sender's mistakes plain, the guest's own failures
    `"fault": true` (the host makes those a harness fault, never the agent's)."""
    op = req.get("op")
    name = repr(op[:40]) if isinstance(op, str) else "?"
    try:
        return handle(hands, req)
    except BadRequest as exc:
        return {"ok": False, "error": f"bad request {name}: {exc}"}, None
    except SimbridgeError as exc:  # an unknown key, an unpressable button: the agent's input
        return {"ok": False, "error": str(exc)}, None
    except DesktopFault as exc:
        log.warning("op %s failed: %s", name, exc)
        return {"ok": False, "error": f"guest fault: {exc}", "fault": True}, None
    except Interrupted:
        raise
    except Exception as exc:  # nothing of the desktop failed: the request was one we did not foresee
        log.exception("op %s: unexpected error", name)
        return {"ok": False, "error": f"bad request {name}: {type(exc).__name__}: {str(exc)[:200]}"}, None


# ---------------------------------------------------------------- connections
def _readable(conn: socket.socket, timeout_s: float) -> bool:
    """Whether `conn` has something to read (or its peer closed) within timeout_s; by the
    platform's best selector (epoll, kqueue; select's descriptor limit does not apply)."""
    with selectors.DefaultSelector() as sel:
        sel.register(conn, selectors.EVENT_READ)
        return bool(sel.select(timeout_s))


def _peer_closed(conn: socket.socket) -> bool:
    """Whether the peer has closed its end (readable with nothing to read), without waiting."""
    try:
        if not _readable(conn, 0):
            return False
        conn.settimeout(0)
        try:
            return conn.recv(1, socket.MSG_PEEK) == b""
        finally:
            conn.settimeout(None)
    except BlockingIOError:
        return False
    except (OSError, ValueError):
        return True


class _Conn:
    """One accepted connection and its place in the service's books."""

    def __init__(self, sock: socket.socket, peer: str, ip: str) -> None:
        self.sock, self.peer, self.ip = sock, peer, ip
        self.since = time.monotonic()
        self.authenticated = False
        self.dropped = False

    def drop(self) -> None:
        self.dropped = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class GuestServer:
    """The accept loop's books: live connections, the caps, and the `--once` ending."""

    def __init__(self, token: Callable[[], str], desk: Desktop, stop: threading.Event) -> None:
        self.token, self.desk, self.stop = token, desk, stop
        self.lock = threading.Lock()
        self.live: list[_Conn] = []
        self.served = threading.Event()  # an authenticated connection has closed

    # -------------------------------------------------------------- admission
    def admit(self, sock: socket.socket, addr: Any) -> None:
        peer, ip = f"{addr[0]}:{addr[1]}", str(addr[0])
        c = _Conn(sock, peer, ip)
        with self.lock:
            pending = [x for x in self.live if not x.authenticated and not x.dropped]
            victim = None
            if len(pending) >= MAX_PENDING:
                by_ip: dict[str, int] = {}
                for x in pending:
                    by_ip[x.ip] = by_ip.get(x.ip, 0) + 1
                busiest = max(by_ip.values())
                victim = min((x for x in pending if by_ip[x.ip] == busiest), key=lambda x: x.since)
            self.live.append(c)
        if victim is not None:
            log.warning(
                "dropped connection from %s: %d connections were authenticating (newest from %s)",
                victim.peer,
                MAX_PENDING,
                peer,
            )
            victim.drop()
        try:
            threading.Thread(target=self._serve, args=(c,), name=f"guest {peer}", daemon=True).start()
        except RuntimeError as exc:  # no thread to be had (a flood past the system's limit): this one waits no more
            log.warning("refused connection from %s: %s", peer, exc)
            self._forget(c)
            c.drop()
            sock.close()

    def _forget(self, c: _Conn) -> None:
        with self.lock:
            if c in self.live:
                self.live.remove(c)

    # -------------------------------------------------------------- one connection
    def _serve(self, c: _Conn) -> None:
        try:
            with c.sock:
                c.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                if self._handshake(c):
                    try:
                        self._session(c)
                    finally:
                        self.served.set()
        except (OSError, proto.ProtocolError) as exc:
            if not c.dropped:
                log.warning("connection from %s ended: %s", c.peer, exc)
        except Exception:  # never the service's end: log it, close this one
            log.exception("connection from %s failed", c.peer)
        finally:
            self._forget(c)

    def _refuse(self, c: _Conn, error: str) -> None:
        try:
            c.sock.settimeout(2.0)
            proto.send(c.sock, {"ok": False, "error": error})
        except OSError:
            pass

    def _handshake(self, c: _Conn) -> bool:
        deadline = time.monotonic() + HANDSHAKE_TIMEOUT_S
        nonce = proto.new_nonce()
        c.sock.settimeout(HANDSHAKE_TIMEOUT_S)
        proto.send(c.sock, {"service": proto.SERVICE, "version": proto.VERSION, "nonce": nonce})
        req, _ = proto.recv(c.sock, max_header=MAX_AUTH_FRAME, binary=False, deadline=deadline)
        try:
            token = self.token()
            if not isinstance(token, str) or not token:
                raise SimbridgeError("the token is empty")
        except Exception as exc:  # an emptied or unreadable token file: refuse this one, keep serving
            log.warning("refused connection from %s: no usable token: %s", c.peer, str(exc)[:300])
            self._refuse(c, "authentication failed: the guest service has no usable token")
            return False
        if req.get("op") != "auth" or not proto.check_mac(token, "host", nonce, req.get("mac")):
            log.warning("refused connection from %s: authentication failed (wrong or missing token)", c.peer)
            self._refuse(c, "authentication failed")
            return False
        host_nonce = req.get("nonce")
        if not isinstance(host_nonce, str) or not 0 < len(host_nonce) <= 128 or not host_nonce.isascii():
            log.warning("refused connection from %s: no nonce in its proof", c.peer)
            self._refuse(c, "authentication failed: the proof carries no nonce")
            return False
        with self.lock:
            sessions = sum(1 for x in self.live if x.authenticated and not x.dropped)
            if sessions < MAX_SESSIONS:
                c.authenticated = True
        if not c.authenticated:
            log.warning("refused connection from %s: busy (%d host connections open)", c.peer, sessions)
            self._refuse(c, f"busy: {sessions} host connections are already open")
            return False
        c.sock.settimeout(SEND_TIMEOUT_S)
        proto.send(
            c.sock,
            {
                "ok": True,
                "mac": proto.mac(token, "guest", host_nonce),
                "screen": list(self.desk.size),
                "platform": platform.platform(),
            },
        )
        log.info("host %s authenticated", c.peer)
        return True

    def _pause_for(self, c: _Conn) -> Callable[[float], None]:
        def pause(seconds: float) -> None:
            end = time.monotonic() + max(0.0, seconds)
            while True:
                if self.stop.is_set():
                    raise Interrupted("the guest service is stopping")
                if c.dropped or _peer_closed(c.sock):
                    raise Interrupted("the host closed the connection")
                left = end - time.monotonic()
                if left <= 0:
                    return
                time.sleep(min(left, _POLL_S))

        return pause

    def _wait_readable(self, c: _Conn) -> bool:
        """Wait for the host's next request (as long as it likes); False once the service stops."""
        while not self.stop.is_set():
            if _readable(c.sock, 0.5):
                return True
        return False

    def _session(self, c: _Conn) -> None:
        hands = Hands(self.desk, self._pause_for(c))
        try:
            while self._wait_readable(c):
                try:
                    req, _ = proto.recv(
                        c.sock,
                        max_header=MAX_REQUEST_FRAME,
                        binary=False,
                        deadline=time.monotonic() + FRAME_TIMEOUT_S,
                    )
                except proto.ProtocolError as exc:
                    if exc.closed:
                        return  # the host closed the connection between requests: the episode is over
                    in_sync = exc.in_sync
                    if 0 < exc.unread <= MAX_DISCARD:  # an oversized request: read past it, say why
                        proto.discard(c.sock, exc.unread, time.monotonic() + FRAME_TIMEOUT_S)
                        in_sync = True
                    c.sock.settimeout(SEND_TIMEOUT_S)
                    proto.send(c.sock, {"ok": False, "error": f"bad request: {exc}"})
                    if in_sync:
                        continue  # the frame was read whole: the next one follows
                    log.warning("connection from %s ended: %s", c.peer, exc)
                    return
                try:
                    reply, payload = answer(hands, req)
                except Interrupted as exc:
                    log.info("connection from %s: %s cut short: %s", c.peer, req.get("op"), exc)
                    if self.stop.is_set():
                        c.sock.settimeout(2.0)
                        proto.send(c.sock, {"ok": False, "error": f"guest fault: {exc}", "fault": True})
                    return
                c.sock.settimeout(SEND_TIMEOUT_S)
                proto.send(c.sock, reply, payload)
        finally:
            hands.release_all()

    # -------------------------------------------------------------- the end
    def close_all(self) -> None:
        with self.lock:
            live = list(self.live)
        for c in live:
            c.drop()


def serve(
    host: str,
    port: int,
    token: Callable[[], str],
    *,
    ready: Callable[[str, int], None] = lambda h, p: None,
    stop: threading.Event | None = None,
    once: bool = False,
    desktop: Desktop | None = None,
) -> None:
    """Listen on host:port and serve host connections, each in its own thread (forever, or until
    one authenticated connection has closed with `once`). `token()` is read per connection (a
    per-episode token file may be rewritten between episodes); when it fails, that connection is
    refused and the service goes on."""
    if desktop is None:
        try:
            desktop = Desktop()
        except ImportError:
            raise
        except Exception as exc:  # no display (pyautogui reads $DISPLAY at import), no screen to grab
            raise HarnessError(f"cannot open this machine's screen and input: {type(exc).__name__}: {exc}") from None
    stop = stop or threading.Event()
    halt = threading.Event()  # set when the accept loop ends: every connection's cue to end too
    server = GuestServer(token, desktop, halt)
    with socket.create_server((host, port), backlog=64) as srv:
        srv.settimeout(0.5)
        ready(*srv.getsockname()[:2])
        try:
            while not stop.is_set() and not (once and server.served.is_set()):
                try:
                    conn, addr = srv.accept()
                except socket.timeout:
                    continue
                except OSError as exc:  # out of file descriptors, a reset before accept: go on
                    log.warning("accept failed: %s", exc)
                    time.sleep(0.1)
                    continue
                server.admit(conn, addr)
        finally:
            halt.set()  # stopped, or the episode is over: what is left of other connections ends with it
            server.close_all()
