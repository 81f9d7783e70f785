"""The C172 systems JSBSim leaves to its host, and their failures: electrical (battery,
alternator, loads, ammeter, LOW VOLTS), vacuum (suction, the attitude and heading gyros),
pitot (blockage, pitot heat), carburettor ice (carb heat), magnetos, flaps, an electrical fire
(smoke), an open door and a tank run dry.

The harness fails a system by setting its `/sim/failure-manager/.../serviceable` property false
(`FAILURE_PROPS`); nothing on the panel says so except what the pilot of a real C172 would see:
gauges, annunciators, the engine's rpm and roughness, the instruments' indications. The numbers
are a C172S's (24 V battery, 28 V / 60 A alternator, LOW VOLTS below 24.5 V, suction 4.5-5.5
inHg in the green, VAC below 3.0 inHg):

- electrical: the bus is the alternator's 28 V while it turns (ALT and BAT on, engine above
  800 rpm), else the battery's (24.3 V charged, lower with load and as it discharges: 13.6 Ah).
  The ammeter reads the battery's current: the recharge after a start (charging positive), the
  whole load when the alternator is off line (discharge negative). Loads in amperes: base 3,
  avionics 6, beacon 1.5, nav lights 3, strobes 2.5, landing light 9, taxi light 6, pitot
  heat 10, flap motor 10 while moving, starter 120 while cranking.
- vacuum: suction 5.0 inHg from 1800 rpm (3.75 at idle), 0 with the engine stopped or the
  pump failed. After a pump failure the gyros spin down (time constant 120 s): the attitude
  indicator's indication lags and topples, the heading indicator precesses (up to 15 deg/min).
  The turn coordinator (electric), airspeed, altimeter and VSI (pitot-static) are unaffected.
  (A stopped engine's gyro spin-down is not modelled: only the pump failure.)
- pitot: the pitot tube blocks (ram port and drain): the trapped total pressure makes the
  airspeed indicator read like an altimeter (climb: faster, descent: slower). Pitot heat with
  a powered bus clears it after `PITOT_CLEAR_S` of heating.
- carburettor ice: while the icing conditions last, ice builds at part throttle (full in about
  2.5 min, slower at full throttle) with carb heat off, choking the airflow (up to -45 %
  throttle effect) and running rough above 40 %. Carb heat: about -75 rpm of warm air, no new
  ice; the ice melts in `CARB_MELT_S` with a few seconds of extra roughness first (the water).
- magneto (engine_rough): one magneto misfires: on BOTH, -150..-250 rpm and rough; on the
  failed one alone the engine quits; on the good one alone the normal single-magneto drop.
- flaps: the flaps stay where they are whatever the lever.
- electrical fire: smoke builds while the bus is powered; with the bus dead (master off) it
  clears in about 20 s (faster with the cabin air open); master on again restarts it.
- door: a cabin door opens (DOOR annunciator, drag 0.6 sq ft); it cannot be closed in flight.
- fuel_empty_tank: the tank the selector is on (LEFT, RIGHT; the left one on BOTH) runs dry.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

from simbridge.adapters.jsbsim._mapping import FAILURE_PROPS

__all__ = ["FAILURE_PROPS", "Systems", "battery_open_volts"]

BATTERY_AH = 13.6
BATTERY_R_OHM = 0.02
ALTERNATOR_VOLTS = 28.0
ALTERNATOR_MAX_A = 60.0
ALTERNATOR_CUT_IN_RPM = 800.0
LOW_VOLTS = 24.5
LOADS_A = {
    "base": 3.0,
    "avionics": 6.0,
    "beacon": 1.5,
    "nav_lights": 3.0,
    "strobe": 2.5,
    "landing_light": 9.0,
    "taxi_light": 6.0,
    "pitot_heat": 10.0,
    "flaps_motor": 10.0,
    "starter": 120.0,
}
SUCTION_INHG = 5.0
VAC_LIGHT_INHG = 3.0
GYRO_SPIN_DOWN_S = 120.0
PITOT_CLEAR_S = 40.0
CARB_ICE_BUILD_S = 150.0
CARB_MELT_S = 40.0
CARB_WATER_S = 6.0
SMOKE_BUILD_S = 8.0
SMOKE_CLEAR_S = 22.0
DOOR_DRAG_SQFT = 0.6
RHO_SL_SLUGFT3 = 0.0023769
FPS_TO_KT = 0.592484


def battery_open_volts(soc: float) -> float:
    """A lead-acid 24 V battery's open-circuit voltage at a state of charge 0..1."""
    if soc >= 0.2:
        return 24.3 - 1.5 * (1.0 - soc)
    return max(0.0, 23.1 - (0.2 - soc) * 60.0)


@dataclass
class Systems:
    """State of the systems and of their failures (set by the harness through the property tree)."""

    # failures
    alternator_failed: bool = False
    vacuum_failed: bool = False
    pitot_blocked: bool = False
    carb_icing: bool = False
    flaps_jammed: bool = False
    fire: bool = False
    door_open: bool = False
    magneto_failed: str = ""  # "L" or "R"
    # electrical
    battery_soc: float = 1.0
    bus_volts: float = 0.0
    ammeter_amps: float = 0.0
    load_amps: float = 0.0
    # vacuum and gyros
    suction_inhg: float = 0.0
    gyro_spin: float = 1.0
    ai_bank_err: float = 0.0
    ai_pitch_err: float = 0.0
    hi_err: float = 0.0
    # pitot
    pitot_trapped_psf: float = 0.0
    pitot_heat_s: float = 0.0
    # carb ice
    carb_ice: float = 0.0
    carb_heat_since: float = -1.0
    # flaps
    flaps_jammed_norm: float = 0.0
    # fire
    smoke_density: float = 0.0
    # roughness: a smoothed random misfire signal (deterministic per cockpit)
    _rough: float = 0.0
    _rng: random.Random = field(default_factory=lambda: random.Random(172))
    log: list[str] = field(default_factory=list)

    # ---------------------------------------------------------------- electrical
    def loads(self, c: Any, cranking: bool, flaps_moving: bool) -> float:
        on = {
            "base": True,
            "avionics": bool(c.avionics),
            "beacon": bool(c.beacon),
            "nav_lights": bool(c.nav_lights),
            "strobe": bool(c.strobe),
            "landing_light": bool(c.landing_light),
            "taxi_light": bool(c.taxi_light),
            "pitot_heat": bool(c.pitot_heat),
            "flaps_motor": flaps_moving,
            "starter": cranking,
        }
        return sum(LOADS_A[k] for k, v in on.items() if v)

    def electrical(self, dt: float, c: Any, rpm: float, cranking: bool, flaps_moving: bool) -> None:
        if not c.master_bat:
            self.bus_volts = self.ammeter_amps = self.load_amps = 0.0
            return
        load = self.load_amps = self.loads(c, cranking, flaps_moving)
        alt_online = bool(c.master_alt) and not self.alternator_failed and rpm > ALTERNATOR_CUT_IN_RPM
        v_oc = battery_open_volts(self.battery_soc)
        if alt_online:
            charge = min(ALTERNATOR_MAX_A - load, 40.0 * (1.0 - self.battery_soc) + 0.5)
            self.bus_volts = ALTERNATOR_VOLTS if charge >= 0 else max(v_oc, ALTERNATOR_VOLTS - 2.0)
            self.ammeter_amps = charge
            self.battery_soc = min(1.0, self.battery_soc + max(0.0, charge - 0.5) * dt / 3600.0 / BATTERY_AH)
        else:
            self.bus_volts = max(0.0, v_oc - load * BATTERY_R_OHM)
            self.ammeter_amps = -load
            self.battery_soc = max(0.0, self.battery_soc - load * dt / 3600.0 / BATTERY_AH)

    @property
    def powered(self) -> bool:
        """The bus carries enough voltage for lights, annunciators and the avionics."""
        return self.bus_volts > 20.0

    @property
    def low_volts_light(self) -> bool:
        return self.bus_volts > 5.0 and self.bus_volts < LOW_VOLTS

    # ---------------------------------------------------------------- vacuum
    def vacuum(self, dt: float, rpm: float) -> None:
        if self.vacuum_failed or rpm < 300.0:
            self.suction_inhg = 0.0
        else:
            self.suction_inhg = SUCTION_INHG * min(1.0, 0.55 + rpm / 4000.0)
        if not self.vacuum_failed:
            return
        self.gyro_spin *= math.exp(-dt / GYRO_SPIN_DOWN_S)
        loss = 1.0 - self.gyro_spin
        # precession grows as the rotor slows: the heading card creeps, the attitude topples
        self.hi_err += 0.25 * loss * dt
        if self.gyro_spin < 0.7:
            self.ai_bank_err = max(-55.0, self.ai_bank_err - 1.2 * loss * dt)
            self.ai_pitch_err = min(18.0, self.ai_pitch_err + 0.4 * loss * dt)

    def vacuum_light(self) -> bool:
        return self.powered and self.suction_inhg < VAC_LIGHT_INHG

    def attitude_indication(self, pitch: float, bank: float) -> tuple[float, float]:
        """(pitch, bank) the attitude indicator shows."""
        if not self.vacuum_failed:
            return pitch, bank
        k = min(1.0, self.gyro_spin / 0.7)  # a slow rotor follows the aircraft less and less
        return pitch * k + self.ai_pitch_err, bank * k + self.ai_bank_err

    # ---------------------------------------------------------------- pitot
    def block_pitot(self, p_static_psf: float, vc_kts: float) -> None:
        v = vc_kts / FPS_TO_KT
        self.pitot_trapped_psf = p_static_psf + 0.5 * RHO_SL_SLUGFT3 * v * v
        self.pitot_blocked = True
        self.pitot_heat_s = 0.0

    def pitot(self, dt: float, c: Any) -> None:
        if self.pitot_blocked and c.pitot_heat and self.powered:
            self.pitot_heat_s += dt
            if self.pitot_heat_s >= PITOT_CLEAR_S:
                self.pitot_blocked = False
                self.log.append("pitot cleared")

    def indicated_airspeed(self, vc_kts: float, p_static_psf: float) -> float:
        if not self.pitot_blocked:
            return vc_kts
        q = max(0.0, self.pitot_trapped_psf - p_static_psf)
        return math.sqrt(2.0 * q / RHO_SL_SLUGFT3) * FPS_TO_KT

    # ---------------------------------------------------------------- engine: carb ice, magnetos
    def carburettor(self, dt: float, t: float, c: Any, running: bool) -> None:
        if c.carb_heat:
            if self.carb_heat_since < 0:
                self.carb_heat_since = t
            self.carb_ice = max(0.0, self.carb_ice - dt / CARB_MELT_S)
        else:
            self.carb_heat_since = -1.0
            if self.carb_icing and running:
                rate = 1.0 / CARB_ICE_BUILD_S if c.throttle < 0.9 else 0.3 / CARB_ICE_BUILD_S
                self.carb_ice = min(1.0, self.carb_ice + rate * dt)

    def engine_factor(self, dt: float, t: float, c: Any, mags: int) -> tuple[float, int]:
        """(throttle multiplier, magnetos the engine gets) after carb heat, ice and a failed magneto."""
        self._rough += (self._rng.uniform(-1.0, 1.0) - self._rough) * min(1.0, dt / 0.15)
        rough = 0.0
        factor = 1.0
        if c.carb_heat:
            factor *= 0.965
            if self.carb_ice > 0.05 and 0 <= t - self.carb_heat_since < CARB_WATER_S:
                factor *= 0.85  # the melting ice goes through the engine
                rough += 0.3
        factor *= 1.0 - 0.45 * self.carb_ice
        if self.carb_ice > 0.4:
            rough += 0.4 * (self.carb_ice - 0.4)
        if self.magneto_failed and mags in (1, 2, 3, 4):
            failed = 2 if self.magneto_failed == "L" else 1
            good = 3 - failed
            if mags == 3:
                mags = good
                factor *= 0.97
                rough += 0.6
            elif mags == failed:
                mags = 0
            # (START cranks on both: the good one fires)
        return max(0.0, factor * (1.0 + rough * self._rough)), mags

    # ---------------------------------------------------------------- fire
    def smoke(self, dt: float, c: Any) -> None:
        if self.fire and self.bus_volts > 5.0:
            self.smoke_density = min(1.0, self.smoke_density + dt / SMOKE_BUILD_S)
        else:
            clear = SMOKE_CLEAR_S / (2.0 if c.cabin_air or c.cabin_heat else 1.0)
            self.smoke_density = max(0.0, self.smoke_density - dt / clear)

    @property
    def smoke_in_cabin(self) -> bool:
        return self.smoke_density > 0.1
