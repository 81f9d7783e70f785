"""`--agent reference`: the task's reference pilot on the simulator the episode runs.

Reference pilots fly a task through the agent port alone (screen pixels in, keys and mouse out).
Each is written for one simulator's cockpit, so a simulator's plug-in registers them beside its
adapter (simbridge.registry, kind `pilot`, named `TASK/SIM`, or `TASK/*` for any simulator
without its own). The episode's simulator is read from the port's brief when the run starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from simbridge._errors import SimbridgeError
from simbridge.agents._base import Agent, AgentContext, AgentResult
from simbridge.registry import registry

if TYPE_CHECKING:
    from simbridge._agent_port import AgentPortClient
    from simbridge._task import TaskSpec


def pilot_names(task_id: str) -> list[str]:
    """The registered pilot names (`TASK/SIM`) of a task, its airport variants included."""
    base = task_id.split("@")[0]
    return [n for n in registry().names("pilot") if n.split("/")[0] == base]


def make_pilot(task_id: str, sim: str) -> Agent | None:
    """The reference pilot of `task_id` on `sim` (else the task's `*` pilot), or None."""
    base = task_id.split("@")[0]
    reg = registry()
    for name in (f"{base}/{sim}", f"{base}/*"):
        if reg.find("pilot", name) is not None:
            return reg.pilot(name)()
    return None


class ReferenceAgent(Agent):
    """Flies with the pilot registered for the task on the episode's simulator."""

    name = "reference"

    def __init__(self, task_id: str) -> None:
        if not pilot_names(task_id):
            raise SimbridgeError(f"reference agent: no reference pilot for task {task_id}")
        self.task_id = task_id
        self.chosen: Agent | None = None
        self._ctx: AgentContext | None = None

    def setup(self, ctx: AgentContext) -> None:
        self._ctx = ctx

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        sim = str(port.task().get("sim", ""))
        self.chosen = make_pilot(self.task_id, sim)
        if self.chosen is None:
            known = ", ".join(pilot_names(self.task_id))
            raise SimbridgeError(f"reference agent: no reference pilot for task {self.task_id} on {sim} ({known})")
        if self._ctx is not None:
            self.chosen.setup(self._ctx)
        return self.chosen.run(port, task, deadline_s)

    def close(self) -> None:
        if self.chosen is not None:
            self.chosen.close()


__all__ = ["ReferenceAgent", "make_pilot", "pilot_names"]
