"""One simbridge episode driven from outside: the framework adapters' shared piece.

Inspect AI and Gymnasium drive `simbridge._episode.Episode` directly, as its caller
(`driver="caller"`): `start()` brings the episode up (sandbox, simulator in its initial state,
isolation audit, recording) and returns the first observation, each agent action goes through
the episode's agent port (`Episode.act`, or `Episode.client` for a framework's tools), and
`close()` ends it the way `simbridge run` does (statuses, teardown, score.json, manifest); the
episode watches its own end conditions (time limit, crash, simulator lost) meanwhile.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import InitVar, dataclass
from pathlib import Path

from simbridge._episode import Episode
from simbridge._run_config import RunConfig

#: where bundles go unless the caller says (relative to the working directory, like `simbridge run`)
DEFAULT_OUT = Path("runs")


def _quiet(line: str) -> None:
    """Progress lines of an episode a framework drives: the framework has its own display."""


@dataclass
class EpisodeConfig(RunConfig):
    """A `RunConfig` for an episode a framework drives: `agent` is only the name recorded in
    episode.json (no agent is made: the caller acts); progress lines are not printed.
    `agent_name=` is the older spelling of `agent=`."""

    agent: str = "external"
    say: Callable[[str], None] = _quiet
    agent_name: InitVar[str | None] = None

    def __post_init__(self, agent_name: str | None) -> None:
        if agent_name is not None:
            self.agent = agent_name


def open_episode(cfg: RunConfig, *, trial: int = 1) -> Episode:
    """An episode of `cfg` for its caller to drive (`driver="caller"`), not started yet: the
    task, simulator and assists checked, the preflight passed, the bundle at
    OUT/TASK-SIM-STAMP-XXXXXX/trial-N (OUT: `cfg.out`, else ./runs)."""
    from simbridge._run_config import check_assists, check_sim
    from simbridge._runner import preflight
    from simbridge._task import load_task

    task = load_task(cfg.task)
    check_sim(task, cfg.sim)
    check_assists(cfg.sim, cfg.assists)
    preflight(cfg, task)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    root = Path(cfg.out or DEFAULT_OUT).resolve() / f"{task.id}-{cfg.sim}-{stamp}-{uuid.uuid4().hex[:6]}"
    root.mkdir(parents=True, exist_ok=True)
    return Episode(cfg, task, trial, root / f"trial-{trial}", driver="caller")


def runnable_pairs() -> list[tuple[str, str]]:
    """(task id, simulator) for every catalog task and simulator whose preflight passes here
    (its packages are installed, its program found), in catalog order."""
    from simbridge._run_config import resolve_session
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
