"""Synthetic keyboard and mouse input on an X display through the XTEST extension.

Key names follow xdotool/X keysym spelling (`Return`, `Left`, `ctrl+a`, `F1`, `a`, `A`),
which is what Anthropic's computer-use `key` action already sends; common aliases (`enter`,
`esc`, `up`, `pagedown`, `cmd`) are accepted. Characters without a key on the layout fall back
to `xdotool` if it is installed.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from collections.abc import Callable

from simbridge._errors import SimbridgeError

#: SDL drops a key's second tap if it comes sooner than this after the first release
MIN_TAP_SPACING_S = 0.020
#: keypad keysyms (keysymdef.h XK_KP_Space .. XK_KP_9). A keypad key's second keysym (KP_5 on
#: the key whose first is KP_Begin) is chosen by NumLock, not Shift: Shift+keypad reaches the
#: client as a shifted key, which simulators bind to something else or to nothing (FlightGear
#: ignores Shift+KP_5), so for those the port turns NumLock on around the key instead.
KEYPAD_KEYSYMS = range(0xFF80, 0xFFBE)

_ALIASES = {
    "enter": "Return",
    "return": "Return",
    "esc": "Escape",
    "escape": "Escape",
    "tab": "Tab",
    "backspace": "BackSpace",
    "delete": "Delete",
    "del": "Delete",
    "insert": "Insert",
    "ins": "Insert",
    "home": "Home",
    "end": "End",
    "pageup": "Prior",
    "page_up": "Prior",
    "pgup": "Prior",
    "pagedown": "Next",
    "page_down": "Next",
    "pgdn": "Next",
    "up": "Up",
    "down": "Down",
    "left": "Left",
    "right": "Right",
    "arrowup": "Up",
    "arrowdown": "Down",
    "arrowleft": "Left",
    "arrowright": "Right",
    "space": "space",
    "spacebar": "space",
    " ": "space",
    "ctrl": "Control_L",
    "control": "Control_L",
    "alt": "Alt_L",
    "option": "Alt_L",
    "shift": "Shift_L",
    "super": "Super_L",
    "meta": "Super_L",
    "cmd": "Super_L",
    "command": "Super_L",
    "win": "Super_L",
    "capslock": "Caps_Lock",
    "numlock": "Num_Lock",
    "+": "plus",
    "-": "minus",
    "=": "equal",
    ",": "comma",
    ".": "period",
    "/": "slash",
    "\\": "backslash",
    ";": "semicolon",
    "'": "apostrophe",
    "[": "bracketleft",
    "]": "bracketright",
    "`": "grave",
    "!": "exclam",
    "@": "at",
    "#": "numbersign",
    "$": "dollar",
    "%": "percent",
    "^": "asciicircum",
    "&": "ampersand",
    "*": "asterisk",
    "(": "parenleft",
    ")": "parenright",
    "_": "underscore",
    "{": "braceleft",
    "}": "braceright",
    "|": "bar",
    ":": "colon",
    '"': "quotedbl",
    "<": "less",
    ">": "greater",
    "?": "question",
    "~": "asciitilde",
    "\n": "Return",
    "\t": "Tab",
}

BUTTONS = {
    "left": 1,
    "middle": 2,
    "right": 3,
    "wheel_up": 4,
    "wheel_down": 5,
    "wheel_left": 6,
    "wheel_right": 7,
    "back": 8,
    "forward": 9,
}


def split_combo(combo: str) -> list[str]:
    """'ctrl+shift+a' -> ['ctrl', 'shift', 'a']; a lone '+' stays a key."""
    combo = combo.strip()
    if combo in ("+", ""):
        return [combo or "space"]
    if combo.endswith("++"):
        return [*split_combo(combo[:-2]), "+"]
    return [p for p in combo.split("+") if p]


def click_by_buttons(
    press: Callable[[str | int, bool], None], button: str | int, count: int, hold_s: float, interval_s: float
) -> None:
    """`count` clicks of `button` made of presses and releases (`press(button, down)`): how
    every input transport clicks, so a click is the same through X11 and the guest service."""
    for i in range(max(1, int(count))):
        if i:
            time.sleep(interval_s)
        press(button, True)
        time.sleep(hold_s)
        press(button, False)


class XInput:
    """XTEST input on one display. Thread-safe; one X connection per instance."""

    def __init__(self, display: str) -> None:
        from Xlib import X, XK, display as xdisplay
        from Xlib.ext import xtest

        self._X, self._XK, self._xtest = X, XK, xtest
        self.display_name = display
        try:
            self._d = xdisplay.Display(display)
        except Exception as exc:  # Xlib raises several unrelated types on connect failure
            raise SimbridgeError(f"cannot open X display {display}: {exc}") from None
        if not self._d.has_extension("XTEST"):
            raise SimbridgeError(f"X display {display} has no XTEST extension")
        self._lock = threading.RLock()
        self._last_release: dict[int, float] = {}
        self._held_keys: set[int] = set()
        self._held_buttons: set[int] = set()
        self._xdotool = shutil.which("xdotool")
        #: keys held down that turned NumLock on (it is turned off again when the last is released)
        self._numlock_holds = 0

    # ------------------------------------------------------------------ keys
    def _keysym(self, name: str) -> int:
        XK = self._XK
        key = _ALIASES.get(name, _ALIASES.get(name.lower(), name)) if len(name) != 1 or name in _ALIASES else name
        ks = XK.string_to_keysym(key)
        if not ks and len(key) > 1:
            ks = XK.string_to_keysym(key.capitalize()) or XK.string_to_keysym(key.upper())
        if not ks and len(key) == 1:
            cp = ord(key)
            ks = cp if cp < 0x100 else 0x01000000 + cp
        if not ks:
            raise SimbridgeError(f"unknown key name {name!r}")
        return ks

    def _keycode(self, name: str) -> tuple[int, bool]:
        """(keycode, needs_shift) for a key name; keycode 0 when the layout has no such key."""
        ks = self._keysym(name)
        codes = list(self._d.keysym_to_keycodes(ks))
        if not codes:
            return 0, False
        for code, index in codes:
            if index == 0:
                return code, False
        code, index = codes[0]
        return code, index == 1

    def _fake_key(self, code: int, down: bool) -> None:
        self._xtest.fake_input(self._d, self._X.KeyPress if down else self._X.KeyRelease, code)
        self._d.sync()
        if down:
            self._held_keys.add(code)
        else:
            self._held_keys.discard(code)
            self._last_release[code] = time.monotonic()

    def _space_tap(self, code: int) -> None:
        last = self._last_release.get(code)
        if last is not None:
            gap = MIN_TAP_SPACING_S - (time.monotonic() - last)
            if gap > 0:
                time.sleep(gap)

    def _codes(self, combo: str) -> tuple[list[int], bool]:
        """The keycodes to press, in order, and whether the combination needs NumLock on (a
        keypad digit or operator: see KEYPAD_KEYSYMS)."""
        codes: list[int] = []
        numlock = False
        shift = self._keycode("Shift_L")[0]
        for part in split_combo(combo):
            code, second = self._keycode(part)
            if not code:
                raise SimbridgeError(f"key {part!r} is not on the display's keyboard layout")
            if second and self._keysym(part) in KEYPAD_KEYSYMS:
                numlock = True
            elif second and shift not in codes:
                codes.append(shift)
            codes.append(code)
        return codes, numlock

    def _numlock_mask(self) -> tuple[int, int]:
        """(Num_Lock's keycode, the modifier bit it locks); (0, 0) when the layout has none."""
        code = self._keycode("Num_Lock")[0]
        if not code:
            return 0, 0
        for index, codes in enumerate(self._d.get_modifier_mapping()):
            if code in codes:
                return code, 1 << index
        return code, 0

    def numlock_on(self) -> bool:
        """Whether the display's NumLock is locked on (read from the pointer's modifier state)."""
        _, mask = self._numlock_mask()
        return bool(mask and self._d.screen().root.query_pointer().mask & mask)

    def _toggle_numlock(self) -> None:
        code, _ = self._numlock_mask()
        if not code:
            raise SimbridgeError("keypad key needs NumLock, which the display's keyboard layout lacks")
        self._fake_key(code, True)
        self._fake_key(code, False)

    def _press(self, codes: list[int], numlock: bool) -> None:
        if numlock:
            if not self._numlock_holds and not self.numlock_on():
                self._toggle_numlock()
                self._numlock_holds = 1
            elif self._numlock_holds:
                self._numlock_holds += 1
        for code in codes:
            self._space_tap(code)
            self._fake_key(code, True)

    def _release(self, codes: list[int], numlock: bool) -> None:
        for code in reversed(codes):
            self._fake_key(code, False)
        if numlock and self._numlock_holds:
            self._numlock_holds -= 1
            if not self._numlock_holds:
                self._toggle_numlock()  # back as it was

    def key_down(self, combo: str) -> None:
        with self._lock:
            self._press(*self._codes(combo))

    def key_up(self, combo: str) -> None:
        with self._lock:
            self._release(*self._codes(combo))

    def key(self, combo: str, hold_s: float = 0.05, repeat: int = 1) -> None:
        """Tap a key or combination `repeat` times, each held `hold_s`; taps of one key are spaced
        at least MIN_TAP_SPACING_S apart."""
        codes, numlock = self._codes(combo)
        for _ in range(max(1, int(repeat))):
            with self._lock:
                self._press(codes, numlock)
            time.sleep(max(0.0, hold_s))
            with self._lock:
                self._release(codes, numlock)

    def type_text(self, text: str, interval_s: float = 0.03) -> None:
        for ch in text:
            try:
                code, _ = self._keycode(ch)  # key() presses shift itself where the keysym needs it
            except SimbridgeError:
                code = 0
            if not code:
                self._xdotool_type(ch)
                continue
            self.key(ch if ch != " " else "space", hold_s=interval_s / 2)
            time.sleep(interval_s / 2)

    def _xdotool_type(self, text: str) -> None:
        if not self._xdotool:
            raise SimbridgeError(f"character {text!r} is not on the keyboard layout and xdotool is not installed")
        subprocess.run(
            [self._xdotool, "type", "--delay", "30", "--", text],
            check=True,
            env={"DISPLAY": self.display_name, "PATH": "/usr/bin:/bin"},
            timeout=30,
        )

    # ------------------------------------------------------------------ mouse
    def mouse_move(self, x: int, y: int) -> None:
        with self._lock:
            self._xtest.fake_input(self._d, self._X.MotionNotify, x=int(x), y=int(y))
            self._d.sync()

    def cursor_position(self) -> tuple[int, int]:
        with self._lock:
            p = self._d.screen().root.query_pointer()
            return int(p.root_x), int(p.root_y)

    def button(self, button: str | int, down: bool) -> None:
        b = BUTTONS[button] if isinstance(button, str) else int(button)
        with self._lock:
            self._xtest.fake_input(self._d, self._X.ButtonPress if down else self._X.ButtonRelease, b)
            self._d.sync()
            (self._held_buttons.add if down else self._held_buttons.discard)(b)

    def click(self, button: str | int = "left", count: int = 1, hold_s: float = 0.03, interval_s: float = 0.08) -> None:
        click_by_buttons(self.button, button, count, hold_s, interval_s)

    def scroll(self, dx: int = 0, dy: int = 0) -> None:
        """Wheel clicks: dy > 0 scrolls down, dx > 0 scrolls right."""
        for n, pos, neg in ((dy, "wheel_down", "wheel_up"), (dx, "wheel_right", "wheel_left")):
            for _ in range(abs(int(n))):
                self.click(pos if n > 0 else neg, hold_s=0.005)
                time.sleep(0.01)

    def release_all(self) -> None:
        """Let go of every key and button still held (at episode end, so nothing sticks)."""
        with self._lock:
            for code in list(self._held_keys):
                self._fake_key(code, False)
            for b in list(self._held_buttons):
                self.button(b, False)
            if self._numlock_holds:
                self._numlock_holds = 0
                self._toggle_numlock()

    def close(self) -> None:
        try:
            self.release_all()
        except Exception:
            pass
        try:
            self._d.close()
        except Exception:
            pass
