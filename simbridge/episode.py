"""The episode's door: one episode driven by its caller, and whole runs driven by an agent.

Gymnasium, Inspect AI, `simbridge run`, `eval`, the benchmarks and the tests all go through here.

- `open_episode(cfg)` checks the task, simulator, assists and the provider's preflight and
  returns an `Episode` for its caller to drive: `start()` brings it up (sandbox, simulator in its
  initial state, isolation audit, recording) and returns the first `Observation`;
  `act(kind, **args)` runs one agent-port action and returns the `Observation` after it;
  `observe()` looks without acting; `over` says the episode has ended (time limit, crash,
  simulator lost, done); `close(fault=None)` ends it as `simbridge run` does and returns the
  `TrialResult` (status, score, bundle `path`). `client` is the episode's in-process agent-port
  client, for a framework whose tools are the client's typed methods.
- `run(cfg)` runs `cfg.trials` episodes with `cfg.agent`; `run_trial` one.

The episode watches its own end conditions meanwhile; everything else about it is private.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from types import TracebackType
from typing import Any

from simbridge._agent_port._client import AgentPortClient
from simbridge._episode import Episode as _Episode
from simbridge._episode import Observation
from simbridge._run_config import RunConfig, TrialResult
from simbridge._runner import preflight, run, run_trial, summary_table
from simbridge._task import TaskSpec

#: where bundles go unless the caller says (relative to the working directory, like `simbridge run`)
DEFAULT_OUT = Path("runs")


class Episode:
    """One episode its caller drives (see the module docstring); use as a context manager so an
    exception in the caller's code closes it as a fault outside the agent (unscored)."""

    def __init__(self, cfg: RunConfig, task: TaskSpec, trial: int, path: Path) -> None:
        self._ep = _Episode(cfg, task, trial, path, driver="caller")

    @property
    def path(self) -> Path:
        """The trial's bundle directory."""
        return self._ep.path

    @property
    def task(self) -> TaskSpec:
        """The task as this trial runs it (a drawn variant written in)."""
        return self._ep.task

    @property
    def over(self) -> bool:
        """The episode has ended (or is ending): no further action is served."""
        return self._ep.over

    @property
    def client(self) -> AgentPortClient:
        """The episode's in-process agent-port client (after `start()`)."""
        if self._ep.client is None:
            raise RuntimeError("Episode.client before start()")
        return self._ep.client

    def start(self) -> Observation:
        """Bring the episode up to the agent's turn; the first Observation. Raises SimbridgeError
        (the bundle closed with its status) when it ends before the agent's turn."""
        return self._ep.start()

    def act(self, kind: str, /, **args: Any) -> Observation:
        """One agent-port action ("key", "click", "wait", "done", ...), logged like any agent's;
        the Observation after it. EpisodeOver once the episode has ended."""
        return self._ep.act(kind, **args)

    def observe(self) -> Observation:
        """The episode as it is now (not logged as an agent action)."""
        return self._ep.observe()

    def close(self, *, fault: str | None = None) -> TrialResult:
        """End the episode and return its result (idempotent). Without `fault` an episode still
        running ends as the agent's own stop (scored); with `fault` (a model/API error, the
        caller's exception) as a fault outside the agent (unscored)."""
        return self._ep.close(fault=fault)

    def __enter__(self) -> "Episode":
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._ep.__exit__(exc_type, exc, tb)


def open_episode(cfg: RunConfig, *, trial: int = 1) -> Episode:
    """An episode of `cfg` for its caller to drive, not started yet: the task, simulator and
    assists checked, the preflight passed, the bundle at OUT/TASK-SIM-STAMP-XXXXXX/trial-N (OUT:
    `cfg.out`, else ./runs)."""
    from simbridge._run_config import check_assists, check_sim
    from simbridge._task import load_task

    task = load_task(cfg.task)
    check_sim(task, cfg.sim)
    check_assists(cfg.sim, cfg.assists)
    preflight(cfg, task)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    root = Path(cfg.out or DEFAULT_OUT).resolve() / f"{task.id}-{cfg.sim}-{stamp}-{uuid.uuid4().hex[:6]}"
    root.mkdir(parents=True, exist_ok=True)
    return Episode(cfg, task, trial, root / f"trial-{trial}")


__all__ = [
    "Episode",
    "Observation",
    "RunConfig",
    "TrialResult",
    "open_episode",
    "preflight",
    "run",
    "run_trial",
    "summary_table",
]
