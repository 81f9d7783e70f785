"""NMEA 0183 sentences as Bridge Command emits them, parsed into own-ship state, and a capture
file turned into a bundle.

What Bridge Command sends, from its source (bridgecommand/bc @ 527f26b3, `src/NMEA.cpp`,
`src/NMEA.hpp`):

- one sensor sentence per 100 ms (`sensorReportInterval = 100`, NMEA.hpp:51), checked once a
  frame (main.cpp:1157-1168), so never faster and slower when the frame rate drops below 10 Hz;
  round-robin in the order of `enum NMEAMessage` (NMEA.hpp:43): RMC, GPROT, GLL, RSA, RPM,
  GPHDT, HEROT, TTM, GGA, ZDA, DTM, HEHDT, TIROT, DPT — each type every 1.4 s (NMEA.cpp:429-586);
- `$GPRMC,hhmmss.00,A,ddmm.mmm,N,dddmm.mmm,W,sog.s,cog.c,YYYYMMDD,,,A,S` (NMEA.cpp:432): status
  always A; the date is YYYYMMDD (8 digits), not the standard DDMMYY;
- `$GPGLL,…,hhmmss.00,A,A` (:438); `$GPGGA,hhmmss.00,…,1,12,0.0,0.0,M,0.0,M,,` (:444: quality
  1, 12 satellites, HDOP 0.0 hard-coded); `$IIRSA,r.r,A,,V` (:450); two `$IIRPM,S,n,rpm,100,A`
  in one datagram (:458); `$RATTM` per ARPA track, none without tracks (:466-486);
  `$RAZDA,hhmmss.00,dd,mm,yyyy,00,00` (:497); `$RADTM,W84,,,,,,,` (:515); `$HEHDT`/`$GPHDT,h.h,T`
  (:521, :527); `$SDDPT,d.d,,` (:533); `$TIROT`/`$GPROT`/`$HEROT,r.r,A` in °/min (:539-551);
  `!AIVDM` class A reports of other ships, every 2-10 s by speed (:354, AIS.cpp:61-65);
- latitude and longitude are 32-bit floats printed `%02u%06.3f` / `%03u%06.3f` (NMEA.cpp:407,
  :432): 0.001′ steps (1.85 m of latitude), and minutes that round up print as `60.000`;
- the time is the simulation's whole second (`Utilities::ttos`, Utilities.cpp:142) with `.00`;
- `addChecksum` XORs every character after `$`/`!`, appends `*hh` and CR LF (NMEA.cpp:623-635);
  each queued message is one UDP datagram to NMEA_UDPAddress:NMEA_UDPPort (bc5.ini:232-235,
  localhost:10110; NMEA.cpp:605-621).

Real receivers (tests/fixtures/nmea/: gpsd's captures from ships' GPS, AIS transponders and
sounders) also send DDMMYY dates, 4-6 decimal minutes, empty fields while without a fix,
proprietary `$P…` sentences, mode indicators (N = not valid) and, now and then, a corrupted
sentence. Fixes a receiver marks invalid (RMC/GLL status V or mode N, GGA quality 0) and
sentences whose checksum does not match are left out and counted.

A capture file holds one sentence per line, optionally prefixed by the receive time in seconds
and a space (`12.345 $GPRMC,...`), which is what `NmeaUdpRecorder` writes; lines starting `#`
are comments (the header of gpsd's test logs).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from simbridge._bundle import EpisodeInfo, write_bundle
from simbridge._errors import SimbridgeError
from simbridge._import_policy import DropCounter, check_out, flags_of, lenient_flag, prepare_out

_SENTENCE = re.compile(r"^[$!](?:[A-Z0-9]{5}|P[A-Z0-9]{3,9}),[\x20-\x7e]*\*[0-9A-Fa-f]{2}$")
_STAMP = re.compile(r"^(-?\d+(?:\.\d*)?)\s+([$!].*)$")


class NmeaError(SimbridgeError):
    """A capture line that is not a valid NMEA sentence: names the file and line."""


class ChecksumError(ValueError):
    """A well-framed sentence whose checksum does not match: corrupted in transit."""


@dataclass(frozen=True)
class Sentence:
    talker: str
    kind: str  # sentence formatter, e.g. RMC
    fields: list[str]
    raw: str


def nmea_checksum(body: str) -> str:
    """XOR of the characters of `body` (between '$' and '*') as two upper-case hex digits."""
    c = 0
    for ch in body.encode("ascii"):
        c ^= ch
    return f"{c:02X}"


def parse_sentence(line: str) -> Sentence:
    """Validate framing and checksum; raises ValueError with what is wrong."""
    s = line.strip()
    if not _SENTENCE.match(s):
        raise ValueError(f"not an NMEA sentence: {s[:60]!r}")
    body, cks = s[1:-3], s[-2:]
    want = nmea_checksum(body)
    if want != cks.upper():
        raise ChecksumError(f"checksum {cks} does not match {want}: {s[:60]!r}")
    head, *fields = body.split(",")
    return Sentence(talker=head[:2], kind=head[2:], fields=fields, raw=s)


def _latlon(value: str, hemi: str, deg_digits: int) -> float:
    """'DDMM.mmm' / 'DDDMM.mmm' and N/S/E/W → signed degrees."""
    if not value:
        return math.nan
    deg = float(value[:deg_digits])
    minutes = float(value[deg_digits:])
    if not 0 <= minutes <= 60:  # 60.000: minutes that "%06.3f" rounded up (Bridge Command)
        raise ValueError(f"minutes {minutes} out of range in {value!r}")
    out = deg + minutes / 60.0
    if hemi in ("S", "W"):
        return -out
    if hemi not in ("N", "E"):
        raise ValueError(f"hemisphere {hemi!r} is not N/S/E/W")
    return out


def _tod(value: str) -> float:
    """'HHMMSS(.ss)' → seconds of the day."""
    if len(value) < 6:
        raise ValueError(f"time {value!r} is not HHMMSS")
    h, m, s = int(value[0:2]), int(value[2:4]), float(value[4:])
    if h > 23 or m > 59 or s >= 61:
        raise ValueError(f"time {value!r} out of range")
    return h * 3600 + m * 60 + s


def rmc_date(value: str) -> str | None:
    """RMC date: 8 digits = YYYYMMDD (Bridge Command), 6 digits = DDMMYY (standard) → 'YYYY-MM-DD'."""
    if not value:
        return None
    if len(value) == 8 and value.isdigit():
        y, m, d = value[0:4], value[4:6], value[6:8]
    elif len(value) == 6 and value.isdigit():
        d, m, yy = value[0:2], value[2:4], int(value[4:6])
        y = str(2000 + yy if yy < 80 else 1900 + yy)
    else:
        raise ValueError(f"date {value!r} is neither YYYYMMDD nor DDMMYY")
    if not (1 <= int(m) <= 12 and 1 <= int(d) <= 31):
        raise ValueError(f"date {value!r} out of range")
    return f"{y}-{m}-{d}"


def _f(v: str) -> float:
    return float(v) if v else math.nan


@dataclass
class _State:
    values: dict[str, float] = field(default_factory=dict)
    tod_s: float | None = None
    date: str | None = None
    invalid_why: str | None = None  # set when a fix is invalid for another reason than its status


#: what `_apply` says of a sentence: a valid position fix, a fix the receiver marked invalid, or neither
FIX, INVALID_FIX = "fix", "invalid"


def _apply(st: _State, s: Sentence) -> str | None:
    """Update the own-ship state; FIX when the sentence carried a valid position fix,
    INVALID_FIX when it carried one the receiver flagged invalid (RMC/GLL status V, GGA
    quality 0): those positions are not used."""
    f = s.fields
    k = s.kind
    if k == "RMC" and len(f) >= 9:
        st.tod_s = _tod(f[0]) if f[0] else st.tod_s
        st.date = rmc_date(f[8]) or st.date
        if f[1] != "A":
            return INVALID_FIX
        if len(f) >= 12 and f[11] == "N":
            st.invalid_why = "RMC mode N"
            return INVALID_FIX
        st.values.update(
            lat_deg=_latlon(f[2], f[3], 2), lon_deg=_latlon(f[4], f[5], 3), gs_kt=_f(f[6]), cog_deg=_f(f[7])
        )
        return FIX
    if k == "GGA" and len(f) >= 6:
        st.tod_s = _tod(f[0]) if f[0] else st.tod_s
        if f[5] in ("", "0"):
            return INVALID_FIX
        st.values.update(lat_deg=_latlon(f[1], f[2], 2), lon_deg=_latlon(f[3], f[4], 3))
        return FIX
    if k == "GLL" and len(f) >= 6:
        st.tod_s = _tod(f[4]) if f[4] else st.tod_s
        if f[5] != "A":
            return INVALID_FIX
        if len(f) >= 7 and f[6] == "N":
            st.invalid_why = "GLL mode N"
            return INVALID_FIX
        st.values.update(lat_deg=_latlon(f[0], f[1], 2), lon_deg=_latlon(f[2], f[3], 3))
        return FIX
    if k == "HDT" and f and f[0]:
        st.values["heading_true_deg"] = float(f[0])
    elif k == "ROT" and f and f[0] and (len(f) < 2 or f[1] != "V"):
        st.values["rate_of_turn_dpm"] = float(f[0])
    elif k == "DPT" and f and f[0]:
        st.values["depth_m"] = float(f[0])
    elif k == "RSA" and f and f[0] and (len(f) < 2 or f[1] != "V"):
        st.values["rudder_deg"] = float(f[0])
    elif k == "ZDA" and len(f) >= 4 and f[1] and f[2] and f[3]:
        st.date = f"{int(f[3]):04d}-{int(f[2]):02d}-{int(f[1]):02d}"
    return None


_INVALID_KIND = {"RMC": "RMC status V", "GLL": "GLL status V", "GGA": "GGA fix quality 0"}


def _position_problem(values: dict[str, float]) -> str | None:
    """Why a fix's position is not a place on Earth, or None."""
    lat, lon = values.get("lat_deg", math.nan), values.get("lon_deg", math.nan)
    if not (math.isfinite(lat) and math.isfinite(lon)):
        return "no position"
    if not -90.0 <= lat <= 90.0:
        return "latitude outside ±90°"
    if not -180.0 <= lon <= 180.0:
        return "longitude outside ±180°"
    return None


COLUMNS = ("lat_deg", "lon_deg", "gs_kt", "cog_deg", "heading_true_deg", "rate_of_turn_dpm", "depth_m", "rudder_deg")


def parse_capture(
    text: str, source: str = "<capture>", *, strict: bool = True
) -> tuple[dict[str, list[float]], dict[str, object]]:
    """Signal columns (one row per position fix, other values carried from their latest sentence)
    and facts (first date, sentence counts, what was dropped). Time: the receive stamp when lines
    carry one, else the sentence's UTC time of day (sentences without time inherit the last
    one), from 0. Fixes flagged invalid, positions off the globe, sentences with a wrong
    checksum and (without receive stamps) fixes whose UTC time steps back are dropped and
    counted (`nmea_invalid_fixes`, `nmea_out_of_range`, `nmea_bad_checksum`,
    `nmea_time_backwards`); `facts["flags"]` are the episode flags. A line that is not a
    sentence at all is an error (strict) or skipped and listed (lenient)."""
    st = _State()
    rows: dict[str, list[float]] = {"t": [], **{c: [] for c in COLUMNS}}
    counts: dict[str, int] = {}
    bad: list[str] = []
    t0: float | None = None
    last_tod, day_offset = None, 0.0
    invalid, off_globe, corrupt, backwards = DropCounter(), DropCounter(), DropCounter(), DropCounter()
    for no, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = _STAMP.match(line)
        stamp = float(m.group(1)) if m else None
        body = m.group(2) if m else line
        try:
            s = parse_sentence(body)
            if s.raw.startswith("!"):
                counts["AIS"] = counts.get("AIS", 0) + 1
                continue
            if s.talker.startswith("P"):
                counts["proprietary"] = counts.get("proprietary", 0) + 1
                continue
            counts[s.kind] = counts.get(s.kind, 0) + 1
            fix = _apply(st, s)
        except ChecksumError:
            corrupt.add(body[1:6] if body[1:2] != "P" else "proprietary")
            continue
        except ValueError as exc:
            if strict:
                raise NmeaError(f"{source}: line {no}: {exc}") from None
            bad.append(f"line {no}: {exc}")
            continue
        if fix == INVALID_FIX:
            invalid.add(st.invalid_why or _INVALID_KIND[s.kind])
            st.invalid_why = None
            continue
        if fix != FIX:
            continue
        problem = _position_problem(st.values)
        if problem:
            off_globe.add(problem)
            st.values.pop("lat_deg", None)
            st.values.pop("lon_deg", None)
            continue
        if stamp is not None:
            t = stamp
        elif st.tod_s is not None:
            if last_tod is not None and st.tod_s < last_tod - 43200:
                day_offset += 86400.0  # past midnight
            t = st.tod_s + day_offset
            if rows["t"] and t0 is not None and t - t0 < rows["t"][-1]:
                backwards.add(f"{s.kind} time")  # a receiver's clock glitch: keep the track monotonic
                continue
            last_tod = st.tod_s
        else:
            raise NmeaError(f"{source}: line {no}: position fix with no time (no receive stamp and no UTC time yet)")
        t0 = t if t0 is None else t0
        if rows["t"] and t - t0 < rows["t"][-1]:
            raise NmeaError(f"{source}: line {no}: time goes backwards ({rows['t'][-1] + t0:g} → {t:g})")
        rows["t"].append(t - t0)
        for c in COLUMNS:
            rows[c].append(st.values.get(c, math.nan))
    if not rows["t"]:
        dropped = flags_of(
            invalid.flag("invalid_fix", "fixes"),
            off_globe.flag("out_of_range", "fixes"),
            corrupt.flag("bad_checksum", "sentences"),
        )
        raise NmeaError(
            f"{source}: no position fix ($--RMC/GGA/GLL) in the capture"
            + (f" ({'; '.join(dropped)})" if dropped else "")
        )
    flags = flags_of(
        lenient_flag(len(bad)) if bad else None,
        invalid.flag("invalid_fix", "fixes"),
        off_globe.flag("out_of_range", "fixes"),
        corrupt.flag("bad_checksum", "sentences"),
        backwards.flag("time_backwards", "fixes"),
    )
    facts: dict[str, object] = {
        "nmea_date": st.date,
        "nmea_counts": counts,
        "nmea_rejected": bad,
        "nmea_invalid_fixes": dict(invalid.counts),
        "nmea_out_of_range": dict(off_globe.counts),
        "nmea_bad_checksum": dict(corrupt.counts),
        "nmea_time_backwards": dict(backwards.counts),
        "flags": flags,
    }
    return rows, facts


def import_nmea(
    path: str | Path, out: str | Path, *, task_id: str = "T17", strict: bool = True, force: bool = False
) -> Path:
    """Bundle from a capture of Bridge Command's NMEA output. Skipped lines (lenient mode),
    invalid fixes and off-globe positions are flagged in episode.json."""
    path = Path(path)
    check_out(out, force=force)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise NmeaError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if strict:  # NMEA 0183 is ASCII; only a '#' comment line may carry other bytes
        offset = 0
        for no, line in enumerate(raw.split(b"\n"), start=1):
            if not line.isascii() and not line.lstrip().startswith(b"#"):
                at = offset + next(i for i, c in enumerate(line) if c > 127)
                raise NmeaError(f"{path}: line {no} (byte offset {at}): not ASCII text")
            offset += len(line) + 1
    text = raw.decode("ascii", errors="replace")  # lenient: such lines are rejected and listed
    rows, facts = parse_capture(text, str(path), strict=strict)
    flags = list(facts.pop("flags"))  # type: ignore[call-overload]
    ep = EpisodeInfo(task_id=task_id, sim="bridgecommand", adapter="bridgecommand.nmea", flags=flags)
    return write_bundle(
        prepare_out(out, force=force), ep, rows, snapshots={"start": {"nmea_date": facts["nmea_date"]}, "end": facts}
    )
