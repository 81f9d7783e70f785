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
        while True:
            left = deadline_s - port.elapsed()
            if left <= 0:
                return "give_up"
            port.wait(min(left, 5.0))
