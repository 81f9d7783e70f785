"""The do-nothing agent: a baseline that must score 0 (a task that pays for nothing is broken)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from simbridge.agents._base import Agent, AgentResult

if TYPE_CHECKING:
    from simbridge._agent_port import AgentPortClient
    from simbridge._task import TaskSpec


class NoopAgent(Agent):
    """Touches nothing and waits out the time limit."""

    name = "noop"

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        while True:  # the runner ends the episode at the time limit (EpisodeOver ends this loop)
            port.wait(5.0)
