"""Engine failures that end in a landing without power (P04, T11, P05, P06), flown from pixels.

The pilots are POH pilots (`_poh.PohPilot`: the screenshot loop, the panel clicks read back,
the restart steps) with a glide and a power-off landing of their own; P04 and T11 depart first
with T02's takeoff and climb (`_takeoff.Departure`).

- **Engine failure**: the tachometer falls below `FAILED_RPM` (the climb or cruise runs above
  2,300 rpm; a windmilling propeller turns far slower).
- **Glide**: the best-glide airspeed by pitch (a pitch attitude from the airspeed error, the
  elevator from the pitch), the heading by bank.
- **Securing** (C172S POH 3-6 / 3-8, the cockpit's controls): mixture IDLE CUT-OFF, fuel
  selector OFF (the fuel shutoff), magnetos OFF, master ALT and BAT OFF, each click read back.
- **Landing**: the embedded terrain is flat at the field's elevation everywhere (land and sea
  alike; a survivable touchdown off the runways is not a crash: `cockpit/_crash.py`), so the
  pilot lands where the glide ends. The flare starts `FLARE_FT` above the wheels by the
  altimeter (less the charted field elevation): the sink commanded shrinks with the height
  left, the pitch attitude from the sink error. On the wheels the nose comes down, rudder holds
  the heading (the takeoff roll's steering), the brakes stop the aircraft; it is stopped when
  the airspeed indicator has settled (a steady wind keeps it above zero).

Why not `_landing.LandingPilot`: its final is a powered 3° approach to a runway seen in the
window, flown with the throttle; without power a glide cannot follow a path, and a forced
landing here has no runway to look at.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from simbridge.adapters.jsbsim.pilots._control import PID, angle_diff
from simbridge.adapters.jsbsim.pilots._instruments import lit
from simbridge.adapters.jsbsim.pilots._landing import told_wind
from simbridge.adapters.jsbsim.pilots._poh import FIELD_ELEVATION_FT, RUNNING_RPM, PohPilot, ProcedureFailed
from simbridge.adapters.jsbsim.pilots._takeoff import Departure, TakeoffHoldPilot
from simbridge.agents import AgentResult

if TYPE_CHECKING:
    from simbridge.agent import AgentPortClient
    from simbridge import TaskSpec

#: the runway P04 and T11 depart from when the task names none (KHAF 30: the task's geometry charts it)
RUNWAY = "30"
#: below this the engine has failed (full-power climb and cruise run 2,300-2,500 rpm)
FAILED_RPM = 1700.0
#: the altimeter on the wheels reads about this far above the field's charted elevation
WHEELS_FT = 5.5
#: wheel height (ft) the flare starts at: a glide sinks ~700 fpm, so higher than a powered final's
FLARE_FT = 30.0
#: seconds between two readings on the takeoff roll and in the climb (T02's rate)
DEPARTURE_DT = 0.05
#: wheel height (ft) below which the nose only comes up (the hold-off), at this rate, to this pitch
HOLD_OFF_FT = 4.0
HOLD_OFF_DEG_S = 2.0
HOLD_OFF_MAX_PITCH = 9.0
KT_MS = 0.514444
#: brakes below this indicated airspeed on the ground
BRAKE_BELOW_KIAS = 35.0
#: the yoke held back on the ground roll (weight off the nosewheel under braking)
ROLLOUT_PULL = 0.3
ROLLOUT_PULL_BELOW_KIAS = 45.0
#: the securing clicks are made above this height (ft AGL); lower, the aircraft is flown first
SECURE_ABOVE_FT = 120.0
#: P06's restart attempt: seconds the tachometer is watched after the restart steps; below this
#: rpm the propeller has stopped (the POH's START), which the starter cranks only above
#: `CRANK_ABOVE_FT` (the task forbids cranking below 500 ft AGL) and for `CRANK_S` at most
RESTART_WAIT_S = 5.0
STOPPED_RPM = 200.0
CRANK_ABOVE_FT = 600.0
CRANK_S = 5.0


class ForcedLandingPilot(PohPilot):
    """The glide, the securing steps and a power-off landing to a stop; subclasses say how the
    flight starts (`procedure`)."""

    glide_kias = 68.0
    loop_dt = 0.1
    hdg_target = 0.0
    flare_pitch = 0.0
    hold_pitch = -90.0
    wind_dir = 0.0
    wind_kt = 0.0
    #: the field's elevation the heights are taken from (ft): KHAF's, or on a departure the
    #: altimeter's reading on the wheels before the takeoff less WHEELS_FT
    field_elevation_ft = FIELD_ELEVATION_FT
    #: the runway departed from (the task's, else RUNWAY)
    runway = RUNWAY
    #: dead-reckoned position (m east, north of the start) and the heading indicator's offset from true
    x = 0.0
    y = 0.0
    hdg_to_true = 0.0
    #: the most bank the glide turns with (deg)
    bank_limit = 20.0
    settled = 0
    braking = False
    t_touchdown: float | None = None
    #: the takeoff and climb (P04, T11) and the ground roll after the touchdown
    dep: Departure
    ground: Departure

    # ---------------------------------------------------------------- flying
    def _steer(self, dt: float) -> None:
        self._dead_reckon(dt)
        mode = self.mode
        if mode == "parked":  # on the ground before the takeoff: controls neutral
            self._cmd = (0.0, 0.0)
            self.cp.fly(0.0, 0.0)
            return
        if mode == "departure":
            pull = self.dep.step(dt)
            self._cmd = (0.0, pull)
            return
        if mode not in ("glide", "flare", "rollout"):
            super()._steer(dt)
            return
        st = self.st
        h_w = st.alt - self.field_elevation_ft - WHEELS_FT
        if mode == "glide" and h_w < FLARE_FT:
            self.mode, mode = "flare", "flare"
            self.flare_pitch = st.pitch
        if mode == "rollout":
            # rudder on the heading (the takeoff roll's steering), aileron into the wind with the
            # wings held level, the yoke back (the nosewheel light), the brakes once slow
            # (while still fast the hold-off attitude is kept: a wheel height misjudged by the
            # altimeter must not pull the yoke back at flying speed)
            self.ground.steer(dt)
            cross = self.wind_kt * math.sin(math.radians(self.wind_dir - st.hdg))
            ail = max(-0.4, min(0.4, 0.03 * cross - 0.03 * st.bank))
            if st.ias > ROLLOUT_PULL_BELOW_KIAS:
                pull = self.pitch_pid.step(min(self.hold_pitch, HOLD_OFF_MAX_PITCH) - st.pitch, dt, rate=-st.pitch_rate)
            else:
                pull = ROLLOUT_PULL
            self._cmd = (ail, pull)
            self.cp.fly(ail, pull)
            if st.ias < BRAKE_BELOW_KIAS and not self.braking:
                self.port.key_down("b")
                self.braking = True
            return
        if mode == "glide":
            bank_lim = self.bank_limit if h_w > 200 else 10.0
            bank_t = max(-bank_lim, min(bank_lim, 1.5 * angle_diff(self.hdg_target, st.hdg)))
            pitch_t = max(-10.0, min(8.0, -3.0 + self.speed_pid.step(st.ias - self.glide_kias, dt)))
        else:  # flare: the sink shrinks with the height left, the wings level
            bank_t = 0.0
            vs_cmd = -max(60.0, 15.0 * max(0.0, h_w))
            pitch_t = max(-6.0, min(HOLD_OFF_MAX_PITCH, self.flare_pitch + self.flare_pid.step(vs_cmd - st.vs, dt)))
            if h_w < HOLD_OFF_FT and self.hold_pitch < -45.0:
                self.hold_pitch = max(pitch_t, st.pitch)
            if self.hold_pitch > -45.0:  # the hold-off: the nose comes up as it sinks, the speed bleeds off
                if st.vs < -40.0:
                    self.hold_pitch += HOLD_OFF_DEG_S * dt
                elif st.vs > 40.0:  # floating up: ease the nose back a little
                    self.hold_pitch -= 0.5 * HOLD_OFF_DEG_S * dt
                self.hold_pitch = min(HOLD_OFF_MAX_PITCH, self.hold_pitch)
                pitch_t = self.hold_pitch
            # on the wheels: the altimeter stops unwinding near the field
            self.settled = self.settled + 1 if h_w < 2.5 and abs(st.vs) < 30.0 else 0
            if self.settled >= 3:
                self.mode = "rollout"
                self.hold_pitch = max(self.hold_pitch, st.pitch)
                self.ground = Departure(self.cp, st, self.fly, rotate_kt=1e9, rudder_ki=0.015, rudder_max=0.5)
                self.t_touchdown = st.t
        ail = self.fly.bank_pid.step(bank_t - st.bank, dt, rate=-st.roll_rate)
        pull = self.pitch_pid.step(pitch_t - st.pitch, dt, rate=-st.pitch_rate)
        self._cmd = (ail, pull)
        self.cp.fly(ail, pull)

    def start_glide(self, hdg: float, pull_i: float = 0.0) -> None:
        """Best glide on `hdg` from now on (the elevator's trim carried over from before)."""
        self.mode, self.hdg_target = "glide", hdg
        self.speed_pid = PID(kp=0.4, ki=0.05, lo=-7.0, hi=9.0)
        self.pitch_pid = PID(kp=0.035, ki=0.012, kd=0.02, lo=-0.6, hi=0.6, i=pull_i)
        self.flare_pid = PID(kp=0.015, ki=0.01, lo=-8.0, hi=14.0)
        self.flare_pitch = 0.0
        self.settled = 0
        self.braking = False
        self.t_touchdown = None

    def _dead_reckon(self, dt: float) -> None:
        """The position (east, north metres from where the flight started) from the airspeed,
        the heading indicator (corrected to true by the runway's charted heading) and the told
        wind; on the wheels, under 40 kt, the airspeed reads the wind too: stand still."""
        st = self.st
        if st.ias < 40.0 and self.mode in ("parked", "departure", "rollout") and st.vs < 100.0:
            if self.mode != "departure" or self.dep.phase == "roll":
                tas = max(0.0, st.ias - self.head_wind())
            else:
                tas = st.ias
        else:
            tas = st.ias * (1.0 + 0.02 * max(0.0, st.alt) / 1000.0)
        hdg = math.radians(st.hdg + self.hdg_to_true)
        w = math.radians(self.wind_dir + 180.0)  # the way the air moves
        self.x += (tas * math.sin(hdg) + self.wind_kt * math.sin(w)) * KT_MS * dt
        self.y += (tas * math.cos(hdg) + self.wind_kt * math.cos(w)) * KT_MS * dt

    def head_wind(self) -> float:
        return self.wind_kt * math.cos(math.radians(self.wind_dir - (self.st.hdg + self.hdg_to_true)))

    def height_ft(self) -> float:
        return self.st.alt - self.field_elevation_ft

    # ---------------------------------------------------------------- the checklist
    def secure_engine(self) -> list[str]:
        """C172S POH: mixture IDLE CUT-OFF, fuel shutoff (selector OFF), magnetos OFF, master
        OFF; each control read back on the panel."""
        done = []
        self.set_slider("mixture", 0.0)
        self.look()
        if self.r is not None and self.r.mix is not None and self.r.mix > 5:
            self.set_slider("mixture", 0.0)
        done.append("mixture idle cut-off")
        self.set_lit("fuel:OFF")
        done.append("fuel selector OFF")
        self.set_lit("mags:OFF")
        done.append("magnetos OFF")
        self.set_lit("switch:master_alt", False)
        self.set_lit("switch:master_bat", False)
        done.append("master OFF")
        return done

    def land(self) -> str:
        """Glide, flare and roll to a stop; hold the brakes. Returns how it went."""
        if not self.fly_until(lambda: self.mode == "rollout", self.deadline):
            raise ProcedureFailed(f"never landed (mode {self.mode})")
        seen: list[tuple[float, float]] = []

        def stopped() -> bool:
            seen.append((self.st.t, self.st.ias))
            old = [ias for t, ias in seen if self.st.t - t >= 3.0]
            steady = bool(old) and all(abs(ias - old[-1]) < 0.7 for t, ias in seen if self.st.t - t < 3.0)
            return bool(self.braking and steady and self.st.t - (self.t_touchdown or 0.0) > 8.0)

        if not self.fly_until(stopped, 60.0):
            raise ProcedureFailed("did not come to a stop")
        return "landed and stopped"


class EfatoPilot(ForcedLandingPilot):
    """P04 (C172S POH 3-6, engine failure immediately after takeoff): full power, the takeoff
    and climb straight ahead (T02's); at the failure best glide (68 KIAS, held by pitch), the
    heading of the failure held (straight ahead), mixture IDLE CUT-OFF, fuel OFF, magnetos OFF,
    master OFF once the glide is established (above 120 ft), then the landing straight ahead."""

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        self.task = task
        return super().run(port, task, deadline_s)

    def depart(self) -> None:
        """Brakes off, mixture rich, full power, the takeoff and climb straight ahead until the
        tachometer shows the engine failed."""
        self.mode = "parked"
        self.wind_dir, self.wind_kt = told_wind(self.instruction)
        self.runway = self.task.initial_state.runway or RUNWAY  # a site variant departs elsewhere
        # charted (T11): the compass's offset from true
        if any(r.id == self.runway for r in self.task.geometry.runways):
            rwy = self.task.geometry.runway(self.runway)
            self.hdg_to_true = angle_diff(float(rwy.heading_true_deg or self.st.hdg), self.st.hdg)
        self.look()
        # on the wheels the altimeter shows the field's elevation (plus WHEELS_FT): the heights of
        # the glide and the flare are taken from it (PHJR's ground is at 20 ft, KHAF's at 66)
        self.field_elevation_ft = self.st.alt - WHEELS_FT
        img = self.cp.frame
        if lit(img, "park_brake", (200, 40, 40)) or TakeoffHoldPilot._brake_set(self.cp):
            self.click("park_brake")
        self.set_slider("mixture", 1.0)
        self.set_slider("throttle", 1.0)
        self.dep = Departure(self.cp, self.st, self.fly, rudder_ki=0.015, rudder_max=0.5)
        self.mode, self.loop_dt = "departure", DEPARTURE_DT
        self.wait_for(lambda: self.rpm() < FAILED_RPM and self.dep.phase == "climb", "the engine failure")
        self.loop_dt = type(self).loop_dt

    def procedure(self) -> str:
        self.depart()
        agl = self.height_ft()
        self.start_glide(self.st.hdg, self.dep.pitch_pid.i)
        # the airspeed first: fly the glide until the nose is down and the speed near best glide
        self.fly_until(lambda: self.st.ias < self.glide_kias + 6.0 and self.st.pitch < 0.0, 6.0)
        steps = self.secure_engine() if self.height_ft() > SECURE_ABOVE_FT else []
        how = self.land()
        if not steps:
            steps = self.secure_engine()
        return f"engine failed at {agl:.0f} ft: best glide, {', '.join(steps)}; {how} straight ahead"


class TurnBackPilot(EfatoPilot):
    """T11 (engine failure after takeoff, land on the runway, a field or the beach): the same
    departure; at the failure best glide and a turn back to the runway (45° of bank until the
    nose is on it), then the glide towards runway 30's threshold along the runway (its whole
    length lies ahead: the charted runway is the landable area in reach), the landing where the
    glide ends. The position is dead-reckoned from the start on the threshold (airspeed, heading,
    no wind told)."""

    turn_bank = 45.0

    def procedure(self) -> str:
        self.depart()
        agl = self.height_ft()
        self.start_glide(self.st.hdg, self.dep.pitch_pid.i)
        self.turning = True
        how = self.land()
        return f"engine failed at {agl:.0f} ft: best glide, turned back to runway {self.runway}; {how}"

    def _steer(self, dt: float) -> None:
        if self.mode == "glide":
            # the heading to the threshold, the bank steep while the turn is big
            brg = math.degrees(math.atan2(-self.x, -self.y)) % 360.0
            dist = math.hypot(self.x, self.y)
            if dist > 300.0:
                self.hdg_target = (brg - self.hdg_to_true) % 360.0
            err = angle_diff(self.hdg_target, self.st.hdg)
            if self.turning and abs(err) < 15.0:
                self.turning = False
            self.bank_limit = self.turn_bank if self.turning else 20.0
        super()._steer(dt)

    turning = False


class CruiseForcedLandingPilot(ForcedLandingPilot):
    """P05 (C172S POH 3-8, emergency landing without engine power): cruise held (altitude by
    elevator, wings level) until the tachometer shows the engine failed; best glide on the
    heading flown; mixture IDLE CUT-OFF, fuel OFF, magnetos OFF, master OFF; the landing where
    the glide ends (the terrain is flat everywhere: `cockpit/_crash.py`)."""

    def procedure(self) -> str:
        agl = self.glide_from_failure()
        steps = self.secure_engine()
        how = self.land()
        return f"engine failed at {agl:.0f} ft: best glide, {', '.join(steps)}; {how}"

    def glide_from_failure(self) -> float:
        """Cruise until the tachometer shows the failure, then best glide on the heading flown,
        settled; the height above the ground (ft) the failure came at."""
        self.wind_dir, self.wind_kt = told_wind(self.instruction)
        self.wait_for(lambda: self.rpm() < FAILED_RPM, "the engine failure")
        agl = self.height_ft()
        self.start_glide(self.st.hdg, self.fly.vs_pid.i)
        self.settle_glide()
        return agl

    def settle_glide(self) -> None:
        """Fly the glide until the airspeed has held best glide ±4 kt for 5 s (60 s at most)."""
        since: list[float] = []

        def settled() -> bool:
            since[:] = (since or [self.st.t]) if abs(self.st.ias - self.glide_kias) <= 4.0 else []
            return bool(since) and self.st.t - since[0] >= 5.0

        self.fly_until(settled, 60.0)


class CruiseRestartPilot(CruiseForcedLandingPilot):
    """P06 (C172S POH 3-6/3-7, engine failure during flight, then 3-8): at the failure best
    glide; the restart attempt in the POH's order (`_poh.restart_steps`: fuel selector BOTH,
    mixture RICH, magnetos BOTH), then, with the propeller stopped (the tachometer at zero) and
    above `CRANK_ABOVE_FT`, the key to START for a few seconds; the engine does not come back,
    so P05's securing steps and the landing where the glide ends."""

    def procedure(self) -> str:
        agl = self.glide_from_failure()
        self.look()
        tried = [self.run_steps(self.restart_attempt()) or "fuel BOTH, mixture RICH, magnetos BOTH as found"]
        if not self.fly_until(lambda: self.rpm() > RUNNING_RPM, RESTART_WAIT_S):
            if self.rpm() < STOPPED_RPM and self.height_ft() > CRANK_ABOVE_FT:
                self.crank(max_s=CRANK_S)
                tried.append("START (the propeller stopped)")
        if self.rpm() > RUNNING_RPM:  # it ran again: level flight on it
            self.mode, self.alt_target = "alt", self.st.alt
            return f"engine failed at {agl:.0f} ft; restarted: {', '.join(tried)}"
        steps = self.secure_engine()
        how = self.land()
        return (
            f"engine failed at {agl:.0f} ft: best glide; restart attempt: {', '.join(tried)}; "
            f"no restart: {', '.join(steps)}; {how}"
        )


__all__ = ["CruiseForcedLandingPilot", "CruiseRestartPilot", "EfatoPilot", "ForcedLandingPilot", "TurnBackPilot"]
