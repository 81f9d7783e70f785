"""The agent port's action vocabulary: one typed table that the port, its clients, its MCP server and
the framework integrations (Inspect AI, Gymnasium) all read, so an argument cannot mean one thing in
one door and another in the next.

Two tables:

- `VOCABULARY`: the port's own actions (`click`, `key`, `drag`, ...), each with its typed
  arguments (`Arg`: name, Python type, default, one-line description) and the kind of value it
  returns (`Returns`). `AgentPort.execute(kind, args)` validates against it; the MCP server's
  tools (one per action) are generated from it (`_generate.tool_function`); the Python client's
  methods (`AgentPortClient`) are generated from it into `_client_actions.py`
  (`python -m simbridge._agent_port._codegen`; a test fails when that file and the table differ).
- `COMPUTER_ARGS` and `computer_call(args)`: the computer-use schema shared by Inspect AI's
  `computer` tool and Anthropic's computer-use tool (`action`, `coordinate`, `text`, `duration`,
  `scroll_direction`, `scroll_amount`, `start_coordinate`, `region`, `repeat`, `press_enter`, and
  OpenAI's `actions` list): the MCP `computer` tool and the Inspect `computer` tool are generated
  from it, and each computer-use action becomes exactly one port action, so what a model did is
  one line in actions.jsonl.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final, Literal

from simbridge._agent_port._screen import ImageFormat, Screenshot
from simbridge._errors import SimbridgeError


class _Required:
    """Marks an argument the caller must give (`REQUIRED`); a default of None means optional."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Final = _Required()


@dataclass(frozen=True)
class Arg:
    """One argument of an action: its name, its type as sent over the wire (JSON), its default
    (`REQUIRED`: the caller must give it; None: optional) and a one-line description."""

    name: str
    type: Any
    default: Any = REQUIRED
    doc: str = ""
    #: the wider type the Python client takes (a sequence of tuples for a list of [x, y] lists)
    accepts: Any = None
    #: turns what the Python client was given into the wire value (given a value that is not None)
    to_wire: Callable[[Any], Any] | None = None
    #: the range the port accepts (a number outside it is the agent's mistake); whole numbers for an int
    bounds: tuple[float, float] | None = None

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def client_type(self) -> Any:
        return self.type if self.accepts is None else self.accepts


@dataclass(frozen=True)
class Returns:
    """What an action gives back: the Python client's return type, how the client turns the port's
    result into it, and how the MCP server sends it (`encoding`: "ok" = JSON `{"ok": true}` for
    nothing, else the JSON value; "image" = an image block and its size as JSON; "text" = the
    string itself; "brief" = the task as JSON with its prompt text)."""

    name: str
    type: Any
    convert: Callable[[Any], Any]
    encoding: Literal["ok", "image", "text", "brief"] = "ok"


def _point(value: Any) -> tuple[int, int]:
    x, y = value
    return int(x), int(y)


NOTHING: Final = Returns("nothing", None, lambda value: None)
IMAGE: Final = Returns("image", Screenshot, lambda value: value, "image")
POINT: Final = Returns("point", tuple[int, int], _point)
SECONDS: Final = Returns("seconds", float, float)
FILES: Final = Returns("files", list[dict[str, Any]], list)
TEXT: Final = Returns("text", str, str, "text")
SIZE: Final = Returns("size", int, int)
BRIEF: Final = Returns("brief", dict[str, Any], dict, "brief")


def _ints(value: Sequence[Any]) -> list[int]:
    return [int(v) for v in value]


def _points(value: Sequence[Sequence[Any]]) -> list[list[int]]:
    return [[int(p[0]), int(p[1])] for p in value]


@dataclass(frozen=True)
class ActionSpec:
    """One port action: its typed arguments, what it returns and how the port treats it."""

    kind: str
    params: tuple[Arg, ...]
    doc: str
    returns: Returns = NOTHING
    #: changes nothing in the sandbox: no lockstep slice after it
    observe: bool = False
    #: served before the episode is ready (neither looks at nor touches the sandbox)
    before_ready: bool = False
    #: written to actions.jsonl (pure clock reads are not)
    logged: bool = True
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def args(self) -> dict[str, Any]:
        """Argument name -> default (`REQUIRED`: must be given; None: optional)."""
        return {a.name: a.default for a in self.params}


#: mouse buttons the port can press (X buttons 1-3, 8, 9)
BUTTONS: Final = ("left", "middle", "right", "back", "forward")

# the arguments several actions share
_X = Arg("x", int | None, None, "Screen pixel column (0 = left edge); give x and y together, or neither.")
_Y = Arg("y", int | None, None, "Screen pixel row (0 = top edge).")
_BUTTON = Arg("button", str, "left", "Mouse button: left, middle, right, back or forward.")
_MODIFIERS = Arg("modifiers", str | None, None, "Keys held around it, e.g. 'shift' or 'ctrl+alt'.")
_KEYS = Arg("keys", str, REQUIRED, "A key or combination in X keysym/xdotool spelling: 'Left', 'Return', 'ctrl+a'.")
_REASON = Arg("reason", str, "", "Why, in a sentence (written to the episode's record).")

VOCABULARY: dict[str, ActionSpec] = {
    s.kind: s
    for s in (
        ActionSpec(
            "screenshot",
            (
                Arg("format", ImageFormat, "png", "Image format: png or jpeg."),
                Arg(
                    "scale",
                    float,
                    1.0,
                    "Below 1 shrinks the image (screen pixel = image pixel / scale).",
                    bounds=(0.05, 1.0),
                ),
                Arg("quality", int, 80, "JPEG quality, 1-100.", bounds=(1, 100)),
                Arg(
                    "region",
                    list[int] | None,
                    None,
                    "[x0, y0, x1, y1]: crop to this part of the screen, at screen resolution (a zoom).",
                    accepts=Sequence[int] | None,
                    to_wire=_ints,
                ),
            ),
            "Capture the whole screen. format: png or jpeg; scale < 1 shrinks the image (click coordinates stay "
            "in screen pixels: image pixel / scale); region [x0, y0, x1, y1] crops it. An image too large for "
            'the transport comes smaller, its "scale" saying by how much.',
            IMAGE,
            observe=True,
        ),
        ActionSpec(
            "key",
            (
                _KEYS,
                Arg("hold_s", float, 0.05, "Seconds of task time the key is held down, 0-60.", bounds=(0.0, 60.0)),
                Arg("repeat", int, 1, "How many times to tap it, 1-100.", bounds=(1, 100)),
            ),
            "Tap a key or combination in X keysym/xdotool spelling: 'Left', 'Return', 'ctrl+a', 'F1', 'b'.",
        ),
        ActionSpec("key_down", (_KEYS,), "Press and keep holding a key (release with key_up)."),
        ActionSpec("key_up", (_KEYS,), "Release a key held with key_down."),
        ActionSpec(
            "type",
            (
                Arg("text", str, REQUIRED, "The text to type (newlines and tabs are keys too)."),
                replace(_X, doc="With y: click at this screen pixel column first."),
                replace(_Y, doc="With x: click at this screen pixel row first."),
                Arg("press_enter", bool | None, None, "Press Return after the text."),
            ),
            "Type text as key presses (with x, y: click there first; press_enter: Return after it).",
        ),
        ActionSpec(
            "mouse_move",
            (
                replace(_X, type=int, default=REQUIRED, doc="Screen pixel column (0 = left edge)."),
                replace(_Y, type=int, default=REQUIRED),
            ),
            "Move the pointer to screen pixel (x, y).",
        ),
        ActionSpec(
            "click",
            (_X, _Y, _BUTTON, Arg("count", int, 1, "Clicks: 1, 2 (double) or 3 (triple).", bounds=(1, 3)), _MODIFIERS),
            "Click at (x, y) (or where the pointer is). button: left, middle, right, back, forward; modifiers "
            "('shift', 'ctrl') are held around the click.",
        ),
        ActionSpec("double_click", (_X, _Y, _BUTTON, _MODIFIERS), "Double-click at (x, y) (or where the pointer is)."),
        ActionSpec(
            "drag",
            (
                Arg(
                    "path",
                    list[list[int]],
                    REQUIRED,
                    "The [x, y] screen points to press at, move through and release at (2 to 1000).",
                    accepts=Sequence[Sequence[int]],
                    to_wire=_points,
                ),
                _BUTTON,
                Arg("duration_s", float, 0.3, "Seconds of task time the motion takes, 0-60.", bounds=(0.0, 60.0)),
            ),
            "Press at path[0], move through each [x, y] point, release at the last.",
        ),
        ActionSpec(
            "scroll",
            (
                _X,
                _Y,
                Arg("dx", int, 0, "Wheel clicks to the right (negative: left), -100-100.", bounds=(-100, 100)),
                Arg("dy", int, 0, "Wheel clicks down (negative: up), -100-100.", bounds=(-100, 100)),
                _MODIFIERS,
            ),
            "Scroll the wheel at (x, y): dy > 0 down, dy < 0 up, dx > 0 right (in wheel clicks).",
        ),
        ActionSpec("mouse_down", (_BUTTON, _X, _Y), "Press a mouse button (optionally after moving to (x, y))."),
        ActionSpec("mouse_up", (_BUTTON, _X, _Y), "Release a mouse button (optionally after moving to (x, y))."),
        ActionSpec(
            "cursor_position", (), "The pointer's screen position as [x, y].", POINT, observe=True, logged=False
        ),
        ActionSpec(
            "wait",
            (Arg("seconds", float, REQUIRED, "Seconds of task time, 0-3600.", bounds=(0.0, 3600.0)),),
            "Let this many seconds of task time pass (in lockstep: exactly that much simulator time).",
        ),
        ActionSpec(
            "elapsed",
            (),
            "Seconds of task time (simulator seconds) since the episode started.",
            SECONDS,
            observe=True,
            before_ready=True,
            logged=False,
        ),
        ActionSpec(
            "done",
            (replace(_REASON, doc="Why you believe the task is complete."),),
            "Declare the task complete; ends the episode (nothing is accepted after it).",
            observe=True,
        ),
        ActionSpec(
            "give_up",
            (replace(_REASON, doc="Why you stop."),),
            "Stop without completing the task; ends the episode.",
            observe=True,
        ),
        ActionSpec(
            "list_files",
            (),
            "Files in your folder (task inputs under input/, read-only) as JSON [{path, bytes, writable}].",
            FILES,
            observe=True,
        ),
        ActionSpec(
            "read_file",
            (
                Arg("path", str, REQUIRED, "Relative path in your folder, e.g. input/load.json."),
                Arg("encoding", str, "text", "text, or base64 for PDFs and images."),
            ),
            "A file in your folder, e.g. 'input/load.json'; encoding 'base64' for PDFs and images.",
            TEXT,
            observe=True,
        ),
        ActionSpec(
            "write_file",
            (
                Arg("path", str, REQUIRED, "Relative path in your folder, e.g. answer.json."),
                Arg("text", str, REQUIRED, "The file's content."),
            ),
            "Write a text file into your folder (e.g. 'answer.json' when the task asks for it); returns its size "
            "in bytes.",
            SIZE,
            observe=True,
        ),
        ActionSpec(
            "task",
            (),
            "The task: instruction for this simulator, input documents, time limit, clock and controls (JSON, "
            'with the same text as the `task` prompt under "text"). Served before the episode starts.',
            BRIEF,
            observe=True,
            before_ready=True,
        ),
    )
}

#: action kind -> its arguments and defaults (REQUIRED: must be given; None: optional)
ACTIONS: dict[str, dict[str, Any]] = {k: s.args for k, s in VOCABULARY.items()}
OBSERVE: frozenset[str] = frozenset(k for k, s in VOCABULARY.items() if s.observe)
BEFORE_READY: frozenset[str] = frozenset(k for k, s in VOCABULARY.items() if s.before_ready)
UNLOGGED: frozenset[str] = frozenset(k for k, s in VOCABULARY.items() if not s.logged)


def is_agent_input(kind: object) -> bool:
    """Whether an action of `kind` is the agent's own input to the sandbox: not an observation and
    not a wait. The lockstep pacer runs a slice after one, and the episode's `last_agent_action`
    (episode.json, and the eval driver reading a dead worker's actions.jsonl) is the last one. A
    kind the vocabulary does not know (a refused action as logged) counts as input."""
    return kind not in OBSERVE and kind != "wait"


def to_wire(kind: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """A Python client call's arguments as the port takes them (tuples of points as [x, y] lists)."""
    out = dict(given)
    for a in VOCABULARY[kind].params:
        if a.to_wire is not None and out.get(a.name) is not None:
            out[a.name] = a.to_wire(out[a.name])
    return out


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
#: computer-use actions for a web browser, which the sandbox does not have (`computer_call` refuses them)
BROWSER_ACTIONS: Final = ("open_web_browser", "navigate")
#: the computer tool's arguments (Inspect's names: a provider takes its native computer-use path only
#: when a tool named `computer` has exactly these parameters), in Inspect's order
COMPUTER_ARGS: Final = (
    Arg(
        "action",
        ComputerAction,
        REQUIRED,
        ", ".join(a for a in COMPUTER_ACTIONS if a not in BROWSER_ACTIONS) + ".",
    ),
    Arg("coordinate", list[int] | None, None, "[x, y] to move to, click at, drag to or scroll at."),
    Arg("duration", float | None, None, "Seconds of task time to wait (wait) or to hold the key (hold_key)."),
    Arg("region", list[int] | None, None, "[x0, y0, x1, y1] to zoom into (zoom)."),
    Arg("scroll_amount", int | None, None, "Wheel clicks (scroll)."),
    Arg("scroll_direction", Literal["up", "down", "left", "right"] | None, None, "up, down, left or right (scroll)."),
    Arg("start_coordinate", list[int] | None, None, "[x, y] where a left_click_drag starts."),
    Arg(
        "text",
        str | None,
        None,
        "Text to type, key (xdotool spelling: 'Return', 'ctrl+a') to press, or modifier keys held during a click "
        "or scroll.",
    ),
    Arg("repeat", int | None, None, "How many times to press the key (key), 1-100."),
    Arg("press_enter", bool | None, None, "Press Return after typing (type)."),
    Arg("actions", list[dict[str, Any]] | None, None, "A list of action objects to run one after another."),
)
COMPUTER_PARAMS: Final = tuple(a.name for a in COMPUTER_ARGS)


def computer_args(door: Literal["mcp", "inspect"] = "mcp") -> tuple[Arg, ...]:
    """The computer tool's arguments as one door serves them. The MCP server requires `action`;
    Inspect's own `computer()` tool, which the Inspect door copies parameter for parameter, takes
    every argument as optional (an `actions` list stands in for `action`) and `duration` in whole
    seconds."""
    if door == "mcp":
        return COMPUTER_ARGS
    inspect_types: dict[str, Any] = {
        "action": ComputerAction | None,
        "duration": int | None,
        "actions": list[dict[str, object]] | None,
    }
    return tuple(replace(a, type=inspect_types.get(a.name, a.type), default=None) for a in COMPUTER_ARGS)


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
