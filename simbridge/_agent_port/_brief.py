"""What the agent is told about its task: the instruction for the simulator that actually runs,
the input documents, the time limit, the clock and the simulator's controls. The simulator
and vehicle it names are the ones that run (`sim_title`, `vehicle_for`): the JSBSim cockpit's
six-pack C172 is never called a G1000. Which panel the agent has is said too: the vehicle's
own instruments only, or with the assists the episode asked for (`--assist readout`: the JSBSim
cockpit's digital readout strip), whose scores are kept apart. Mode switches the agent can trigger are in the
simulator's `controls` (the JSBSim cockpit's right-click mouse yoke and how to leave it).

One `TaskBrief` per episode, built by the runner before the agent may act; the port serves it
(the `task` action, an MCP prompt and resource, the server's instructions) and episode.json
records it, so a reader of a bundle knows exactly what the agent knew.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from simbridge._task import TaskSpec


class Control(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    keys: str
    action: str


class BriefInput(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str = Field(description="Path in the agent's folder, e.g. input/ofp.pdf")
    description: str


class BriefAssist(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    shows: str = Field(description="What the assist shows beyond the real vehicle's own displays")


class TaskBrief(BaseModel):
    """The task as the agent sees it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task_id: str
    sim: str = Field(description="The simulator that runs this episode")
    vehicle: str
    instruction: str = Field(description="The instruction for this simulator")
    inputs: list[BriefInput] = Field(default_factory=list)
    time_limit_s: float = Field(description="Task-clock limit: simulator seconds since the episode started")
    lockstep: bool = Field(description="The simulator is paused while the agent decides")
    screen_px: tuple[int, int] | None = None
    controls: list[Control] = Field(default_factory=list)
    assists: list[BriefAssist] = Field(
        default_factory=list, description="Assists on in this episode (none: the vehicle's own instruments only)"
    )
    assists_offered: list[str] = Field(
        default_factory=list, description="The assists this simulator can show, on or off"
    )

    def panel(self) -> str | None:
        """One sentence: the instruments only, or with which assists (None: the simulator offers none)."""
        if self.assists:
            on = "; ".join(f"the {a.name} assist, {a.shows}" for a in self.assists)
            return (
                f"Panel: the instruments, with {on}. Scores of assisted episodes are reported apart from "
                "unassisted ones."
            )
        if self.assists_offered:
            return (
                "Panel: the vehicle's own instruments only, no assist "
                f"({', '.join(self.assists_offered)} off): read the gauges."
            )
        return None

    def text(self) -> str:
        """The brief as a prompt."""
        lines = [f"Task {self.task_id}", "", self.instruction, ""]
        lines.append(f"Simulator: {sim_title(self.sim)} ({self.sim}). Vehicle: {self.vehicle}.")
        if self.screen_px:
            lines.append(f"Screen: {self.screen_px[0]}×{self.screen_px[1]} pixels; coordinates are screen pixels.")
        clock = (
            "The simulator is paused while you decide; each input runs it for a short slice and `wait` runs it "
            "for exactly the time asked."
            if self.lockstep
            else "The simulator runs in real time."
        )
        lines.append(f"Time limit: {self.time_limit_s:g} s of simulator time. {clock}")
        if (panel := self.panel()) is not None:
            lines.append(panel)
        if self.inputs:
            lines += ["", "Documents in your folder (read_file):"]
            lines += [f"- {i.path}: {i.description}" for i in self.inputs]
        if self.controls:
            lines += ["", "Simulator controls:"]
            lines += [f"- {c.keys}: {c.action}" for c in self.controls]
        lines += ["", "Call `done` when the task is complete, or `give_up` to stop. Nothing is accepted after that."]
        return "\n".join(lines)


def sim_title(sim: str) -> str:
    """How a brief names the simulator that runs the episode: its adapter's `title`, else its name."""
    from simbridge._adapters_registry import simulator_trait

    return str(simulator_trait(sim, "title", "") or sim)


def vehicle_for(task: "TaskSpec", sim: str) -> str:
    """The vehicle as it is on `sim`: the catalog's name on its home simulator; elsewhere the
    name without the home cockpit's parenthesis ("Cessna 172 (G1000)" is a six-pack c172x on
    jsbsim) and with that simulator's own model id: "Cessna 172 (c172x)"."""
    model = task.vehicle.model
    if sim == task.simulator.name:
        return model
    base = re.sub(r"\s*\([^)]*\)\s*$", "", model).strip() or model
    own = task.vehicle.ids.get(sim)
    return f"{base} ({own})" if own else base


def make_brief(
    task: "TaskSpec",
    sim: str,
    *,
    time_limit_s: float,
    lockstep: bool,
    controls: tuple[tuple[str, str], ...] = (),
    screen_px: tuple[int, int] | None = None,
    assists: Mapping[str, str] | None = None,
    assists_offered: Sequence[str] = (),
) -> TaskBrief:
    """The brief of `task` on simulator `sim` (the instruction rendered for that simulator);
    `assists`: those on (name -> what it shows), `assists_offered`: every one the simulator has."""
    return TaskBrief(
        task_id=task.id,
        sim=sim,
        vehicle=vehicle_for(task, sim),
        instruction=task.instruction_for(sim),
        inputs=[BriefInput(path=f.path, description=f.description) for f in task.inputs],
        time_limit_s=float(time_limit_s),
        lockstep=lockstep,
        screen_px=screen_px,
        controls=[Control(keys=k, action=a) for k, a in controls],
        assists=[BriefAssist(name=n, shows=v) for n, v in sorted((assists or {}).items())],
        assists_offered=sorted(assists_offered),
    )
