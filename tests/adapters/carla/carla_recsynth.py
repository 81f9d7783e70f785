"""Builds small CARLA recorder files byte by byte, following the recorder's Write() functions.

Used by the tests for what the real fixture does not contain (collisions, red lights, ids
21-23 of both orders, unknown packets). Each helper returns one packet (id + size + data).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence


def fstring(s: str) -> bytes:
    b = s.encode("utf-8")
    return struct.pack("<H", len(b)) + b


def header(map_name: str = "Town01", date: int = 1_700_000_000, version: int = 1) -> bytes:
    return struct.pack("<H", version) + fstring("CARLA_RECORDER") + struct.pack("<q", date) + fstring(map_name)


def packet(pid: int, data: bytes) -> bytes:
    return struct.pack("<BI", pid, len(data)) + data


def counted(pid: int, records: Sequence[bytes]) -> bytes:
    return packet(pid, struct.pack("<H", len(records)) + b"".join(records))


def frame_start(frame: int, duration: float, elapsed: float) -> bytes:
    return packet(0, struct.pack("<Qdd", frame, duration, elapsed))


def frame_end() -> bytes:
    return packet(1, b"")


def event_add(actors: Iterable[tuple[int, int, tuple[float, float, float], float, str, dict[str, str]]]) -> bytes:
    """(id, kind, location_cm, yaw_deg, type_id, attributes) records."""
    recs = []
    for aid, kind, loc, yaw, type_id, attrs in actors:
        rec = struct.pack("<IB6fI", aid, kind, *loc, 0.0, 0.0, yaw, 1) + fstring(type_id)
        rec += struct.pack("<H", len(attrs)) + b"".join(b"\x00" + fstring(k) + fstring(v) for k, v in attrs.items())
        recs.append(rec)
    return counted(2, recs)


def positions(recs: Iterable[tuple[int, float, float, float, float]]) -> bytes:
    """(id, x_cm, y_cm, z_cm, yaw_deg)."""
    return counted(6, [struct.pack("<I6f", i, x, y, z, 0.0, 0.0, yaw) for i, x, y, z, yaw in recs])


def tl_states(recs: Iterable[tuple[int, int]]) -> bytes:
    return counted(7, [struct.pack("<I?fB", i, False, 0.0, st) for i, st in recs])


def anim_vehicle(recs: Iterable[tuple[int, float, float, float]]) -> bytes:
    """(id, steer, throttle, brake)."""
    return counted(8, [struct.pack("<I3f?i", i, s, t, b, False, 1) for i, s, t, b in recs])


def collision(recs: Iterable[tuple[int, int, int]]) -> bytes:
    return counted(5, [struct.pack("<III??", cid, a, b, False, False) for cid, a, b in recs])


def event_del(ids: Iterable[int]) -> bytes:
    return counted(3, [struct.pack("<I", i) for i in ids])


def wheels(recs: Iterable[tuple[int, int]], pid: int = 21) -> bytes:
    """(id, n_wheels) with steer = wheel index, rotation = 10 * wheel index."""
    out = []
    for aid, n in recs:
        out.append(struct.pack("<II", aid, n) + b"".join(struct.pack("<Bff", w, float(w), 10.0 * w) for w in range(n)))
    return counted(pid, out)


def biker(recs: Iterable[tuple[int, float, float]], pid: int = 22) -> bytes:
    return counted(pid, [struct.pack("<Iff", *r) for r in recs])


def door(recs: Iterable[tuple[int, int, bool]], pid: int = 23) -> bytes:
    return counted(pid, [struct.pack("<IB?", *r) for r in recs])


def kinematics(recs: Iterable[tuple[int, float, float, float]]) -> bytes:
    return counted(12, [struct.pack("<I6f", i, vx, vy, vz, 0.0, 0.0, 0.0) for i, vx, vy, vz in recs])


def recording(frames: Sequence[Sequence[bytes]], *, dt: float = 0.05, map_name: str = "Town01") -> bytes:
    """A whole file: header, then each frame's packets between FrameStart and FrameEnd."""
    out = [header(map_name)]
    for i, pkts in enumerate(frames):
        duration = dt if i + 1 < len(frames) else -1.0
        out.append(frame_start(i + 1, duration, i * dt))
        out.extend(pkts)
        out.append(frame_end())
    return b"".join(out)
