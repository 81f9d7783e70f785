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
(`RANK`, docs/importers.md), disagreements flagged. A position sentence is read whole and
judged (valid, on the globe, in time order) before any of its values is used, so a dropped fix
leaves nothing behind. Times of day lie on one axis across midnight (`000000` is midnight);
the start date is the first date seen, moved back to the first row's day; degree digits are
checked, the minutes anchored at the decimal point. Bridge Command 5.10.1 prints the time and
date strings empty (`$GPRMC,.00,A,…,,,,A,S`: dangling `c_str()` pointers in
NMEA::updateNMEA, v5.10.1 src/NMEA.cpp:381-390, fixed by 049157fb for 5.10.3); such fixes are
placed at their receive stamps and flagged `empty_time`.

A capture file holds one sentence per line, optionally prefixed by the receive time in seconds
and a space (`12.345 $GPRMC,...`), which is what `NmeaUdpRecorder` writes; lines starting `#`
are comments (the header of gpsd's test logs).
"""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from simbridge import EpisodeInfo, SimbridgeError, write_bundle
from simbridge.importing import DropCounter, check_out, flags_of, lenient_flag, prepare_out

_SENTENCE = re.compile(r"^[$!](?:[A-Z0-9]{5}|P[A-Z0-9]{3,9}),[\x20-\x7e]*\*[0-9A-Fa-f]{2}$")
_STAMP = re.compile(r"^(-?\d+(?:\.\d*)?)\s+([$!].*)$")

#: what a strict error adds: that --lenient exists and what it would do with the line
LENIENT_HINT = "--lenient would skip this line and list it in the bundle (snapshot end.nmea_rejected)"


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


def _not_a_sentence(s: str) -> str:
    """Why a line is not a framed NMEA sentence, in words (the common real cases named)."""
    shown = repr(s[:60])
    if s[:1] not in ("$", "!"):
        return (
            f"not an NMEA sentence (does not start with '$' or '!'; a line cut at the start of the capture?): {shown}"
        )
    star = s.rfind("*")
    if star < 0:
        return f"not an NMEA sentence (no '*hh' checksum, as some proprietary $P… sentences are sent): {shown}"
    tail = s[star + 1 :]
    if re.match(r"^[0-9A-Fa-f]{2}.", tail):
        return (
            f"not an NMEA sentence (text {tail[2:][:20]!r} after the checksum, as some AIS receivers append): {shown}"
        )
    if re.fullmatch(r"[0-9A-Fa-f]", tail):
        return f"not an NMEA sentence (a one-digit checksum '*{tail}'; NMEA's has two hex digits): {shown}"
    return f"not an NMEA sentence: {shown}"


def parse_sentence(line: str) -> Sentence:
    """Validate framing and checksum; raises ValueError with what is wrong."""
    s = line.strip()
    if not _SENTENCE.match(s):
        raise ValueError(_not_a_sentence(s))
    body, cks = s[1:-3], s[-2:]
    want = nmea_checksum(body)
    if want != cks.upper():
        raise ChecksumError(f"checksum {cks} does not match {want}: {s[:60]!r}")
    head, *fields = body.split(",")
    return Sentence(talker=head[:2], kind=head[2:], fields=fields, raw=s)


#: degrees then two digits of whole minutes, then the decimals: the minutes are anchored at
#: the decimal point (as gpsd reads them: degrees = value // 100), so a receiver that drops a
#: leading zero of the degrees (`1142.5722,E`: 11°42.5722′) is read right
_DDMM = re.compile(r"(\d*)(\d\d(?:\.\d*)?)")


def _latlon(value: str, hemi: str, deg_digits: int, what: str) -> float:
    """'DDMM.mmm' / 'DDDMM.mmm' and N/S or E/W → signed degrees. More degree digits than the
    format has is an error (zero padding aside); fewer are read (the minutes are the two digits
    before the point).
    A minus sign that agrees with the hemisphere (`-0214.41467156,W`, software that printed a
    signed value and took the hemisphere from the same sign) is redundant: west, −2.24°; one
    that contradicts it (`-0214.4,E`) is an error, as which of the two is right is unknowable."""
    if not value:
        return math.nan
    neg = value[0] == "-"
    body = value[1:] if value[0] in "+-" else value
    m = _DDMM.fullmatch(body)
    pattern = "d" * deg_digits + "mm.mmm"
    if not m:
        raise ValueError(f"{what} {value!r} is not {pattern}")
    if len(m.group(1).lstrip("0")) > deg_digits:  # zero padding ('05012.79,N') is not a digit too many
        raise ValueError(f"{what} {value!r} has {len(m.group(1))} degree digits ({pattern} has {deg_digits})")
    hemis = ("N", "S") if deg_digits == 2 else ("E", "W")
    if hemi not in hemis:
        raise ValueError(f"{what} hemisphere {hemi!r} is not {hemis[0]} or {hemis[1]}")
    minutes = float(m.group(2))
    if minutes > 60:  # 60.000: minutes that "%06.3f" rounded up (Bridge Command)
        raise ValueError(f"{what} {value!r}: minutes {minutes:g} out of range")
    if neg and hemi == hemis[0]:
        raise ValueError(
            f"{what} {value!r} is negative but its hemisphere is {hemi}: the sign and the hemisphere disagree"
        )
    out = int(m.group(1) or 0) + minutes / 60.0
    return -out if hemi == hemis[1] else out


_EMPTY_TIME = re.compile(r"^(\.\d*)?$")
_TIME = re.compile(r"(\d\d)(\d\d)(\d\d(?:\.\d*)?)")


def empty_time(value: str) -> bool:
    """'' or '.00': a time field with no time in it (Bridge Command 5.10.x writes '.00').
    '000000' is midnight, a real time."""
    return bool(_EMPTY_TIME.match(value))


def _tod(value: str) -> float:
    """'HHMMSS(.ss)' → seconds of the day."""
    m = _TIME.fullmatch(value)
    if not m:
        raise ValueError(f"time {value!r} is not hhmmss(.ss)")
    h, mi, s = int(m.group(1)), int(m.group(2)), float(m.group(3))
    if h > 23 or mi > 59 or s >= 61:
        raise ValueError(f"time {value!r} out of range")
    return h * 3600 + mi * 60 + s


def _year(yy: int) -> int:
    """A two-digit year: 80-99 → 19yy, 00-79 → 20yy (NMEA's RMC convention; GPS began 1980)."""
    return 2000 + yy if yy < 80 else 1900 + yy


def _ymd(y: int, m: int, d: int, raw: str, what: str) -> str:
    try:
        return dt.date(y, m, d).isoformat()
    except ValueError:
        raise ValueError(f"{what} {raw!r} is not a calendar date") from None


def rmc_date(value: str) -> str | None:
    """RMC date: 8 digits = YYYYMMDD (Bridge Command), 6 digits = DDMMYY (standard) → 'YYYY-MM-DD'."""
    if not value:
        return None
    if len(value) == 8 and value.isdigit():
        return _ymd(int(value[0:4]), int(value[4:6]), int(value[6:8]), value, "date")
    if len(value) == 6 and value.isdigit():
        return _ymd(_year(int(value[4:6])), int(value[2:4]), int(value[0:2]), value, "date")
    raise ValueError(f"date {value!r} is neither YYYYMMDD nor DDMMYY")


def zda_date(day: str, month: str, year: str) -> str | None:
    """ZDA's day, month and year fields → 'YYYY-MM-DD'. A two-digit year (a Navico plotter's
    `$GPZDA,…,16,04,14,…`) is read as RMC's yy is (2014), never as the year 14."""
    if not (day and month and year):
        return None
    raw = f"{day},{month},{year}"
    if not (day.isdigit() and month.isdigit() and year.isdigit()) or len(year) not in (2, 4):
        raise ValueError(f"ZDA date {raw!r} is not dd,mm,yyyy")
    y = _year(int(year)) if len(year) == 2 else int(year)
    return _ymd(y, int(month), int(day), raw, "ZDA date")


def _num(s: Sentence, i: int, what: str) -> float:
    """Field i of the sentence as a number (NaN when empty), or a ValueError naming the field."""
    v = s.fields[i] if i < len(s.fields) else ""
    if not v:
        return math.nan
    try:
        x = float(v)
    except ValueError:
        x = math.nan
    else:
        if math.isfinite(x):
            return x
    raise ValueError(f"{s.kind} field {i + 1} ({what}) {v!r} is not a number")


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
    #: this epoch's writers: column -> (rank, sentence kind)
    src: dict[str, tuple[int, str]] = field(default_factory=dict)
    #: this epoch's disagreements: (column, kept kind, kept value, other kind, other value)
    conflicts: list[tuple[str, str, float, str, float]] = field(default_factory=list)

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


@dataclass(frozen=True)
class _Fix:
    """A position sentence read without touching the state: the reader decides whether to keep
    it (valid, on the globe, in time order) before any of its values is used."""

    kind: str
    time: str
    values: dict[str, float]
    date: str | None = None
    invalid: str | None = None  # why the receiver marks it invalid (RMC/GLL status V, mode N, GGA quality 0)


def fix_time(s: Sentence) -> str | None:
    """The time field of a position sentence (RMC, GGA, GLL), or None for other sentences."""
    f = s.fields
    if s.kind in ("RMC", "GGA") and len(f) >= 6:
        return f[0]
    if s.kind == "GLL" and len(f) >= 6:
        return f[4]
    return None


def _read_fix(s: Sentence) -> _Fix | None:
    """The position fix a sentence carries (None for other sentences); ValueError naming the
    field when one cannot be read."""
    f, k = s.fields, s.kind
    if k == "RMC" and len(f) >= 9:
        if f[1] != "A":
            return _Fix(k, f[0], {}, invalid="RMC status V")
        if len(f) >= 12 and f[11] == "N":
            return _Fix(k, f[0], {}, invalid="RMC mode N")
        if empty_time(f[0]):
            try:  # 5.10.x prints the date partly (the year alone, '2023') or not at all
                date = rmc_date(f[8])
            except ValueError:
                date = None
        else:
            date = rmc_date(f[8])
        values = {
            "lat_deg": _latlon(f[2], f[3], 2, "RMC latitude"),
            "lon_deg": _latlon(f[4], f[5], 3, "RMC longitude"),
            "gs_kt": _num(s, 6, "speed over ground"),
            "cog_deg": _num(s, 7, "course over ground"),
        }
        return _Fix(k, f[0], values, date=date)
    if k == "GGA" and len(f) >= 6:
        if f[5] in ("", "0"):
            return _Fix(k, f[0], {}, invalid="GGA fix quality 0")
        return _Fix(
            k,
            f[0],
            {"lat_deg": _latlon(f[1], f[2], 2, "GGA latitude"), "lon_deg": _latlon(f[3], f[4], 3, "GGA longitude")},
        )
    if k == "GLL" and len(f) >= 6:
        if f[5] != "A":
            return _Fix(k, f[4], {}, invalid="GLL status V")
        if len(f) >= 7 and f[6] == "N":
            return _Fix(k, f[4], {}, invalid="GLL mode N")
        return _Fix(
            k,
            f[4],
            {"lat_deg": _latlon(f[0], f[1], 2, "GLL latitude"), "lon_deg": _latlon(f[2], f[3], 3, "GLL longitude")},
        )
    return None


def _apply_other(st: _State, s: Sentence) -> tuple[str, str] | None:
    """A sentence without a position: its values join the state the next fix records. A ZDA
    returns its (time field, date)."""
    f, k = s.fields, s.kind
    valid = len(f) < 2 or f[1] != "V"
    if k == "HDT" and f and f[0]:
        st.put("HDT", heading_true_deg=_num(s, 0, "true heading"))
    elif k == "THS" and f and f[0] and valid:
        st.put("THS", heading_true_deg=_num(s, 0, "true heading"))
    elif k == "ROT" and f and f[0] and valid:
        st.put("ROT", rate_of_turn_dpm=_num(s, 0, "rate of turn"))
    elif k == "DPT" and f and f[0]:
        st.put("DPT", depth_m=_num(s, 0, "depth"))
    elif k == "RSA" and f and f[0] and valid:
        st.put("RSA", rudder_deg=_num(s, 0, "rudder angle"))
    elif k == "ZDA" and len(f) >= 4:
        date = zda_date(f[1], f[2], f[3])
        if date:
            return f[0], date
    return None


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


#: a fix this close before midnight arriving after one just past it is from the day before (a
#: late copy); a longer step forward is a gap in the capture (logging paused), same day
LATE_ACROSS_MIDNIGHT_S = 3600.0


class _Clock:
    """UTC times of day on one continuous axis. A step back of more than 12 h is the next day
    (midnight passed: 235959 → 000000); a step forward to within an hour before midnight from
    just after it is a fix of the day before (a late copy across midnight), any other step
    forward a gap in the same day; a clock that has read only times before noon
    and goes from 11:xx to 00:xx is a 12-hour instrument clock (counted in `wraps`, flagged)."""

    def __init__(self) -> None:
        self.last: float | None = None  # the latest time of day placed, and where it is
        self.day, self.wraps = 0, 0
        self.max_tod = -1.0
        self.n_wraps = 0

    def place(self, tod: float) -> tuple[int, int]:
        """(day, 12-hour wraps) the time of day falls in, without moving the clock."""
        if self.last is None:
            return 0, 0
        day, wraps = self.day, self.wraps
        if tod < self.last - 43200:
            day += 1
        elif tod > self.last + 43200 and self.last + 86400 - tod < LATE_ACROSS_MIDNIGHT_S:
            day -= 1
        elif self.max_tod < 43200 and self.last >= 39600 and tod < 3600:
            wraps += 1
        return day, wraps

    @staticmethod
    def at(tod: float, where: tuple[int, int]) -> float:
        return tod + where[0] * 86400.0 + where[1] * 43200.0

    def behind(self, tod: float, where: tuple[int, int]) -> bool:
        """Whether this time is before the latest placed."""
        return self.last is not None and self.at(tod, where) < self.at(self.last, (self.day, self.wraps))

    def commit(self, tod: float, where: tuple[int, int]) -> None:
        """Move the clock to this time when it is the latest placed."""
        if self.behind(tod, where):
            return
        self.n_wraps += where[1] > self.wraps
        self.last, (self.day, self.wraps) = tod, where
        self.max_tod = max(self.max_tod, tod)


COLUMNS = ("lat_deg", "lon_deg", "gs_kt", "cog_deg", "heading_true_deg", "rate_of_turn_dpm", "depth_m", "rudder_deg")


def parse_capture(
    text: str, source: str = "<capture>", *, strict: bool = True
) -> tuple[dict[str, list[float]], dict[str, object]]:
    """Signal columns (one row per epoch, other values carried from their latest sentence) and
    facts (the start date, sentence counts, what was dropped, conflicts, events). An epoch is
    one time: the receive stamp when lines carry one, else the sentence's UTC time of day (from
    0, continuous across midnight; sentences without time join the state the next fix records).
    Each position sentence is read whole and judged before any of its values is used: fixes
    flagged invalid, positions off the globe, sentences with a wrong checksum and (without
    receive stamps) fixes whose UTC time steps back are dropped and counted
    (`nmea_invalid_fixes`, `nmea_out_of_range`, `nmea_bad_checksum`, `nmea_time_backwards`;
    with receive stamps too, when the fix's own UTC time is before one already kept) and
    change nothing. A kept fix that shares the time of the row before it is merged into it by
    RANK (GGA > RMC > GLL for position, RMC for speed and course, HDT > THS for heading), so
    column 't' never repeats; values that disagree beyond CONFLICT_TOL are counted
    (`nmea_conflicts`, flag `nmea_conflict`) and listed as `nmea_conflict` events naming the
    value kept. Fixes with an empty time ('.00', Bridge Command 5.10.x) are placed at their
    receive stamp and counted (`nmea_empty_time`, flag `empty_time`); without receive stamps
    they cannot be placed (an error). `nmea_date` is the date at the first row (the first date
    a kept RMC or a ZDA carries, moved back by the midnights between them), `nmea_end_date`
    the last, `nmea_start_utc_s` the first row's UTC time of day (None when it had none). `facts["flags"]` are the episode flags. A line that cannot be read is an error
    (strict, naming the line and what --lenient would do) or skipped and listed (lenient)."""
    st = _State()
    clock = _Clock()
    rows: dict[str, list[float]] = {"t": [], **{c: [] for c in COLUMNS}}
    counts: dict[str, int] = {}
    bad: list[str] = []
    t0: float | None = None
    first_row_day = 0
    start_tod: float | None = None  # the UTC time of day of the first row
    first_date: tuple[str, int] | None = None
    last_date: str | None = None
    epoch: float | None = None  # the time (absolute) of the last row
    invalid, off_globe, corrupt, backwards = DropCounter(), DropCounter(), DropCounter(), DropCounter()
    conflicts, empty = DropCounter(), DropCounter()
    events: list[dict[str, object]] = []

    def note_date(date: str, day: int) -> None:
        nonlocal first_date, last_date
        if first_date is None:
            first_date = (date, day)
        last_date = date

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
            fix = _read_fix(s)
            if fix is None:
                zda = _apply_other(st, s)
                if zda is not None:
                    ztime, zdate = zda
                    note_date(zdate, clock.day if empty_time(ztime) else clock.place(_tod(ztime))[0])
                continue
            tod = None if fix.invalid or empty_time(fix.time) else _tod(fix.time)
        except ChecksumError:
            corrupt.add(body[1:6] if body[1:2] != "P" else "proprietary")
            continue
        except ValueError as exc:
            if strict:
                raise NmeaError(f"{source}: line {no}: {exc}; {LENIENT_HINT}") from None
            bad.append(f"line {no}: {exc}")
            continue
        if fix.invalid:
            invalid.add(fix.invalid)
            continue
        problem = _position_problem(fix.values)
        if problem:
            off_globe.add(problem)
            continue
        where = clock.place(tod) if tod is not None else None
        if stamp is not None:
            t = stamp
            if tod is not None and where is not None and clock.behind(tod, where):
                # received late: its own UTC time is before a fix already kept (a multiplexer's
                # buffered copy); at its receive stamp it would be a stale position
                backwards.add(f"{s.kind} time")
                continue
        elif tod is not None and where is not None:
            t = clock.at(tod, where)
            if epoch is not None and t < epoch:
                backwards.add(f"{s.kind} time")  # a receiver's clock glitch: keep the track monotonic
                continue
        else:
            raise NmeaError(
                f"{source}: line {no}: position fix with no time (no receive stamp and an empty time field, "
                "as Bridge Command 5.10.x writes: record it with receive stamps)"
            )
        if epoch is not None and t < epoch:
            raise NmeaError(f"{source}: line {no}: time goes backwards ({epoch:g} → {t:g})")
        # the fix is kept: only now does it touch the state
        if tod is not None and where is not None:
            clock.commit(tod, where)
        else:
            empty.add(s.kind)
        day = where[0] if where is not None else clock.day
        if fix.date:
            note_date(fix.date, day)
        if t0 is None:
            t0, first_row_day, start_tod = t, day, tod
        if epoch is None or t != epoch:
            st.new_epoch()
        st.put(s.kind, **fix.values)
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
            backwards.flag("time_backwards", "fixes"),
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
    wrap_flag = (
        f"twelve_hour_clock: the UTC time went from 11:xx to 00:xx {clock.n_wraps} time"
        f"{'s' if clock.n_wraps != 1 else ''} (a 12-hour instrument clock): read as continuing"
        if clock.n_wraps
        else None
    )
    start_date = None
    if first_date is not None:
        start_date = (
            dt.date.fromisoformat(first_date[0]) + dt.timedelta(days=first_row_day - first_date[1])
        ).isoformat()
    flags = flags_of(
        lenient_flag(len(bad)) if bad else None,
        invalid.flag("invalid_fix", "fixes"),
        off_globe.flag("out_of_range", "fixes"),
        corrupt.flag("bad_checksum", "sentences"),
        backwards.flag("time_backwards", "fixes"),
        empty_flag,
        wrap_flag,
        conflict_flag,
    )
    facts: dict[str, object] = {
        "nmea_date": start_date,
        "nmea_end_date": last_date,
        "nmea_start_utc_s": start_tod,
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
