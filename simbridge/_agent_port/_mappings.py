"""Thin mappings from the common computer-use action formats onto the agent port.

An existing computer-use agent keeps its own loop and action format; pass each action it
emits to `run_anthropic_action` or `run_openai_action` with an `AgentPortClient`. Screenshot
actions return the `Screenshot`; the rest return None.

- Anthropic computer use (`computer_20250124` tool input): `{"action": "left_click",
  "coordinate": [x, y]}`, `key`, `hold_key`, `type`, `mouse_move`, `left_click_drag`, `scroll`, ...
- OpenAI computer use (`computer_call.action`): `{"type": "click", "button": "left", "x": .., "y": ..}`,
  `double_click`, `drag`, `keypress`, `move`, `scroll`, `type`, `wait`, `screenshot`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from simbridge._agent_port._client import AgentPortClient
from simbridge._errors import SimbridgeError

#: pixels of an OpenAI scroll delta per wheel click
OPENAI_SCROLL_PX_PER_CLICK = 100


def _xy(c: Any) -> tuple[int | None, int | None]:
    if c is None:
        return None, None
    try:
        x, y = c
        return int(x), int(y)
    except (TypeError, ValueError):
        raise SimbridgeError(f"coordinate {c!r} is not an [x, y] pair of integers") from None


@contextmanager
def _modifiers_held(port: AgentPortClient, keys: Any) -> Iterator[None]:
    """Hold Anthropic's `text` modifier keys (e.g. 'shift', 'ctrl') around one click or scroll."""
    if keys:
        port.key_down(str(keys))
    try:
        yield
    finally:
        if keys:
            port.key_up(str(keys))


def run_anthropic_action(port: AgentPortClient, action: Mapping[str, Any]) -> Any:
    """Run one Anthropic computer-use tool input on the port."""
    kind = action.get("action")
    x, y = _xy(action.get("coordinate"))
    text = action.get("text")
    if kind == "screenshot":
        return port.screenshot("png")
    if kind == "key":
        port.key(str(text))
    elif kind == "hold_key":
        port.key(str(text), hold_s=float(action.get("duration", 1.0)))
    elif kind == "type":
        port.type(str(text))
    elif kind == "mouse_move":
        port.mouse_move(x, y)  # type: ignore[arg-type]
    elif kind in ("left_click", "right_click", "middle_click", "double_click", "triple_click"):
        button = {"right_click": "right", "middle_click": "middle"}.get(kind, "left")
        count = {"double_click": 2, "triple_click": 3}.get(kind, 1)
        with _modifiers_held(port, text):
            port.click(x, y, button=button, count=count)
    elif kind == "left_click_drag":
        sx, sy = _xy(action.get("start_coordinate"))
        if sx is None:
            raise SimbridgeError("left_click_drag needs start_coordinate")
        port.drag([(sx, sy), (x, y)])
    elif kind == "left_mouse_down":
        port.mouse_down("left", x, y)
    elif kind == "left_mouse_up":
        port.mouse_up("left", x, y)
    elif kind == "scroll":
        n = int(action.get("scroll_amount", 3))
        d = action.get("scroll_direction", "down")
        if d not in ("up", "down", "left", "right"):
            raise SimbridgeError(f"scroll: scroll_direction={d!r} is not up, down, left or right")
        dx, dy = {"up": (0, -n), "down": (0, n), "left": (-n, 0), "right": (n, 0)}[d]
        with _modifiers_held(port, text):  # ctrl+wheel zooms in many programs
            port.scroll(x, y, dx=dx, dy=dy)
    elif kind == "wait":
        port.wait(float(action.get("duration", 1.0)))
    elif kind == "cursor_position":
        return port.cursor_position()
    else:
        raise SimbridgeError(f"unsupported Anthropic computer-use action {kind!r}")
    return None


def _openai_keys(keys: list[str]) -> str:
    return "+".join(str(k).lower() for k in keys)


def run_openai_action(port: AgentPortClient, action: Mapping[str, Any]) -> Any:
    """Run one OpenAI computer-use action on the port."""
    kind = action.get("type")
    x, y = action.get("x"), action.get("y")
    if kind == "screenshot":
        return port.screenshot("png")
    if kind == "click":
        button = {"wheel": "middle"}.get(action.get("button", "left"), action.get("button", "left"))
        port.click(x, y, button=button)
    elif kind == "double_click":
        port.double_click(x, y)
    elif kind == "drag":
        port.drag([(p["x"], p["y"]) for p in action["path"]])
    elif kind == "keypress":
        port.key(_openai_keys(list(action["keys"])))
    elif kind == "move":
        port.mouse_move(x, y)
    elif kind == "scroll":
        def clicks(px: Any) -> int:
            px = int(px or 0)
            return 0 if px == 0 else (1 if px > 0 else -1) * max(1, round(abs(px) / OPENAI_SCROLL_PX_PER_CLICK))

        port.scroll(x, y, dx=clicks(action.get("scroll_x")), dy=clicks(action.get("scroll_y")))
    elif kind == "type":
        port.type(str(action["text"]))
    elif kind == "wait":
        port.wait(float(action.get("seconds", 2.0)))
    else:
        raise SimbridgeError(f"unsupported OpenAI computer-use action {kind!r}")
    return None
