"""P18: a go-around from short final with the flaps stuck at 30° (C172S POH Section 4, balked
landing: throttle FULL, carburetor heat COLD, flaps RETRACT TO 20°, climb speed 60 KIAS, the
flaps retracted slowly once clear of obstacles), climbing to the height the instruction names
and staying there.

The pilot flies `PohPilot`'s core (wings level by aileron, the altitude by the vertical-speed
loop) with the climb rate given by the airspeed: at full power with 30° of flaps the climb is as
steep as 65 KIAS allows (fewer feet per minute as the airspeed falls below it, level flight at
55). The flap lever goes to 20° as the POH says; the panel shows the lever, not the flaps, so
the pilot flies speeds that suit 30° as well (they have in fact failed there): the climb at 65
KIAS, the level-off at 70. At the height the throttle comes back (taps read back on the lever) to hold 70 KIAS, well below
the 85 KIAS flap speed, the engine above 2,000 rpm."""

from __future__ import annotations

from simbridge.adapters.jsbsim.pilots._poh import FIELD_ELEVATION_FT, PohPilot, ProcedureFailed, drawn_number

CLIMB_KIAS = 65.0
#: the climb's vertical speed: this many fpm at CLIMB_KIAS, CLIMB_FPM_PER_KT more or less per kt
CLIMB_FPM = 500.0
CLIMB_FPM_PER_KT = 50.0
LEVEL_KIAS = 70.0
#: the throttle taps after the level-off: one 1 % tap per this many kt of airspeed error, each second
KT_PER_TAP = 1.5


class GoAroundPilot(PohPilot):
    """P18: balked landing, then level at the instruction's height with the flaps stuck."""

    climbing = False
    holding_speed = False
    _t_thr = -1e9

    def _steer(self, dt: float) -> None:
        st = self.st
        if self.climbing:
            self.vs_limit = max(0.0, min(800.0, CLIMB_FPM + CLIMB_FPM_PER_KT * (st.ias - CLIMB_KIAS)))
        if self.holding_speed and st.t - self._t_thr >= 1.0:
            self._t_thr = st.t
            taps = int(max(-5.0, min(5.0, (LEVEL_KIAS - st.ias) / KT_PER_TAP)))
            if taps > 0 and st.thr < 0.99:
                self.port.key("Prior", repeat=taps, hold_s=0.03)
            elif taps < 0:
                self.port.key("Next", repeat=-taps, hold_s=0.03)
        super()._steer(dt)

    def procedure(self) -> str:
        height = drawn_number(self.instruction, r"climb to (\d+) ft above the ground")
        if height is None:
            raise ProcedureFailed("no height in the instruction")
        target = height + FIELD_ELEVATION_FT
        self.alt_target, self.climbing = target, True
        self.set_slider("throttle", 1.0)
        self.set_lit("knob:carb_heat", False)
        self.port.key("bracketleft", hold_s=0.05)  # flaps: retract to 20°
        self.wait_for(lambda: self.st.alt >= target - 60.0, "the height")
        self.climbing, self.holding_speed, self.vs_limit = False, True, 400.0

        def steady() -> bool:
            level = abs(self.st.alt - target) < 40.0 and abs(self.st.vs) < 150.0
            return level and abs(self.st.ias - LEVEL_KIAS) < 5.0 and self.rpm() >= 2100.0

        since: list[float] = []

        def settled() -> bool:
            since[:] = (since or [self.st.t]) if steady() else []
            return bool(since) and self.st.t - since[0] >= 6.0

        if not self.fly_until(settled, 120.0):
            raise ProcedureFailed(f"not steady at {height:.0f} ft AGL ({self.st.ias:.0f} KIAS, {self.rpm():.0f} rpm)")
        return (
            f"balked landing: throttle full, carb heat cold, flap lever 20°; climbed at {CLIMB_KIAS:.0f} KIAS "
            f"to {height:.0f} ft AGL, level at {LEVEL_KIAS:.0f} KIAS, {self.rpm():.0f} rpm"
        )


__all__ = ["GoAroundPilot"]
