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
from collections.abc import Sequence
from typing import Protocol

from simbridge.canonical import flight_signals
from simbridge import HarnessError
from simbridge.adapters.fgproto import Chunk


class TelnetLike(Protocol):
    """What `read_setup` needs of a telnet property connection (`TelnetProps`)."""

    def get(self, path: str) -> str: ...

    def get_many(self, paths: Sequence[str]) -> list[str]: ...


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
    Chunk("pitot_heat", "/controls/anti-ice/pitot-heat", "bool"),
    Chunk("suction_inhg", "/systems/vacuum/suction-inhg", "double", "%.3f"),
]


_XPDR_MODE = {0: 0, 1: 1, 2: 4, 3: 2, 4: 2, 5: 3}
_KAP140_ROLL_APR = 5
_KAP140_PITCH_GS = 3

#: harness-injected failure (task `initial_state.failures[].system`) -> the `serviceable` flag of
#: FlightGear's failure-manager mode (Aircraft/Generic/Systems/compat_failure_modes.nas). The
#: engine mode's actuator (failures.nas `fail_engine`) sets magnetos 0 and cutoff 1 and makes
#: both read-only, so the agent cannot restart it; the c172p keeps the compat modes. The vacuum
#: mode's actuator sets /systems/vacuum/serviceable false: FlightGear's vacuum system then gives
#: 0 inHg of suction (/systems/vacuum/suction-inhg, 4.9 before) and the c172p's attitude and
#: heading indicators, whose `suction` is that property (Systems/instrumentation.xml), spin down.
#: Not here, because the c172p does not model them (both read on a running fgfs 2020.3.16):
#: - `pitot`: the mode's /systems/pitot/serviceable is driven by the c172p's own JSBSim switch
#:   (Systems/indicated-airspeed.xml, true unless the pitot cover is on), so with the mode failed
#:   the total pressure and the airspeed indicator keep following the airspeed; pitot heat only
#:   draws current (/systems/electrical/outputs/pitot-heat), there is no icing model.
#: - `alternator`: the c172p's alternator (Nasal/electrical.nas) depends on rpm only; the
#:   `systems/electrical` mode fails the whole system (battery too: 0 V), which is not the
#:   POH's alternator failure, and the panel has no LOW VOLTS annunciator.
FAILURE_PROPS: dict[str, str] = {
    "engine": "/sim/failure-manager/engines/engine/serviceable",
    "vacuum": "/sim/failure-manager/systems/vacuum/serviceable",
}

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
            "pitot_heat": _b(g("pitot_heat", 0)),
            "vacuum_inhg": g("suction_inhg"),
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


#: canonical signals this mapping produces (what `CanonicalMapper` returns), in FLIGHT's order
SIGNALS: tuple[str, ...] = flight_signals(CanonicalMapper()({}))

# ---------------------------------------------------------------------------- T08: the setup
#: FlightGear 2020.3's failure-manager modes (Aircraft/Generic/Systems/compat_failure_modes.nas,
#: the ones its Equipment → System/Instrument Failures dialogs edit) and their trigger leaf:
#: `mtbf` (mean time between failures, seconds) or `mcbf` (mean cycles between failures)
FAILURE_MODES: dict[str, str] = {
    "instrumentation/adf": "mtbf",
    "instrumentation/dme": "mtbf",
    "instrumentation/airspeed-indicator": "mtbf",
    "instrumentation/altimeter": "mtbf",
    "instrumentation/attitude-indicator": "mtbf",
    "instrumentation/heading-indicator": "mtbf",
    "instrumentation/magnetic-compass": "mtbf",
    "instrumentation/nav/gs": "mtbf",
    "instrumentation/nav/cdi": "mtbf",
    "instrumentation/nav[1]/gs": "mtbf",
    "instrumentation/nav[1]/cdi": "mtbf",
    "instrumentation/slip-skid-ball": "mtbf",
    "instrumentation/turn-indicator": "mtbf",
    "instrumentation/vertical-speed-indicator": "mtbf",
    "systems/electrical": "mtbf",
    "systems/pitot": "mtbf",
    "systems/static": "mtbf",
    "systems/vacuum": "mtbf",
    "controls/flight/aileron": "mtbf",
    "controls/flight/elevator": "mtbf",
    "controls/flight/rudder": "mtbf",
    "controls/flight/flaps": "mcbf",
    "controls/flight/speedbrake": "mcbf",
    "controls/gear": "mcbf",
    "engines/engine": "mtbf",
}
FAILURE_ROOT = "/sim/failure-manager"

#: time and weather properties read for the setup snapshot (name -> property)
SETUP_NODES: dict[str, str] = {
    "gmt": "/sim/time/gmt",
    "local_offset_s": "/sim/time/local-offset",
    "local_day_s": "/sim/time/local-day-seconds",
    "realwx": "/environment/realwx/enabled",
    "metar_updates": "/environment/params/metar-updates-environment",
    "scenario": "/environment/weather-scenario",
    "metar_valid": "/environment/metar/valid",
    "metar_wind_dir": "/environment/metar/base-wind-dir-deg",
    "metar_wind_kt": "/environment/metar/base-wind-speed-kt",
    "metar_vis_m": "/environment/metar/min-visibility-m",
    "station_elev_ft": "/environment/metar/station-elevation-ft",
    "bl_elev_ft": "/environment/config/boundary/entry[0]/elevation-ft",
    "bl_wind_dir": "/environment/config/boundary/entry[0]/wind-from-heading-deg",
    "bl_wind_kt": "/environment/config/boundary/entry[0]/wind-speed-kt",
    "bl_vis_m": "/environment/config/boundary/entry[0]/visibility-m",
    **{
        f"cloud{i}_{k}": f"/environment/clouds/layer[{i}]/{p}"
        for i in range(5)
        for k, p in (("coverage", "coverage"), ("base_ft", "elevation-ft"))
    },
    **{f"fail:{m}:serviceable": f"{FAILURE_ROOT}/{m}/serviceable" for m in FAILURE_MODES},
    **{f"fail:{m}:{t}": f"{FAILURE_ROOT}/{m}/{t}" for m, t in FAILURE_MODES.items()},
}


def _f(v: str | None) -> float | None:
    try:
        x = float(v) if v not in (None, "") else math.nan
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def setup_state(raw: dict[str, str]) -> dict[str, object]:
    """The setup snapshot in the shape the `sim_setup` verifier reads, from `SETUP_NODES` reads.

    - `local_date_days` (0-based day of the local year) and `local_time_s` from FlightGear's
      UTC clock (`/sim/time/gmt`) plus its local offset for the aircraft's position; no
      `flight_elapsed_s`: the agent sets the clock during the episode, so the verifier widens
      its window by the recording's length instead.
    - `weather.mode`: `real` with live weather on, `manual` for the Weather dialog's Manual
      input METAR or its Manual Configuration (METAR no longer drives the environment), else
      `preset` (a canned scenario such as Fair weather). The surface wind and visibility are
      the METAR's own when a METAR drives the environment (FlightGear's boundary layer reduces
      the METAR wind near the ground), else the boundary layer's first entry as configured.
      Cloud bases are MSL (`/environment/clouds/layer[i]/elevation-ft`: the METAR's AGL base
      plus the station elevation).
    - `failures`: every failure-manager mode that is failed (`serviceable` false: kind
      `inoperative`) or armed by an MTBF (`mtbf_h`, hours) or MCBF (`mcbf`, cycles); `system`
      is the mode id without its group (`systems/vacuum` → `vacuum`).
    """
    import datetime as dt

    out: dict[str, object] = {}
    offset = _f(raw.get("local_offset_s"))
    try:
        utc = dt.datetime.fromisoformat(str(raw.get("gmt", "")))
    except ValueError:
        utc = None
    if utc is not None and offset is not None:
        local = utc + dt.timedelta(seconds=offset)
        out["local_date_days"] = local.timetuple().tm_yday - 1
        out["local_time_s"] = local.hour * 3600 + local.minute * 60 + local.second
    realwx = raw.get("realwx") == "true"
    metar_drives = raw.get("metar_updates") == "true"
    mode = "real" if realwx else "manual" if not metar_drives or raw.get("scenario") == "Manual input" else "preset"
    if metar_drives and raw.get("metar_valid") == "true":
        wind = {
            "alt_msl_ft": _f(raw.get("station_elev_ft")),
            "dir_degt": _f(raw.get("metar_wind_dir")),
            "speed_kt": _f(raw.get("metar_wind_kt")),
        }
        vis_m = _f(raw.get("metar_vis_m"))
    else:
        wind = {
            "alt_msl_ft": _f(raw.get("bl_elev_ft")),
            "dir_degt": _f(raw.get("bl_wind_dir")),
            "speed_kt": _f(raw.get("bl_wind_kt")),
        }
        vis_m = _f(raw.get("bl_vis_m"))
    clouds = []
    for i in range(5):
        cov = str(raw.get(f"cloud{i}_coverage", "")).strip().lower()
        base = _f(raw.get(f"cloud{i}_base_ft"))
        if cov and base is not None:
            clouds.append({"coverage": cov, "base_msl_ft": base})
    out["weather"] = {
        "mode": mode,
        "scenario": raw.get("scenario") or None,
        "wind_layers": [wind],
        "cloud_layers": clouds,
        "visibility_m": vis_m,
    }
    failures: list[dict[str, object]] = []
    for m, t in FAILURE_MODES.items():
        system = m.split("/", 1)[1]
        failed = raw.get(f"fail:{m}:serviceable") == "false"
        value = _f(raw.get(f"fail:{m}:{t}")) or 0.0
        if failed:
            failures.append({"system": system, "trigger": {"kind": "inoperative"}, "failed": True, "mode": m})
        elif value > 0:
            trig = {"kind": "mtbf_h", "value": value / 3600.0} if t == "mtbf" else {"kind": "mcbf", "value": value}
            failures.append({"system": system, "trigger": trig, "failed": False, "mode": m})
    out["failures"] = failures
    return out


def read_setup(tn: "TelnetLike") -> dict[str, object]:
    """`setup_state` of a running FlightGear, read over telnet in one pipelined batch (node by
    node, a missing one read as empty, if the batch fails on one)."""
    names = list(SETUP_NODES)
    nodes = [SETUP_NODES[n] for n in names]
    try:
        values = tn.get_many(nodes)
    except HarnessError:
        values = []
        for node in nodes:
            try:
                values.append(tn.get(node))
            except HarnessError:
                values.append("")
    return setup_state(dict(zip(names, values)))
