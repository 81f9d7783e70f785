"""Crash detection for the embedded simulator: what a real C172 would not survive.

JSBSim itself never crashes: it bounces off the ground. These rules decide, each step, whether
the flight ended in a crash; the first one that fires freezes the simulation and sets
`/sim/crashed`, as FlightGear does.

A forced landing in a field or on a beach (the POH tasks allow one; the embedded terrain is flat
everywhere) is not a crash when it is survivable: a touchdown off the runways on the wheels,
wings level (≤ 15° of bank, as on a runway), sinking no faster than the gear survives (900 fpm,
as on a runway) and no faster over the ground than `FIELD_TOUCHDOWN_MAX_GS_KT`, then the
roll-out on the ground that follows. Why 75 kt: the C172S POH (Section 3, emergency landing
without engine power) flies the approach at 65-70 KIAS and touches down "slightly tail low" at
the lowest speed the flare gives (~50-60 KIAS); the FAA Airplane Flying Handbook (FAA-H-8083-3C,
chapter 18, emergency landings) puts the survivability of an off-airport landing in touching down
under control, wings level, at the lowest possible speed, the energy to dissipate growing with
the square of the groundspeed. 75 kt over the ground is a 60 KIAS touchdown with the tasks'
strongest wind (15 kt) behind it; a touchdown faster than that, a hard or banked one, the
airframe striking the ground, or a fast run off a runway (an excursion, or taxiing fast on the
grass: `OFF_RUNWAY_MAX_GS_KT`) stays a crash.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from simbridge.adapters.jsbsim._airports import Airport, to_local_m

HARD_TOUCHDOWN_FPM = 900.0  # sink rate at first contact the gear does not survive
GROUND_BANK_LIMIT_DEG = 15.0  # a wing tip is near the ground beyond this
OFF_RUNWAY_MAX_GS_KT = 30.0  # faster than taxi speed on grass/taxiway: ground loop, gear collapse
FIELD_TOUCHDOWN_MAX_GS_KT = 75.0  # a forced landing's touchdown off the runways (module docstring)
RUNWAY_MARGIN_M = 5.0  # runway shoulders count as runway


@dataclass(frozen=True)
class GroundState:
    """What the crash rules read, every FDM step."""

    lat_deg: float
    lon_deg: float
    gear_contact: bool
    structure_contact: bool  # tail skid or a wing tip touching
    sink_fpm: float  # positive descending
    bank_deg: float
    gs_kt: float


class RunwayArea:
    """Point-in-rectangle test for an airport's runways (flat-earth metres)."""

    def __init__(self, airport: Airport):
        self._ref = airport.ref_lat_lon
        self._rects = []
        for rwy in airport.runways:
            a, b = rwy.ends
            ax, ay = to_local_m(a.lat_deg, a.lon_deg, *self._ref)
            bx, by = to_local_m(b.lat_deg, b.lon_deg, *self._ref)
            length = math.hypot(bx - ax, by - ay)
            ux, uy = (bx - ax) / length, (by - ay) / length
            self._rects.append((ax, ay, ux, uy, length, rwy.width_m / 2 + RUNWAY_MARGIN_M))

    def contains(self, lat_deg: float, lon_deg: float) -> bool:
        x, y = to_local_m(lat_deg, lon_deg, *self._ref)
        for ax, ay, ux, uy, length, half_w in self._rects:
            dx, dy = x - ax, y - ay
            along = dx * ux + dy * uy
            across = -dx * uy + dy * ux
            if -RUNWAY_MARGIN_M <= along <= length + RUNWAY_MARGIN_M and abs(across) <= half_w:
                return True
        return False


class CrashDetector:
    def __init__(self, runways: RunwayArea):
        self._runways = runways
        self._was_on_ground: bool | None = None
        self._recent_sink_fpm = 0.0
        #: on the ground after a survivable touchdown off the runways: the field landing's roll-out
        self._field_rollout = False
        self.reason: str | None = None

    def update(self, s: GroundState) -> str | None:
        """The crash reason if this step is a crash (latched), else None."""
        if self.reason:
            return self.reason
        reason = None
        touchdown = s.gear_contact and self._was_on_ground is False
        if s.structure_contact and (abs(s.bank_deg) > 8.0 or s.sink_fpm > 300.0):
            reason = "airframe struck the ground"
        elif touchdown and self._recent_sink_fpm > HARD_TOUCHDOWN_FPM:
            reason = f"hard touchdown ({self._recent_sink_fpm:.0f} fpm)"
        elif (s.gear_contact or s.structure_contact) and abs(s.bank_deg) > GROUND_BANK_LIMIT_DEG:
            reason = f"excessive bank on the ground ({s.bank_deg:.0f} deg)"
        elif s.gear_contact and s.gs_kt > OFF_RUNWAY_MAX_GS_KT and not self._runways.contains(s.lat_deg, s.lon_deg):
            if touchdown and s.gs_kt <= FIELD_TOUCHDOWN_MAX_GS_KT:
                self._field_rollout = True  # a forced landing in a field: survivable
            elif touchdown:
                reason = f"touchdown off the runway at {s.gs_kt:.0f} kt (a field landing survives ≤ {FIELD_TOUCHDOWN_MAX_GS_KT:.0f})"
            elif not self._field_rollout:
                reason = f"ground contact off the runway at {s.gs_kt:.0f} kt"
        if not s.gear_contact:
            self._field_rollout = False
            # the highest sink rate over the last moments in the air (decays so old dives do not count)
            self._recent_sink_fpm = max(s.sink_fpm, self._recent_sink_fpm * 0.9)
        self._was_on_ground = s.gear_contact
        if reason:
            self.reason = reason
        return reason
