"""One simbridge episode driven from outside: the framework adapters' shared piece.

Inspect AI and Gymnasium both need start / act / finish control over an episode, while
`simbridge run` drives the agent itself (`run_trial` calls `agent.run(port, ...)` on a worker
thread). `LiveEpisode` bridges the two without a second harness: it runs the real `run_trial`
(sandbox, simulator in its initial state, isolation audit, recording, verifier) on a thread with a
`BridgeAgent` whose `run` hands its port client to the caller and then waits to be released.
Everything the runner does (statuses, teardown, score.json, manifest) is unchanged; the caller
only decides when the agent's turn ends.
"""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from simbridge._errors import SimbridgeError
from simbridge.agents import Agent, AgentContext, ExternalFault

if TYPE_CHECKING:
    from simbridge._agent_port import AgentPortClient
    from simbridge._runner import TrialResult
    from simbridge._task import TaskSpec

#: the bridge agent handed to run_trial on its own thread (make_agent resolves `py:` factories)
_PENDING = threading.local()
#: where bundles go unless the caller says (relative to the working directory, like `simbridge run`)
DEFAULT_OUT = Path("runs")


class BridgeAgent(Agent):
    """An agent whose decisions are made elsewhere: `run` publishes the port client and blocks
    until `release()`; the episode then ends as the runner decides (done/give_up through the port,
    or `agent_quit` "stopped without done/give_up" when released without either). Released with
    a `fault` (a failure outside the agent's control: the model's API, the framework's own
    exception, a cancelled sample) it raises `ExternalFault`: the episode ends `harness_error`,
    unscored, with that reason."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.client: AgentPortClient | None = None
        self.ready = threading.Event()
        self.released = threading.Event()
        self.fault: str | None = None
        self.ctx: AgentContext | None = None

    def setup(self, ctx: AgentContext) -> None:
        self.ctx = ctx

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> Any:
        self.client = port
        self.ready.set()
        ended = self.ctx.ended if self.ctx is not None else threading.Event()
        while not self.released.wait(0.05):
            if ended.is_set():
                break
        if self.fault is not None and not ended.is_set():
            raise ExternalFault(self.fault)
        return None

    def release(self, fault: str | None = None) -> None:
        """End the agent's turn; `fault` says it ended for a reason outside the agent's control."""
        if fault is not None and not self.released.is_set():
            self.fault = fault
        self.released.set()


def _bridge_agent(task_id: str) -> Agent:
    """`py:` factory for run_trial: the bridge agent set on this thread."""
    agent = getattr(_PENDING, "agent", None)
    if agent is None:
        raise SimbridgeError("no bridge agent pending on this thread")
    return agent


@dataclass
class EpisodeConfig:
    task: str
    sim: str
    provider: str = "local"
    lockstep: bool = False
    lockstep_slice_s: float = 0.1
    #: cut the task's time limit (simulator seconds; recorded as a flag)
    time_limit_s: float | None = None
    frame_hz: float = 1.0
    out: Path | None = None
    seed: int | None = None
    agent_name: str = "external"


class LiveEpisode:
    """`start()` → an AgentPortClient once the episode is ready (or an error saying why it never
    was); `finish()` → the TrialResult (closed, scored bundle). `finish` is idempotent and is what
    a caller's `finally` calls."""

    def __init__(self, cfg: EpisodeConfig, *, trial: int = 1) -> None:
        from simbridge._task import load_task

        self.cfg = cfg
        self.task = load_task(cfg.task)
        self.trial = trial
        stamp = time.strftime("%Y%m%d-%H%M%S")
        root = Path(cfg.out or DEFAULT_OUT).resolve() / f"{self.task.id}-{cfg.sim}-{stamp}-{uuid.uuid4().hex[:6]}"
        self.path = root / f"trial-{trial}"
        self.agent = BridgeAgent(cfg.agent_name)
        self.result: TrialResult | None = None
        self.error: BaseException | None = None
        self._thread: threading.Thread | None = None
        self._done = threading.Event()
        self.lines: list[str] = []

    # ---------------------------------------------------------------- lifecycle
    def start(self, timeout_s: float = 300.0) -> "AgentPortClient":
        """Bring the episode up; raises SimbridgeError when it ends before the agent's turn."""
        from simbridge._runner import RunConfig, _check_sim, preflight, run_trial

        _check_sim(self.task, self.cfg.sim)
        rc = RunConfig(
            task=self.cfg.task,
            sim=self.cfg.sim,
            agent=f"py:{__name__}:_bridge_agent",
            provider=self.cfg.provider,
            lockstep=self.cfg.lockstep,
            lockstep_slice_s=self.cfg.lockstep_slice_s,
            time_limit_s=self.cfg.time_limit_s,
            frame_hz=self.cfg.frame_hz,
            seed=self.cfg.seed,
            say=self.lines.append,
        )
        preflight(rc, self.task)
        self.path.parent.mkdir(parents=True, exist_ok=True)

        def body() -> None:
            _PENDING.agent = self.agent
            try:
                self.result = run_trial(rc, self.task, self.trial, self.path)
            except BaseException as exc:  # reported by finish()
                self.error = exc
            finally:
                _PENDING.agent = None
                self._done.set()

        self._thread = threading.Thread(target=body, name=f"episode-{self.task.id}", daemon=True)
        self._thread.start()
        t_end = time.monotonic() + timeout_s
        while not self.agent.ready.wait(0.05):
            if self._done.is_set():
                r = self.result
                why = f"{r.status}: {r.detail}" if r is not None else f"{type(self.error).__name__}: {self.error}"
                raise SimbridgeError(
                    f"episode {self.task.id} on {self.cfg.sim} ended before the agent's turn ({why}); "
                    f"bundle {self.path}"
                )
            if time.monotonic() > t_end:
                self.finish()
                raise SimbridgeError(f"episode {self.task.id} on {self.cfg.sim} not ready within {timeout_s:g} s")
        assert self.agent.client is not None
        return self.agent.client

    @property
    def over(self) -> bool:
        """The episode has ended (time limit, crash, simulator lost, done/give_up)."""
        ctx = self.agent.ctx
        return self._done.is_set() or (ctx is not None and ctx.ended.is_set())

    def finish(
        self,
        outcome: Literal["done", "give_up"] | None = None,
        reason: str = "",
        timeout_s: float = 120.0,
        *,
        fault: str | None = None,
    ) -> "TrialResult":
        """End the agent's turn (optionally with done/give_up through the port) and wait for the
        runner to tear down, close and score the bundle. `fault`: the turn ended for a reason
        outside the agent's control (model/API error, the caller's exception, a cancelled
        sample): unless the episode had already ended, it ends `harness_error`, unscored,
        detail "outside the agent: FAULT"."""
        if outcome is not None and fault is None and self.agent.client is not None and not self.over:
            try:
                getattr(self.agent.client, outcome)(reason)
            except SimbridgeError:
                pass  # the episode ended meanwhile: the runner's status stands
        self.agent.release(fault)
        if self._thread is not None:
            self._thread.join(timeout_s)
            if self._thread.is_alive():
                raise SimbridgeError(
                    f"episode {self.task.id}: the runner did not finish within {timeout_s:g} s (bundle {self.path})"
                )
        if self.error is not None:
            raise SimbridgeError(f"episode {self.task.id}: {type(self.error).__name__}: {self.error}") from self.error
        if self.result is None:
            raise SimbridgeError(f"episode {self.task.id} was never started")
        return self.result


def runnable_pairs() -> list[tuple[str, str]]:
    """(task id, simulator) for every catalog task and simulator whose preflight passes here
    (its packages are installed, its program found), in catalog order."""
    from simbridge._runner import resolve_session
    from simbridge._task import load_all_tasks

    ok: dict[str, bool] = {}
    out: list[tuple[str, str]] = []
    for tid, task in load_all_tasks().items():
        for sim in [task.simulator.name, *task.simulator.alternatives]:
            if sim not in ok:
                try:
                    resolve_session(sim).preflight("local")
                    ok[sim] = True
                except Exception:
                    ok[sim] = False
            if ok[sim]:
                out.append((tid, sim))
    return out
