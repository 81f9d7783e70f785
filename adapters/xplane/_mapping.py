"""X-Plane datarefs -> canonical signals: one table, with the unit conversion for each row.

RREF delivers every value as float32, array elements one by one (`name[i]`). Dataref names and
units follow X-Plane's DataRefs.txt (10.41 copy in der-On/X-Plane-Dataref-Search, re-checked for
names used on 11/12); rows whose meaning is not confirmed by a primary source say so in `note`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

FT_PER_M = 1 / 0.3048
KT_PER_MPS = 3600 / 1852


@dataclass(frozen=True)
class SignalMap:
    signal: str
    datarefs: tuple[str, ...]
    convert: Callable[..., float]
    note: str = ""


# --------------------------------------------------------------------------- conversions


def ident(v: float) -> float:
    return float(v)


def m_to_ft(v: float) -> float:
    return v * FT_PER_M


def mps_to_kt(v: float) -> float:
    return v * KT_PER_MPS


def rad_to_deg(v: float) -> float:
    return math.degrees(v)


def wrap360(v: float) -> float:
    return v % 360.0


def flag(v: float) -> float:
    """Any non-zero reading is 1 (int datarefs arrive as floats)."""
    return 1.0 if v >= 0.5 or v <= -0.5 else 0.0


def at_least(threshold: float) -> Callable[[float], float]:
    def conv(v: float) -> float:
        return 1.0 if v >= threshold else 0.0

    return conv


def status_active(v: float) -> float:
    """Autopilot mode status: 0 off, 1 armed, 2 captured/active -> active is 1."""
    return 1.0 if round(v) == 2 else 0.0


def freq_10khz_to_mhz(v: float) -> float:
    """NAV frequencies are stored in 10 kHz units: 11030 -> 110.30 MHz."""
    return round(v) / 100.0


def freq_khz_to_mhz(v: float) -> float:
    """`*_hz_833` COM frequencies are in kHz: 118250 -> 118.250 MHz."""
    return round(v) / 1000.0


def bcd16_to_code(v: float) -> float:
    """A 16-bit BCD squawk (0x4521) -> 4521. X-Plane's transponder_code is already decimal digits;
    this is kept for aircraft plugins that publish BCD."""
    n = int(v)
    return float(sum(((n >> (4 * i)) & 0xF) * 10**i for i in range(4)))


def squawk(v: float) -> float:
    """X-Plane stores the code as its four digits read as a decimal (1200 -> 1200)."""
    return float(round(v))


_FUEL_SELECTOR = {0: 0.0, 1: 1.0, 3: 2.0, 4: 3.0}  # X-Plane: 0 none, 1 left, 2 centre, 3 right, 4 all


def fuel_selector(v: float) -> float:
    """X-Plane's selector (0 none, 1 left, 2 centre, 3 right, 4 all) -> canonical (0 off, 1 L, 2 R, 3 both)."""
    return _FUEL_SELECTOR.get(round(v), math.nan)


def xpdr_mode(v: float) -> float:
    """X-Plane 0 off, 1 standby, 2 on (mode A), 3 alt (mode C), 4 test -> same canonical codes."""
    m = round(v)
    return float(m) if 0 <= m <= 4 else math.nan


def negate(v: float) -> float:
    return -v


# --------------------------------------------------------------------------- the table


def _engine(n: int) -> list[SignalMap]:
    pre = "engine" if n == 0 else f"engine{n + 1}"
    return [
        SignalMap(f"{pre}_running", (f"sim/flightmodel/engine/ENGN_running[{n}]",), flag),
        SignalMap(f"{pre}_rpm", (f"sim/cockpit2/engine/indicators/engine_speed_rpm[{n}]",), ident),
    ]


FLIGHT_TABLE: tuple[SignalMap, ...] = (
    SignalMap(
        "lat_deg",
        ("sim/flightmodel/position/latitude",),
        ident,
        "double dataref; RREF sends float32 (~0.5 m resolution)",
    ),
    SignalMap("lon_deg", ("sim/flightmodel/position/longitude",), ident, "as lat_deg"),
    SignalMap("alt_msl_ft", ("sim/flightmodel/position/elevation",), m_to_ft, "true altitude, metres MSL"),
    SignalMap("alt_agl_ft", ("sim/flightmodel/position/y_agl",), m_to_ft, "metres above ground"),
    SignalMap("ias_kt", ("sim/flightmodel/position/indicated_airspeed",), ident, "KIAS from the flight model"),
    SignalMap("gs_kt", ("sim/flightmodel/position/groundspeed",), mps_to_kt),
    SignalMap("vs_fpm", ("sim/flightmodel/position/vh_ind_fpm",), ident),
    SignalMap("heading_mag_deg", ("sim/flightmodel/position/mag_psi",), wrap360),
    SignalMap("heading_true_deg", ("sim/flightmodel/position/psi",), wrap360),
    SignalMap("pitch_deg", ("sim/flightmodel/position/theta",), ident),
    SignalMap("bank_deg", ("sim/flightmodel/position/phi",), ident, "phi is positive right wing down"),
    SignalMap("on_ground", ("sim/flightmodel/failures/onground_any",), flag),
    SignalMap(
        "crashed", ("sim/flightmodel2/misc/has_crashed",), flag, "XP11/12 dataref, absent from 10.41's DataRefs.txt"
    ),
    *_engine(0),
    SignalMap(
        "magnetos",
        ("sim/cockpit2/engine/actuators/ignition_key[0]",),
        ident,
        "0 off, 1 right, 2 left, 3 both, 4 start: same codes as canonical",
    ),
    SignalMap("mixture", ("sim/cockpit2/engine/actuators/mixture_ratio[0]",), ident),
    SignalMap("throttle", ("sim/cockpit2/engine/actuators/throttle_ratio[0]",), ident),
    SignalMap("master_bat", ("sim/cockpit2/electrical/battery_on[0]",), flag),
    SignalMap("master_alt", ("sim/cockpit2/electrical/generator_on[0]",), flag),
    SignalMap("beacon", ("sim/cockpit2/switches/beacon_on",), flag),
    SignalMap("avionics", ("sim/cockpit2/switches/avionics_power_on",), flag),
    SignalMap("fuel_selector", ("sim/cockpit2/fuel/fuel_tank_selector",), fuel_selector),
    SignalMap("flaps_deg", ("sim/flightmodel2/wing/flap1_deg[0]",), ident),
    SignalMap("gear_down", ("sim/flightmodel2/gear/deploy_ratio[0]",), at_least(0.99)),
    SignalMap("parking_brake", ("sim/cockpit2/controls/parking_brake_ratio",), at_least(0.5)),
    SignalMap("autopilot_on", ("sim/cockpit2/autopilot/servos_on",), flag),
    SignalMap("ap_hdg", ("sim/cockpit2/autopilot/heading_status",), status_active),
    SignalMap("ap_nav", ("sim/cockpit2/autopilot/nav_status",), status_active),
    SignalMap("ap_alt", ("sim/cockpit2/autopilot/altitude_hold_status",), status_active),
    SignalMap("ap_apr", ("sim/cockpit2/autopilot/approach_status",), status_active),
    SignalMap("ap_alt_target_ft", ("sim/cockpit2/autopilot/altitude_dial_ft",), ident),
    SignalMap("nav1_mhz", ("sim/cockpit2/radios/actuators/nav1_frequency_hz",), freq_10khz_to_mhz),
    SignalMap("nav1_obs_deg", ("sim/cockpit2/radios/actuators/nav1_obs_deg_mag_pilot",), wrap360),
    SignalMap(
        "loc_dev_dots",
        ("sim/cockpit2/radios/indicators/nav1_hdef_dots_pilot",),
        negate,
        "X-Plane: positive = needle right (aircraft left of course); canonical is the opposite. UNCONFIRMED sign",
    ),
    SignalMap(
        "gs_dev_dots",
        ("sim/cockpit2/radios/indicators/nav1_vdef_dots_pilot",),
        negate,
        "X-Plane: positive = needle up (aircraft below path); canonical is the opposite. UNCONFIRMED sign",
    ),
    SignalMap("com1_mhz", ("sim/cockpit2/radios/actuators/com1_frequency_hz_833",), freq_khz_to_mhz),
    SignalMap("com1_stby_mhz", ("sim/cockpit2/radios/actuators/com1_standby_frequency_hz_833",), freq_khz_to_mhz),
    SignalMap("xpdr_code", ("sim/cockpit2/radios/actuators/transponder_code",), squawk),
    SignalMap("xpdr_mode", ("sim/cockpit2/radios/actuators/transponder_mode",), xpdr_mode),
    SignalMap("baro_inhg", ("sim/cockpit2/gauges/actuators/barometer_setting_in_hg_pilot",), ident),
)

#: the second engine of a twin (engine2_running, engine2_rpm)
TWIN_TABLE: tuple[SignalMap, ...] = tuple(_engine(1))

#: the simulator clock and pause flag ride along with every RREF subscription
CLOCK_DATAREF = "sim/time/total_running_time_sec"
PAUSED_DATAREF = "sim/time/paused"

TABLE: dict[str, SignalMap] = {m.signal: m for m in (*FLIGHT_TABLE, *TWIN_TABLE)}


def select(signals: Iterable[str] | None = None, *, twin: bool = False) -> list[SignalMap]:
    """Rows for these canonical signals (all single-engine rows by default). Unknown names raise."""
    if signals is None:
        rows = list(FLIGHT_TABLE) + (list(TWIN_TABLE) if twin else [])
        return rows
    rows = []
    for s in signals:
        if s not in TABLE:
            raise KeyError(f"no X-Plane dataref mapping for canonical signal {s!r}")
        rows.append(TABLE[s])
    return rows


def datarefs_for(rows: Iterable[SignalMap]) -> list[str]:
    """The datarefs to subscribe for these rows, plus the clock and pause flag, without repeats."""
    seen: dict[str, None] = {CLOCK_DATAREF: None, PAUSED_DATAREF: None}
    for r in rows:
        for d in r.datarefs:
            seen.setdefault(d, None)
    return list(seen)


def to_canonical(rows: Iterable[SignalMap], raw: Mapping[str, float]) -> dict[str, float]:
    """Canonical values from raw dataref values; a row with a missing input is left out (recorded as null)."""
    out: dict[str, float] = {}
    for r in rows:
        try:
            args = [raw[d] for d in r.datarefs]
        except KeyError:
            continue
        if any(isinstance(a, float) and math.isnan(a) for a in args):
            continue
        out[r.signal] = r.convert(*args)
    return out
