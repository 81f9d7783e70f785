"""One simbridge episode driven from outside: the framework adapters' shared piece.

Inspect AI and Gymnasium drive a `simbridge.episode.Episode` (`open_episode`) as its caller:
`start()` brings the episode up and returns the first observation, each agent action goes
through the episode's agent port (`Episode.act`, or `Episode.client` for a framework's tools),
and `close()` ends it the way `simbridge run` does. This module adds the frameworks' own
configuration (`EpisodeConfig`) and which (task, simulator) pairs run here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import InitVar, dataclass

from simbridge._run_config import RunConfig


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
