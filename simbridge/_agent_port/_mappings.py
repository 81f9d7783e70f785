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

from collections.abc import Mapping
from typing import Any

from simbridge._agent_port._client import AgentPortClient
from simbridge._errors import SimbridgeError

#: pixels of an OpenAI scroll delta per wheel click
OPENAI_SCROLL_PX_PER_CLICK = 100


def run_anthropic_action(port: AgentPortClient, action: Mapping[str, Any]) -> Any:
    """Run one Anthropic computer-use tool input on the port (the same schema as Inspect AI's
    `computer` tool: `_actions.computer_call` maps each action to one port action)."""
    return port.computer(**dict(action))


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
        if x is None or y is None:
            raise SimbridgeError("move needs x and y")
        port.mouse_move(int(x), int(y))
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
