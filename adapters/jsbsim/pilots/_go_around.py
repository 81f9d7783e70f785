"""P18: a go-around from short final with the flaps stuck at 30° (C172S POH Section 4, balked
landing: throttle FULL, carburetor heat COLD, flaps RETRACT TO 20°, climb speed 60 KIAS, the
flaps retracted slowly once clear of obstacles), climbing to the height the instruction names
and staying there.

The climb is the takeoff's (`_takeoff.Departure` in its climb phase, at T02's reading rate): full
throttle, the airspeed held by pitch at `CLIMB_KIAS`, wings level on the heading of the final.
The flap lever goes to 20° as the POH says; the panel shows the lever, not the flaps, so the pilot
flies speeds that suit 30° as well (they have in fact failed there). At the height, with a lead
of a tenth of the climb rate, the altitude passes to `PohPilot`'s vertical-speed hold (the climb's
elevator carried over, with firmer gains) and the throttle comes back to the setting that flies
30° of flaps level at `LEVEL_KIAS`; from there the airspeed is trimmed by the throttle as T02's
level-off does (`AttitudeFlyer.throttle_for`, a gentle PI read back on the lever), never below
the setting that keeps the engine above 2,000 rpm. A final that starts above the height (3 nm out
is 950 ft up; the height may be 800) is flown down to it at 300 fpm on 60 % throttle first."""

from __future__ import annotations

from simbridge.adapters.jsbsim.pilots._control import PID
from simbridge.adapters.jsbsim.pilots._poh import FIELD_ELEVATION_FT, PohPilot, ProcedureFailed, drawn_number
from simbridge.adapters.jsbsim.pilots._takeoff import Departure

#: the climb at full power with 30° of flaps (POH balked landing: 60 KIAS; stall 40 KIAS full flaps)
CLIMB_KIAS = 65.0
#: level with 30° of flaps, 10 kt below the 85 KIAS flap speed (slower, the power it takes leaves
#: the engine too close to the 2,000 rpm the final state asks for)
LEVEL_KIAS = 75.0
#: the throttle that holds 30° of flaps level at LEVEL_KIAS near 1,000 ft (about 2,200 rpm); the
#: PI trims around it, never below THROTTLE_FLOOR (about 2,150 rpm at LEVEL_KIAS)
LEVEL_THROTTLE = 0.74
THROTTLE_FLOOR = 0.72
#: a start above the height (a 3 nm final is 950 ft up, the height may be 800): the descent to it
#: at this rate and throttle (at the level setting the airspeed ran up to the 85 KIAS flap speed)
DESCENT_FPM = 300.0
DESCENT_THROTTLE = 0.6
#: seconds between two readings in the climb (T02's rate: Departure's pitch loop is tuned for it)
CLIMB_DT = 0.05


class GoAroundPilot(PohPilot):
    """P18: balked landing, then level at the instruction's height with the flaps stuck."""

    dep: Departure
    climbing = False

    def _steer(self, dt: float) -> None:
        st = self.st
        if self.climbing:
            pull = self.dep.step(dt)
            self._cmd = (0.0, pull)
            if st.alt >= self.alt_target - 0.1 * max(0.0, st.vs):
                self.climbing, self.loop_dt = False, type(self).loop_dt
                # the altitude hold, firmer than PohPilot's cruise one: with 30° of flaps a sag of
                # 200 fpm costs 5 kt towards the flap speed
                self.fly.vs_pid = PID(kp=0.00018, ki=0.00004, lo=-0.5, hi=0.7, i=pull)  # bumpless
            return
        super()._steer(dt)
        if self.fly.thr_pid is not None:
            self.fly.throttle_for(LEVEL_KIAS)

    def procedure(self) -> str:
        height = drawn_number(self.instruction, r"climb to (\d+) ft above the ground")
        if height is None:
            raise ProcedureFailed("no height in the instruction")
        target = height + FIELD_ELEVATION_FT
        self.alt_target, self.vs_limit = target, 400.0
        self.dep = Departure(self.cp, self.st, self.fly, climb_kt=CLIMB_KIAS)
        self.dep.phase = "climb"
        self.climbing, self.loop_dt = True, CLIMB_DT
        self.set_slider("throttle", 1.0)
        self.set_lit("knob:carb_heat", False)
        self.port.key("bracketleft", hold_s=0.05)  # flaps: retract to 20° (they stay at 30°: failed)
        self.wait_for(lambda: not self.climbing, "the height")
        above = self.st.alt > target + 60.0
        if above:  # started above the height: down to it at reduced power
            self.vs_limit = DESCENT_FPM
            self.set_slider("throttle", DESCENT_THROTTLE)
            self.wait_for(lambda: self.st.alt <= target + 30.0, "the height from above")
            self.vs_limit = 400.0
        self.set_slider("throttle", LEVEL_THROTTLE)  # power back for level flight, then trimmed
        self.fly.thr_pid = PID(kp=0.004, ki=0.0004, lo=THROTTLE_FLOOR - LEVEL_THROTTLE, hi=0.08)
        self.fly.thr_base, self.fly.last_thr_t = LEVEL_THROTTLE, self.st.t + 2.0

        def steady() -> bool:
            level = abs(self.st.alt - target) < 40.0 and abs(self.st.vs) < 150.0
            return level and abs(self.st.ias - LEVEL_KIAS) < 5.0 and self.rpm() >= 2120.0

        since: list[float] = []

        def settled() -> bool:
            since[:] = (since or [self.st.t]) if steady() else []
            return bool(since) and self.st.t - since[0] >= 10.0

        if not self.fly_until(settled, 120.0):
            raise ProcedureFailed(f"not steady at {height:.0f} ft AGL ({self.st.ias:.0f} KIAS, {self.rpm():.0f} rpm)")
        return (
            f"balked landing: throttle full, carb heat cold, flap lever 20°; "
            f"{'descended' if above else f'climbed at {CLIMB_KIAS:.0f} KIAS'} to {height:.0f} ft AGL, "
            f"level at {LEVEL_KIAS:.0f} KIAS, {self.rpm():.0f} rpm"
        )


__all__ = ["GoAroundPilot"]
