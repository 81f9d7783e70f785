"""A keyboard pilot for T09, used by the VM episode test (`py:vm.keyboard_pilot:make`).

It reads the cockpit's instruments from screenshots (the reference pilots' needle reader) and flies
the 360° steep turn to the left with the arrow keys only, once per control period of simulator
time, through the agent port. Closed loop, so it holds up when a lockstep slice in a slow guest
ends a little late (a replayed key script does not: the turn is spirally unstable); few actions,
so an episode in a software-emulated guest, where one screenshot costs about a second of wall
time, takes minutes. The reference pilot (mouse yoke, 20 corrections a second) is the one that
flies T09 well; this one is for proving the VM path end to end in a test's time budget.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from simbridge.agents._base import Agent, AgentResult
from simbridge.adapters.jsbsim.pilots._cockpit import Cockpit
from simbridge.adapters.jsbsim.pilots._control import angle_diff

if TYPE_CHECKING:
    from simbridge._agent_port import AgentPortClient
    from simbridge._task import TaskSpec

#: simulator seconds between control decisions
PERIOD_S = 0.5
#: one arrow key press moves the aileron or elevator by this much (FlightGear's binding)
KEY_STEP = 0.05
LEVEL_FIRST_S = 4.0


@dataclass
class TurnLaw:
    """Bank and altitude hold by proportional control, quantised to key presses: roll into 45°
    left, pull by altitude error and vertical speed, roll out `lead_deg` before 360° turned,
    hold wings level `level_after_s`, then done."""

    bank_target: float = -45.0
    k_bank: float = 0.016
    k_roll_rate: float = 0.012
    #: integral of the bank error (the aircraft needs a little aileron to hold a steep bank)
    k_bank_i: float = 0.002
    k_alt: float = 0.004
    k_vs: float = 0.00025
    turn_pull: float = -0.10
    lead_deg: float = 12.0
    level_after_s: float = 5.0
    phase: str = "level"
    turned: float = 0.0
    alt0: float | None = None
    hdg0: float | None = None
    t_start: float | None = None
    t_phase: float = 0.0
    bank_err_i: float = 0.0
    _prev: tuple[float, float, float] | None = field(default=None, repr=False)  # (t, bank, hdg)

    def step(self, t: float, bank: float, alt: float, vs: float, hdg: float) -> tuple[float, float, bool]:
        """(aileron, elevator, done) for the state read at task time t."""
        if self.t_start is None:
            self.t_start = t
        roll_rate, dt = 0.0, 0.0
        if self._prev is not None:
            dt = max(1e-3, t - self._prev[0])
            roll_rate = (bank - self._prev[1]) / dt
            if self.phase in ("turn", "rollout"):
                self.turned += angle_diff(hdg, self._prev[2])
        self._prev = (t, bank, hdg)
        if self.phase == "level":
            self.alt0 = alt
            if t - self.t_start >= LEVEL_FIRST_S:
                self.phase, self.hdg0, self.t_phase = "turn", hdg, t
        elif self.phase == "turn" and abs(self.turned) >= 360.0 - self.lead_deg:
            self.phase, self.t_phase = "rollout", t
        elif self.phase == "rollout" and abs(bank) < 2.0 and t - self.t_phase > self.level_after_s:
            return 0.0, 0.0, True
        target = self.bank_target if self.phase == "turn" else 0.0
        if self.phase == "turn" and abs(target - bank) < 10:
            self.bank_err_i = max(-20.0, min(20.0, self.bank_err_i + (target - bank) * min(1.0, dt)))
        elif self.phase != "turn":
            self.bank_err_i = 0.0
        aileron = _clamp(self.k_bank * (target - bank) + self.k_bank_i * self.bank_err_i - self.k_roll_rate * roll_rate)
        pull = self.turn_pull * min(1.0, abs(bank) / 45.0) if self.phase == "turn" else 0.0
        assert self.alt0 is not None
        elevator = _clamp(-(self.k_alt * (self.alt0 - alt) - self.k_vs * vs) + pull)
        return aileron, elevator, False


def _clamp(v: float, lim: float = 0.5) -> float:
    return max(-lim, min(lim, v))


def presses(current: float, wanted: float) -> int:
    """Key presses (signed) that move a control from `current` toward `wanted`."""
    return round((wanted - current) / KEY_STEP)


class KeyboardTurnPilot(Agent):
    name = "keyboard-turn-pilot"

    def __init__(self) -> None:
        self.law = TurnLaw()
        self.decisions = 0

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        cp = Cockpit(port)
        aileron = elevator = 0.0  # T09 starts trimmed with the controls centred
        while port.elapsed() < deadline_s - 1:
            r = cp.look()
            t = port.elapsed()
            if not r.complete:
                port.wait(0.2)
                continue
            want_a, want_e, done = self.law.step(t, float(r.bank), float(r.alt), float(r.vs), float(r.hdg))
            self.decisions += 1
            if done:
                port.done(f"turned {abs(self.law.turned):.0f}° left in {self.decisions} decisions")
                return "done"
            if n := presses(aileron, want_a):
                port.key("Right" if n > 0 else "Left", hold_s=0, repeat=abs(n))
                aileron += n * KEY_STEP
            if n := presses(elevator, want_e):
                port.key("Up" if n > 0 else "Down", hold_s=0, repeat=abs(n))  # Up = nose down
                elevator += n * KEY_STEP
            port.wait(max(0.0, t + PERIOD_S - port.elapsed()))
        return "give_up"


def make(task_id: str) -> Agent:
    if task_id != "T09":
        raise ValueError(f"the keyboard pilot flies T09 only, not {task_id}")
    return KeyboardTurnPilot()
