"""POH emergency and abnormal procedures (P01-P22) flown from pixels: one pilot class per
procedure on a shared flight-holding core.

The core holds the aircraft with the mouse yoke (altitude by elevator, wings level by aileron,
or a target airspeed by pitch for a glide) from the instruments' needles (`read_instruments`),
and works the panel between two readings: a click takes the yoke off (Tab), clicks the hotspot
and puts the yoke back where it was. What the pilot knows of the aircraft it reads from the
screen: the annunciators (LOW VOLTS, SMOKE), the rocker switches, knobs, fuel selector and
magneto key (lit yellow when on or selected), the fuel gauges' needles, the six-pack and the
tachometer, the lever positions, the smoke veil over the window; the drawn values it needs (a
height to descend to) it reads from the instruction. Nothing reaches the simulator's state but
through the agent port."""

from __future__ import annotations

import re
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from simbridge.adapters.jsbsim.pilots._layout import L
from simbridge.agents import Agent, AgentResult
from simbridge.adapters.jsbsim.pilots._cockpit import Cockpit
from simbridge.adapters.jsbsim.pilots._control import PID, AttitudeFlyer, State
from simbridge.adapters.jsbsim.pilots._instruments import Readout, read_instruments, small_gauge

if TYPE_CHECKING:
    from simbridge.agent import AgentPortClient
    from simbridge import TaskSpec

LOOP_DT = 0.25  # simulator seconds between two readings while holding the aircraft
#: the parts of the screen a reading takes (x0, y0, x1, y1): the whole panel (the flight
#: instruments, annunciators, switches, selectors, knobs, levers, fuel gauges, the lower edge)
#: once a second or when the pilot looks at the panel, the six-pack and tachometer alone in
#: between (the panel's left half)
PANEL_REGION = (0, L.PANEL[1], L.WIDTH, L.HEIGHT)
GAUGE_REGION = (0, L.PANEL[1], L.TACH.cx + L.TACH.r + 6, L.VSI.cy + L.VSI.r + 6)
PANEL_EVERY_S = 1.0
HOLD_FINAL_S = 12.0  # the final state held before `done` (the tasks ask for 10 s)
PITCH_RATE_DAMPING = 0.06  # yoke pull per deg/s of pitch rate
BEST_GLIDE_KIAS = 68.0
RUNNING_RPM = 2000.0
FIELD_ELEVATION_FT = 66.0  # KHAF: the embedded terrain is flat at the field's elevation
RISING_KT = 15.0  # P16: an indicated airspeed gaining this much in 15 s of a steady climb is blocked
#: a rough magneto (P07, P08): the rpm at a steady throttle falls by this fraction or more (on BOTH
#: with one magneto failed: 150-250 rpm at cruise power, 75-130 at approach power)
ROUGH_DROP = 0.045


class ProcedureFailed(Exception):
    """The procedure could not be completed (the pilot gives up with this reason)."""


# ---------------------------------------------------------------------- reading the panel
def annunciator_lit(img: np.ndarray, name: str) -> bool:
    """An annunciator shows a colour (amber or red), not the grey of an unlit one; the test is
    on the spread of the channels, so the smoke veil's grey does not hide it."""
    x, y, w, h = L.ANNUNCIATOR_RECTS[name]
    px = img[y + h // 2, x + 5].astype(int)
    return int(px.max() - px.min()) > 60


def yellow(img: np.ndarray, hotspot: str) -> bool:
    """A rocker, knob, selector position or key position lit yellow (on / selected). Judged on
    the hue (red and green high, blue low), so it also holds under the smoke veil."""
    x, y, w, h = L.HOTSPOTS[hotspot]
    region = img[y : y + h, x : x + w, ::-1].astype(np.int16)  # BGR -> RGB
    r, g, b = region[..., 0], region[..., 1], region[..., 2]
    return bool((((r + g) // 2 - b > 50) & (r > b + 60)).mean() > 0.3)


def veil(img: np.ndarray) -> float:
    """How thick the smoke veil is: the panel's black lower edge turns grey under it
    (0 = clear air)."""
    x0, y0 = 1, L.READOUT[1] + 2
    return float(img[y0 : y0 + 14, x0 : x0 + 3].mean())


def drawn_number(text: str, pattern: str) -> float | None:
    """A number the instruction names (e.g. `descend to (\\d+) ft`)."""
    m = re.search(pattern, text)
    return float(m.group(1)) if m else None


def rpm_dropped(base_rpm: float, rpm: float) -> bool:
    """The rough-engine indication: the rpm fallen `ROUGH_DROP` below what the same throttle gave."""
    return rpm < base_rpm * (1.0 - ROUGH_DROP)


# ---------------------------------------------------------------------- procedure steps
# A procedure's steps as a generator of what the hands and eyes do, so a pilot holding cruise
# (`PohPilot.run_steps`) and one flying a final (`_approach_poh`) run the same checklist: it
# yields `Wait`, `SetLit` (a switch, knob or selector position read back lit), `SetSlider` and
# `MeanRpm` (the mean tachometer reading over some seconds, sent back into the generator).
@dataclass(frozen=True)
class Wait:
    seconds: float


@dataclass(frozen=True)
class SetLit:
    hotspot: str
    on: bool = True


@dataclass(frozen=True)
class SetSlider:
    hotspot: str
    value: float


@dataclass(frozen=True)
class MeanRpm:
    seconds: float


Step = Wait | SetLit | SetSlider | MeanRpm
#: a procedure's steps; its return value is the summary `done` reports
Steps = Generator[Step, float | None, str]


def magneto_check_steps(
    mixture_pct: Callable[[], float | None], settle_s: float = 2.0, measure_s: float = 2.0
) -> Steps:
    """C172S POH rough engine (magneto malfunction): magnetos L, then R, each watched for a few
    seconds (on the failed magneto alone the engine quits); stay on the one that runs best;
    mixture RICH (`mixture_pct()` reads the lever)."""
    seen: dict[str, float] = {}
    for side in ("L", "R"):
        yield SetLit(f"mags:{side}")
        if settle_s > 0:
            yield Wait(settle_s)
        seen[side] = float((yield MeanRpm(measure_s)) or 0.0)
    good = max(seen, key=lambda s: seen[s])
    yield SetLit(f"mags:{good}")
    mix = mixture_pct()
    if mix is None or mix < 95:
        yield SetSlider("mixture", 1.0)
    return f"L {seen['L']:.0f}, R {seen['R']:.0f} rpm: on {good}"


def restart_steps(lit: Callable[[str], bool], mixture_pct: Callable[[], float | None]) -> Steps:
    """C172S POH 3-6/3-7, engine failure during flight (restart), in the POH's order: fuel
    selector BOTH, mixture RICH, magnetos BOTH, each only where the panel shows it otherwise
    (`lit(hotspot)` reads a selector position, `mixture_pct()` the lever). Returns what it changed."""
    fixed = []
    if not lit("fuel:BOTH"):
        yield SetLit("fuel:BOTH")
        fixed.append("fuel selector BOTH")
    mix = mixture_pct()
    if mix is None or mix < 95:
        yield SetSlider("mixture", 1.0)
        fixed.append("mixture RICH")
    if not lit("mags:BOTH"):
        yield SetLit("mags:BOTH")
        fixed.append("magnetos BOTH")
    return ", ".join(fixed)


def low_volts_steps(still_lit: Callable[[], bool]) -> Steps:
    """C172S POH 3-17/3-19, LOW VOLTS on in flight: avionics OFF, master (ALT and BAT) OFF, master
    ON (reset); LOW VOLTS still on (`still_lit()` reads the annunciator), so ALT OFF; pitot heat
    OFF (the load reduced)."""
    yield Wait(1.0)
    yield SetLit("switch:avionics", False)
    yield SetLit("switch:master_alt", False)
    yield SetLit("switch:master_bat", False)
    yield Wait(1.0)
    yield SetLit("switch:master_bat", True)
    yield SetLit("switch:master_alt", True)
    yield Wait(2.0)
    still = still_lit()
    yield SetLit("switch:master_alt", False)
    yield SetLit("switch:pitot_heat", False)
    return f"LOW VOLTS {'stayed on after the reset' if still else 'after the reset'}: ALT OFF, load shed"


def electrical_fire_steps() -> Steps:
    """C172S POH 3-11/3-12, electrical fire in flight (SMOKE): master (ALT and BAT) OFF; vents,
    cabin air and heat CLOSED; avionics master OFF; all other switches OFF (pitot heat, landing
    and taxi lights). With the master off the bus is dead: the electric flaps stay where they are."""
    yield SetLit("switch:master_alt", False)
    yield SetLit("switch:master_bat", False)
    for knob in ("knob:cabin_air", "knob:cabin_heat"):
        yield SetLit(knob, False)
    yield SetLit("switch:avionics", False)
    for sw in ("pitot_heat", "landing_light", "taxi_light"):
        yield SetLit(f"switch:{sw}", False)
    return "master OFF, vents closed, avionics and loads OFF"


#: POH: "reduce airspeed" with the cabin door open: below this (KIAS)
DOOR_MAX_KIAS = 100.0


def door_open_steps() -> Steps:
    """C172S POH (Section 4 note), cabin door open in flight (DOOR): the door is not closed in
    flight (it does not change the flight characteristics; this cockpit has no control for it);
    reduce the airspeed below `DOOR_MAX_KIAS` and land. No hand action on the panel: the pilot
    running these steps flies the rest of its flight below that speed."""
    yield Wait(0.0)
    return f"DOOR open: left as it is, airspeed below {DOOR_MAX_KIAS:.0f} KIAS, landing"


# ---------------------------------------------------------------------- the shared core
class PohPilot(Agent):
    """Holds the aircraft while a procedure (`procedure()`) works the panel; calls done with
    the procedure's summary after holding the final state."""

    name = "reference"
    #: the bank `_steer` holds (deg, + right); a turning pilot sets it
    bank_target = 0.0
    #: simulator seconds between two readings (a pilot flying close to the ground reads faster)
    loop_dt = LOOP_DT

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        self.port, self.cp, self.st = port, Cockpit(port), State()
        self.deadline = deadline_s
        self.instruction = str(port.task().get("instruction") or task.instruction)
        self.r: Readout | None = None
        self._t_panel = -1e9
        while not self.st.update(port.elapsed(), self.look(), None):
            port.wait(0.1)
        self.fly = AttitudeFlyer(self.cp, self.st)
        # four readings a second: a softer vertical-speed loop than the flyer's, damped by the
        # pitch rate (without it the elevator hunts at this reading rate)
        self.fly.vs_pid = PID(kp=0.0001, ki=0.00003, lo=-0.5, hi=0.7)
        self.mode = "alt"
        self.alt_target = self.st.alt
        self.ias_target = BEST_GLIDE_KIAS
        self.vs_limit = 600.0
        self._t_prev = self.st.t
        self._cmd = (0.0, 0.0)
        self.cp.yoke(True)
        try:
            summary = self.procedure()
            self.fly_for(HOLD_FINAL_S)
        except ProcedureFailed as e:
            port.give_up(str(e))
            return "give_up"
        finally:
            p50, p95 = self.cp.latency_ms()
            self.st.dump_trace({"latency_ms": [p50, p95]})
        port.done(summary)
        return "done"

    def procedure(self) -> str:  # pragma: no cover - each pilot's own
        raise NotImplementedError

    # -------------------------------------------------------------- flying
    @property
    def img(self) -> np.ndarray:
        return self.cp.frame

    def look(self, panel: bool = True) -> Readout:
        """A screenshot of the panel (or of the flight instruments alone) pasted into the
        full-size frame the readers index by screen position, and the instruments read from it."""
        x0, y0, x1, y1 = PANEL_REGION if panel else GAUGE_REGION
        if panel:
            self._t_panel = self.port.elapsed()
        shot = self.port.screenshot("png", region=[x0, y0, x1, y1]).to_array()
        if self.cp.img is None or self.cp.img.shape[:2] != (L.HEIGHT, L.WIDTH):
            self.cp.img = np.zeros((L.HEIGHT, L.WIDTH, 3), np.uint8)
        self.cp.img[y0 : y0 + shot.shape[0], x0 : x0 + shot.shape[1]] = shot[..., :3]
        return read_instruments(self.cp.img, self.cp.failed)

    def tick(self) -> None:
        """One reading and one control step, then `loop_dt` of simulator time."""
        self.r = self.look(panel=self.port.elapsed() - self._t_panel >= PANEL_EVERY_S)
        if self.st.update(self.port.elapsed(), self.r, None):
            dt = max(1e-3, self.st.t - self._t_prev)
            self._t_prev = self.st.t
            self._steer(dt)
        self.port.wait(self.loop_dt)

    def _steer(self, dt: float) -> None:
        st, fly = self.st, self.fly
        ail = fly.bank_pid.step(self.bank_target - st.bank, dt, rate=-st.roll_rate)  # wings level by default
        if self.mode == "alt":
            vs_cmd = max(-self.vs_limit, min(self.vs_limit, 3.0 * (self.alt_target - st.alt)))
        else:  # "speed": the airspeed by pitch (a glide, a descent at idle)
            vs_cmd = max(-2500.0, min(300.0, -700.0 + 60.0 * (st.ias - self.ias_target)))
        pull = fly.vs_pid.step(vs_cmd - st.vs, dt) - PITCH_RATE_DAMPING * st.pitch_rate
        self._cmd = (ail, pull)
        self.cp.fly(ail, pull)

    def out_of_time(self, margin_s: float = HOLD_FINAL_S + 3.0) -> bool:
        return self.port.elapsed() >= self.deadline - margin_s

    def fly_until(self, pred, timeout_s: float) -> bool:
        """Hold the aircraft until `pred()` holds (judged on the latest frame), `timeout_s` at most."""
        t_end = self.port.elapsed() + timeout_s
        while True:
            self.tick()
            if pred():
                return True
            if self.port.elapsed() >= t_end or self.out_of_time(2.0):
                return False

    def fly_for(self, seconds: float) -> None:
        t_end = self.port.elapsed() + seconds
        while self.port.elapsed() < t_end and not self.out_of_time(1.0):
            self.tick()

    def wait_for(self, pred, what: str) -> None:
        """Hold the aircraft until `pred()`; the procedure fails if it never comes."""
        if not self.fly_until(pred, self.deadline):
            raise ProcedureFailed(f"never saw {what}")

    # -------------------------------------------------------------- hands
    def click(self, hotspot: str) -> None:
        """A panel click between two readings: yoke off, click, yoke back where it was."""
        self.cp.yoke(False)
        self.cp.click(hotspot)
        self.cp.yoke(True)
        self.cp.fly(*self._cmd)
        self.tick()

    def set_lit(self, hotspot: str, on: bool = True) -> None:
        """Click a rocker or knob (or a selector position) until it shows `on`, reading the
        panel back after each click."""
        for _ in range(4):
            self.look()
            if yellow(self.img, hotspot) == on:
                return
            self.click(hotspot)
            self.fly_for(0.3)
        raise ProcedureFailed(f"{hotspot} would not show {'on' if on else 'off'}")

    def set_slider(self, hotspot: str, value: float) -> None:
        self.cp.yoke(False)
        self.cp.set_slider(hotspot, value)
        self.cp.yoke(True)
        self.cp.fly(*self._cmd)
        self.tick()

    def crank(self, max_s: float = 8.0) -> bool:
        """Hold the key at START (released when the tachometer shows the engine running)."""
        x, y, w, h = L.HOTSPOTS["mags:START"]
        self.cp.yoke(False)
        self.port.mouse_down("left", x + w // 2, y + h // 2)
        try:
            t_end = self.port.elapsed() + max_s
            while self.port.elapsed() < t_end:
                self.port.wait(0.2)
                r = self.look(panel=False)
                if r.rpm is not None and r.rpm > 1000:
                    break
        finally:
            self.port.mouse_up("left", x + w // 2, y + h // 2)
            self.cp.yoke(True)
            self.cp.fly(*self._cmd)
        self.fly_for(2.0)
        return self.rpm() > 1000

    def rpm(self) -> float:
        return float(self.r.rpm) if self.r is not None and self.r.rpm is not None else self.st.rpm

    def mean_rpm(self, seconds: float) -> float:
        vals = []
        t_end = self.port.elapsed() + seconds
        while self.port.elapsed() < t_end:
            self.tick()
            if self.r is not None and self.r.rpm is not None:
                vals.append(float(self.r.rpm))
        return float(np.mean(vals)) if vals else 0.0

    def restart_attempt(self) -> Steps:
        """`restart_steps` read on this pilot's panel (the latest frame, the mixture lever)."""
        return restart_steps(lambda hotspot: yellow(self.img, hotspot), lambda: None if self.r is None else self.r.mix)

    def run_steps(self, steps: Steps) -> str:
        """Run a procedure's steps while holding the aircraft; returns its summary."""
        answer: float | None = None
        try:
            while True:
                step = steps.send(answer)
                answer = None
                if isinstance(step, Wait):
                    self.fly_for(step.seconds)
                elif isinstance(step, SetLit):
                    self.set_lit(step.hotspot, step.on)
                elif isinstance(step, SetSlider):
                    self.set_slider(step.hotspot, step.value)
                else:
                    answer = self.mean_rpm(step.seconds)
        except StopIteration as end:
            return str(end.value)


# ---------------------------------------------------------------------- the procedures
class EngineRestartPilot(PohPilot):
    """P01, P02 (C172S POH 3-6/3-7, engine failure during flight, restart): when the tachometer
    falls below 1,200 rpm, best glide 68 KIAS; fuel selector BOTH, mixture RICH, magnetos BOTH
    (START if the propeller stopped); then level flight on the restarted engine."""

    def procedure(self) -> str:
        self.wait_for(lambda: self.rpm() < 1200.0, "the engine stop")
        self.mode, self.ias_target = "speed", BEST_GLIDE_KIAS
        # best glide first: fly it until the airspeed has been in the band for a while
        since: list[float] = []

        def settled() -> bool:
            if abs(self.st.ias - BEST_GLIDE_KIAS) <= 4.0:
                since.append(self.st.t)
            else:
                since.clear()
            return bool(since) and self.st.t - since[0] >= 8.0

        self.fly_until(settled, 60.0)
        self.look()
        changed = self.run_steps(self.restart_attempt())
        fixed = [changed] if changed else []
        if not self.fly_until(lambda: self.rpm() > RUNNING_RPM, 6.0):
            if self.st.alt - FIELD_ELEVATION_FT < 600.0:
                raise ProcedureFailed("too low to crank")
            for _ in range(2):
                if self.crank():
                    break
            fixed.append("started")
        self.mode, self.alt_target = "alt", self.st.alt
        if not self.fly_until(lambda: self.rpm() >= RUNNING_RPM + 100, 20.0):
            raise ProcedureFailed(f"the engine did not come back ({self.rpm():.0f} rpm)")
        return f"engine restarted: {', '.join(fixed) or 'no change needed'}; {self.rpm():.0f} rpm"


class FuelImbalancePilot(PohPilot):
    """P03: read the fuel gauges; the selected tank is almost empty, so the selector goes to BOTH."""

    def procedure(self) -> str:
        self.fly_for(1.0)
        self.look()
        left, right = small_gauge(self.img, L.FUEL_L), small_gauge(self.img, L.FUEL_R)
        on = next((p for p in ("LEFT", "RIGHT", "BOTH", "OFF") if yellow(self.img, f"fuel:{p}")), "?")
        self.set_lit("fuel:BOTH")
        self.fly_for(10.0)  # control is judged from 10 s: level flight, then the final state
        return f"fuel L {left or 0:.1f} gal, R {right or 0:.1f} gal on {on}: selector BOTH"


class MagnetoCheckPilot(PohPilot):
    """P07 (rough engine: magneto check): the rpm drops 150-250 at a steady throttle, so L,
    then R, each for a few seconds; the engine stays on the one that runs best; mixture RICH."""

    def procedure(self) -> str:
        self.fly_for(4.0)
        base = self.mean_rpm(3.0)
        self.wait_for(lambda: rpm_dropped(base, self.mean_rpm(1.0)), "an rpm drop")
        done = self.run_steps(magneto_check_steps(lambda: None if self.r is None else self.r.mix))
        self.fly_until(lambda: self.rpm() >= RUNNING_RPM + 100, 10.0)
        return f"rough on BOTH ({base:.0f} rpm before); {done}"


class CarbIcePilot(PohPilot):
    """P09, P10 (carburetor icing): level at part throttle (P10: level off from the descent at
    cruise power); when the rpm falls 120 below the best seen, carb heat ON and throttle full,
    until the rpm has stopped rising (the ice gone)."""

    cruise_throttle: float | None = None

    def procedure(self) -> str:
        if "Level off" in self.instruction:  # P10: level off at cruise power
            self.set_slider("throttle", 0.65)
        self.fly_for(3.0)
        best = [self.mean_rpm(1.0)]

        def iced() -> bool:
            m = self.mean_rpm(1.0)
            best[0] = max(best[0], m)
            return m < best[0] - 120.0

        self.wait_for(iced, "an rpm loss")
        self.set_lit("knob:carb_heat")
        self.set_slider("throttle", 1.0)
        peak, t_peak = self.rpm(), self.port.elapsed()
        while self.port.elapsed() - t_peak < 10.0 and not self.out_of_time():
            m = self.mean_rpm(1.0)
            if m > peak + 10.0:
                peak, t_peak = m, self.port.elapsed()
        if peak < 2250:
            raise ProcedureFailed(f"the rpm stayed low ({peak:.0f})")
        return f"carb heat ON, throttle full: {peak:.0f} rpm"


class PitotBlockagePilot(PohPilot):
    """P15 (pitot blockage in cruise): the airspeed cross-checked against the power. Every few
    seconds the pilot takes 15 % of throttle off for 8 s, holding the altitude: a working
    airspeed indicator shows the aircraft slowing, a blocked one (trapped pressure, the static
    unchanged at a held altitude) does not move. Then pitot heat ON (POH, inadvertent icing
    encounter) until the indicator follows the power again."""

    def _power_check(self) -> float:
        """The indicated airspeed lost over 8 s with 15 % less throttle (power restored after)."""
        self.fly_for(2.0)
        ias0 = self.st.ias
        self.port.key("Next", repeat=15, hold_s=0.03)
        self.fly_for(8.0)
        lost = ias0 - self.st.ias
        self.port.key("Prior", repeat=15, hold_s=0.03)
        return lost

    def procedure(self) -> str:
        self.fly_for(3.0)
        checks = []
        while not self.out_of_time(60.0):
            checks.append(self._power_check())
            if checks[-1] < 2.0:
                break
        else:
            raise ProcedureFailed("the airspeed indicator always followed the power")
        self.set_lit("switch:pitot_heat", True)
        self.fly_for(40.0)  # the POH's heat needs time: the ice melts in about 40 s
        while not self.out_of_time(30.0):
            lost = self._power_check()
            if lost >= 2.0:
                self.fly_for(8.0)  # speed back after the check
                return f"airspeed stuck ({checks[-1]:+.0f} kt on a power cut): pitot heat ON, it reads again"
            self.fly_for(5.0)
        raise ProcedureFailed("the airspeed indicator did not come back")


class PitotClimbPilot(PohPilot):
    """P16 (pitot blockage in the climb): the climb flown on the vertical speed (600 fpm at full
    power), not on the airspeed; an indicated airspeed that keeps rising in that steady climb
    reads like an altimeter: pitot heat ON. Level at the height the instruction names, cruise
    power. "Rising" is 15 kt in 15 s: at 600 fpm a blocked indicator gains about 20 kt in 15 s,
    and faster after, while the aircraft itself, settling from the 75 kt entry towards its
    ~108 kt climb at full power, gains 12.5 kt at most (P16 seed 1)."""

    def procedure(self) -> str:
        target_agl = drawn_number(self.instruction, r"[Cc]limb to (\d+) ft above the ground")
        if target_agl is None:
            raise ProcedureFailed("no height in the instruction")
        target = target_agl + FIELD_ELEVATION_FT
        self.alt_target, self.vs_limit = target, 600.0
        self.fly_for(8.0)
        seen: list[tuple[float, float]] = []

        def rising() -> bool:
            seen.append((self.st.t, self.st.ias))
            old = [ias for t, ias in seen if self.st.t - t >= 15.0]
            return bool(old) and self.st.ias - old[-1] >= RISING_KT and self.st.vs > 300.0

        flag: list[bool] = []

        def seen_or_near() -> bool:
            if rising():
                flag.append(True)
                return True
            return self.st.alt > target - 300.0

        self.fly_until(seen_or_near, 900.0)
        blocked = bool(flag)
        self.set_lit("switch:pitot_heat", True)
        self.fly_until(lambda: abs(self.st.alt - target) < 100, 600.0)
        self.set_slider("throttle", 0.65)
        steady: list[float] = []

        def level() -> bool:
            ok = abs(self.st.alt - target) < 50 and abs(self.st.vs) < 200
            steady[:] = (steady or [self.st.t]) if ok else []
            return bool(steady) and self.st.t - steady[0] >= 5.0

        self.fly_until(level, 60.0)
        what = "the airspeed rose in a steady climb" if blocked else "no blockage seen"
        return f"{what}: pitot heat ON; level at {target_agl:.0f} ft AGL"


class LowVoltsPilot(PohPilot):
    """P11 (LOW VOLTS in flight, C172S POH 3-17/3-19): avionics OFF, master OFF, master ON
    (reset); LOW VOLTS still on, so ALT OFF; pitot heat OFF."""

    def procedure(self) -> str:
        self.wait_for(lambda: annunciator_lit(self.img, "low_volts"), "LOW VOLTS")

        def still_lit() -> bool:
            self.look()
            return annunciator_lit(self.img, "low_volts")

        return self.run_steps(low_volts_steps(still_lit))


class ElectricalFirePilot(PohPilot):
    """P19 (electrical fire in flight, C172S POH 3-11/3-12): at SMOKE, master OFF, cabin air
    and heat closed, avionics OFF, pitot heat and lights OFF; when the veil thins, vents open
    until the cabin is clear."""

    def procedure(self) -> str:
        self.wait_for(lambda: annunciator_lit(self.img, "smoke"), "SMOKE")
        self.run_steps(electrical_fire_steps())
        self.fly_for(4.0)
        self.fly_until(lambda: veil(self.img) < 40.0, 40.0)
        self.set_lit("knob:cabin_air", True)
        if not self.fly_until(lambda: veil(self.img) < 1.0, 40.0):
            raise ProcedureFailed("the smoke did not clear")
        return "master OFF, vents closed, avionics and loads OFF; smoke cleared, cabin air open"


class EmergencyDescentPilot(PohPilot):
    """P22 (smoke: electrical fire procedure and an emergency descent): at SMOKE, throttle idle,
    master OFF, avionics OFF; descend at 120 KIAS to the height the instruction names, level
    off there at cruise power."""

    def procedure(self) -> str:
        target_agl = drawn_number(self.instruction, r"descend to (\d+) ft above the ground")
        if target_agl is None:
            raise ProcedureFailed("no height in the instruction")
        target = target_agl + FIELD_ELEVATION_FT
        self.wait_for(lambda: annunciator_lit(self.img, "smoke"), "SMOKE")
        self.set_slider("throttle", 0.0)
        self.set_lit("switch:master_alt", False)
        self.set_lit("switch:master_bat", False)
        self.set_lit("switch:avionics", False)
        self.mode, self.ias_target = "speed", 120.0
        self.wait_for(lambda: self.st.alt <= target + 400.0, "the height")
        self.mode, self.alt_target, self.vs_limit = "alt", target, 800.0
        self.set_slider("throttle", 0.6)
        steady: list[float] = []

        def level() -> bool:
            ok = abs(self.st.alt - target) < 80 and abs(self.st.vs) < 200
            steady[:] = (steady or [self.st.t]) if ok else []
            return bool(steady) and self.st.t - steady[0] >= 5.0

        self.fly_until(level, 60.0)
        self.fly_until(lambda: veil(self.img) < 1.0, 60.0)
        return f"idle, master OFF, descended to {target_agl:.0f} ft AGL"


__all__ = [
    "CarbIcePilot",
    "ElectricalFirePilot",
    "EmergencyDescentPilot",
    "EngineRestartPilot",
    "FuelImbalancePilot",
    "LowVoltsPilot",
    "MagnetoCheckPilot",
    "MeanRpm",
    "PitotBlockagePilot",
    "PitotClimbPilot",
    "PohPilot",
    "SetLit",
    "SetSlider",
    "Step",
    "Steps",
    "DOOR_MAX_KIAS",
    "Wait",
    "door_open_steps",
    "electrical_fire_steps",
    "low_volts_steps",
    "magneto_check_steps",
    "restart_steps",
    "rpm_dropped",
]
