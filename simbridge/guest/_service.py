"""The guest service: screen capture (mss) and keyboard/mouse (pyautogui) served to the host.

Runs inside the sandbox or guest OS, next to the simulator, as one small process. It listens on
one TCP address; the host opens one connection per episode and authenticates with that
episode's token (see `_protocol`). Requests are served one at a time, in order; when the
connection closes every key and button still held is released. A wrong token is refused,
logged, and the service waits for the next connection.
"""

from __future__ import annotations

import importlib
import logging
import platform
import socket
import sys
import threading
import time
import zlib
from collections.abc import Callable
from typing import Any

from simbridge._errors import HarnessError, SimbridgeError
from simbridge.guest import _protocol as proto
from simbridge.guest._keys import combo_keys

log = logging.getLogger("simbridge.guest")

#: SDL drops a key's second tap if it comes sooner than this after the first release (as _input)
MIN_TAP_SPACING_S = 0.020
#: X11 only: names added to pyautogui's key table (pyautogui name -> X keysym)
X11_EXTRA_KEYS = {"kp_enter": "KP_Enter"}
#: how long a connection may take to authenticate before it is dropped
AUTH_TIMEOUT_S = 10.0
#: the port's button names pyautogui can press (wheel buttons become scroll clicks)
_MOUSE = {"left": "left", "middle": "middle", "right": "right"}
_WHEEL = {"wheel_up": (0, 1), "wheel_down": (0, -1), "wheel_left": (-1, 0), "wheel_right": (1, 0)}


class Desktop:
    """The guest's screen and input devices: mss and pyautogui, fail-safe corner off, no pauses."""

    def __init__(self) -> None:
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
        self.held_keys: list[str] = []
        self.held_buttons: set[str] = set()
        self.last_release: dict[str, float] = {}
        # X11: pyautogui silently ignores a key the layout lacks (keycode None); refuse it instead
        self._mapping: dict[str, Any] | None = getattr(pyautogui.platformModule, "keyboardMapping", None)

    @property
    def size(self) -> tuple[int, int]:
        mon = self.sct.monitors[0]
        return int(mon["width"]), int(mon["height"])

    def grab(self) -> tuple[int, int, bytes]:
        """The whole screen as BGRA bytes (mss's native layout)."""
        shot = self.sct.grab(self.sct.monitors[0])
        return shot.width, shot.height, bytes(shot.bgra)

    def _keys(self, combo: str) -> list[str]:
        keys = combo_keys(combo, self.known)
        if self._mapping is not None:
            for k in keys:
                if not self._mapping.get(k):
                    raise SimbridgeError(f"key {k!r} is not on the guest's keyboard layout")
        return keys

    def key_down(self, combo: str) -> None:
        for k in self._keys(combo):
            last = self.last_release.get(k)
            if last is not None and time.monotonic() - last < MIN_TAP_SPACING_S:
                time.sleep(MIN_TAP_SPACING_S - (time.monotonic() - last))
            self.gui.keyDown(k, _pause=False)
            self.held_keys.append(k)

    def key_up(self, combo: str) -> None:
        for k in reversed(self._keys(combo)):
            self.gui.keyUp(k, _pause=False)
            if k in self.held_keys:
                self.held_keys.remove(k)
            self.last_release[k] = time.monotonic()

    def key(self, combo: str, hold_s: float = 0.05) -> None:
        self.key_down(combo)
        time.sleep(max(0.0, hold_s))
        self.key_up(combo)

    def type_text(self, text: str, interval_s: float = 0.03) -> None:
        for ch in text:
            self.key(ch if ch != " " else "space", hold_s=interval_s / 2)
            time.sleep(interval_s / 2)

    def move(self, x: int, y: int) -> None:
        self.gui.moveTo(int(x), int(y), _pause=False)

    def position(self) -> tuple[int, int]:
        p = self.gui.position()
        return int(p[0]), int(p[1])

    def button(self, button: str, down: bool) -> None:
        if button in _WHEEL:
            if down:
                dx, dy = _WHEEL[button]
                self.scroll(-dx, -dy)  # scroll() takes the port's sense: dy > 0 is down
            return
        if button not in _MOUSE:
            raise SimbridgeError(f"button {button!r} cannot be pressed in this guest (pyautogui has no such button)")
        x, y = self.position()
        if down:
            self.gui.mouseDown(x, y, button=_MOUSE[button], _pause=False)
            self.held_buttons.add(button)
        else:
            self.gui.mouseUp(x, y, button=_MOUSE[button], _pause=False)
            self.held_buttons.discard(button)

    def scroll(self, dx: int, dy: int) -> None:
        """Wheel clicks in the port's sense: dy > 0 scrolls down, dx > 0 scrolls right."""
        for _ in range(abs(int(dy))):
            self.gui.scroll(-1 if dy > 0 else 1, _pause=False)
            time.sleep(0.01)
        for _ in range(abs(int(dx))):
            self.gui.hscroll(1 if dx > 0 else -1, _pause=False)
            time.sleep(0.01)

    def release_all(self) -> None:
        for k in reversed(list(self.held_keys)):
            try:
                self.gui.keyUp(k, _pause=False)
            except Exception:
                pass
        self.held_keys.clear()
        for b in list(self.held_buttons):
            try:
                self.button(b, False)
            except Exception:
                pass
        self.held_buttons.clear()


def handle(desk: Desktop, req: dict[str, Any]) -> tuple[dict[str, Any], bytes | None]:
    """Serve one request: (reply, binary payload or None). Errors become `{"ok": false}`."""
    op = req.get("op")
    if op == "size":
        return {"ok": True, "size": list(desk.size)}, None
    if op == "grab":
        w, h, bgra = desk.grab()
        level = int(req.get("zlib", 1))
        data = zlib.compress(bgra, level) if level > 0 else bgra
        return {"ok": True, "w": w, "h": h, "pixels": "bgra", "zlib": level > 0}, data
    if op == "key_down":
        desk.key_down(str(req["keys"]))
    elif op == "key_up":
        desk.key_up(str(req["keys"]))
    elif op == "key":
        desk.key(str(req["keys"]), float(req.get("hold_s", 0.05)))
    elif op == "type":
        desk.type_text(str(req["text"]), float(req.get("interval_s", 0.03)))
    elif op == "move":
        desk.move(int(req["x"]), int(req["y"]))
    elif op == "button":
        desk.button(str(req["button"]), bool(req["down"]))
    elif op == "scroll":
        desk.scroll(int(req.get("dx", 0)), int(req.get("dy", 0)))
    elif op == "position":
        return {"ok": True, "position": list(desk.position())}, None
    elif op == "release_all":
        desk.release_all()
    elif op == "ping":
        return {"ok": True, "t": time.time()}, None
    else:
        return {"ok": False, "error": f"unknown op {op!r}"}, None
    return {"ok": True}, None


def serve_connection(conn: socket.socket, peer: str, token: str, desk: Desktop) -> bool:
    """Authenticate and serve one host connection until it closes; False if it was refused."""
    nonce = proto.new_nonce()
    proto.send(conn, {"service": proto.SERVICE, "version": proto.VERSION, "nonce": nonce})
    req, _ = proto.recv(conn)
    if req.get("op") != "auth" or not proto.check_mac(token, "host", nonce, req.get("mac")):
        log.warning("refused connection from %s: authentication failed (wrong or missing token)", peer)
        proto.send(conn, {"ok": False, "error": "authentication failed"})
        return False
    host_nonce = str(req.get("nonce", ""))
    proto.send(
        conn,
        {
            "ok": True,
            "mac": proto.mac(token, "guest", host_nonce),
            "screen": list(desk.size),
            "platform": platform.platform(),
        },
    )
    log.info("host %s authenticated", peer)
    conn.settimeout(None)  # the episode's connection: the host may think as long as it likes
    try:
        while True:
            try:
                req, _ = proto.recv(conn)
            except proto.ProtocolError:
                return True  # the host closed the connection: the episode is over
            try:
                reply, payload = handle(desk, req)
            except (KeyError, TypeError, ValueError) as exc:
                reply, payload = {"ok": False, "error": f"bad request {req.get('op')!r}: {exc}"}, None
            except SimbridgeError as exc:
                reply, payload = {"ok": False, "error": str(exc)}, None
            except Exception as exc:  # the desktop failed (display gone): say so, keep serving
                log.exception("op %r failed", req.get("op"))
                reply, payload = (
                    {"ok": False, "error": f"guest fault: {type(exc).__name__}: {exc}", "fault": True},
                    None,
                )
            proto.send(conn, reply, payload)
    finally:
        desk.release_all()


def serve(
    host: str,
    port: int,
    token: Callable[[], str],
    *,
    ready: Callable[[str, int], None] = lambda h, p: None,
    stop: threading.Event | None = None,
    once: bool = False,
) -> None:
    """Listen on host:port and serve host connections one after another (forever, or one
    authenticated connection with `once`). `token()` is read per connection (a per-episode
    token file may be rewritten between episodes)."""
    try:
        desk = Desktop()
    except ImportError:
        raise
    except Exception as exc:  # no display (pyautogui reads $DISPLAY at import), no screen to grab
        raise HarnessError(f"cannot open this machine's screen and input: {type(exc).__name__}: {exc}") from None
    stop = stop or threading.Event()
    with socket.create_server((host, port)) as srv:
        srv.settimeout(0.5)
        ready(*srv.getsockname()[:2])
        while not stop.is_set():
            try:
                conn, addr = srv.accept()
            except socket.timeout:
                continue
            peer = f"{addr[0]}:{addr[1]}"
            with conn:
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                conn.settimeout(AUTH_TIMEOUT_S)  # a peer that never authenticates does not hold the service
                try:
                    served = serve_connection(conn, peer, token(), desk)
                except (OSError, proto.ProtocolError) as exc:
                    log.warning("connection from %s ended: %s", peer, exc)
                    served = False
            if served and once:
                return
