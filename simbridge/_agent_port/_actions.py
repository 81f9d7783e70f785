"""The agent port's action vocabulary: one table that the port, its clients, its MCP server and the
framework integrations (Inspect AI, Gymnasium) all read, so an argument cannot mean one thing in
one door and another in the next.

Two layers:

- `VOCABULARY`: the port's own actions (`click`, `key`, `drag`, ...) with their arguments and
  defaults. `AgentPort.execute(kind, args)` validates against it, `AgentPortClient` has one
  method per action with exactly these argument names, the MCP server one tool per action.
- `computer_call(args)`: the computer-use schema shared by Inspect AI's `computer` tool and
  Anthropic's computer-use tool (`action`, `coordinate`, `text`, `duration`, `scroll_direction`,
  `scroll_amount`, `start_coordinate`, `region`, `repeat`, `press_enter`, and OpenAI's `actions`
  list): each computer-use action becomes exactly one port action, so what a model did is one
  line in actions.jsonl.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal

from simbridge._errors import SimbridgeError


class _Required:
    """Marks an argument the caller must give (`REQUIRED`); a default of None means optional."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Final = _Required()


@dataclass(frozen=True)
class ActionSpec:
    """One port action: its arguments (name -> default, `REQUIRED`, or None for optional) and how
    the port treats it."""

    kind: str
    args: dict[str, Any]
    doc: str
    #: changes nothing in the sandbox: no lockstep slice after it
    observe: bool = False
    #: served before the episode is ready (neither looks at nor touches the sandbox)
    before_ready: bool = False
    #: written to actions.jsonl (pure clock reads are not)
    logged: bool = True
    extra: dict[str, Any] = field(default_factory=dict)


def _a(kind: str, doc: str, **args: Any) -> ActionSpec:
    return ActionSpec(kind, args, doc)


#: mouse buttons the port can press (X buttons 1-3, 8, 9)
BUTTONS: Final = ("left", "middle", "right", "back", "forward")

VOCABULARY: dict[str, ActionSpec] = {
    s.kind: s
    for s in (
        ActionSpec(
            "screenshot",
            {"format": "png", "scale": 1.0, "quality": 80, "region": None},
            "Capture the screen (png or jpeg; scale < 1 shrinks it; region [x0, y0, x1, y1] crops at "
            "screen resolution, Inspect's `zoom`).",
            observe=True,
        ),
        _a(
            "key",
            "Tap a key or combination in xdotool spelling ('Left', 'ctrl+a'), held hold_s, repeat times.",
            keys=REQUIRED,
            hold_s=0.05,
            repeat=1,
        ),
        _a("key_down", "Press and hold a key (release with key_up).", keys=REQUIRED),
        _a("key_up", "Release a key held with key_down.", keys=REQUIRED),
        _a(
            "type",
            "Type text as key presses; with x, y click there first; press_enter adds Return.",
            text=REQUIRED,
            x=None,
            y=None,
            press_enter=None,
        ),
        _a("mouse_move", "Move the pointer to screen pixel (x, y).", x=REQUIRED, y=REQUIRED),
        _a(
            "click",
            "Click (count 1-3) at (x, y) or where the pointer is, holding modifiers ('shift', 'ctrl').",
            x=None,
            y=None,
            button="left",
            count=1,
            modifiers=None,
        ),
        _a(
            "double_click",
            "Double-click at (x, y) or where the pointer is.",
            x=None,
            y=None,
            button="left",
            modifiers=None,
        ),
        _a(
            "drag",
            "Press at path[0], move through the [x, y] points, release at the last.",
            path=REQUIRED,
            button="left",
            duration_s=0.3,
        ),
        _a(
            "scroll",
            "Wheel clicks at (x, y): dy > 0 down, dx > 0 right, holding modifiers.",
            x=None,
            y=None,
            dx=0,
            dy=0,
            modifiers=None,
        ),
        _a("mouse_down", "Press a mouse button (after moving to (x, y) when given).", button="left", x=None, y=None),
        _a("mouse_up", "Release a mouse button (after moving to (x, y) when given).", button="left", x=None, y=None),
        ActionSpec("cursor_position", {}, "The pointer's screen position [x, y].", observe=True, logged=False),
        _a(
            "wait",
            "Let this many seconds of task time pass (in lockstep: exactly that much simulator time).",
            seconds=REQUIRED,
        ),
        ActionSpec(
            "elapsed",
            {},
            "Task time: simulator seconds since the episode started.",
            observe=True,
            before_ready=True,
            logged=False,
        ),
        ActionSpec("done", {"reason": ""}, "The task is complete: ends the episode.", observe=True),
        ActionSpec("give_up", {"reason": ""}, "Stop without completing: ends the episode.", observe=True),
        ActionSpec("list_files", {}, "Files in the agent's folder [{path, bytes, writable}].", observe=True),
        ActionSpec(
            "read_file",
            {"path": REQUIRED, "encoding": "text"},
            "A file in the agent's folder (encoding base64 for PDFs and images).",
            observe=True,
        ),
        ActionSpec(
            "write_file",
            {"path": REQUIRED, "text": REQUIRED},
            "Write a text file into the agent's folder (e.g. answer.json).",
            observe=True,
        ),
        ActionSpec(
            "task",
            {},
            "What the agent is told: instruction, documents, time limit, controls.",
            observe=True,
            before_ready=True,
        ),
    )
}

#: action kind -> its arguments and defaults (REQUIRED: must be given; None: optional)
ACTIONS: dict[str, dict[str, Any]] = {k: dict(s.args) for k, s in VOCABULARY.items()}
OBSERVE: frozenset[str] = frozenset(k for k, s in VOCABULARY.items() if s.observe)
BEFORE_READY: frozenset[str] = frozenset(k for k, s in VOCABULARY.items() if s.before_ready)
UNLOGGED: frozenset[str] = frozenset(k for k, s in VOCABULARY.items() if not s.logged)
#: the port's file actions (offered where a task has input documents or asks for an answer file)
FILE_ACTIONS: frozenset[str] = frozenset({"list_files", "read_file", "write_file"})


# ------------------------------------------------------------------------------------------ computer use
#: the computer-use actions (Inspect AI's `computer` tool = Anthropic's computer_20250124/20251124)
COMPUTER_ACTIONS: Final = (
    "key",
    "hold_key",
    "type",
    "cursor_position",
    "mouse_move",
    "left_mouse_down",
    "left_mouse_up",
    "left_click",
    "left_click_drag",
    "right_click",
    "middle_click",
    "back_click",
    "forward_click",
    "double_click",
    "triple_click",
    "scroll",
    "wait",
    "screenshot",
    "zoom",
    "open_web_browser",
    "navigate",
)
if TYPE_CHECKING:
    ComputerAction = str
else:  # the `computer` tool's `action` as a JSON-schema enum: annotate a tool parameter with it
    ComputerAction = Literal[COMPUTER_ACTIONS]
#: the computer tool's argument names (Inspect's: a provider takes its native computer-use path
#: only when a tool named `computer` has exactly these parameters)
COMPUTER_PARAMS: Final = (
    "action",
    "coordinate",
    "duration",
    "region",
    "scroll_amount",
    "scroll_direction",
    "start_coordinate",
    "text",
    "repeat",
    "press_enter",
    "actions",
)
_CLICKS: Final = {
    "left_click": ("left", 1),
    "right_click": ("right", 1),
    "middle_click": ("middle", 1),
    "back_click": ("back", 1),
    "forward_click": ("forward", 1),
    "double_click": ("left", 2),
    "triple_click": ("left", 3),
}
_SCROLL: Final = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}


def _xy(name: str, c: Any, scale: float = 1.0) -> tuple[int, int]:
    """An [x, y] pair in the image's pixels, as screen pixels (image / scale)."""
    try:
        x, y = c
        if isinstance(x, bool) or isinstance(y, bool) or isinstance(x, str) or isinstance(y, str):
            raise TypeError
        if scale == 1.0:
            return int(x), int(y)
        return round(float(x) / scale), round(float(y) / scale)
    except (TypeError, ValueError, OverflowError):
        shown = repr(c) if len(repr(c)) <= 60 else repr(c)[:59] + "…"
        raise SimbridgeError(f"computer: {name}={shown} is not an [x, y] pair of integers on the screen") from None


def _need(args: Mapping[str, Any], name: str, action: str) -> Any:
    v = args.get(name)
    if v is None:
        raise SimbridgeError(f"computer: action {action!r} needs {name}")
    return v


def computer_call(args: Mapping[str, Any], scale: float = 1.0) -> list[tuple[str, dict[str, Any]]]:
    """The port actions for one computer-tool call: one per computer-use action (an `actions` list,
    OpenAI's multi-action form through Inspect, gives one each). Raises SimbridgeError naming the
    wrong argument. `scale` (< 1 when the tool's screenshots are scaled down to fit a transport)
    maps the call's coordinates, given in the screenshot's pixels, to screen pixels."""
    if args.get("actions") is not None:
        acts = args["actions"]
        if not isinstance(acts, list) or not all(isinstance(a, Mapping) for a in acts) or len(acts) > 100:
            raise SimbridgeError("computer: actions must be a list of at most 100 action objects")
        return [call for a in acts for call in computer_call({k: v for k, v in a.items() if k != "actions"}, scale)]
    unknown = set(args) - set(COMPUTER_PARAMS)
    if unknown:
        raise SimbridgeError(f"computer: unknown argument(s) {sorted(unknown)} (takes: {', '.join(COMPUTER_PARAMS)})")
    action = args.get("action")
    if action is None:
        raise SimbridgeError(f"computer: `action` is required (one of: {', '.join(COMPUTER_ACTIONS)})")
    if not isinstance(action, str) or action not in COMPUTER_ACTIONS:
        shown = repr(action) if len(repr(action)) <= 60 else repr(action)[:59] + "…"
        raise SimbridgeError(f"computer: unsupported action {shown} (known: {', '.join(COMPUTER_ACTIONS)})")
    coord = args.get("coordinate")
    at: dict[str, Any] = {} if coord is None else dict(zip(("x", "y"), _xy("coordinate", coord, scale)))
    text = args.get("text")
    if action == "screenshot":
        return [("screenshot", {})]
    if action == "zoom":
        region = _need(args, "region", action)
        if not isinstance(region, (list, tuple)) or len(region) != 4:
            raise SimbridgeError(f"computer: region={str(region)[:60]} is not [x0, y0, x1, y1]")
        corners = [*_xy("region", region[:2], scale), *_xy("region", region[2:], scale)]
        return [("screenshot", {"region": corners})]
    if action == "key":
        out: dict[str, Any] = {"keys": str(_need(args, "text", action))}
        if args.get("repeat") is not None:
            out["repeat"] = args["repeat"]
        return [("key", out)]
    if action == "hold_key":
        return [("key", {"keys": str(_need(args, "text", action)), "hold_s": _need(args, "duration", action)})]
    if action == "type":
        out = {"text": str(_need(args, "text", action)), **at}
        if args.get("press_enter"):
            out["press_enter"] = True
        return [("type", out)]
    if action == "mouse_move":
        _need(args, "coordinate", action)
        return [("mouse_move", at)]
    if action in _CLICKS:
        button, count = _CLICKS[action]
        mods = {"modifiers": str(text)} if text else {}
        return [("click", {**at, "button": button, "count": count, **mods})]
    if action == "left_click_drag":
        start = _xy("start_coordinate", _need(args, "start_coordinate", action), scale)
        end = _xy("coordinate", _need(args, "coordinate", action), scale)
        return [("drag", {"path": [list(start), list(end)]})]
    if action in ("left_mouse_down", "left_mouse_up"):
        return [("mouse_down" if action == "left_mouse_down" else "mouse_up", {"button": "left", **at})]
    if action == "scroll":
        d = args.get("scroll_direction") or "down"
        if d not in _SCROLL:
            raise SimbridgeError(f"computer: scroll_direction={d!r} is not up, down, left or right")
        n = args.get("scroll_amount")
        n = 3 if n is None else n
        if isinstance(n, bool) or not isinstance(n, int):
            raise SimbridgeError(f"computer: scroll_amount={n!r} is not a whole number")
        ux, uy = _SCROLL[d]
        return [("scroll", {**at, "dx": ux * n, "dy": uy * n, **({"modifiers": str(text)} if text else {})})]
    if action == "wait":
        return [("wait", {"seconds": args.get("duration") if args.get("duration") is not None else 1.0})]
    if action == "cursor_position":
        return [("cursor_position", {})]
    raise SimbridgeError(
        f"computer: {action!r} is not available here: the sandbox shows a simulator, not a web browser"
    )
