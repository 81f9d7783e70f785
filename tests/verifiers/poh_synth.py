"""Synthetic C172 traces for the POH tasks: a straight cruise (or final approach) with switch and
lever changes at given times. Simple kinematics, not a flight model: the numbers a test expects
are worked out from the builder's arguments.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

KHAF30 = (37.50841444, -122.49527344)
KHAF12 = (37.51845456, -122.50705235)
FIELD_FT = 66.0

#: every switch and lever at its cruise position (the canonical encodings)
CRUISE: dict[str, float] = {
    "engine_running": 1,
    "engine_rpm": 2400,
    "magnetos": 3,
    "mixture": 1.0,
    "fuel_selector": 3,
    "throttle": 0.7,
    "master_bat": 1,
    "master_alt": 1,
    "avionics": 1,
    "pitot_heat": 0,
    "carb_heat": 0,
    "cabin_air": 0,
    "smoke": 0,
    "landing_light": 0,
    "taxi_light": 0,
    "flaps_deg": 0,
    "crashed": 0,
    "on_ground": 0,
    "bank_deg": 0.0,
    "pitch_deg": 2.0,
}


class Trace:
    """Columns at `hz` over `duration_s`; `at(t, **values)` sets signals from t onwards."""

    def __init__(
        self,
        duration_s: float,
        hz: float = 10.0,
        *,
        alt_msl_ft: float = 4000.0,
        ias_kt: float = 100.0,
        heading_deg: float = 90.0,
        field_ft: float = FIELD_FT,
    ) -> None:
        self.t = np.round(np.arange(0.0, duration_s + 1e-9, 1.0 / hz), 6)
        n = self.t.size
        self.cols: dict[str, np.ndarray] = {k: np.full(n, float(v)) for k, v in CRUISE.items()}
        self.cols["ias_kt"] = np.full(n, ias_kt)
        self.cols["gs_kt"] = np.full(n, ias_kt)
        self.cols["alt_msl_ft"] = np.full(n, alt_msl_ft)
        self.cols["alt_agl_ft"] = np.full(n, alt_msl_ft - field_ft)
        self.cols["heading_true_deg"] = np.full(n, heading_deg % 360.0)
        self.cols["vs_fpm"] = np.zeros(n)
        self.field_ft = field_ft
        self.start = (37.47, -122.56)

    def at(self, t0: float, **values: float) -> "Trace":
        m = self.t >= t0 - 1e-9
        for k, v in values.items():
            self.cols[k][m] = float(v)
        return self

    def engine_stops(self, t0: float) -> "Trace":
        return self.at(t0, engine_running=0, engine_rpm=0)

    def glide(self, t0: float, ias_kt: float = 68.0, vs_fpm: float = -700.0, t1: float | None = None) -> "Trace":
        """From t0 (to t1), IAS `ias_kt` and a steady descent (altitude integrated)."""
        m = (self.t >= t0) & (self.t <= (t1 if t1 is not None else math.inf))
        self.cols["ias_kt"][m] = ias_kt
        self.cols["gs_kt"][m] = ias_kt
        self.cols["vs_fpm"][m] = vs_fpm
        self._integrate()
        return self

    def climb(self, t0: float, vs_fpm: float, t1: float) -> "Trace":
        m = (self.t >= t0) & (self.t <= t1)
        self.cols["vs_fpm"][m] = vs_fpm
        self._integrate()
        return self

    def turn(self, t0: float, t1: float, heading_deg: float, bank_deg: float = 20.0) -> "Trace":
        """A steady turn from the current heading to `heading_deg` between t0 and t1 (then held)."""
        h = self.cols["heading_true_deg"]
        i0 = int(np.searchsorted(self.t, t0))
        start = h[i0]
        d = (heading_deg - start + 180.0) % 360.0 - 180.0
        m = (self.t >= t0) & (self.t <= t1)
        frac = (self.t[m] - t0) / max(t1 - t0, 1e-9)
        h[m] = (start + d * frac) % 360.0
        h[self.t > t1] = heading_deg % 360.0
        self.cols["bank_deg"][m] = bank_deg * (1 if d > 0 else -1)
        return self

    def _integrate(self) -> None:
        dt = np.diff(self.t, prepend=self.t[0])
        alt0 = self.cols["alt_msl_ft"][0]
        alt = alt0 + np.cumsum(self.cols["vs_fpm"] / 60.0 * dt)
        ground = self.field_ft
        on = alt <= ground
        alt = np.maximum(alt, ground)
        self.cols["alt_msl_ft"] = alt
        self.cols["alt_agl_ft"] = alt - ground
        if on.any():
            i = int(np.argmax(on))
            self.cols["on_ground"][i:] = 1
            self.cols["vs_fpm"][i:] = 0.0

    def land(
        self, t_td: float, td_vs_fpm: float = -300.0, stop_after_s: float = 15.0, at: tuple[float, float] | None = None
    ) -> "Trace":
        """Touch down at t_td (sink td_vs_fpm just before), roll to a stop, end on the ground at
        `at` (lat, lon) or the start position; IAS and GS fall to 0."""
        i = int(np.searchsorted(self.t, t_td))
        self.cols["vs_fpm"][max(0, i - 3) : i] = td_vs_fpm
        self.cols["vs_fpm"][i:] = 0.0
        self.cols["on_ground"][i:] = 1
        self.cols["alt_agl_ft"][i:] = 0.0
        self.cols["alt_msl_ft"][i:] = self.field_ft
        roll = self.t >= t_td
        speed0 = self.cols["ias_kt"][i]
        frac = np.clip((self.t[roll] - t_td) / stop_after_s, 0.0, 1.0)
        self.cols["ias_kt"][roll] = speed0 * (1 - frac)
        self.cols["gs_kt"][roll] = speed0 * (1 - frac)
        self.cols["pitch_deg"][roll] = 0.0
        self.cols["bank_deg"][roll] = 0.0
        self.touchdown_at = at
        return self

    def columns(self, runway_stop: tuple[float, float] | None = None) -> dict[str, Any]:
        out = {"t": self.t, **{k: v.copy() for k, v in self.cols.items()}}
        lat = np.full(self.t.size, self.start[0])
        lon = np.full(self.t.size, self.start[1])
        if runway_stop is not None:
            lat[:], lon[:] = runway_stop
        out["lat_deg"], out["lon_deg"] = lat, lon
        return out


def failure_event(t: float, system: str, **detail: Any) -> dict[str, Any]:
    """A failure_injected event as the harness records it."""
    data: dict[str, Any] = {"system": system, "t": t}
    if detail:
        data["detail"] = detail
    return {"t": t, "kind": "failure_injected", "data": data}


def runway_middle() -> tuple[float, float]:
    return ((KHAF30[0] + KHAF12[0]) / 2, (KHAF30[1] + KHAF12[1]) / 2)
