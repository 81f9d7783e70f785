"""OpenBVE's black-box file `logs.bin`, read exactly as OpenBVE's writer writes it.

Writer: leezer3/OpenBVE @ bdf67e3b, `source/OpenBVE/System/Logging/BlackBox/BlackBox.cs`,
`Interface.SaveLogs` (lines 91-157), a .NET `BinaryWriter` with UTF-8 (little-endian; a string
is its 7-bit-encoded UTF-8 byte length, then the bytes):

    12 B  "openBVE_LOGS" (Identifier, :15)      i16 version = 1 (:112-114)
    str   route name, str train name (:115-116: the route file's and train folder's names,
          GameWindow.cs:642-643; "Unknown" when unset)
    i64   Game.LogDateTime.ToBinary() (:117) — `DateTime.Now` (GameWindow.cs:644), kind Local:
          bit 63 set and the low 62 bits are UTC ticks (dotnet DateTime.ToBinary), so the date
          read back is the run's start in UTC
    i16   game mode (:118; OpenBveApi GameMode.cs: 0 Arcade, 1 Normal, 2 Expert, 3 Developer)
    i32   n, then n × 38 B entries (:119-133; struct BlackBoxEntry, BlackBox.Entry.cs:7-16):
          f64 time (s since midnight), f64 track position (m) of the first car
          (`Cars[0].TrackPosition`, Game.cs:104), f32 speed (m/s), f32 acceleration (m/s²),
          i16 reverser driver/safety, i16 power driver/safety, i16 brake driver/safety
          (BlackBox.Brake.cs: 0 none, −1 emergency, −2 hold, −3 release, −4 lap, −5 service;
          n > 0 notch n), i16 0 (:132)
    i32   m, then m × 22 B score records (:135-142): f64 time, f64 position, i32 value,
          i16 token (Score.Tokens.cs)
    i32   maximum score (:144)                  8 B "_fileEND" (Footer, :18, :145)

The reader (`LoadLogs`, :21-85) accepts version 1 only and discards the file on any mismatch;
this reader is as strict and says where. Entries are added once a second of game time
(`Game.UpdateBlackBox`, Game.cs:90-95) while Options → black box is on; the file is rewritten
at most every 30 s of game time (:98-104) and once more at the end of the run
(GameWindow.cs:536), so a run killed before its end lacks up to 30 s, and one killed while the
file is rewritten (FileMode.Create, :108) leaves it truncated.
"""

from __future__ import annotations

import datetime as dt
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simbridge import EpisodeInfo, SimbridgeError, write_bundle
from simbridge.importing import RangeCheck, check_out, flags_of, prepare_out

IDENTIFIER = b"openBVE_LOGS"
FOOTER = b"_fileEND"
VERSION = 1

BLACKBOX_DTYPE = np.dtype(
    [
        ("time", "<f8"),
        ("position", "<f8"),
        ("speed", "<f4"),
        ("accel", "<f4"),
        ("rev_driver", "<i2"),
        ("rev_safety", "<i2"),
        ("power_driver", "<i2"),
        ("power_safety", "<i2"),
        ("brake_driver", "<i2"),
        ("brake_safety", "<i2"),
        ("reserved", "<i2"),
    ]
)
SCORE_DTYPE = np.dtype([("time", "<f8"), ("position", "<f8"), ("value", "<i4"), ("token", "<i2")])
assert BLACKBOX_DTYPE.itemsize == 38 and SCORE_DTYPE.itemsize == 22

#: Game.ScoreTextToken (Score.Tokens.cs)
SCORE_TOKENS = {
    0: "invalid",
    1: "overspeed",
    2: "passed_red_signal",
    3: "toppling",
    4: "derailed",
    5: "passenger_discomfort",
    6: "doors_opened",
    7: "arrived_at_station",
    8: "perfect_time_bonus",
    9: "late",
    10: "perfect_stop_bonus",
    11: "stop",
    12: "premature_departure",
    13: "total",
}
BRAKE_EMERGENCY = -1
#: physical limits of a black-box entry: beyond them a value is corrupt, not a train (the
#: longest real line is under 10 000 km; no rail vehicle reaches 1000 km/h or 100 m/s²)
LIMITS = {"track_position_m": (-1e7, 1e7), "speed_kmh": (-1000.0, 1000.0), "accel_ms2": (-100.0, 100.0)}


class LogsError(SimbridgeError):
    """A `logs.bin` that does not follow the layout: names the file and the byte offset."""


@dataclass
class BlackBoxLog:
    route: str
    train: str
    date: str | None
    game_mode: int
    entries: np.ndarray  # BLACKBOX_DTYPE
    scores: np.ndarray  # SCORE_DTYPE
    max_score: int


class _Reader:
    def __init__(self, data: bytes, source: str) -> None:
        self.data, self.pos, self.source = data, 0, source

    def fail(self, msg: str, at: int | None = None) -> LogsError:
        return LogsError(f"{self.source}: byte offset {self.pos if at is None else at}: {msg}")

    def take(self, n: int, what: str) -> bytes:
        if self.pos + n > len(self.data):
            raise self.fail(f"file ends inside {what} (needs {n} bytes, {len(self.data) - self.pos} left; truncated?)")
        b = self.data[self.pos : self.pos + n]
        self.pos += n
        return b

    def unpack(self, fmt: str, what: str) -> int | float:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt), what))[0]

    def string(self, what: str) -> str:
        start, n, shift = self.pos, 0, 0
        while True:  # 7-bit encoded length, at most 5 bytes
            b = self.take(1, f"the length of {what}")[0]
            n |= (b & 0x7F) << shift
            if not b & 0x80:
                break
            shift += 7
            if shift > 28:
                raise self.fail(f"bad string length prefix for {what}", start)
        raw = self.take(n, what)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise self.fail(f"{what} is not UTF-8", start + 1 + exc.start) from None

    def records(self, dtype: np.dtype, what: str) -> np.ndarray:
        at = self.pos
        n = int(self.unpack("<i", f"the {what} count"))
        if n < 0:
            raise self.fail(f"negative {what} count {n}", at)
        if n * dtype.itemsize > len(self.data) - self.pos:
            raise self.fail(
                f"{n} {what} records of {dtype.itemsize} B do not fit in the {len(self.data) - self.pos} bytes left (truncated?)",
                at,
            )
        arr = np.frombuffer(self.take(n * dtype.itemsize, f"{what}s"), dtype=dtype).copy()
        return arr


#: OpenBveApi/System/GameMode.cs
GAME_MODES = {0: "arcade", 1: "normal", 2: "expert", 3: "developer"}


def _date_from_binary(v: int) -> str | None:
    """DateTime.ToBinary: 2 kind bits over 62 bits of 100-ns ticks since 0001-01-01. Kind Utc
    (01) and Local (1x: the ticks are the UTC time) read as UTC, with a 'Z'; Unspecified (00)
    as it is."""
    u = v & 0xFFFF_FFFF_FFFF_FFFF
    kind = u >> 62
    ticks = u & 0x3FFF_FFFF_FFFF_FFFF
    try:
        when = (dt.datetime(1, 1, 1) + dt.timedelta(microseconds=ticks // 10)).isoformat(timespec="seconds")
    except OverflowError:
        return None
    return when + ("Z" if kind else "")


def parse_logs(data: bytes, source: str = "logs.bin") -> BlackBoxLog:
    r = _Reader(data, source)
    if r.take(len(IDENTIFIER), "the identifier") != IDENTIFIER:
        raise r.fail("not an OpenBVE black-box file (no 'openBVE_LOGS' identifier)", 0)
    at = r.pos
    version = r.unpack("<h", "the version")
    if version != VERSION:
        raise r.fail(f"unsupported black-box version {version} (expected {VERSION})", at)
    route = r.string("the route name")
    train = r.string("the train name")
    date = _date_from_binary(int(r.unpack("<q", "the date")))
    mode = int(r.unpack("<h", "the game mode"))
    entries = r.records(BLACKBOX_DTYPE, "black-box entry")
    scores = r.records(SCORE_DTYPE, "score record")
    max_score = int(r.unpack("<i", "the maximum score"))
    at = r.pos
    if r.take(len(FOOTER), "the '_fileEND' footer") != FOOTER:
        raise r.fail("no '_fileEND' footer where the file should end", at)
    if r.pos != len(data):
        raise r.fail(f"{len(data) - r.pos} unexpected bytes after the footer")
    if entries.size and not np.all(np.isfinite(entries["time"])):
        bad = int(np.flatnonzero(~np.isfinite(entries["time"]))[0])
        raise LogsError(f"{source}: black-box entry {bad}: time is not finite")
    return BlackBoxLog(route, train, date, mode, entries, scores, max_score)


def read_logs(path: str | Path) -> BlackBoxLog:
    from simbridge.importing import read_bounded
    from simbridge import BundleError

    path = Path(path)
    try:
        data = read_bounded(path, "an OpenBVE logs.bin", MAX_LOGS_BYTES)  # a /dev/zero is refused
    except BundleError as exc:
        raise LogsError(str(exc)) from None
    return parse_logs(data, str(path))


#: the largest logs.bin read (hours of black-box entries are a few MB)
MAX_LOGS_BYTES = 256 << 20


def import_logs(path: str | Path, out: str | Path, *, task_id: str = "T14", force: bool = False) -> Path:
    """Bundle from `logs.bin`: t = game clock − first entry; signals clock_s (s since midnight),
    track_position_m, speed_kmh, accel_ms2, reverser, power_notch, brake_notch,
    emergency_brake (driver's or safety system's handle in emergency); one `openbve_score`
    event per score record (data: token, token_id, value, position_m).

    Entries with a position, speed or acceleration outside `LIMITS` (or not finite) are bad
    samples: dropped, counted in snapshots and flagged `out_of_range: ...` in episode.json."""
    check_out(out, force=force)
    log = read_logs(path)
    e = log.entries
    if e.size == 0:
        raise LogsError(f"{path}: no black-box entries (Options → black box was off, or the run was under a second)")
    if np.any(np.diff(e["time"]) < 0):
        i = int(np.flatnonzero(np.diff(e["time"]) < 0)[0]) + 1
        raise LogsError(
            f"{path}: black-box entry {i}: time goes backwards ({e['time'][i - 1]:g} → {e['time'][i]:g}; run past midnight?)"
        )
    t0 = float(e["time"][0])
    with np.errstate(over="ignore", invalid="ignore"):
        cols = {
            "t": e["time"] - t0,
            "clock_s": e["time"].astype(float),
            "track_position_m": e["position"].astype(float),
            "speed_kmh": e["speed"].astype(float) * 3.6,
            "accel_ms2": e["accel"].astype(float),
            "reverser": e["rev_driver"].astype(float),
            "power_notch": e["power_driver"].astype(float),
            "brake_notch": e["brake_driver"].astype(float),
            "emergency_brake": ((e["brake_driver"] == BRAKE_EMERGENCY) | (e["brake_safety"] == BRAKE_EMERGENCY)).astype(
                float
            ),
        }
    check = RangeCheck(LIMITS)
    ok = check.keep(cols)
    if not ok.any():
        raise LogsError(f"{path}: all {e.size} black-box entries are out of range ({check.flag()})")
    cols = {k: v[ok] for k, v in cols.items()}
    events = [
        {
            "t": float(s["time"]) - t0,
            "kind": "openbve_score",
            "data": {
                "token": SCORE_TOKENS.get(int(s["token"]), f"token_{int(s['token'])}"),
                "token_id": int(s["token"]),
                "value": int(s["value"]),
                "position_m": float(s["position"]) if abs(float(s["position"])) <= 1e7 else None,
            },
        }
        for s in log.scores
        if np.isfinite(s["time"])
    ]
    ep = EpisodeInfo(task_id=task_id, sim="openbve", adapter="openbve.logs", flags=flags_of(check.flag()))
    snaps = {
        "start": {
            "openbve_route": log.route,
            "openbve_train": log.train,
            "openbve_date": log.date,
            "openbve_game_mode": log.game_mode,
            "openbve_game_mode_name": GAME_MODES.get(log.game_mode),
        },
        "end": {
            "openbve_max_score": log.max_score,
            "openbve_score_total": int(log.scores["value"].astype(np.int64).sum()),
            "openbve_entries": int(e.size),
            "openbve_bad_entries": check.n_bad,
            "openbve_bad_by_column": dict(check.dropped),
        },
    }
    return write_bundle(prepare_out(out, force=force), ep, cols, events=events, snapshots=snaps)
