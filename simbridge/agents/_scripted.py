"""`scripted:FILE`: a YAML list of timed actions in the agent-port vocabulary.

Deterministic input for tests, demos and regression checks. Example:

    # `at` is task time (simulator seconds since the episode start)
    actions:
      - {at: 1.0, key: Left, hold_s: 2.5}          # shorthand: KIND: first argument
      - {at: 6.0, action: click, x: 640, y: 400}  # or action: KIND plus arguments
      - {at: 8.0, type: "hello"}
      - {at: 9.0, screenshot: jpeg}
    end: done        # after the last action: done (default), give_up, or wait (until the time limit)

First arguments of the shorthand: key/key_down/key_up → keys, type → text, wait → seconds,
done/give_up → reason, screenshot → format, mouse_move/click/double_click/scroll → [x, y],
drag → path.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any


from simbridge._agent_port._port import ACTIONS
from simbridge._errors import SimbridgeError
from simbridge.agents._base import Agent, AgentResult

if TYPE_CHECKING:
    from simbridge._agent_port import AgentPortClient
    from simbridge._task import TaskSpec

_FIRST_ARG = {
    "key": "keys",
    "key_down": "keys",
    "key_up": "keys",
    "type": "text",
    "wait": "seconds",
    "done": "reason",
    "give_up": "reason",
    "screenshot": "format",
    "drag": "path",
}
_XY = {"mouse_move", "click", "double_click", "scroll", "mouse_down", "mouse_up"}


@dataclass(frozen=True)
class TimedAction:
    at: float
    kind: str
    args: dict[str, Any]


def _parse_item(item: Any, where: str) -> TimedAction:
    if not isinstance(item, dict):
        raise SimbridgeError(f"{where}: expected a mapping like {{at: 1.0, key: Left}}")
    item = dict(item)
    if "at" not in item:
        raise SimbridgeError(f"{where}: missing 'at' (task seconds)")
    try:
        at = float(item.pop("at"))
    except (TypeError, ValueError):
        raise SimbridgeError(f"{where}: 'at' must be a number") from None
    if "action" in item:
        kind = str(item.pop("action"))
        args = item
    else:
        kinds = [k for k in item if k in ACTIONS]
        if len(kinds) != 1:
            raise SimbridgeError(f"{where}: name exactly one action (one of {', '.join(ACTIONS)}), got {sorted(item)}")
        kind = kinds[0]
        first = item.pop(kind)
        args = item
        if first is not None:
            if kind in _XY:
                if not (isinstance(first, (list, tuple)) and len(first) == 2):
                    raise SimbridgeError(f"{where}: {kind}: expected [x, y]")
                args["x"], args["y"] = int(first[0]), int(first[1])
            elif kind in _FIRST_ARG:
                args[_FIRST_ARG[kind]] = first
            else:
                raise SimbridgeError(f"{where}: {kind} takes no shorthand argument")
    if kind not in ACTIONS:
        raise SimbridgeError(f"{where}: unknown action {kind!r} (known: {', '.join(ACTIONS)})")
    unknown = set(args) - set(ACTIONS[kind])
    if unknown:
        raise SimbridgeError(
            f"{where}: {kind}: unknown argument(s) {sorted(unknown)} (allowed: {sorted(ACTIONS[kind])})"
        )
    return TimedAction(at, kind, args)


def load_script(path: str | Path) -> tuple[list[TimedAction], str]:
    """Parse and validate a script file; errors name the file and the item."""
    from simbridge._inputs import read_yaml_input

    path = Path(path)
    data = read_yaml_input(path, "script")  # a regular file of bounded size, strict YAML
    if isinstance(data, list):
        data = {"actions": data}
    if not isinstance(data, dict) or not isinstance(data.get("actions"), list):
        raise SimbridgeError(f"{path}: expected a mapping with an 'actions' list")
    end = str(data.get("end", "done"))
    if end not in ("done", "give_up", "wait"):
        raise SimbridgeError(f"{path}: end must be done, give_up or wait, got {end!r}")
    actions = [_parse_item(it, f"{path}: actions[{i}]") for i, it in enumerate(data["actions"])]
    for i, (a, b) in enumerate(zip(actions, actions[1:]), start=1):
        if b.at < a.at:
            raise SimbridgeError(f"{path}: actions[{i}]: 'at' {b.at} is before the previous {a.at}")
    return actions, end


class ScriptedAgent(Agent):
    """Replays timed actions; the port's clock decides when each is due."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.actions, self.end = load_script(self.path)
        self.name = f"scripted:{self.path.name}"

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        for a in self.actions:
            due = a.at - port.elapsed()
            if due > 0:
                port.wait(due)
            if a.kind in ("done", "give_up"):
                getattr(port, a.kind)(**a.args)
                return a.kind  # type: ignore[return-value]
            getattr(port, a.kind)(**a.args)
        if self.end == "wait":
            while True:
                port.wait(max(0.05, deadline_s - port.elapsed()))
        return self.end  # type: ignore[return-value]
