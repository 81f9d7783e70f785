"""The agent: screen pixels in (port.screenshot), mouse and keyboard out, done/give_up at the end."""

from __future__ import annotations

from typing import TYPE_CHECKING

from simbridge.agents import Agent, AgentResult, ExternalFault

if TYPE_CHECKING:
    from simbridge.agent import AgentPortClient
    from simbridge import TaskSpec

#: buttons of the JSBSim cockpit's NAV1 radio (screen pixels, from a screenshot)
NAV1_MHZ_UP = (1115, 447)
NAV1_KHZ_UP = (1195, 447)
NAV1_SWAP = (910, 447)


class MyAgent(Agent):
    #: the agent's one name: episode.json, `simbridge metrics`, eval's episode ids and reports
    name = "my-agent"

    def decide(self, screen_png: bytes, brief: dict) -> list[tuple[str, tuple[int, int]]]:
        """Your model goes here: the screen and the brief in, a plan of clicks out. A failure of
        the model's service is not the agent's: raise ExternalFault and the episode is unscored
        (harness_error) instead of counted as the agent's 0."""
        try:
            # NAV1 standby 108.00 → 114.10: +6 MHz, +2 × 50 kHz, then swap it active
            return [("click", NAV1_MHZ_UP)] * 6 + [("click", NAV1_KHZ_UP)] * 2 + [("click", NAV1_SWAP)]
        except ConnectionError as exc:  # e.g. your model's API is unreachable
            raise ExternalFault(f"model API: {exc}") from exc

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        brief = port.task()  # what the agent is told: instruction, simulator, controls, limit
        shot = port.screenshot()  # the screen as PNG (shot.data, shot.mime_type)
        for kind, (x, y) in self.decide(shot.data, brief):
            if kind == "click":
                port.click(x, y)
        port.wait(1.0)  # let the radio settle (simulator seconds)
        port.done("NAV1 set to 114.10")
        return "done"


def make(task_id: str) -> MyAgent:
    """`py:my_agent:make`: the factory simbridge calls with the task id. The return annotation
    names the agent's class, so `simbridge eval` knows its name before building it."""
    return MyAgent()
