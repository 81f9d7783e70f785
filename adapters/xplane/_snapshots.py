"""Snapshot groups: state read once at start and end, not streamed.

Each group is a list of datarefs read in one request (XPC GETD or the Web API) and a function
that turns the raw values into the bundle's `snapshots.json` entry. X-Plane 12 weather uses the
`sim/weather/region/*` datarefs (developer.x-plane.com/article/weather-datarefs-in-x-plane-12);
X-Plane has no simulated year, so the date is reported as day of year and month-day.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from simbridge.adapters.xplane._mapping import FT_PER_M, KT_PER_MPS, freq_10khz_to_mhz, freq_khz_to_mhz

Raw = Mapping[str, Sequence[float]]

FAILURE_MODES = {0: "working", 1: "mean_time_between_failures", 2: "exact_time", 3: "exact_speed_kias",
                 4: "exact_altitude_agl", 5: "on_key", 6: "inoperative"}  # failure enum, UNCONFIRMED


def _first(raw: Raw, name: str) -> float | None:
    v = raw.get(name)
    return float(v[0]) if v else None


def _time(raw: Raw) -> dict[str, Any]:
    day = _first(raw, "sim/time/local_date_days")
    local = _first(raw, "sim/time/local_time_sec")
    out: dict[str, Any] = {"day_of_year": None if day is None else int(day) + 1,
                           "local_time_sec": local, "zulu_time_sec": _first(raw, "sim/time/zulu_time_sec")}
    if day is not None:
        d = dt.date(2001, 1, 1) + dt.timedelta(days=int(day))  # a non-leap year; X-Plane has no year
        out["month_day"] = d.strftime("%m-%d")
    if local is not None:
        out["local_hhmm"] = f"{int(local // 3600) % 24:02d}:{int(local % 3600 // 60):02d}"
    return out


def _weather(raw: Raw) -> dict[str, Any]:
    winds = []
    alts = raw.get("sim/weather/region/wind_altitude_msl_m", [])
    dirs = raw.get("sim/weather/region/wind_direction_degt", [])
    spds = raw.get("sim/weather/region/wind_speed_msc", [])
    for a, d, s in zip(alts, dirs, spds):
        winds.append({"alt_msl_ft": a * FT_PER_M, "dir_deg": d % 360, "speed_kt": s * KT_PER_MPS})
    clouds = []
    for t, cov, base, top in zip(raw.get("sim/weather/region/cloud_type", []), raw.get("sim/weather/region/cloud_coverage_percent", []),
                                 raw.get("sim/weather/region/cloud_base_msl_m", []), raw.get("sim/weather/region/cloud_tops_msl_m", [])):
        clouds.append({"type": int(t), "coverage_pct": cov, "base_msl_ft": base * FT_PER_M, "tops_msl_ft": top * FT_PER_M})
    return {"winds": winds, "clouds": clouds, "visibility_sm": _first(raw, "sim/weather/region/visibility_reported_sm"),
            "field_elevation_ft": None if (e := _first(raw, "sim/flightmodel/position/elevation")) is None or
            (agl := _first(raw, "sim/flightmodel/position/y_agl")) is None else (e - agl) * FT_PER_M}


def _failures(raw: Raw) -> dict[str, Any]:
    out = {}
    for system, name in (("vacuum_pump", "sim/operation/failures/rel_vacuum"), ("engine", "sim/operation/failures/rel_engfai0")):
        v = _first(raw, name)
        if v is not None:
            out[system] = {"dataref": name, "mode_enum": int(v), "mode": FAILURE_MODES.get(int(v), str(int(v))),
                           "trigger": None, "trigger_note": "the trigger value is not exposed as a dataref"}
    return out


def _position(raw: Raw) -> dict[str, Any]:
    return {"lat_deg": _first(raw, "sim/flightmodel/position/latitude"),
            "lon_deg": _first(raw, "sim/flightmodel/position/longitude"),
            "alt_msl_ft": None if (e := _first(raw, "sim/flightmodel/position/elevation")) is None else e * FT_PER_M,
            "heading_true_deg": _first(raw, "sim/flightmodel/position/psi")}


def _radios(raw: Raw) -> dict[str, Any]:
    com1 = _first(raw, "sim/cockpit2/radios/actuators/com1_frequency_hz_833")
    nav1 = _first(raw, "sim/cockpit2/radios/actuators/nav1_frequency_hz")
    return {"com1_mhz": None if com1 is None else freq_khz_to_mhz(com1),
            "nav1_mhz": None if nav1 is None else freq_10khz_to_mhz(nav1),
            "xpdr_code": _first(raw, "sim/cockpit2/radios/actuators/transponder_code"),
            "baro_inhg": _first(raw, "sim/cockpit2/gauges/actuators/barometer_setting_in_hg_pilot")}


def _autopilot(raw: Raw) -> dict[str, Any]:
    return {"servos_on": _first(raw, "sim/cockpit2/autopilot/servos_on"),
            "nav_status": _first(raw, "sim/cockpit2/autopilot/nav_status"),
            "altitude_hold_status": _first(raw, "sim/cockpit2/autopilot/altitude_hold_status"),
            "altitude_dial_ft": _first(raw, "sim/cockpit2/autopilot/altitude_dial_ft"),
            "gps_destination_index": _first(raw, "sim/cockpit/gps/destination_index")}


def _aircraft(raw: Raw) -> dict[str, Any]:
    icao = raw.get("sim/aircraft/view/acf_ICAO", [])
    return {"icao": bytes(int(b) for b in icao if 0 < b < 128).decode("ascii", "replace") or None}


GROUPS: dict[str, tuple[tuple[str, ...], Callable[[Raw], dict[str, Any]]]] = {
    "time": (("sim/time/local_date_days", "sim/time/local_time_sec", "sim/time/zulu_time_sec"), _time),
    "weather": (("sim/weather/region/wind_altitude_msl_m", "sim/weather/region/wind_direction_degt",
                 "sim/weather/region/wind_speed_msc", "sim/weather/region/cloud_type",
                 "sim/weather/region/cloud_coverage_percent", "sim/weather/region/cloud_base_msl_m",
                 "sim/weather/region/cloud_tops_msl_m", "sim/weather/region/visibility_reported_sm",
                 "sim/flightmodel/position/elevation", "sim/flightmodel/position/y_agl"), _weather),
    "failures": (("sim/operation/failures/rel_vacuum", "sim/operation/failures/rel_engfai0"), _failures),
    "position": (("sim/flightmodel/position/latitude", "sim/flightmodel/position/longitude",
                  "sim/flightmodel/position/elevation", "sim/flightmodel/position/psi"), _position),
    "radios": (("sim/cockpit2/radios/actuators/com1_frequency_hz_833", "sim/cockpit2/radios/actuators/nav1_frequency_hz",
                "sim/cockpit2/radios/actuators/transponder_code",
                "sim/cockpit2/gauges/actuators/barometer_setting_in_hg_pilot"), _radios),
    "autopilot": (("sim/cockpit2/autopilot/servos_on", "sim/cockpit2/autopilot/nav_status",
                   "sim/cockpit2/autopilot/altitude_hold_status", "sim/cockpit2/autopilot/altitude_dial_ft",
                   "sim/cockpit/gps/destination_index"), _autopilot),
    "aircraft": (("sim/aircraft/view/acf_ICAO",), _aircraft),
}


def datarefs_for_groups(groups: Sequence[str]) -> list[str]:
    names: dict[str, None] = {}
    for g in groups:
        if g in GROUPS:
            names.update(dict.fromkeys(GROUPS[g][0]))
    return list(names)


def build(groups: Sequence[str], raw: Raw) -> dict[str, Any]:
    return {g: GROUPS[g][1](raw) for g in groups if g in GROUPS}
