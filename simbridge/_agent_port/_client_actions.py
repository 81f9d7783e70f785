"""The Python client's action methods, generated from the action table (`_actions.VOCABULARY`) by
`python -m simbridge._agent_port._codegen`: change the table, not this file."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from simbridge._agent_port._screen import Screenshot


class ClientActions:
    """One method per port action: each hands its arguments, by name, to `_act`."""

    def _act(self, kind: str, args: dict[str, Any]) -> Any:
        raise NotImplementedError

    def screenshot(
        self,
        format: Literal["png", "jpeg"] = "png",
        scale: float = 1.0,
        quality: int = 80,
        region: Sequence[int] | None = None,
    ) -> Screenshot:
        """Capture the whole screen. format: png or jpeg; scale < 1 shrinks the image (click coordinates stay in
        screen pixels: image pixel / scale); region [x0, y0, x1, y1] crops it. An image too large for the
        transport comes smaller, its "scale" saying by how much.

        Args:
          format: Image format: png or jpeg.
          scale: Below 1 shrinks the image (screen pixel = image pixel / scale).
          quality: JPEG quality, 1-100.
          region: [x0, y0, x1, y1]: crop to this part of the screen, at screen resolution (a zoom).
        """
        return self._act("screenshot", {"format": format, "scale": scale, "quality": quality, "region": region})

    def key(self, keys: str, hold_s: float = 0.05, repeat: int = 1) -> None:
        """Tap a key or combination in X keysym/xdotool spelling: 'Left', 'Return', 'ctrl+a', 'F1', 'b'.

        Args:
          keys: A key or combination in X keysym/xdotool spelling: 'Left', 'Return', 'ctrl+a'.
          hold_s: Seconds of task time the key is held down, 0-60.
          repeat: How many times to tap it, 1-100.
        """
        self._act("key", {"keys": keys, "hold_s": hold_s, "repeat": repeat})

    def key_down(self, keys: str) -> None:
        """Press and keep holding a key (release with key_up).

        Args:
          keys: A key or combination in X keysym/xdotool spelling: 'Left', 'Return', 'ctrl+a'.
        """
        self._act("key_down", {"keys": keys})

    def key_up(self, keys: str) -> None:
        """Release a key held with key_down.

        Args:
          keys: A key or combination in X keysym/xdotool spelling: 'Left', 'Return', 'ctrl+a'.
        """
        self._act("key_up", {"keys": keys})

    def type(self, text: str, x: int | None = None, y: int | None = None, press_enter: bool | None = None) -> None:
        """Type text as key presses (with x, y: click there first; press_enter: Return after it).

        Args:
          text: The text to type (newlines and tabs are keys too).
          x: With y: click at this screen pixel column first.
          y: With x: click at this screen pixel row first.
          press_enter: Press Return after the text.
        """
        self._act("type", {"text": text, "x": x, "y": y, "press_enter": press_enter})

    def mouse_move(self, x: int, y: int) -> None:
        """Move the pointer to screen pixel (x, y).

        Args:
          x: Screen pixel column (0 = left edge).
          y: Screen pixel row (0 = top edge).
        """
        self._act("mouse_move", {"x": x, "y": y})

    def click(
        self,
        x: int | None = None,
        y: int | None = None,
        button: str = "left",
        count: int = 1,
        modifiers: str | None = None,
    ) -> None:
        """Click at (x, y) (or where the pointer is). button: left, middle, right, back, forward; modifiers
        ('shift', 'ctrl') are held around the click.

        Args:
          x: Screen pixel column (0 = left edge); give x and y together, or neither.
          y: Screen pixel row (0 = top edge).
          button: Mouse button: left, middle, right, back or forward.
          count: Clicks: 1, 2 (double) or 3 (triple).
          modifiers: Keys held around it, e.g. 'shift' or 'ctrl+alt'.
        """
        self._act("click", {"x": x, "y": y, "button": button, "count": count, "modifiers": modifiers})

    def double_click(
        self, x: int | None = None, y: int | None = None, button: str = "left", modifiers: str | None = None
    ) -> None:
        """Double-click at (x, y) (or where the pointer is).

        Args:
          x: Screen pixel column (0 = left edge); give x and y together, or neither.
          y: Screen pixel row (0 = top edge).
          button: Mouse button: left, middle, right, back or forward.
          modifiers: Keys held around it, e.g. 'shift' or 'ctrl+alt'.
        """
        self._act("double_click", {"x": x, "y": y, "button": button, "modifiers": modifiers})

    def drag(self, path: Sequence[Sequence[int]], button: str = "left", duration_s: float = 0.3) -> None:
        """Press at path[0], move through each [x, y] point, release at the last.

        Args:
          path: The [x, y] screen points to press at, move through and release at (2 to 1000).
          button: Mouse button: left, middle, right, back or forward.
          duration_s: Seconds of task time the motion takes, 0-60.
        """
        self._act("drag", {"path": path, "button": button, "duration_s": duration_s})

    def scroll(
        self, x: int | None = None, y: int | None = None, dx: int = 0, dy: int = 0, modifiers: str | None = None
    ) -> None:
        """Scroll the wheel at (x, y): dy > 0 down, dy < 0 up, dx > 0 right (in wheel clicks).

        Args:
          x: Screen pixel column (0 = left edge); give x and y together, or neither.
          y: Screen pixel row (0 = top edge).
          dx: Wheel clicks to the right (negative: left), -100-100.
          dy: Wheel clicks down (negative: up), -100-100.
          modifiers: Keys held around it, e.g. 'shift' or 'ctrl+alt'.
        """
        self._act("scroll", {"x": x, "y": y, "dx": dx, "dy": dy, "modifiers": modifiers})

    def mouse_down(self, button: str = "left", x: int | None = None, y: int | None = None) -> None:
        """Press a mouse button (optionally after moving to (x, y)).

        Args:
          button: Mouse button: left, middle, right, back or forward.
          x: Screen pixel column (0 = left edge); give x and y together, or neither.
          y: Screen pixel row (0 = top edge).
        """
        self._act("mouse_down", {"button": button, "x": x, "y": y})

    def mouse_up(self, button: str = "left", x: int | None = None, y: int | None = None) -> None:
        """Release a mouse button (optionally after moving to (x, y)).

        Args:
          button: Mouse button: left, middle, right, back or forward.
          x: Screen pixel column (0 = left edge); give x and y together, or neither.
          y: Screen pixel row (0 = top edge).
        """
        self._act("mouse_up", {"button": button, "x": x, "y": y})

    def cursor_position(self) -> tuple[int, int]:
        """The pointer's screen position as [x, y]."""
        return self._act("cursor_position", {})

    def wait(self, seconds: float) -> None:
        """Let this many seconds of task time pass (in lockstep: exactly that much simulator time).

        Args:
          seconds: Seconds of task time, 0-3600.
        """
        self._act("wait", {"seconds": seconds})

    def elapsed(self) -> float:
        """Seconds of task time (simulator seconds) since the episode started."""
        return self._act("elapsed", {})

    def done(self, reason: str = "") -> None:
        """Declare the task complete; ends the episode (nothing is accepted after it).

        Args:
          reason: Why you believe the task is complete.
        """
        self._act("done", {"reason": reason})

    def give_up(self, reason: str = "") -> None:
        """Stop without completing the task; ends the episode.

        Args:
          reason: Why you stop.
        """
        self._act("give_up", {"reason": reason})

    def list_files(self) -> list[dict[str, Any]]:
        """Files in your folder (task inputs under input/, read-only) as JSON [{path, bytes, writable}]."""
        return self._act("list_files", {})

    def read_file(self, path: str, encoding: str = "text") -> str:
        """A file in your folder, e.g. 'input/load.json'; encoding 'base64' for PDFs and images.

        Args:
          path: Relative path in your folder, e.g. input/load.json.
          encoding: text, or base64 for PDFs and images.
        """
        return self._act("read_file", {"path": path, "encoding": encoding})

    def write_file(self, path: str, text: str) -> int:
        """Write a text file into your folder (e.g. 'answer.json' when the task asks for it); returns its size in
        bytes.

        Args:
          path: Relative path in your folder, e.g. answer.json.
          text: The file's content.
        """
        return self._act("write_file", {"path": path, "text": text})

    def task(self) -> dict[str, Any]:
        """The task: instruction for this simulator, input documents, time limit, clock and controls (JSON, with the
        same text as the `task` prompt under "text"). Served before the episode starts.
        """
        return self._act("task", {})
