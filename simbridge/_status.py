"""An episode's status (episode.json `status`) and the groups every part of simbridge reads:
the scoring engine, the runner, `eval`'s retries and exit code, `verify`, the report.

`running` while the bundle is open. At the end either an outcome of the agent — `completed`
(its `done`, or a crash the verifier judges), `timeout`, `agent_quit` (gave up, raised, stopped),
`agent_disconnected` (its connection to the port closed or stopped answering): scored on what was
recorded, never retried — or a harness fault — `sim_crashed`, `harness_error`: unscored, retried
by `eval`.
"""

from __future__ import annotations

from typing import Literal, get_args

#: the agent's own outcomes: scored
AgentOutcome = Literal["completed", "timeout", "agent_quit", "agent_disconnected"]
#: the harness, not the agent, failed: unscored, never counted as an agent failure
HarnessFault = Literal["sim_crashed", "harness_error"]
EpisodeStatus = Literal["running", AgentOutcome, HarnessFault]

#: every status, in the order above
STATUSES: tuple[str, ...] = get_args(EpisodeStatus)
#: statuses that are the agent's own outcome (scored on what was recorded; `eval` never retries them)
AGENT_OUTCOMES: frozenset[str] = frozenset(get_args(AgentOutcome))
#: statuses that mean the harness, not the agent, failed: never scored as an agent failure
HARNESS_FAULTS: frozenset[str] = frozenset(get_args(HarnessFault))
#: statuses in which the agent itself ended the episode early (its own failure, always scored)
AGENT_ENDED: frozenset[str] = frozenset({"agent_quit", "agent_disconnected"})
#: the status of a bundle still open (or left open by a runner that died)
RUNNING: Literal["running"] = "running"

__all__ = [
    "AGENT_ENDED",
    "AGENT_OUTCOMES",
    "HARNESS_FAULTS",
    "RUNNING",
    "STATUSES",
    "AgentOutcome",
    "EpisodeStatus",
    "HarnessFault",
]
