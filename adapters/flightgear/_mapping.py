"""The c172p (FlightGear 2020.3) property → canonical signal mapping.

`RAW_CHUNKS` is what FlightGear streams each frame over the generic protocol (native units,
native conventions); `CanonicalMapper` turns one raw sample into canonical signals. The
conversion lives on the harness side, not in FlightGear's protocol file, so the same raw
stream can be checked against telnet reads of the same properties.

Conventions applied here (see `simbridge/_canonical.py`):
- `magnetos` is 4 while the starter engages (the key switch's START position), else
  `/controls/switches/magnetos` (0 off, 1 R, 2 L, 3 both).
- `fuel_selector` from the two tank `selected` flags: both 3, left only 1, right only 2, none 0.
- `primer_strokes` counts increments of `/controls/engines/engine/primer` since the episode
  started: the c172p resets that counter to 0 five seconds after the starter is used, so the
  raw value alone would forget strokes.
- CDI/GS: FlightGear's `*-needle-deflection-norm` is -1..1 of full scale, positive = needle
  right / up (aircraft left of course / below the glidepath). Canonical dots are positive
  right of course / above the path, with full scale = 2.5 dots: `dots = -norm × 2.5`.
- `xpdr_mode` from the KT-76 knob (0 off, 1 SBY, 2 TST, 3 GND, 4 ON, 5 ALT).
"""

from __future__ import annotations

import math

from simbridge.adapters.fgproto import Chunk

FULL_SCALE_DOTS = 2.5

#: raw name -> chunk streamed every frame (name = property leaf, unique)
RAW_CHUNKS: list[Chunk] = [
    Chunk("lat_deg", "/position/latitude-deg", "double", "%.8f"),
    Chunk("lon_deg", "/position/longitude-deg", "double", "%.8f"),
    Chunk("alt_ft", "/position/altitude-ft", "double", "%.2f"),
    Chunk("agl_ft", "/position/altitude-agl-ft", "double", "%.2f"),
    Chunk("airspeed_kt", "/velocities/airspeed-kt", "double", "%.2f"),
    Chunk("groundspeed_kt", "/velocities/groundspeed-kt", "double", "%.2f"),
    Chunk("vs_fps", "/velocities/vertical-speed-fps", "double", "%.3f"),
    Chunk("heading_true", "/orientation/heading-deg", "double", "%.3f"),
    Chunk("heading_mag", "/orientation/heading-magnetic-deg", "double", "%.3f"),
    Chunk("pitch", "/orientation/pitch-deg", "double", "%.3f"),
    Chunk("roll", "/orientation/roll-deg", "double", "%.3f"),
    Chunk("wow_left", "/gear/gear[1]/wow", "bool"),
    Chunk("wow_right", "/gear/gear[2]/wow", "bool"),
    Chunk("crashed", "/sim/crashed", "bool"),
    Chunk("running", "/engines/engine[0]/running", "bool"),
    Chunk("rpm", "/engines/engine[0]/rpm", "double", "%.1f"),
    Chunk("magnetos", "/controls/switches/magnetos", "int"),
    Chunk("starter", "/controls/switches/starter", "bool"),
    Chunk("mixture", "/controls/engines/engine[0]/mixture", "double", "%.3f"),
    Chunk("throttle", "/controls/engines/engine[0]/throttle", "double", "%.3f"),
    Chunk("primer", "/controls/engines/engine[0]/primer", "int"),
    Chunk("master_bat", "/controls/switches/master-bat", "bool"),
    Chunk("master_alt", "/controls/switches/master-alt", "bool"),
    Chunk("master_avionics", "/controls/switches/master-avionics", "bool"),
    Chunk("beacon", "/controls/lighting/beacon", "bool"),
    Chunk("tank0_selected", "/consumables/fuel/tank[0]/selected", "bool"),
    Chunk("tank1_selected", "/consumables/fuel/tank[1]/selected", "bool"),
    Chunk("flaps_deg", "/fdm/jsbsim/fcs/flap-pos-deg", "double", "%.2f"),
    Chunk("parking_brake", "/controls/gear/brake-parking", "double", "%.2f"),
    Chunk("ap_roll_axis", "/autopilot/KAP140/locks/roll-axis", "bool"),
    Chunk("ap_hdg_hold", "/autopilot/KAP140/locks/hdg-hold", "bool"),
    Chunk("ap_nav_hold", "/autopilot/KAP140/locks/nav-hold", "bool"),
    Chunk("ap_apr_hold", "/autopilot/KAP140/locks/apr-hold", "bool"),
    Chunk("ap_alt_hold", "/autopilot/KAP140/locks/alt-hold", "bool"),
    Chunk("ap_roll_mode", "/autopilot/KAP140/locks/roll-mode", "int"),
    Chunk("ap_pitch_mode", "/autopilot/KAP140/locks/pitch-mode", "int"),
    Chunk("ap_target_alt_ft", "/autopilot/KAP140/settings/target-alt-ft", "double", "%.1f"),
    Chunk("nav1_mhz", "/instrumentation/nav[0]/frequencies/selected-mhz", "double", "%.3f"),
    Chunk("nav1_obs", "/instrumentation/nav[0]/radials/selected-deg", "double", "%.2f"),
    Chunk("cdi_norm", "/instrumentation/nav[0]/heading-needle-deflection-norm", "double", "%.4f"),
    Chunk("gs_norm", "/instrumentation/nav[0]/gs-needle-deflection-norm", "double", "%.4f"),
    Chunk("com1_mhz", "/instrumentation/comm[0]/frequencies/selected-mhz", "double", "%.3f"),
    Chunk("com1_stby_mhz", "/instrumentation/comm[0]/frequencies/standby-mhz", "double", "%.3f"),
    Chunk("xpdr_code", "/instrumentation/transponder/id-code", "int"),
    Chunk("xpdr_knob", "/instrumentation/transponder/inputs/knob-mode", "int"),
    Chunk("baro_inhg", "/instrumentation/altimeter/setting-inhg", "double", "%.3f"),
]

RAW_NODES: dict[str, str] = {c.name: c.node for c in RAW_CHUNKS}

#: canonical signals this mapping produces
SIGNALS: tuple[str, ...] = (
    "lat_deg",
    "lon_deg",
    "alt_msl_ft",
    "alt_agl_ft",
    "ias_kt",
    "gs_kt",
    "vs_fpm",
    "heading_mag_deg",
    "heading_true_deg",
    "pitch_deg",
    "bank_deg",
    "on_ground",
    "crashed",
    "engine_running",
    "engine_rpm",
    "magnetos",
    "mixture",
    "throttle",
    "primer_strokes",
    "master_bat",
    "master_alt",
    "beacon",
    "avionics",
    "fuel_selector",
    "flaps_deg",
    "parking_brake",
    "autopilot_on",
    "ap_hdg",
    "ap_nav",
    "ap_alt",
    "ap_apr",
    "ap_alt_target_ft",
    "ap_loc_captured",
    "ap_gs_captured",
    "nav1_mhz",
    "nav1_obs_deg",
    "loc_dev_dots",
    "gs_dev_dots",
    "com1_mhz",
    "com1_stby_mhz",
    "xpdr_code",
    "xpdr_mode",
    "baro_inhg",
)

_XPDR_MODE = {0: 0, 1: 1, 2: 4, 3: 2, 4: 2, 5: 3}
_KAP140_ROLL_APR = 5
_KAP140_PITCH_GS = 3

#: properties read over telnet at the start and end of an episode (snapshots.json)
SNAPSHOT_NODES: dict[str, str] = {
    "aircraft": "/sim/aircraft",
    "airport": "/sim/presets/airport-id",
    "weight_lbs": "/fdm/jsbsim/inertia/weight-lbs",
    "cg_x_in": "/fdm/jsbsim/inertia/cg-x-in",
    "empty_weight_lbs": "/fdm/jsbsim/inertia/empty-weight-lbs",
    "payload_pilot_lbs": "/payload/weight[0]/weight-lb",
    "payload_copilot_lbs": "/payload/weight[1]/weight-lb",
    "payload_left_pax_lbs": "/payload/weight[2]/weight-lb",
    "payload_right_pax_lbs": "/payload/weight[3]/weight-lb",
    "payload_baggage_lbs": "/payload/weight[4]/weight-lb",
    "fuel_left_gal": "/consumables/fuel/tank[0]/level-gal_us",
    "fuel_right_gal": "/consumables/fuel/tank[1]/level-gal_us",
    "fuel_total_lbs": "/consumables/fuel/total-fuel-lbs",
    "nav1_mhz": "/instrumentation/nav[0]/frequencies/selected-mhz",
    "nav1_stby_mhz": "/instrumentation/nav[0]/frequencies/standby-mhz",
    "nav1_obs_deg": "/instrumentation/nav[0]/radials/selected-deg",
    "com1_mhz": "/instrumentation/comm[0]/frequencies/selected-mhz",
    "com1_stby_mhz": "/instrumentation/comm[0]/frequencies/standby-mhz",
    "xpdr_code": "/instrumentation/transponder/id-code",
    "baro_inhg": "/instrumentation/altimeter/setting-inhg",
    "ap_alt_target_ft": "/autopilot/KAP140/settings/target-alt-ft",
    "wind_from_deg": "/environment/wind-from-heading-deg",
    "wind_kt": "/environment/wind-speed-kt",
    "time_of_day_gmt": "/sim/time/gmt",
}


def _b(v: float) -> float:
    return 1.0 if v and not math.isnan(v) and v > 0.5 else 0.0


class CanonicalMapper:
    """Raw c172p sample → canonical values. Stateful only for `primer_strokes` (see module doc)."""

    def __init__(self) -> None:
        self._primer_last: float | None = None
        self.primer_strokes = 0

    def __call__(self, raw: dict[str, float]) -> dict[str, float]:
        g = raw.get
        # missing raw names come through as None here and become NaN on return
        out: dict[str, float | None] = {
            "lat_deg": g("lat_deg"),
            "lon_deg": g("lon_deg"),
            "alt_msl_ft": g("alt_ft"),
            "alt_agl_ft": g("agl_ft"),
            "ias_kt": g("airspeed_kt"),
            "gs_kt": g("groundspeed_kt"),
            "vs_fpm": g("vs_fps", math.nan) * 60.0,
            "heading_mag_deg": g("heading_mag", math.nan) % 360.0,
            "heading_true_deg": g("heading_true", math.nan) % 360.0,
            "pitch_deg": g("pitch"),
            "bank_deg": g("roll"),
            "on_ground": max(_b(g("wow_left", 0)), _b(g("wow_right", 0))),
            "crashed": _b(g("crashed", 0)),
            "engine_running": _b(g("running", 0)),
            "engine_rpm": g("rpm"),
            "magnetos": 4.0 if _b(g("starter", 0)) else g("magnetos"),
            "mixture": g("mixture"),
            "throttle": g("throttle"),
            "master_bat": _b(g("master_bat", 0)),
            "master_alt": _b(g("master_alt", 0)),
            "avionics": _b(g("master_avionics", 0)),
            "beacon": _b(g("beacon", 0)),
            "flaps_deg": g("flaps_deg"),
            "parking_brake": _b(g("parking_brake", 0)),
            "autopilot_on": _b(g("ap_roll_axis", 0)),
            "ap_hdg": _b(g("ap_hdg_hold", 0)),
            "ap_nav": _b(g("ap_nav_hold", 0)),
            "ap_alt": _b(g("ap_alt_hold", 0)),
            "ap_apr": _b(g("ap_apr_hold", 0)),
            "ap_alt_target_ft": g("ap_target_alt_ft"),
            "ap_loc_captured": 1.0 if g("ap_roll_mode") == _KAP140_ROLL_APR else 0.0,
            "ap_gs_captured": 1.0 if g("ap_pitch_mode") == _KAP140_PITCH_GS else 0.0,
            "nav1_mhz": g("nav1_mhz"),
            "nav1_obs_deg": g("nav1_obs"),
            "loc_dev_dots": -g("cdi_norm", math.nan) * FULL_SCALE_DOTS,
            "gs_dev_dots": -g("gs_norm", math.nan) * FULL_SCALE_DOTS,
            "com1_mhz": g("com1_mhz"),
            "com1_stby_mhz": g("com1_stby_mhz"),
            "xpdr_code": g("xpdr_code"),
            "baro_inhg": g("baro_inhg"),
        }
        t0, t1 = _b(g("tank0_selected", 0)), _b(g("tank1_selected", 0))
        out["fuel_selector"] = {(1, 1): 3.0, (1, 0): 1.0, (0, 1): 2.0, (0, 0): 0.0}[(int(t0), int(t1))]
        knob = g("xpdr_knob")
        out["xpdr_mode"] = (
            float(_XPDR_MODE[int(knob)])
            if knob is not None and not math.isnan(knob) and int(knob) in _XPDR_MODE
            else math.nan
        )
        primer = g("primer")
        if primer is not None and not math.isnan(primer):
            if self._primer_last is not None and primer > self._primer_last:
                self.primer_strokes += int(round(primer - self._primer_last))
            self._primer_last = primer
        out["primer_strokes"] = float(self.primer_strokes)
        return {k: (math.nan if v is None else float(v)) for k, v in out.items()}
