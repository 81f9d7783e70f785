"""MSFS SimVars -> canonical signals: one table, the units asked of SimConnect, the conversion.

Every SimVar is requested with explicit units, so no row depends on a default: angles in degrees
where MSFS allows it, and the conversions below only handle what units cannot (sign conventions
and encodings).

Conventions (units in the names of the canonical side, simbridge/_canonical.py):
- `PLANE PITCH DEGREES` / `PLANE BANK DEGREES`: despite their names, radians unless units say
  otherwise (PROTOCOLS.md §3); MSFS keeps the FS convention of positive = nose down / left wing
  down (FS2000 SDK "PLANE BANK: positive values indicate bank to left"), so both are negated.
- `TRANSPONDER CODE:1` is BCO16: four octal digits, one per nibble (0x4521 -> 4521).
- `COM ACTIVE FREQUENCY:1` etc. asked in "MHz" are plain floats; asked in "Frequency BCD16" they
  are the four digits after the leading 1 (118.60 -> 0x1860). The table uses MHz; the BCD16
  helpers are for the *_RADIO_SET events.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from simbridge.adapters.msfs._client import Datum
from simbridge.adapters.msfs._wire import DataType


@dataclass(frozen=True)
class SignalMap:
    signal: str
    simvar: str
    units: str
    convert: Callable[[float], float]
    datatype: DataType = DataType.FLOAT64
    note: str = ""

    @property
    def datum(self) -> Datum:
        return Datum(self.simvar, self.units, self.datatype)


def ident(v: float) -> float:
    return float(v)


def neg(v: float) -> float:
    return -float(v)


def flag(v: float) -> float:
    return 1.0 if abs(v) >= 0.5 else 0.0


def wrap360(v: float) -> float:
    return float(v) % 360.0


def nonzero(v: float) -> float:
    return 1.0 if v != 0 else 0.0


def bcd16_digits(v: int) -> int:
    """BCD/BCO nibbles read as decimal digits: 0x4521 -> 4521. A nibble above 9 is not BCD."""
    v = int(v)
    if v < 0:
        raise ValueError(f"negative BCD value {v}")
    out, mul = 0, 1
    while v:
        nib = v & 0xF
        if nib > 9:
            raise ValueError(f"{v:#x} is not BCD (nibble {nib})")
        out += nib * mul
        v >>= 4
        mul *= 10
    return out


def to_bcd16(digits: int) -> int:
    """4521 -> 0x4521 (XPNDR_SET's argument)."""
    if digits < 0 or digits > 9999:
        raise ValueError(f"{digits} does not fit four BCD digits")
    out, shift = 0, 0
    while digits:
        out |= (digits % 10) << shift
        digits //= 10
        shift += 4
    return out


def xpdr_code(v: float) -> float:
    """BCO16 -> the canonical four octal digits read as a decimal number."""
    code = bcd16_digits(int(v))
    if any(int(c) > 7 for c in str(code)):
        raise ValueError(f"transponder {int(v):#x} has a digit above 7")
    return float(code)


def freq_bcd16_to_mhz(v: int) -> float:
    """MSFS Frequency BCD16: 0x1860 -> 118.60 MHz (the leading 1 is implied)."""
    return (10000 + bcd16_digits(v)) / 100.0


def mhz_to_freq_bcd16(mhz: float) -> int:
    """118.60 -> 0x1860, for COM_RADIO_SET / COM_STBY_RADIO_SET / NAV1_RADIO_SET."""
    hundredths = round(mhz * 100)
    if not 10000 <= hundredths <= 19999:
        raise ValueError(f"{mhz} MHz is outside 100.00-199.99")
    return to_bcd16(hundredths - 10000)


def xpdr_state(v: float) -> float:
    """TRANSPONDER STATE: 0 off, 1 standby, 2 test, 3 on, 4 alt -> canonical 0 off, 1 stby,
    2 on, 3 alt, 4 test (UNCONFIRMED: MSFS 2020 SDK enum as published; not checked on MSFS)."""
    return {0: 0.0, 1: 1.0, 2: 4.0, 3: 2.0, 4: 3.0}.get(int(v), math.nan)


def crashed(v: float) -> float:
    """CRASH FLAG: 0 none, else the crash kind (PROTOCOLS.md §3)."""
    return 1.0 if int(v) != 0 else 0.0


TABLE: dict[str, SignalMap] = {
    m.signal: m
    for m in (
        SignalMap("lat_deg", "PLANE LATITUDE", "degrees", ident),
        SignalMap("lon_deg", "PLANE LONGITUDE", "degrees", ident),
        SignalMap("alt_msl_ft", "PLANE ALTITUDE", "feet", ident),
        SignalMap("alt_agl_ft", "PLANE ALT ABOVE GROUND", "feet", ident),
        SignalMap("ias_kt", "AIRSPEED INDICATED", "knots", ident),
        SignalMap("gs_kt", "GROUND VELOCITY", "knots", ident),
        SignalMap("vs_fpm", "VERTICAL SPEED", "feet per minute", ident),
        SignalMap("heading_mag_deg", "PLANE HEADING DEGREES MAGNETIC", "degrees", wrap360),
        SignalMap("heading_true_deg", "PLANE HEADING DEGREES TRUE", "degrees", wrap360),
        SignalMap("pitch_deg", "PLANE PITCH DEGREES", "degrees", neg, note="MSFS: positive nose down"),
        SignalMap("bank_deg", "PLANE BANK DEGREES", "degrees", neg, note="MSFS: positive left wing down"),
        SignalMap("on_ground", "SIM ON GROUND", "bool", flag),
        SignalMap("crashed", "CRASH FLAG", "enum", crashed),
        SignalMap("engine_running", "GENERAL ENG COMBUSTION:1", "bool", flag),
        SignalMap("engine_rpm", "GENERAL ENG RPM:1", "rpm", ident),
        SignalMap("throttle", "GENERAL ENG THROTTLE LEVER POSITION:1", "percent over 100", ident),
        SignalMap("mixture", "GENERAL ENG MIXTURE LEVER POSITION:1", "percent over 100", ident),
        SignalMap("master_bat", "ELECTRICAL MASTER BATTERY", "bool", flag),
        SignalMap("master_alt", "GENERAL ENG MASTER ALTERNATOR:1", "bool", flag),
        SignalMap("beacon", "LIGHT BEACON", "bool", flag),
        SignalMap("avionics", "AVIONICS MASTER SWITCH", "bool", flag),
        SignalMap("flaps_deg", "TRAILING EDGE FLAPS LEFT ANGLE", "degrees", ident),
        SignalMap("gear_down", "GEAR HANDLE POSITION", "bool", flag),
        SignalMap("parking_brake", "BRAKE PARKING POSITION", "bool", flag),
        SignalMap("autopilot_on", "AUTOPILOT MASTER", "bool", flag),
        SignalMap("ap_hdg", "AUTOPILOT HEADING LOCK", "bool", flag),
        SignalMap("ap_nav", "AUTOPILOT NAV1 LOCK", "bool", flag),
        SignalMap("ap_alt", "AUTOPILOT ALTITUDE LOCK", "bool", flag),
        SignalMap("ap_apr", "AUTOPILOT APPROACH HOLD", "bool", flag),
        SignalMap("ap_alt_target_ft", "AUTOPILOT ALTITUDE LOCK VAR", "feet", ident),
        SignalMap("nav1_mhz", "NAV ACTIVE FREQUENCY:1", "MHz", ident),
        SignalMap("nav1_obs_deg", "NAV OBS:1", "degrees", wrap360),
        SignalMap("com1_mhz", "COM ACTIVE FREQUENCY:1", "MHz", ident),
        SignalMap("com1_stby_mhz", "COM STANDBY FREQUENCY:1", "MHz", ident),
        SignalMap("xpdr_code", "TRANSPONDER CODE:1", "BCO16", xpdr_code, DataType.INT32),
        SignalMap(
            "xpdr_mode", "TRANSPONDER STATE:1", "enum", xpdr_state, DataType.INT32, note="UNCONFIRMED enum order"
        ),
        SignalMap("baro_inhg", "KOHLSMAN SETTING HG", "inHg", ident),
    )
}

#: extra SimVars read per frame for events, not canonical signals: the touchdown record and the
#: simulator clock (seconds, pauses excluded)
CLOCK = SignalMap("_t", "SIMULATION TIME", "number", ident)
TOUCHDOWN: tuple[SignalMap, ...] = (
    SignalMap("_td_vs_fpm", "PLANE TOUCHDOWN NORMAL VELOCITY", "feet per minute", ident),
    SignalMap("_td_lat_deg", "PLANE TOUCHDOWN LATITUDE", "degrees", ident),
    SignalMap("_td_lon_deg", "PLANE TOUCHDOWN LONGITUDE", "degrees", ident),
    SignalMap("_td_bank_deg", "PLANE TOUCHDOWN BANK DEGREES", "degrees", neg),
    SignalMap("_td_pitch_deg", "PLANE TOUCHDOWN PITCH DEGREES", "degrees", neg),
)


def select(signals: list[str] | None) -> list[SignalMap]:
    """Rows for `signals` (None: all), clock first, touchdown vars last."""
    if signals is None:
        rows = list(TABLE.values())
    else:
        unknown = [s for s in signals if s not in TABLE]
        if unknown:
            from simbridge import HarnessError

            raise HarnessError(f"msfs: no SimVar mapping for signal(s) {', '.join(unknown)}")
        rows = [TABLE[s] for s in signals]
    return [CLOCK, *rows, *TOUCHDOWN]


def to_canonical(
    rows: list[SignalMap], values: list[float | str | None]
) -> tuple[float, dict[str, float], dict[str, float]]:
    """(sim time, canonical values, extras) from one frame; a datum missing or unconvertible is NaN."""
    out: dict[str, float] = {}
    extra: dict[str, float] = {}
    t = math.nan
    for row, raw in zip(rows, values, strict=True):
        try:
            v = row.convert(raw) if isinstance(raw, (int, float)) else math.nan
        except ValueError:
            v = math.nan
        if row is CLOCK:
            t = v
        elif row.signal.startswith("_"):
            extra[row.signal] = v
        else:
            out[row.signal] = v
    return t, out, extra
