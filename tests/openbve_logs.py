"""Hand-built OpenBVE `logs.bin` files, packed field by field with struct in the order
`Interface.SaveLogs` writes them (.NET BinaryWriter, little-endian), plus a simple trip
generator for the black-box entries (1 Hz, as OpenBVE records them)."""

from __future__ import annotations

import datetime as dt
import struct
from collections.abc import Sequence


def dotnet_string(s: str) -> bytes:
    """BinaryWriter.Write(string): 7-bit encoded byte length, then UTF-8."""
    raw = s.encode("utf-8")
    n, out = len(raw), bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            break
    return bytes(out) + raw


def to_binary(d: dt.datetime) -> int:
    """DateTime.ToBinary for DateTimeKind.Unspecified: the tick count (100 ns since 0001-01-01)."""
    delta = d - dt.datetime(1, 1, 1)
    return (delta.days * 86400 + delta.seconds) * 10_000_000 + delta.microseconds * 10


def entry(time_s, position_m, speed_ms, accel=0.0, rev=1, power=0, brake=0, brake_safety=0) -> bytes:
    # f64 time, f64 position, f32 speed, f32 accel, i16 reverser driver/safety, power driver/safety,
    # brake driver/safety, i16 0
    return struct.pack("<ddff", time_s, position_m, speed_ms, accel) + struct.pack(
        "<7h", rev, rev, power, power, brake, brake_safety, 0
    )


def score(time_s, position_m, value, token) -> bytes:
    return struct.pack("<ddi", time_s, position_m, value) + struct.pack("<h", token)


def logs_bin(
    entries: Sequence[bytes],
    scores: Sequence[bytes] = (),
    *,
    route="Commuter Line.csv",
    train="EMU 6-car",
    date=dt.datetime(2026, 11, 30, 8, 0, 0),
    mode=1,
    max_score=1000,
) -> bytes:
    return (
        b"openBVE_LOGS"
        + struct.pack("<h", 1)
        + dotnet_string(route)
        + dotnet_string(train)
        + struct.pack("<q", to_binary(date))
        + struct.pack("<h", mode)
        + struct.pack("<i", len(entries))
        + b"".join(entries)
        + struct.pack("<i", len(scores))
        + b"".join(scores)
        + struct.pack("<i", max_score)
        + b"_fileEND"
    )


def trip(
    start_clock_s: float,
    start_pos_m: float,
    legs: Sequence[tuple[float, float, float]],
    *,
    tail_s: int = 30,
    accel_s: float = 20.0,
) -> list[tuple[float, float, float, int]]:
    """Samples (clock, position, speed m/s, brake) at 1 Hz. Each leg = (departure clock, distance_m,
    run_s): stand until the departure clock (its last stationary sample), then run distance_m with
    a trapezoidal speed (accel_s up and down; a third of run_s each for short runs), at rest again
    exactly run_s later. The brake is in emergency for the first 10 s (OpenBVE's start state),
    in service (−5) while standing later."""
    out = []
    clock, pos = start_clock_s, start_pos_m
    for dep, dist, run in legs:
        while clock <= dep:
            out.append((clock, pos, 0.0, -1 if clock - start_clock_s < 10 else -5))
            clock += 1
        acc = min(accel_s, run / 3)
        vmax = dist / (run - acc)
        for k in range(1, int(run) + 1):
            tt = float(k)
            if tt <= acc:
                v, s = vmax * tt / acc, vmax * tt * tt / (2 * acc)
            elif tt <= run - acc:
                v, s = vmax, vmax * acc / 2 + vmax * (tt - acc)
            else:
                r = run - tt
                v, s = vmax * r / acc, dist - vmax * r * r / (2 * acc)
            out.append((dep + tt, pos + s, v, 0 if v > 0 else -5))
        clock, pos = dep + run + 1, pos + dist
    for _ in range(tail_s):
        out.append((clock, pos, 0.0, -5))
        clock += 1
    return out


def entries_of(samples) -> list[bytes]:
    return [entry(c, p, v, brake=b) for c, p, v, b in samples]


class DotNetBinaryWriter:
    """The System.IO.BinaryWriter overloads SaveLogs calls, little-endian, UTF-8 strings."""

    def __init__(self) -> None:
        self.out = bytearray()

    def write_bytes(self, b: bytes) -> None:  # Write(byte[])
        self.out += b

    def write_short(self, v: int) -> None:  # Write(short)
        self.out += struct.pack("<h", v)

    def write_int(self, v: int) -> None:  # Write(int)
        self.out += struct.pack("<i", v)

    def write_long(self, v: int) -> None:  # Write(long)
        self.out += struct.pack("<q", v)

    def write_double(self, v: float) -> None:  # Write(double)
        self.out += struct.pack("<d", v)

    def write_float(self, v: float) -> None:  # Write(float)
        self.out += struct.pack("<f", v)

    def write_string(self, s: str) -> None:  # Write(string)
        self.out += dotnet_string(s)


def to_binary_local(local: dt.datetime, utc_offset: dt.timedelta) -> int:
    """DateTime.Now.ToBinary() (kind Local): UTC ticks | LocalMask (bit 63), as a signed i64
    (dotnet/runtime DateTime.ToBinary)."""
    ticks = to_binary(local - utc_offset)
    return struct.unpack("<q", struct.pack("<Q", ticks | (1 << 63)))[0]


def save_logs(
    route: str | None,
    train: str | None,
    log_date_binary: int,
    game_mode: int,
    entries: Sequence[dict],
    scores: Sequence[tuple[float, float, int, int]],
    maximum: int,
) -> bytes:
    """leezer3/OpenBVE BlackBox.cs `Interface.SaveLogs`, lines 112-145, statement by statement.
    `entries`: dicts with BlackBoxEntry's fields (BlackBox.Entry.cs:7-16)."""
    w = DotNetBinaryWriter()
    w.write_bytes(b"openBVE_LOGS")  # :113 Identifier
    w.write_short(1)  # :114 const short Version = 1
    w.write_string("Unknown" if route is None else route)  # :115
    w.write_string("Unknown" if train is None else train)  # :116
    w.write_long(log_date_binary)  # :117 LogDateTime.ToBinary()
    w.write_short(game_mode)  # :118 (short)GameMode
    w.write_int(len(entries))  # :119
    for e in entries:  # :120-133
        w.write_double(e["Time"])
        w.write_double(e["Position"])
        w.write_float(e["Speed"])
        w.write_float(e["Acceleration"])
        w.write_short(e["ReverserDriver"])
        w.write_short(e["ReverserSafety"])
        w.write_short(e["PowerDriver"])
        w.write_short(e["PowerSafety"])
        w.write_short(e["BrakeDriver"])
        w.write_short(e["BrakeSafety"])
        w.write_short(0)  # :132 (short)0
    w.write_int(len(scores))  # :135
    for time_s, position_m, value, token in scores:  # :136-142
        w.write_double(time_s)
        w.write_double(position_m)
        w.write_int(value)
        w.write_short(token)
    w.write_int(maximum)  # :144 CurrentScore.Maximum
    w.write_bytes(b"_fileEND")  # :145 Footer
    return bytes(w.out)
