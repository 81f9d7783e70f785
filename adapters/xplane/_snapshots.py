"""Snapshot groups: state read once at start and end, not streamed.

Each group is a list of datarefs read in one request (XPC GETD) and a function that turns the
raw values into `snapshots.json` keys, named as the verifiers read them (T08: `local_date_days`,
`local_time_s`, `flight_elapsed_s`, `weather`, `failures`, `aircraft`; T20: `afds`). X-Plane 12 weather uses the
`sim/weather/region/*` datarefs (developer.x-plane.com/article/weather-datarefs-in-x-plane-12);
X-Plane has no simulated year, so the date is reported as day of year and month-day.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from simbridge.adapters.xplane._mapping import FT_PER_M, KT_PER_MPS, freq_10khz_to_mhz, freq_khz_to_mhz

Raw = Mapping[str, Sequence[float]]


def _first(raw: Raw, name: str) -> float | None:
    v = raw.get(name)
    return float(v[0]) if v else None


def _time(raw: Raw) -> dict[str, Any]:
    """X-Plane's calendar: `local_date_days` is the 0-based day of the year (no year is simulated)."""
    day = _first(raw, "sim/time/local_date_days")
    local = _first(raw, "sim/time/local_time_sec")
    out: dict[str, Any] = {
        "local_date_days": day,
        "local_time_s": local,
        "zulu_time_s": _first(raw, "sim/time/zulu_time_sec"),
        "flight_elapsed_s": _first(raw, "sim/time/total_flight_time_sec"),
    }
    if day is not None:
        d = dt.date(2001, 1, 1) + dt.timedelta(days=int(day))  # a non-leap year; X-Plane has no year
        out["month_day"] = d.strftime("%m-%d")
    if local is not None:
        out["local_hhmm"] = f"{int(local // 3600) % 24:02d}:{int(local % 3600 // 60):02d}"
    return out


def _weather(raw: Raw) -> dict[str, Any]:
    e, agl = _first(raw, "sim/flightmodel/position/elevation"), _first(raw, "sim/flightmodel/position/y_agl")
    ground_ft = None if e is None or agl is None else (e - agl) * FT_PER_M
    winds = [
        {"alt_msl_ft": a * FT_PER_M, "dir_degt": d % 360, "speed_kt": s * KT_PER_MPS}
        for a, d, s in zip(
            raw.get("sim/weather/region/wind_altitude_msl_m", []),
            raw.get("sim/weather/region/wind_direction_degt", []),
            raw.get("sim/weather/region/wind_speed_msc", []),
        )
    ]
    clouds = []
    for t, cov, base, top in zip(
        raw.get("sim/weather/region/cloud_type", []),
        raw.get("sim/weather/region/cloud_coverage_percent", []),
        raw.get("sim/weather/region/cloud_base_msl_m", []),
        raw.get("sim/weather/region/cloud_tops_msl_m", []),
    ):
        # despite its name the dataref is a 0..1 ratio (as X-Plane 12 weather plugins use it)
        layer = {
            "type": int(t),
            "coverage": cov / 100 if cov > 1 else cov,
            "base_msl_ft": base * FT_PER_M,
            "tops_msl_ft": top * FT_PER_M,
        }
        if ground_ft is not None:
            layer["base_agl_ft"] = layer["base_msl_ft"] - ground_ft
        clouds.append(layer)
    return {
        "weather": {
            "wind_layers": winds,
            "cloud_layers": clouds,
            "visibility_sm": _first(raw, "sim/weather/region/visibility_reported_sm"),
            "field_elevation_ft": ground_ft,
        }
    }


#: failure enum (0 working .. 6 inoperative, UNCONFIRMED) -> trigger kind
_TRIGGER_KINDS = {0: "working", 1: "mtbf_h", 2: "time_s", 3: "ias_kt", 4: "agl_ft", 5: "key", 6: "failed"}
FAILURE_DATAREFS = (
    ("vacuum_pump", "sim/operation/failures/rel_vacuum"),
    ("engine", "sim/operation/failures/rel_engfai0"),
)


def _failures(raw: Raw) -> dict[str, Any]:
    """Each failure's mode. The trigger's value (e.g. the 2,000 ft of an altitude trigger) is not
    exposed as a dataref, so `value` stays null until a plugin source exists."""
    out = []
    for system, name in FAILURE_DATAREFS:
        v = _first(raw, name)
        if v is not None:
            mode = int(v)
            out.append(
                {
                    "system": system,
                    "dataref": name,
                    "mode_enum": mode,
                    "trigger": {"kind": _TRIGGER_KINDS.get(mode, str(mode)), "value": None},
                    "failed": mode == 6,
                }
            )
    return {"failures": out}


def _position(raw: Raw) -> dict[str, Any]:
    return {
        "position": {
            "lat_deg": _first(raw, "sim/flightmodel/position/latitude"),
            "lon_deg": _first(raw, "sim/flightmodel/position/longitude"),
            "alt_msl_ft": None if (e := _first(raw, "sim/flightmodel/position/elevation")) is None else e * FT_PER_M,
            "heading_true_deg": _first(raw, "sim/flightmodel/position/psi"),
        }
    }


def _radios(raw: Raw) -> dict[str, Any]:
    com1 = _first(raw, "sim/cockpit2/radios/actuators/com1_frequency_hz_833")
    nav1 = _first(raw, "sim/cockpit2/radios/actuators/nav1_frequency_hz")
    return {
        "radios": {
            "com1_mhz": None if com1 is None else freq_khz_to_mhz(com1),
            "nav1_mhz": None if nav1 is None else freq_10khz_to_mhz(nav1),
            "xpdr_code": _first(raw, "sim/cockpit2/radios/actuators/transponder_code"),
            "baro_inhg": _first(raw, "sim/cockpit2/gauges/actuators/barometer_setting_in_hg_pilot"),
        }
    }


def _autopilot(raw: Raw) -> dict[str, Any]:
    """Autopilot state; `afds` carries LNAV/VNAV as X-Plane's GPSS and VNAV status (0 off, 1 armed,
    2 captured), UNCONFIRMED for the default 737's own AFDS."""
    return {
        "autopilot": {
            "servos_on": _first(raw, "sim/cockpit2/autopilot/servos_on"),
            "nav_status": _first(raw, "sim/cockpit2/autopilot/nav_status"),
            "altitude_hold_status": _first(raw, "sim/cockpit2/autopilot/altitude_hold_status"),
            "altitude_dial_ft": _first(raw, "sim/cockpit2/autopilot/altitude_dial_ft"),
            "gps_destination_index": _first(raw, "sim/cockpit/gps/destination_index"),
        },
        "afds": {
            "lnav": _first(raw, "sim/cockpit2/autopilot/gpss_status"),
            "vnav": _first(raw, "sim/cockpit2/autopilot/vnav_status"),
        },
    }


def _aircraft(raw: Raw) -> dict[str, Any]:
    icao = raw.get("sim/aircraft/view/acf_ICAO", [])
    return {"aircraft": bytes(int(b) for b in icao if 0 < b < 128).decode("ascii", "replace") or None}


GROUPS: dict[str, tuple[tuple[str, ...], Callable[[Raw], dict[str, Any]]]] = {
    "time": (
        (
            "sim/time/local_date_days",
            "sim/time/local_time_sec",
            "sim/time/zulu_time_sec",
            "sim/time/total_flight_time_sec",
        ),
        _time,
    ),
    "weather": (
        (
            "sim/weather/region/wind_altitude_msl_m",
            "sim/weather/region/wind_direction_degt",
            "sim/weather/region/wind_speed_msc",
            "sim/weather/region/cloud_type",
            "sim/weather/region/cloud_coverage_percent",
            "sim/weather/region/cloud_base_msl_m",
            "sim/weather/region/cloud_tops_msl_m",
            "sim/weather/region/visibility_reported_sm",
            "sim/flightmodel/position/elevation",
            "sim/flightmodel/position/y_agl",
        ),
        _weather,
    ),
    "failures": (("sim/operation/failures/rel_vacuum", "sim/operation/failures/rel_engfai0"), _failures),
    "position": (
        (
            "sim/flightmodel/position/latitude",
            "sim/flightmodel/position/longitude",
            "sim/flightmodel/position/elevation",
            "sim/flightmodel/position/psi",
        ),
        _position,
    ),
    "radios": (
        (
            "sim/cockpit2/radios/actuators/com1_frequency_hz_833",
            "sim/cockpit2/radios/actuators/nav1_frequency_hz",
            "sim/cockpit2/radios/actuators/transponder_code",
            "sim/cockpit2/gauges/actuators/barometer_setting_in_hg_pilot",
        ),
        _radios,
    ),
    "autopilot": (
        (
            "sim/cockpit2/autopilot/servos_on",
            "sim/cockpit2/autopilot/nav_status",
            "sim/cockpit2/autopilot/altitude_hold_status",
            "sim/cockpit2/autopilot/altitude_dial_ft",
            "sim/cockpit/gps/destination_index",
            "sim/cockpit2/autopilot/gpss_status",
            "sim/cockpit2/autopilot/vnav_status",
        ),
        _autopilot,
    ),
    "aircraft": (("sim/aircraft/view/acf_ICAO",), _aircraft),
}


def datarefs_for_groups(groups: Sequence[str]) -> list[str]:
    names: dict[str, None] = {}
    for g in groups:
        if g in GROUPS:
            names.update(dict.fromkeys(GROUPS[g][0]))
    return list(names)


def build(groups: Sequence[str], raw: Raw) -> dict[str, Any]:
    """The snapshot keys verifiers read (`local_date_days`, `weather`, `failures`, `aircraft`, ...)."""
    out: dict[str, Any] = {}
    for g in groups:
        if g in GROUPS:
            out.update(GROUPS[g][1](raw))
    return out
