"""When an episode ends: the first of the agent's done/give-up (or its turn ending), the time
limit (simulator time), an aircraft crash, the simulator exiting or freezing beyond its limit,
the recorder failing, a harness fault inside an agent-port action (lost display, transport,
screenshot: `harness_error`, before the agent's turn is looked at), an external agent's client
going away.

A frozen simulator (no new sample for its stall limit, `SimSession.stall_limit()`, with its
process up) is waited for, each freeze recorded (episode.json `freezes`), up to its frozen
limit (`SimSession.frozen_limit()`); beyond it the episode is a harness fault.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from simbridge._adapter import SimSession
from simbridge._agent_port import AgentPort
from simbridge._run_config import RunConfig

#: seconds between two looks at the end conditions
POLL_S = 0.02


class Turn(Protocol):
    """Whoever acts for the agent, as the end conditions see it: the agent's thread (`Agent.run`)
    or a caller driving the episode (`Episode.act`)."""

    #: a failure outside the agent's control the agent reported: the episode is unscored
    fault: str | None
    #: the agent's own failure (an exception out of `Agent.run`)
    error: str | None
    #: what `Agent.run` returned ("done", "give_up" or None)
    result: str | None

    def is_alive(self) -> bool: ...


class EndWatch:
    """The end conditions of one running episode. `poll()` looks once and returns (status,
    detail) or None; `wait()` polls until one holds (or `stop` is set: None).

    `client_watch` (an external agent's MCP connection) ends the episode as `agent_disconnected`
    when the client has been gone for the grace period or idle for the idle timeout."""

    def __init__(
        self,
        cfg: RunConfig,
        session: SimSession,
        port: AgentPort,
        recorder: Any,
        turn: Turn,
        limit: float,
        clock: Callable[[], float],
        client_watch: Any = None,
        freezes: list[dict[str, Any]] | None = None,
    ) -> None:
        self.cfg, self.session, self.port, self.recorder, self.turn = cfg, session, port, recorder, turn
        self.limit, self.clock, self.client_watch = limit, clock, client_watch
        #: each freeze: {t: simulator time it stood at, process: its scheduler state, wall_s, resumed_t}
        self.freezes = freezes if freezes is not None else []
        self.wall_cap = (limit * 20 + 60) if cfg.lockstep else None
        self._w0 = time.monotonic()
        self._last_n, self._last_move = -1, time.monotonic()
        self._freeze: dict[str, Any] | None = None

    def wait(self, stop: threading.Event | None = None) -> tuple[str, str] | None:
        """Block until the first end condition: (status, detail); None once `stop` is set."""
        while True:
            time.sleep(POLL_S)
            if stop is not None and stop.is_set():
                return None
            ended = self.poll()
            if ended is not None:
                return ended

    def poll(self) -> tuple[str, str] | None:
        cfg, session, port, recorder, turn = self.cfg, self.session, self.port, self.recorder, self.turn
        if recorder.error is not None:
            return "harness_error", f"recorder failed: {recorder.error}"
        if not session.alive():
            lost = session.lost_reason()
            if lost:  # the process may still run: the harness lost it, a harness fault
                return "harness_error", lost
            code = session.proc.returncode if session.proc is not None else None
            return "sim_crashed", "simulator exited" + (f" (exit code {code})" if code is not None else "")
        fault = getattr(port, "harness_fault", None)
        if fault:  # the agent's screen or input failed on our side: never the agent's ending
            return "harness_error", f"agent port: {fault}"
        t = self.clock()
        if recorder.crash_t is not None:
            return "completed", f"aircraft crashed at t={recorder.crash_t:.1f} s ({recorder.crash_detail})"
        if t >= self.limit:
            return "timeout", f"time limit {self.limit:g} s (simulator time) reached"
        if port.finished.is_set() or not turn.is_alive():
            if turn.fault:
                return "harness_error", f"outside the agent: {turn.fault}"
            if turn.error:
                return "agent_quit", f"agent raised {turn.error}"
            outcome = port.outcome or ((turn.result, "returned") if turn.result else None)
            if outcome is None:
                return "agent_quit", "agent stopped without done/give_up"
            kind, reason = outcome
            if kind == "done":
                return "completed", f"agent done at t={t:.1f} s" + (f": {reason}" if reason else "")
            return "agent_quit", f"agent gave up at t={t:.1f} s" + (f": {reason}" if reason else "")
        watch = self.client_watch
        if watch is not None and watch.gone_for_s() > cfg.disconnect_grace_s:
            return "agent_disconnected", (
                f"the agent's MCP client disconnected without done/give_up "
                f"(gone {cfg.disconnect_grace_s:g} s, at t={t:.1f} s)"
            )
        if watch is not None and watch.idle_for_s() > cfg.idle_timeout_s:
            return "agent_disconnected", (
                f"no request from the agent for {cfg.idle_timeout_s:g} s "
                f"(at t={t:.1f} s): taken as gone without done/give_up"
            )
        return self._frozen(t) or self._wall_capped()

    def _frozen(self, t: float) -> tuple[str, str] | None:
        """Track freezes (no new sample, simulator alive): its clock stands still. No simulator
        time passes (the time limit is in simulator time), so none is lost; beyond the frozen
        limit the episode is a harness fault."""
        now = time.monotonic()
        if self.recorder.n_samples != self._last_n:
            if self._freeze is not None:  # the clock moves again: the recording resumes where it stood
                self._freeze["wall_s"] = round(now - self._last_move, 3)
                self._freeze["resumed_t"] = round(t, 4)
                self._freeze = None
            self._last_n, self._last_move = self.recorder.n_samples, now
        elif not self.cfg.lockstep and now - self._last_move > _stall_s(self.session):
            if self._freeze is None:
                self._freeze = {"t": round(t, 4), "process": self.session.process_state(), "wall_s": None}
                self.freezes.append(self._freeze)
            limit_s = _frozen_limit_s(self.session)
            if now - self._last_move > limit_s:
                state = self._freeze.get("process")
                return "harness_error", (
                    f"simulator frozen: no new sample at t={t:.1f} s for {now - self._last_move:.1f} s "
                    f"with its process up{f' ({state})' if state else ''}, beyond the {limit_s:g} s limit"
                )
            self._freeze["wall_s"] = round(now - self._last_move, 3)
        return None

    def _wall_capped(self) -> tuple[str, str] | None:
        if self.wall_cap is not None and time.monotonic() - self._w0 > self.wall_cap:
            return "timeout", f"lockstep wall-clock cap {self.wall_cap:g} s reached"
        return None


def _stall_s(session: SimSession) -> float:
    """Seconds without a sample before telemetry counts as stalled: a session may allow longer
    pauses its agent causes (`telemetry_stall_s`: FlightGear repositioning for T08)."""
    return session.stall_limit()


def _frozen_limit_s(session: SimSession) -> float:
    """Wall seconds a simulator that is alive but whose clock stands still is waited for: the
    session's `frozen_limit()` (FROZEN_LIMIT_S unless it sets `frozen_limit_s`), never less
    than its stall limit."""
    return max(session.frozen_limit(), _stall_s(session))
