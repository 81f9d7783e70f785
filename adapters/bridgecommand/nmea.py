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

Sentences sharing a time are one epoch and one row, merged by a documented precedence
(`RANK`, docs/importers.md), disagreements flagged. Bridge Command 5.10.1 prints the time and
date strings empty (`$GPRMC,.00,A,…,,,,A,S`: dangling `c_str()` pointers in
NMEA::updateNMEA, v5.10.1 src/NMEA.cpp:381-390, fixed by 049157fb for 5.10.3); such fixes are
placed at their receive stamps and flagged `empty_time`.

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


_EMPTY_TIME = re.compile(r"^\.?0*$")


def empty_time(value: str) -> bool:
    """'' or '.00': a time field with no time in it (Bridge Command 5.10.x writes '.00')."""
    return bool(_EMPTY_TIME.match(value))


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


#: precedence within one epoch (sentences sharing a time): lower rank wins; a column not
#: listed for a sentence has rank 0. Position: GGA (carries the fix quality) > RMC > GLL;
#: speed and course: RMC; heading: HDT > THS.
RANK: dict[tuple[str, str], int] = {
    ("lat_deg", "GGA"): 0,
    ("lon_deg", "GGA"): 0,
    ("lat_deg", "RMC"): 1,
    ("lon_deg", "RMC"): 1,
    ("lat_deg", "GLL"): 2,
    ("lon_deg", "GLL"): 2,
    ("heading_true_deg", "HDT"): 0,
    ("heading_true_deg", "THS"): 1,
}
#: how far two sentences of one epoch may differ before it counts as a conflict: print
#: precision differs by far less (0.0001' = 2e-6°), but receivers fill sentences of one epoch
#: from fixes a second apart (a B&G Zeus² yacht plotter: ~3 m at 5.6 kt), so 1e-4° (~11 m)
CONFLICT_TOL: dict[str, float] = {
    "lat_deg": 1e-4,
    "lon_deg": 1e-4,
    "gs_kt": 0.2,
    "cog_deg": 1.0,
    "heading_true_deg": 1.0,
    "rate_of_turn_dpm": 1.0,
    "depth_m": 0.1,
    "rudder_deg": 0.5,
}
_ANGLES = ("cog_deg", "heading_true_deg")


@dataclass
class _State:
    values: dict[str, float] = field(default_factory=dict)
    tod_s: float | None = None
    date: str | None = None
    invalid_why: str | None = None  # set when a fix is invalid for another reason than its status
    #: this epoch's writers: column -> (rank, sentence kind)
    src: dict[str, tuple[int, str]] = field(default_factory=dict)
    #: this epoch's disagreements: (column, kept kind, kept value, other kind, other value)
    conflicts: list[tuple[str, str, float, str, float]] = field(default_factory=list)
    empty_time: bool = False  # the last fix's time field was empty ('.00')

    def new_epoch(self) -> None:
        self.src.clear()

    def put(self, kind: str, **vals: float) -> None:
        """Set columns from sentence `kind`, by the epoch's precedence; disagreements are kept."""
        for col, v in vals.items():
            rank = RANK.get((col, kind), 0)
            prev = self.src.get(col)
            if prev is not None:
                old = self.values.get(col, math.nan)
                diff = abs(v - old)
                if col in _ANGLES:
                    diff = min(diff % 360.0, 360.0 - diff % 360.0)
                if math.isfinite(diff) and diff > CONFLICT_TOL.get(col, 0.0):
                    wins = rank <= prev[0]
                    kept, other = ((kind, v), (prev[1], old)) if wins else ((prev[1], old), (kind, v))
                    self.conflicts.append((col, kept[0], kept[1], other[0], other[1]))
                if rank > prev[0]:
                    continue
            self.src[col] = (rank, kind)
            self.values[col] = v


#: what `_apply` says of a sentence: a valid position fix, a fix the receiver marked invalid, or neither
FIX, INVALID_FIX = "fix", "invalid"


def _time_of(st: _State, value: str) -> None:
    if empty_time(value):
        st.empty_time = True
    else:
        st.tod_s = _tod(value)


def fix_time(s: Sentence) -> str | None:
    """The time field of a position sentence (RMC, GGA, GLL), or None for other sentences."""
    f = s.fields
    if s.kind in ("RMC", "GGA") and len(f) >= 6:
        return f[0]
    if s.kind == "GLL" and len(f) >= 6:
        return f[4]
    return None


def _apply(st: _State, s: Sentence) -> str | None:
    """Update the own-ship state; FIX when the sentence carried a valid position fix,
    INVALID_FIX when it carried one the receiver flagged invalid (RMC/GLL status V, GGA
    quality 0): those positions are not used."""
    f = s.fields
    k = s.kind
    if k in ("RMC", "GGA", "GLL"):
        st.empty_time = False
    if k == "RMC" and len(f) >= 9:
        _time_of(st, f[0])
        if st.empty_time:
            try:  # 5.10.x prints the date partly (the year alone, '2023') or not at all
                st.date = rmc_date(f[8]) or st.date
            except ValueError:
                pass
        else:
            st.date = rmc_date(f[8]) or st.date
        if f[1] != "A":
            return INVALID_FIX
        if len(f) >= 12 and f[11] == "N":
            st.invalid_why = "RMC mode N"
            return INVALID_FIX
        st.put("RMC", lat_deg=_latlon(f[2], f[3], 2), lon_deg=_latlon(f[4], f[5], 3), gs_kt=_f(f[6]), cog_deg=_f(f[7]))
        return FIX
    if k == "GGA" and len(f) >= 6:
        _time_of(st, f[0])
        if f[5] in ("", "0"):
            return INVALID_FIX
        st.put("GGA", lat_deg=_latlon(f[1], f[2], 2), lon_deg=_latlon(f[3], f[4], 3))
        return FIX
    if k == "GLL" and len(f) >= 6:
        _time_of(st, f[4])
        if f[5] != "A":
            return INVALID_FIX
        if len(f) >= 7 and f[6] == "N":
            st.invalid_why = "GLL mode N"
            return INVALID_FIX
        st.put("GLL", lat_deg=_latlon(f[0], f[1], 2), lon_deg=_latlon(f[2], f[3], 3))
        return FIX
    if k == "HDT" and f and f[0]:
        st.put("HDT", heading_true_deg=float(f[0]))
    elif k == "THS" and f and f[0] and (len(f) < 2 or f[1] != "V"):
        st.put("THS", heading_true_deg=float(f[0]))
    elif k == "ROT" and f and f[0] and (len(f) < 2 or f[1] != "V"):
        st.put("ROT", rate_of_turn_dpm=float(f[0]))
    elif k == "DPT" and f and f[0]:
        st.put("DPT", depth_m=float(f[0]))
    elif k == "RSA" and f and f[0] and (len(f) < 2 or f[1] != "V"):
        st.put("RSA", rudder_deg=float(f[0]))
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
    """Signal columns (one row per epoch, other values carried from their latest sentence) and
    facts (first date, sentence counts, what was dropped, conflicts, events). An epoch is one
    time: the receive stamp when lines carry one, else the sentence's UTC time of day (from 0;
    sentences without time join the state the next fix records). Position sentences that share
    the time of the row before them are merged into it by RANK (GGA > RMC > GLL for position,
    RMC for speed and course, HDT > THS for heading), so column 't' never repeats; values that
    disagree beyond CONFLICT_TOL are counted (`nmea_conflicts`, flag `nmea_conflict`) and
    listed as `nmea_conflict` events. Fixes flagged invalid, positions off the globe, sentences
    with a wrong checksum and (without receive stamps) fixes whose UTC time steps back are
    dropped and counted (`nmea_invalid_fixes`, `nmea_out_of_range`, `nmea_bad_checksum`,
    `nmea_time_backwards`). Fixes with an empty time ('.00', Bridge Command 5.10.x) are placed
    at their receive stamp and counted (`nmea_empty_time`, flag `empty_time`); without receive
    stamps they cannot be placed (an error). `facts["flags"]` are the episode flags. A line
    that is not a sentence at all is an error (strict) or skipped and listed (lenient)."""
    st = _State()
    rows: dict[str, list[float]] = {"t": [], **{c: [] for c in COLUMNS}}
    counts: dict[str, int] = {}
    bad: list[str] = []
    t0: float | None = None
    last_tod, day_offset = None, 0.0
    epoch: float | None = None  # the time (absolute) of the last row
    invalid, off_globe, corrupt, backwards = DropCounter(), DropCounter(), DropCounter(), DropCounter()
    conflicts, empty = DropCounter(), DropCounter()
    events: list[dict[str, object]] = []
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
            ftime = fix_time(s)
            if ftime is not None:
                # a position sentence opens a new epoch unless it has the last row's time
                key = stamp if stamp is not None else (None if empty_time(ftime) else _tod(ftime) + day_offset)
                if key is None or epoch is None or key != epoch:
                    st.new_epoch()
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
            st.src.pop("lat_deg", None)
            st.src.pop("lon_deg", None)
            continue
        if st.empty_time:
            empty.add(s.kind)
        if stamp is not None:
            t = stamp
        elif st.tod_s is not None and not st.empty_time:
            if last_tod is not None and st.tod_s < last_tod - 43200:
                day_offset += 86400.0  # past midnight
            t = st.tod_s + day_offset
            if epoch is not None and t < epoch:
                backwards.add(f"{s.kind} time")  # a receiver's clock glitch: keep the track monotonic
                continue
            last_tod = st.tod_s
        else:
            raise NmeaError(
                f"{source}: line {no}: position fix with no time (no receive stamp and "
                + (
                    "an empty time field, as Bridge Command 5.10.x writes: record it with receive stamps)"
                    if st.empty_time
                    else "no UTC time yet)"
                )
            )
        t0 = t if t0 is None else t0
        if epoch is not None and t < epoch:
            raise NmeaError(f"{source}: line {no}: time goes backwards ({epoch:g} → {t:g})")
        if epoch is not None and t == epoch:
            for c in COLUMNS:  # same epoch: the merged state replaces the row
                rows[c][-1] = st.values.get(c, math.nan)
        else:
            rows["t"].append(t - t0)
            for c in COLUMNS:
                rows[c].append(st.values.get(c, math.nan))
        epoch = t
        for col, kept_kind, kept, other_kind, other in st.conflicts:
            conflicts.add(f"{'/'.join(sorted((kept_kind, other_kind)))} {col}")
            if len(events) < 200:
                events.append(
                    {
                        "t": rows["t"][-1],
                        "kind": "nmea_conflict",
                        "data": {
                            "column": col,
                            "kept": kept_kind,
                            "kept_value": kept,
                            "other": other_kind,
                            "other_value": other,
                            "line": no,
                        },
                    }
                )
        st.conflicts.clear()
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
    conflict_flag = (
        f"nmea_conflict: {conflicts.total} value{'s' if conflicts.total != 1 else ''} disagree within an epoch "
        f"({', '.join(f'{k} {v}' for k, v in sorted(conflicts.counts.items()))}); the precedence's value kept"
        if conflicts.total
        else None
    )
    empty_flag = (
        f"empty_time: {empty.total} fix{'es' if empty.total != 1 else ''} with an empty time field "
        f"({', '.join(f'{k} {v}' for k, v in sorted(empty.counts.items()))}; Bridge Command 5.10.x), "
        "placed at their receive times"
        if empty.total
        else None
    )
    flags = flags_of(
        lenient_flag(len(bad)) if bad else None,
        invalid.flag("invalid_fix", "fixes"),
        off_globe.flag("out_of_range", "fixes"),
        corrupt.flag("bad_checksum", "sentences"),
        backwards.flag("time_backwards", "fixes"),
        empty_flag,
        conflict_flag,
    )
    facts: dict[str, object] = {
        "nmea_date": st.date,
        "nmea_counts": counts,
        "nmea_rejected": bad,
        "nmea_invalid_fixes": dict(invalid.counts),
        "nmea_out_of_range": dict(off_globe.counts),
        "nmea_bad_checksum": dict(corrupt.counts),
        "nmea_time_backwards": dict(backwards.counts),
        "nmea_empty_time": dict(empty.counts),
        "nmea_conflicts": dict(conflicts.counts),
        "flags": flags,
        "events": events,
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
    events = list(facts.pop("events"))  # type: ignore[call-overload]
    ep = EpisodeInfo(task_id=task_id, sim="bridgecommand", adapter="bridgecommand.nmea", flags=flags)
    return write_bundle(
        prepare_out(out, force=force),
        ep,
        rows,
        events=events,
        snapshots={"start": {"nmea_date": facts["nmea_date"]}, "end": facts},
    )
