"""The agent port: the agent's only door into the sandbox (screen pixels out, synthetic input in).

One `AgentPort` serves one episode on one X display. Every action goes through `execute()`,
which logs it (`{t_wall, t, kind, args}`, t = the task clock, simulator seconds) and paces it:
in real time an action simply happens; in lockstep the simulator stays paused while the agent
decides and runs for a fixed slice after each input (and for exactly the requested time in
`wait`). The vocabulary (`_actions.VOCABULARY`, one typed table: each action's arguments, their
defaults and ranges) is a superset of the common computer-use APIs: `_actions.computer_call`
turns an Inspect/Anthropic computer-tool call into one port action.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Literal

from simbridge._agent_port._actions import (
    ACTIONS,
    BEFORE_READY,
    BUTTONS,
    REQUIRED,
    UNLOGGED,
    VOCABULARY,
    is_agent_input,
)
from simbridge._agent_port._files import AgentFiles
from simbridge._agent_port._screen import Screenshot
from simbridge._agent_port._transport import Transport, open_transport
from simbridge._errors import HarnessError, SimbridgeError

#: how long an action waits for the episode to become ready before it is refused
READY_WAIT_S = 30.0


class EpisodeOver(SimbridgeError):
    """The episode has ended (time limit, crash, done): the port accepts no more actions."""


class NotReady(SimbridgeError):
    """The episode has not started yet (simulator starting, audit running): call again."""


class ActionError(SimbridgeError):
    """An action's arguments are invalid (the agent's mistake), with a message for the agent."""


class PortFault(HarnessError):
    """A harness fault inside an action (lost display, transport, screenshot failure): ours, not
    the agent's. The port remembers it (`AgentPort.harness_fault`) and the episode ends as a
    harness fault, unscored, whatever the agent does with the exception."""


class Pacer:
    """Real-time pacing: the simulator runs on its own. Holds and waits last the requested
    simulator time (the task clock), falling back to the wall clock while the simulator clock
    is not moving (before the episode starts)."""

    lockstep = False

    def __init__(self) -> None:
        self.clock: Callable[[], float] = lambda: 0.0
        self.stopped = threading.Event()

    def hold(self, seconds: float) -> None:
        if seconds <= 0:
            return
        w0 = time.monotonic()
        last = t0 = self.clock()
        last_move = w0
        while not self.stopped.is_set():
            now, w = self.clock(), time.monotonic()
            if now - t0 >= seconds:
                return
            if now != last:
                last, last_move = now, w
            elif w - last_move > 0.5 and w - w0 >= seconds:
                return  # the simulator clock is not running: wall time stands in
            self.stopped.wait(min(0.01, max(0.001, (seconds - (now - t0)) / 2)))

    def wait(self, seconds: float) -> None:
        self.hold(seconds)

    def after_input(self) -> None:
        pass


class LockstepPacer(Pacer):
    """The simulator is paused except while an action runs: holds and waits advance exactly that
    much simulator time, every other input is followed by a `slice_s` slice."""

    lockstep = True

    def __init__(
        self,
        set_paused: Callable[[bool], None],
        sim_time: Callable[[], float],
        *,
        slice_s: float = 0.1,
        alive: Callable[[], bool] = lambda: True,
        advance: Callable[[float], float | None] = lambda seconds: None,
    ) -> None:
        super().__init__()
        self._set_paused, self._sim_time, self._alive = set_paused, sim_time, alive
        #: the session's exact stepping (`SimSession.advance`); None from it: pace by pausing
        self._advance = advance
        self.slice_s = slice_s

    def hold(self, seconds: float) -> None:
        if seconds <= 0:
            return
        reached = self._advance(seconds)
        if reached is not None:  # the simulator ran exactly that much: wait for its samples
            self._wait_clock(reached - 1e-6)
            return
        t_end = self._sim_time() + seconds
        self._set_paused(False)
        try:
            self._wait_clock(t_end)
        finally:
            self._set_paused(True)

    def _wait_clock(self, t: float) -> None:
        while self._sim_time() < t and self._alive() and not self.stopped.is_set():
            time.sleep(0.002)

    def after_input(self) -> None:
        self.hold(self.slice_s)


class AgentPort:
    """Executes the action vocabulary on `display` and logs every action through `log`.

    `clock()` returns the task clock (simulator seconds since episode start); `log(record)`
    receives `{t_wall, t, kind, args, dur_s}` (the runner hands it to BundleWriter.action).
    """

    def __init__(
        self,
        display: str,
        *,
        clock: Callable[[], float] = lambda: 0.0,
        log: Callable[[dict[str, Any]], None] | None = None,
        pacer: Pacer | None = None,
        files: AgentFiles | None = None,
        ready: bool = True,
        transport: Transport | None = None,
    ) -> None:
        self.display = display
        #: the agent's home folder (task inputs, answer.json); None: the file actions are refused
        self.files = files
        self.clock = clock
        self.log = log
        self.pacer = pacer or Pacer()
        self.pacer.clock = clock
        #: the screen and input (x11, or the guest service): see _transport; $SIMBRIDGE_AGENT_TRANSPORT picks
        self.transport = transport or open_transport(display)
        self.screen = self.transport.screen
        self.input = self.transport.input
        self._over = threading.Event()
        self._over_reason = ""
        self.finished = threading.Event()
        #: ("done" | "give_up", reason) once the agent ends the episode
        self.outcome: tuple[str, str] | None = None
        self.n_actions = 0
        self.n_failed = 0
        self.first_call = threading.Event()
        self._lock = threading.Lock()
        #: set once the simulator is up in its initial state and the audit passed (the runner
        #: opens its port with ready=False and calls mark_ready(); a stand-alone port is ready)
        self.ready = threading.Event()
        if ready:
            self.ready.set()
        self.ready_wait_s = READY_WAIT_S
        #: what the agent is told about the task (returned by the `task` action); set by the runner
        self.brief: Mapping[str, Any] | None = None
        #: where harness faults inside an action are written (traceback), instead of stderr
        self.fault_log: Callable[[str], None] | None = None
        #: the first harness fault inside an action ("harness fault during screenshot: ..."): the
        #: episode's end watch ends it as `harness_error`, never as the agent's ending
        self.harness_fault: str | None = None
        #: actions running now: the episode's end waits (briefly) for them, so each is logged
        self._in_flight = 0
        self._idle = threading.Condition(self._lock)

    # ---------------------------------------------------------------- lifecycle
    def mark_ready(self) -> None:
        """The episode has started: actions are served from now on."""
        self.ready.set()

    def end_episode(self, reason: str, settle_s: float = 3.0) -> None:
        """Refuse further actions (raising EpisodeOver in the agent) and let go of held input.

        An action still running (a drag or hold at the time limit) is cut short and waited for,
        up to `settle_s`, so it is logged before the bundle closes and never runs on a closed
        display."""
        if not self._over.is_set():
            self._over_reason = reason
        self._over.set()
        self.pacer.stopped.set()
        with self._idle:
            self._idle.wait_for(lambda: self._in_flight == 0, timeout=settle_s)
        try:
            self.input.release_all()
        except Exception:
            pass

    @property
    def over(self) -> bool:
        return self._over.is_set()

    def close(self) -> None:
        self.end_episode(self._over_reason or "closed")
        self.transport.close()

    # ---------------------------------------------------------------- dispatch
    def execute(
        self,
        kind: str,
        args: Mapping[str, Any] | None = None,
        *,
        session: str | None = None,
        max_image_bytes: int | None = None,
    ) -> Any:
        """Run one action; every call is logged, a failed one with its error.

        `session` names who acted (the MCP session the episode is bound to, "direct" for an
        in-process client) and is written into the action's line in actions.jsonl.
        `max_image_bytes` bounds an encoded screenshot (a transport's message limit): a larger
        one is re-encoded smaller in the same format, its `scale` saying by how much.

        Raises ActionError for the agent's mistakes (unknown action, bad argument), NotReady
        before the episode has started (after waiting up to `ready_wait_s`), EpisodeOver once
        it has ended (time limit, crash, or the agent's own done/give_up), and PortFault (a
        HarnessError) for a harness fault inside the action (its traceback goes to `fault_log`,
        its message to `harness_fault`, which ends the episode as a harness fault)."""
        self.first_call.set()
        with self._lock:
            self._in_flight += 1
        try:
            return self._execute(kind, args, session, max_image_bytes)
        finally:
            with self._idle:
                self._in_flight -= 1
                self._idle.notify_all()

    def refuse(self, kind: str, args: Any, error: str, *, session: str | None = None) -> None:
        """Log a call refused before it became an action (a computer-use action the sandbox has
        no use for, arguments the MCP schema rejected): one failed line in actions.jsonl."""
        self.first_call.set()
        t_wall, t0 = time.time(), time.monotonic()
        self._record(kind, _safe_args(args), t_wall, self.clock(), t0, error=error, session=session)

    def _execute(
        self, kind: str, args: Mapping[str, Any] | None, session: str | None, max_image_bytes: int | None
    ) -> Any:
        t_wall, t0 = time.time(), time.monotonic()
        given: dict[str, Any] = {}
        t_sim = self.clock()
        extra: dict[str, Any] = {}
        try:
            given, full = self._check(kind, args)
            if self._over.is_set() and kind != "elapsed":
                raise EpisodeOver(f"episode over ({self._over_reason}): no more actions are accepted")
            if kind not in BEFORE_READY:
                self._wait_ready(kind)
                if self._over.is_set():
                    raise EpisodeOver(f"episode over ({self._over_reason}): no more actions are accepted")
            t_wall, t_sim, t0 = time.time(), self.clock(), time.monotonic()  # when it runs, not when it came
            if kind == "done" or kind == "give_up":
                self._end("done" if kind == "done" else "give_up", str(full.get("reason", "")))
                result = None
            elif kind == "screenshot":
                result = self._do_screenshot(**_every(kind, full), max_bytes=max_image_bytes)
                if abs(result.scale - float(full.get("scale", 1.0))) > 1e-9:
                    extra["image_scale"] = round(result.scale, 4)  # shrunk to fit the transport
            else:
                result = getattr(self, f"_do_{kind}")(**_every(kind, full))
            if self._over.is_set() and kind in _CUT_SHORT:
                raise EpisodeOver(f"episode over ({self._over_reason}) while {kind} ran: it was cut short")
            if is_agent_input(kind):
                self.pacer.after_input()
        except SimbridgeError as exc:
            if isinstance(exc, HarnessError) and not self._over.is_set():  # the transport's own fault
                self._harness_fault(f"harness fault during {kind}: {exc}")
            self._record(kind, given or _safe_args(args), t_wall, t_sim, t0, error=str(exc), session=session)
            raise
        except Exception as exc:  # ours, not the agent's: say so, keep the traceback out of the agent's way
            if self._over.is_set():  # the episode ended under a running action (its display closing)
                msg = f"episode over ({self._over_reason}) while {kind} ran: it was cut short"
                self._record(kind, given or _safe_args(args), t_wall, t_sim, t0, error=msg, session=session)
                raise EpisodeOver(msg) from None
            import traceback

            if self.fault_log is not None:
                self.fault_log(f"action {kind} {given!r}:\n{traceback.format_exc()}")
            msg = f"harness fault during {kind}: {type(exc).__name__}: {exc}"
            self._harness_fault(msg)
            self._record(kind, given or _safe_args(args), t_wall, t_sim, t0, error=msg, session=session)
            raise PortFault(msg) from exc
        self._record(kind, given, t_wall, t_sim, t0, session=session, extra=extra)
        return result

    def _harness_fault(self, msg: str) -> None:
        with self._lock:
            if self.harness_fault is None:
                self.harness_fault = msg

    def _record(
        self,
        kind: str,
        given: Mapping[str, Any],
        t_wall: float,
        t_sim: float,
        t0: float,
        error: str | None = None,
        session: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        with self._lock:
            if error is None:
                self.n_actions += 1
            else:
                self.n_failed += 1
        if self.log is None or (kind in UNLOGGED and error is None):
            return
        rec: dict[str, Any] = {
            "t_wall": round(t_wall, 4),
            "t": round(t_sim, 4),
            "kind": kind,
            "args": _loggable(kind, dict(given)),
            "dur_s": round(time.monotonic() - t0, 4),
        }
        if session is not None:
            rec["session"] = session
        if extra:
            rec.update(extra)
        if error is not None:
            rec["error"] = error[:_LOG_ERROR_CHARS]
        try:
            self.log(rec)
        except Exception:  # the bundle is already closed: the call came after the episode ended
            pass

    def _wait_ready(self, kind: str) -> None:
        if self.ready.is_set():
            return
        t_end = time.monotonic() + self.ready_wait_s
        while not self.ready.wait(0.05):
            if self._over.is_set():
                return
            if time.monotonic() > t_end:
                raise NotReady(
                    f"episode not started yet: the simulator is still starting (waited "
                    f"{self.ready_wait_s:g} s); {kind} was not run, call again"
                )

    def _check(self, kind: str, args: Mapping[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any]]:
        """Validate an action and its arguments; return (given, with defaults filled)."""
        if kind not in ACTIONS:
            raise ActionError(f"unknown action {kind!r} (known: {', '.join(ACTIONS)})")
        spec = ACTIONS[kind]
        if args is not None and not isinstance(args, Mapping):
            raise ActionError(f"action {kind!r}: arguments must be a mapping, not {type(args).__name__}")
        given = {k: v for k, v in dict(args or {}).items() if v is not None}
        unknown = set(given) - set(spec)
        if unknown:
            raise ActionError(
                f"action {kind!r}: unknown argument(s) {sorted(unknown)} (takes: {', '.join(spec) or 'none'})"
            )
        full = {**{k: v for k, v in spec.items() if v is not None and v is not REQUIRED}, **given}
        missing = [k for k, v in spec.items() if v is REQUIRED and k not in full]
        if missing:
            raise ActionError(f"action {kind!r}: missing argument(s) {missing}")
        _validate(kind, full, self._screen_size)
        return given, full

    def _screen_size(self) -> tuple[int, int]:
        return self.screen.size

    # ---------------------------------------------------------------- actions
    # the `_do_<kind>` methods get every argument, defaults filled in from the action table (`_check`)
    def _do_screenshot(
        self, format: str, scale: float, quality: int, region: list[int] | None, max_bytes: int | None = None
    ) -> Screenshot:
        # _validate has checked the format's name and the region's four numbers
        fmt: Literal["png", "jpeg"] = "jpeg" if format == "jpeg" else "png"
        box = None if region is None else (int(region[0]), int(region[1]), int(region[2]), int(region[3]))
        return self.screen.screenshot(fmt, scale=float(scale), quality=int(quality), region=box, max_bytes=max_bytes)

    def _do_key(self, keys: str, hold_s: float, repeat: int) -> None:
        for i in range(max(1, int(repeat))):
            self.input.key_down(keys)
            try:
                self.pacer.hold(float(hold_s))
            finally:
                self.input.key_up(keys)

    def _do_key_down(self, keys: str) -> None:
        self.input.key_down(keys)

    def _do_key_up(self, keys: str) -> None:
        self.input.key_up(keys)

    def _do_type(self, text: str, x: int | None, y: int | None, press_enter: bool | None) -> None:
        if x is not None and y is not None:
            self._move_if(x, y)
            self.input.click("left")
        self.input.type_text(str(text))
        if press_enter:
            self.input.key("Return")

    @contextmanager
    def _held(self, modifiers: str | None) -> Iterator[None]:
        """Hold modifier keys ('shift', 'ctrl+alt') around one click or scroll."""
        if modifiers:
            self.input.key_down(modifiers)
        try:
            yield
        finally:
            if modifiers:
                self.input.key_up(modifiers)

    def _move_if(self, x: Any, y: Any) -> None:
        """Move first when the action names a point (`_validate` has checked both are given)."""
        if x is not None and y is not None:
            self.input.mouse_move(int(x), int(y))

    def _do_mouse_move(self, x: int, y: int) -> None:
        self._move_if(x, y)

    def _do_click(self, x: int | None, y: int | None, button: str, count: int, modifiers: str | None) -> None:
        self._move_if(x, y)
        with self._held(modifiers):
            self.input.click(button, count=int(count))

    def _do_double_click(self, x: int | None, y: int | None, button: str, modifiers: str | None) -> None:
        self._do_click(x, y, button, 2, modifiers)

    def _do_drag(self, path: list[list[int]], button: str, duration_s: float) -> None:
        pts = [(int(p[0]), int(p[1])) for p in path]  # ≥ 2 points on the screen: checked by _validate
        self.input.mouse_move(*pts[0])
        self.input.button(button, True)
        try:
            # interpolate so the application sees a continuous motion
            steps_per_leg = max(2, int(20 * float(duration_s) / (len(pts) - 1)))
            dt = float(duration_s) / ((len(pts) - 1) * steps_per_leg)
            for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
                if self._over.is_set():
                    break  # the episode ended mid-drag (time limit): stop moving, release
                for k in range(1, steps_per_leg + 1):
                    if self._over.is_set():
                        break
                    f = k / steps_per_leg
                    self.input.mouse_move(round(x0 + (x1 - x0) * f), round(y0 + (y1 - y0) * f))
                    self.pacer.hold(dt)
        finally:
            self.input.button(button, False)

    def _do_scroll(self, x: int | None, y: int | None, dx: int, dy: int, modifiers: str | None) -> None:
        self._move_if(x, y)
        with self._held(modifiers):  # ctrl+wheel zooms in many programs
            self.input.scroll(int(dx), int(dy))

    def _do_mouse_down(self, button: str, x: int | None, y: int | None) -> None:
        self._move_if(x, y)
        self.input.button(button, True)

    def _do_mouse_up(self, button: str, x: int | None, y: int | None) -> None:
        self._move_if(x, y)
        self.input.button(button, False)

    def _do_cursor_position(self) -> tuple[int, int]:
        return self.input.cursor_position()

    def _do_wait(self, seconds: float) -> None:
        self.pacer.wait(float(seconds))  # 0..3600 s: checked by _validate

    def _do_elapsed(self) -> float:
        return float(self.clock())

    def _end(self, outcome: str, reason: str) -> None:
        """The agent ends the episode: from this call on, every action is refused."""
        if self.outcome is None:
            self.outcome = (outcome, str(reason))
            self._over_reason = f"the agent called {outcome}"
            self._over.set()
        self.finished.set()

    def _do_task(self) -> Mapping[str, Any]:
        if self.brief is None:
            raise ActionError("this episode has no task description")
        return self.brief

    def _need_files(self) -> AgentFiles:
        if self.files is None:
            raise SimbridgeError("this episode has no agent folder (the file actions are not available)")
        return self.files

    def _do_list_files(self) -> list[dict[str, Any]]:
        return self._need_files().list()

    def _do_read_file(self, path: str, encoding: str) -> str:
        return self._need_files().read(str(path), str(encoding))

    def _do_write_file(self, path: str, text: str) -> int:
        return self._need_files().write(str(path), text)


#: longest file text copied into actions.jsonl (the file itself is kept whole in the bundle)
_LOG_TEXT_CHARS = 2000
#: longest error message kept in actions.jsonl
_LOG_ERROR_CHARS = 500
#: actions that take time and are cut short (and logged so) when the episode ends under them
_CUT_SHORT = frozenset({"drag", "key", "wait", "type"})
#: longest text `type` takes, longest key name and file path (longer ones are the agent's mistake)
MAX_TYPE_CHARS = 10_000
MAX_KEYS_CHARS = 200
MAX_PATH_CHARS = 1024
MAX_DRAG_POINTS = 1000


def _every(kind: str, full: Mapping[str, Any]) -> dict[str, Any]:
    """Every argument of an action for its `_do_<kind>` method: an optional one not given is None."""
    return {name: full.get(name) for name in ACTIONS[kind]}


def _loggable(kind: str, args: dict[str, Any]) -> dict[str, Any]:
    """Action arguments as logged: written text is cut to `_LOG_TEXT_CHARS` with its full size."""
    if kind == "write_file" and isinstance(args.get("text"), str) and len(args["text"]) > _LOG_TEXT_CHARS:
        text = args["text"]
        return {**args, "text": text[:_LOG_TEXT_CHARS] + "…", "text_chars": len(text)}
    return args


def _safe_args(args: Any) -> dict[str, Any]:
    """Arguments of a call that failed validation, in a form that can be logged (long values cut)."""
    if not isinstance(args, Mapping):
        return {"_raw": repr(args)[:200]}
    out: dict[str, Any] = {}
    for k, v in list(args.items())[:20]:
        if isinstance(v, (bool, float, type(None))) or (isinstance(v, int) and abs(v) < 10**15):
            out[str(k)[:100]] = v
        elif isinstance(v, str) and len(v) <= 200:
            out[str(k)[:100]] = v
        else:
            r = v if isinstance(v, str) else repr(v)
            out[str(k)[:100]] = r[:200] + (f"… ({len(r)} chars)" if len(r) > 200 else "")
    return out


def _num(kind: str, name: str, v: Any, *, lo: float, hi: float, integer: bool = False) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, str)) or (isinstance(v, str) and len(v) > 40):
        raise ActionError(f"{kind}: {name}={_short(v)} is not a number")
    shown = _short(v)
    try:
        f = float(v)
    except (ValueError, OverflowError):
        raise ActionError(f"{kind}: {name}={shown} is not a number in range") from None
    if f != f or f in (float("inf"), float("-inf")):
        raise ActionError(f"{kind}: {name}={shown} is not a finite number")
    if integer and f != int(f):
        raise ActionError(f"{kind}: {name}={shown} is not a whole number")
    if not lo <= f <= hi:
        raise ActionError(f"{kind}: {name}={shown} outside {lo:g}..{hi:g}")
    return f


def _short(v: Any, n: int = 40) -> str:
    """A value as shown in an error message: at most `n` characters (a 400-digit number stays one line)."""
    r = repr(v) if not isinstance(v, int) or abs(v) < 10**30 else f"<{len(str(abs(v)))}-digit number>"
    return r if len(r) <= n else r[: n - 1] + "…"


def _validate(kind: str, a: dict[str, Any], screen_size: Callable[[], tuple[int, int]]) -> None:
    """Check argument types and ranges, converting in place, so the agent hears what is wrong
    ("x=99999 outside the 1280×800 screen") instead of a failure deep in the input layer."""

    def point(x: Any, y: Any, what: str = "") -> tuple[int, int]:
        w, h = screen_size()
        xi = int(_num(kind, f"{what}x", x, lo=-1e9, hi=1e9, integer=True))
        yi = int(_num(kind, f"{what}y", y, lo=-1e9, hi=1e9, integer=True))
        for name, v, lim in ((f"{what}x", xi, w), (f"{what}y", yi, h)):
            if not 0 <= v < lim:
                raise ActionError(f"{kind}: {name}={v} outside the {w}×{h} screen (0..{lim - 1})")
        return xi, yi

    if "x" in a or "y" in a:
        if ("x" in a) != ("y" in a):
            raise ActionError(f"{kind}: give both x and y, or neither")
        a["x"], a["y"] = point(a["x"], a["y"])
    if "button" in a and a["button"] not in BUTTONS:
        raise ActionError(f"{kind}: button={a['button']!r} is not one of {', '.join(BUTTONS)}")
    for name in ("keys", "modifiers"):
        if name in a and (
            not isinstance(a[name], str)
            or not a[name].strip()
            or len(a[name]) > MAX_KEYS_CHARS
            or any(ord(c) < 32 or 0xD800 <= ord(c) < 0xE000 for c in a[name])
        ):
            raise ActionError(f"{kind}: {name}={_short(a[name])} must be a key name such as 'Left' or 'ctrl+a'")
    if "press_enter" in a and not isinstance(a["press_enter"], bool):
        raise ActionError(f"{kind}: press_enter={a['press_enter']!r} is not true or false")
    if kind == "screenshot" and "region" in a:
        r = a["region"]
        if not isinstance(r, (list, tuple)) or len(r) != 4:
            raise ActionError(f"screenshot: region={r!r} is not [x0, y0, x1, y1]")
        x0, y0 = point(r[0], r[1], "region.")
        w, h = screen_size()
        x1 = int(_num(kind, "region.x1", r[2], lo=x0 + 1, hi=w, integer=True))
        y1 = int(_num(kind, "region.y1", r[3], lo=y0 + 1, hi=h, integer=True))
        a["region"] = [x0, y0, x1, y1]
    for name in ("text", "path" if kind in ("read_file", "write_file") else "", "reason"):
        if name and name in a and not isinstance(a[name], str):
            raise ActionError(f"{kind}: {name} must be a string, not {type(a[name]).__name__}")
    if kind == "type":
        text = a["text"]
        if len(text) > MAX_TYPE_CHARS:
            raise ActionError(f"type: text of {len(text)} characters is more than the {MAX_TYPE_CHARS} allowed")
        bad = next((c for c in text if (ord(c) < 32 and c not in "\n\t") or 0xD800 <= ord(c) < 0xE000), None)
        if bad is not None:
            raise ActionError(f"type: text holds control character {bad!r}, which no key types")
    if "path" in a and kind in ("read_file", "write_file") and len(a["path"]) > MAX_PATH_CHARS:
        raise ActionError(f"{kind}: path of {len(a['path'])} characters is longer than {MAX_PATH_CHARS}")
    for arg in VOCABULARY[kind].params:  # the numbers' ranges, from the action table
        if arg.bounds is not None and arg.name in a:
            integer = arg.type is int
            f = _num(kind, arg.name, a[arg.name], lo=arg.bounds[0], hi=arg.bounds[1], integer=integer)
            a[arg.name] = int(f) if integer else f
    if kind == "screenshot" and a.get("format") not in ("png", "jpeg"):
        raise ActionError(f"screenshot: format={a.get('format')!r} is not png or jpeg")
    if kind == "read_file" and a.get("encoding") not in ("text", "base64"):
        raise ActionError(f"read_file: encoding={a.get('encoding')!r} is not text or base64")
    if kind == "drag":
        path = a["path"]
        if not isinstance(path, (list, tuple)) or not 2 <= len(path) <= MAX_DRAG_POINTS:
            raise ActionError(f"drag: path must be a list of 2 to {MAX_DRAG_POINTS} [x, y] points")
        pts = []
        for i, p in enumerate(path):
            if not isinstance(p, (list, tuple)) or len(p) != 2:
                raise ActionError(f"drag: path[{i}]={_short(p)} is not an [x, y] point")
            pts.append(list(point(p[0], p[1], f"path[{i}].")))
        a["path"] = pts
