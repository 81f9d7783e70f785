"""A guest-service desktop without a display, for the service's door tests: it records every
call that would reach pyautogui or mss (the real `Desktop`'s checks and locking, a fake screen
and input devices underneath), and can be told to fail as a lost display would."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from simbridge.guest._keys import FALLBACK, X_TO_PYAUTOGUI
from simbridge.guest._service import Desktop

#: the key names the fake keyboard knows: pyautogui's names the port maps to, letters and digits
KNOWN = (
    frozenset(X_TO_PYAUTOGUI.values())
    | frozenset(FALLBACK.values())
    | frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
)


class _FakeGui:
    """pyautogui's calls the service makes, recorded as (name, args) with a timestamp."""

    def __init__(self, rec: RecordingDesktop) -> None:
        self.rec = rec
        self.pos = (0, 0)

    def _log(self, name: str, *args: Any) -> None:
        if self.rec.fail:
            raise RuntimeError("display :99 went away")
        with self.rec.cv:
            self.rec.calls.append((time.monotonic(), name, args))
            self.rec.cv.notify_all()

    def keyDown(self, k: str, _pause: bool = False) -> None:
        self._log("keyDown", k)

    def keyUp(self, k: str, _pause: bool = False) -> None:
        self._log("keyUp", k)

    def moveTo(self, x: int, y: int, _pause: bool = False) -> None:
        self._log("moveTo", x, y)
        self.pos = (x, y)

    def position(self) -> tuple[int, int]:
        self._log("position")
        return self.pos

    def mouseDown(self, x: int, y: int, button: str = "left", _pause: bool = False) -> None:
        self._log("mouseDown", button)

    def mouseUp(self, x: int, y: int, button: str = "left", _pause: bool = False) -> None:
        self._log("mouseUp", button)

    def scroll(self, n: int, _pause: bool = False) -> None:
        self._log("scroll", n)

    def hscroll(self, n: int, _pause: bool = False) -> None:
        self._log("hscroll", n)


class _FakeShot:
    width, height = 64, 48
    bgra = b"\x10\x20\x30\xff" * (64 * 48)


class _FakeMss:
    monitors = [{"left": 0, "top": 0, "width": 64, "height": 48}]

    def __init__(self, rec: RecordingDesktop) -> None:
        self.rec = rec

    def grab(self, monitor: Any) -> _FakeShot:
        if self.rec.fail:
            raise RuntimeError("XGetImage failed: display :99 went away")
        return _FakeShot()


class RecordingDesktop(Desktop):
    """`Desktop` over a fake pyautogui and mss (a 64x48 screen); `fail = True` makes every device
    call raise, as a lost display does."""

    def __init__(self) -> None:  # no display: the devices are fakes
        self.calls: list[tuple[float, str, tuple[Any, ...]]] = []
        self.cv = threading.Condition()
        self.fail = False
        self.gui = _FakeGui(self)
        self.sct = _FakeMss(self)
        self.known = KNOWN
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="fake-desktop")
        self.last_release: dict[str, float] = {}
        self._mapping = None

    def names(self) -> list[str]:
        with self.cv:
            return [c[1] for c in self.calls]

    def wait_for(self, name: str, arg: Any = None, timeout_s: float = 10.0) -> float | None:
        """When the call `name` (with first argument `arg`) was made; None if not within timeout_s."""
        end = time.monotonic() + timeout_s
        with self.cv:
            while True:
                for t, n, a in self.calls:
                    if n == name and (arg is None or (a and a[0] == arg)):
                        return t
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self.cv.wait(left)
