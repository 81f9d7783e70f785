"""POH abnormal procedures on a long final, then the landing (P08, P12, P20, P21), flown from pixels.

The aircraft is flown by the landing pilot (`_landing.LandingPilot`: the runway out of the
window, the needles, a 3° path to runway 30 at KHAF, flare, roll-out and stop). Every control
cycle of the approach (`during_approach`) the pilot also watches the panel for the indication
the POH names and, once it shows, works the procedure's steps there and then, one hand action a
cycle between two readings: the same steps (`_poh.magneto_check_steps`, `_poh.low_volts_steps`)
the cruise pilots of P07 and P11 run, each click read back on the panel before the next.

- **P08, rough magneto** (C172S POH, rough engine operation: magneto check; land as soon as
  practical): the throttle is held where it was set until the check is over, so that the
  tachometer alone shows the rough magneto: the rpm falls `_poh.ROUGH_DROP` below what the same
  throttle gave a few seconds before (`_poh.rpm_dropped`). Then magnetos L and R, each watched
  for a second (`WATCH_S`: on the failed magneto alone the engine quits), the better one kept,
  mixture RICH; the landing follows on that magneto.
- **P12, LOW VOLTS** (C172S POH 3-17/3-19): when the LOW VOLTS annunciator lights, avionics OFF,
  master OFF, master ON (reset), LOW VOLTS still on so ALT OFF, pitot heat OFF; the landing
  follows on the battery (BAT on, the flaps still run).
- **P20, SMOKE** (C172S POH 3-11/3-12, electrical fire in flight; land as soon as possible):
  P19's steps (`_poh.electrical_fire_steps`: master OFF, cabin air and heat CLOSED, avionics
  OFF, the other switches OFF); the bus is then dead and the electric flaps stay where they
  were, so the rest of the final is P17's no-flap approach and flare (`NoFlapLandingPilot`).
- **P21, DOOR** (C172S POH Section 4 note): the door is not closed in flight; the approach
  speeds stay below 100 KIAS (`_poh.door_open_steps`); the landing as planned.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from simbridge.adapters.jsbsim.pilots._cockpit import Cockpit
from simbridge.adapters.jsbsim.pilots._control import State
from simbridge.adapters.jsbsim.pilots._instruments import read_instruments
from simbridge.adapters.jsbsim.pilots._landing import LandingPilot, NoFlapLandingPilot
from simbridge.adapters.jsbsim.pilots._poh import (
    DOOR_MAX_KIAS,
    MeanRpm,
    SetLit,
    SetSlider,
    Step,
    Steps,
    Wait,
    annunciator_lit,
    door_open_steps,
    electrical_fire_steps,
    low_volts_steps,
    magneto_check_steps,
    rpm_dropped,
    yellow,
)

if TYPE_CHECKING:
    from simbridge import TaskSpec
    from simbridge.agent import AgentPortClient
    from simbridge.agents import AgentResult

#: simulator seconds between two clicks on the same control while it does not show the asked state
RECLICK_S = 0.3
#: clicks on one control before the procedure gives up on it
MAX_CLICKS = 4
#: P08: seconds each magneto is watched alone. On the failed one the engine quits at once and,
#: at approach speed, the windmilling propeller runs down (about 400 rpm in 4.5 s) until the good
#: magneto no longer catches it; a second shows the loss (~400 rpm) and leaves ~1,100 rpm
WATCH_S = 1.0


class ApproachPohPilot(LandingPilot):
    """A landing on KHAF 30 with a POH procedure worked on the way down: subclasses say what
    the indication is (`indication`) and which steps answer it (`steps`)."""

    runway = "30"
    hold_after_stop_s = 13.0  # the tasks ask for 10 s of the final state

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> "AgentResult":
        self.steps_gen: Steps | None = None
        self.step: Step | None = None
        self.step_t0 = 0.0
        self.clicks = 0
        self.last_click_t = -1e9
        self.rpms: list[tuple[float, float]] = []
        self.answer: float | None = None
        self.summary = ""
        self.failed = ""
        self.hold_throttle = False
        return super().run(port, task, deadline_s)

    # ------------------------------------------------------------------ subclasses
    def indication(self) -> bool:  # pragma: no cover - each pilot's own
        raise NotImplementedError

    def steps(self) -> Steps:  # pragma: no cover - each pilot's own
        raise NotImplementedError

    # ------------------------------------------------------------------ the hook
    def during_approach(self, st: State, cp: Cockpit) -> None:
        """One control cycle of the approach: watch for the indication, then run the steps,
        one hand action a cycle."""
        t = self.port.elapsed()
        self.rpms.append((t, st.rpm))
        if self.summary or self.failed:
            return
        if self.steps_gen is None:
            if self.indication():
                self.steps_gen = self.steps()
                self._next(t)
            return
        self._work(t)

    def _next(self, t: float) -> None:
        assert self.steps_gen is not None
        try:
            self.step = self.steps_gen.send(self.answer)
        except StopIteration as end:
            self.summary, self.step = str(end.value), None
            self.procedure_done()
            return
        self.answer, self.step_t0, self.clicks = None, t, 0

    def _work(self, t: float) -> None:
        step = self.step
        if isinstance(step, Wait):
            if t - self.step_t0 >= step.seconds:
                self._next(t)
        elif isinstance(step, SetLit):
            if yellow(self.cp.frame, step.hotspot) == step.on:
                self._next(t)
            elif t - self.last_click_t >= RECLICK_S:
                if self.clicks >= MAX_CLICKS:
                    self.failed = f"{step.hotspot} would not show {'on' if step.on else 'off'}"
                    return
                self._hands(lambda: self.cp.click(step.hotspot))
                self.clicks += 1
                self.last_click_t = t
        elif isinstance(step, SetSlider):
            self._hands(lambda: self.cp.set_slider(step.hotspot, step.value))
            self._next(t)
        elif isinstance(step, MeanRpm):
            if t - self.step_t0 >= step.seconds:
                self.answer = self.mean_rpm(self.step_t0, t)
                self._next(t)

    def _hands(self, act: Callable[[], None]) -> None:
        """A panel click between two readings: the mouse yoke off, the click, the yoke back on at
        the deflection it had."""
        cp = self.cp
        xy = cp._yoke_xy
        cp.yoke(False)
        act()
        cp.yoke(True)
        if xy is not None and xy != cp._yoke_xy:
            self.port.mouse_move(*xy)
            cp._yoke_xy = xy

    def mean_rpm(self, t0: float, t1: float) -> float:
        vals = [r for t, r in self.rpms if t0 <= t <= t1]
        return float(np.mean(vals)) if vals else 0.0

    def procedure_done(self) -> None:
        """The steps are over (the summary is in `summary`)."""


class RoughMagnetoApproachPilot(ApproachPohPilot):
    """P08: the rough magneto found by the tachometer at a held throttle; the magneto check;
    the landing on the good magneto."""

    #: the throttle is held (not moved for the airspeed) until the check is over, this long at most
    hold_max_s = 60.0
    #: the rpm before (mean over `BASE_S`, ending `GAP_S` ago) against the last second's
    BASE_S, GAP_S = 2.0, 1.0

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> "AgentResult":
        self.t_hold = port.elapsed()
        return super().run(port, task, deadline_s)

    def during_approach(self, st: State, cp: Cockpit) -> None:
        if self.steps_gen is None and not self.summary:
            self.hold_throttle = self.port.elapsed() - self.t_hold < self.hold_max_s
        super().during_approach(st, cp)

    def indication(self) -> bool:
        t = self.port.elapsed()
        if t - self.t_hold < 4.0 + self.BASE_S + self.GAP_S:
            return False
        base = self.mean_rpm(t - 1.0 - self.GAP_S - self.BASE_S, t - 1.0 - self.GAP_S)
        return base > 0 and rpm_dropped(base, self.mean_rpm(t - 1.0, t))

    def steps(self) -> Steps:
        return magneto_check_steps(self.mix_pct, settle_s=0.0, measure_s=WATCH_S)

    def mix_pct(self) -> float | None:
        return read_instruments(self.cp.frame).mix

    def procedure_done(self) -> None:
        self.hold_throttle = False


class LowVoltsApproachPilot(ApproachPohPilot):
    """P12: LOW VOLTS on the annunciator panel; the POH's reset and load shedding; the landing on
    the battery."""

    def indication(self) -> bool:
        return annunciator_lit(self.cp.frame, "low_volts")

    def steps(self) -> Steps:
        return low_volts_steps(lambda: annunciator_lit(self.cp.frame, "low_volts"))


class ElectricalFireApproachPilot(ApproachPohPilot):
    """P20: SMOKE on the annunciator panel; the POH's electrical fire steps (P19's); with the
    master off the flaps stay as they are, so the rest of the final is P17's no-flap approach,
    flare and landing, then the stop on runway 30."""

    def indication(self) -> bool:
        return annunciator_lit(self.cp.frame, "smoke")

    def steps(self) -> Steps:
        no_flap = NoFlapLandingPilot
        self.flap_schedule = no_flap.flap_schedule
        self.approach_kias = dict(no_flap.approach_kias)
        self.flare_ft, self.flare_by_pitch = no_flap.flare_ft, no_flap.flare_by_pitch
        return electrical_fire_steps()


class DoorOpenApproachPilot(ApproachPohPilot):
    """P21: DOOR on the annunciator panel; the door left open (POH: do not try to close it in
    flight), the approach speeds capped below `DOOR_MAX_KIAS`, the landing as planned."""

    def indication(self) -> bool:
        return annunciator_lit(self.cp.frame, "door")

    def steps(self) -> Steps:
        self.approach_kias = {k: min(v, DOOR_MAX_KIAS - 5.0) for k, v in self.approach_kias.items()}
        return door_open_steps()


#: each task's pilot; `--agent py:simbridge.adapters.jsbsim.pilots._approach_poh:pilot_for` flies it
PILOTS: dict[str, type[ApproachPohPilot]] = {"P08": RoughMagnetoApproachPilot, "P12": LowVoltsApproachPilot}


def pilot_for(task_id: str) -> ApproachPohPilot:
    """The pilot of `task_id` (P08 or P12)."""
    return PILOTS[task_id.split("@")[0]]()


__all__ = [
    "PILOTS",
    "ApproachPohPilot",
    "DoorOpenApproachPilot",
    "ElectricalFireApproachPilot",
    "LowVoltsApproachPilot",
    "RoughMagnetoApproachPilot",
    "pilot_for",
]
