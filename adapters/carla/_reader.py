"""Streaming reader of CARLA recorder files (`client.start_recorder`), pure Python + numpy.

Recordings can be gigabytes, so the file is read in blocks and never held whole. Two levels:

* `RecorderReader.packets()` yields every packet, decoded (all packet types of 0.9.13-0.9.16;
  unknown ids are skipped by their size and yielded raw) — for inspection and tools.
* `read_recording()` makes one pass and keeps what an importer needs: frames and times, the
  actor registry, per-actor tracks and controls for the actors it is asked to track,
  collisions, traffic-light state changes, trigger volumes and bounding boxes. Fixed-size
  records (positions above all) are gathered per block and decoded with numpy structured
  dtypes, not one `struct` call per record.

A truncated or corrupt file raises `RecorderFormatError` naming the byte offset; every loop
advances by at least one packet header, so no input can make it hang.
"""

from __future__ import annotations

import os
import struct
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from simbridge.adapters.carla._errors import RecorderFormatError
from simbridge.adapters.carla._format import (
    FRAME_START, MAGIC, RECORD_DTYPES, SCALAR_DTYPES, WHEEL, ActorKind, PacketId,
)

_U32 = struct.Struct("<I")
_U16 = struct.Struct("<H")
_HDR = struct.Struct("<BI")
_ADD_HEAD = struct.Struct("<IB6fI")  # id, type, location xyz (cm), rotation xyz (deg), description uid
_BLOCK_BYTES = 8 << 20
#: larger than any packet a recorder writes (a Position packet of 65,535 actors is 1.8 MB)
_MAX_PACKET_BYTES = 64 << 20
_TRACKED_TYPES = (PacketId.POSITION, PacketId.ANIM_VEHICLE, PacketId.ANIM_WALKER, PacketId.KINEMATICS,
                  PacketId.VEHICLE_LIGHT, PacketId.ANIM_BIKER, PacketId.VEHICLE_DOOR)


@dataclass(frozen=True)
class RecorderHeader:
    version: int
    magic: str
    date_unix: int
    map_name: str
    #: bytes taken by the header: packets start here
    size_bytes: int


@dataclass
class Actor:
    """One entry of the recorder's actor registry (an EventAdd record)."""

    id: int
    kind: ActorKind
    type_id: str
    uid: int
    attributes: dict[str, str]
    #: spawn transform: metres (recorder cm / 100) and degrees (roll, pitch, yaw)
    location_m: tuple[float, float, float]
    rotation_deg: tuple[float, float, float]
    created_frame: int
    created_t: float
    destroyed_t: float | None = None
    parent: int | None = None

    @property
    def role_name(self) -> str:
        return self.attributes.get("role_name", "")


@dataclass
class Track:
    """Per-frame samples of one actor. Positions in metres (CARLA world frame), angles in degrees."""

    id: int
    frame: np.ndarray
    t: np.ndarray
    x_m: np.ndarray
    y_m: np.ndarray
    z_m: np.ndarray
    roll_deg: np.ndarray
    pitch_deg: np.ndarray
    yaw_deg: np.ndarray


@dataclass
class Collision:
    t: float
    frame: int
    collision_id: int
    actor1: int
    actor2: int
    hero1: bool
    hero2: bool


@dataclass
class Recording:
    """What one pass over a recorder file yields. Times `t` are the recorder's elapsed seconds."""

    path: Path
    header: RecorderHeader
    #: structured array: frame (recorder frame number), elapsed_s, duration_s (-1 on the last frame)
    frames: np.ndarray
    actors: dict[int, Actor]
    tracks: dict[int, Track]
    #: per tracked vehicle: structured array of AnimVehicle records + `t` and `frame`
    controls: dict[int, np.ndarray]
    #: per tracked actor: other fixed-size per-frame records (walker speed, kinematics, lights...)
    extra: dict[str, dict[int, np.ndarray]]
    collisions: list[Collision]
    #: per traffic light: its state changes (t, frame, state, frozen, elapsed_s)
    traffic_lights: dict[int, np.ndarray]
    #: last recorded trigger volume / bounding box per actor: (origin_m xyz, extent_m xyz)
    trigger_volumes: dict[int, tuple[tuple[float, float, float], tuple[float, float, float]]]
    bounding_boxes: dict[int, tuple[tuple[float, float, float], tuple[float, float, float]]]
    packet_counts: Counter
    unknown_packets: Counter
    #: packet-id order found for ids 21-23: "0.9.16" (wheels, biker, door) or "ue4-dev-2023" (door first)
    id_layout: str | None = None

    @property
    def n_frames(self) -> int:
        return int(self.frames.size)

    @property
    def duration_s(self) -> float:
        """Elapsed time of the last frame (the recorder's own `Duration`)."""
        return float(self.frames["elapsed_s"][-1]) if self.frames.size else 0.0

    def heroes(self) -> list[Actor]:
        return [a for a in self.actors.values() if a.role_name == "hero"]


# --------------------------------------------------------------------------- header


def read_header(fh: Any, path: str) -> RecorderHeader:
    """Read and check the file header at the current position (the start of the file)."""
    def need(n: int, what: str, off: int) -> bytes:
        data = fh.read(n)
        if len(data) != n:
            raise RecorderFormatError(path, off, f"file ends inside the header ({what})")
        return data

    off = 0
    version = _U16.unpack(need(2, "version", off))[0]
    off += 2
    strings = []
    for what in ("magic",):
        n = _U16.unpack(need(2, what, off))[0]
        off += 2
        raw = need(n, what, off)
        strings.append(raw)
        off += n
    if strings[0] != MAGIC.encode():
        raise RecorderFormatError(path, 2, f"not a CARLA recorder file (magic {strings[0][:20]!r}, expected {MAGIC!r})")
    date = struct.unpack("<q", need(8, "date", off))[0]
    off += 8
    n = _U16.unpack(need(2, "map name", off))[0]
    off += 2
    raw_map = need(n, "map name", off)
    off += n
    try:
        map_name = raw_map.decode("utf-8")
    except UnicodeDecodeError:
        raise RecorderFormatError(path, off - n, "map name is not UTF-8") from None
    if version != 1:
        raise RecorderFormatError(path, 0, f"recorder file version {version} (this reader knows version 1)")
    return RecorderHeader(version, MAGIC, date, map_name, off)


# --------------------------------------------------------------------------- block scanner


def _blocks(path: str, block_bytes: int, allow_truncated: bool) -> Iterator[tuple[RecorderHeader | None, bytes, int, list[int]]]:
    """Yield (header, block, block_file_offset, packets): the start of each packet fully inside block.

    The first item carries the header. Packets never straddle blocks: a partial packet at the
    end of a block is carried into the next read.
    """
    with open(path, "rb") as fh:
        file_size = os.fstat(fh.fileno()).st_size
        header = read_header(fh, path)
        base = header.size_bytes
        rest = b""
        first = True
        eof = False
        want = block_bytes
        pending: RecorderFormatError | None = None
        while True:
            chunk = fh.read(want) if not eof else b""
            if len(chunk) < want:
                eof = True
            buf = rest + chunk if rest else chunk
            n = len(buf)
            pos = 0
            packets: list[int] = []
            append = packets.append
            size_at = _U32.unpack_from
            want = block_bytes
            while pos + 5 <= n:
                end = pos + 5 + size_at(buf, pos + 1)[0]
                if end > n:
                    pid, size = _HDR.unpack_from(buf, pos)
                    if size > _MAX_PACKET_BYTES and base + end <= file_size:
                        # a size that fits the file but no real packet: do not read that much
                        pending = RecorderFormatError(
                            path, base + pos, f"corrupt: packet id {pid} declares {size} bytes of data, more than "
                                              f"any recorder packet ({_MAX_PACKET_BYTES} bytes)")
                        break
                    if base + end > file_size:
                        if allow_truncated:
                            eof = True
                            n = pos  # drop the partial packet
                            break
                        # hand over the packets before this one first: an earlier corrupt
                        # packet is the better error to report
                        pending = RecorderFormatError(
                            path, base + pos,
                            f"truncated or corrupt: packet id {pid} declares {size} bytes of data, the file has "
                            f"{max(file_size - base - pos - 5, 0)} left")
                        break
                    want = max(block_bytes, end - n)
                    break
                append(pos)
                pos = end
            yield (header if first else None), buf, base, packets
            first = False
            if pending is not None:
                raise pending
            if eof:
                tail = n - pos
                if tail > 0 and not allow_truncated:
                    raise RecorderFormatError(path, base + pos, f"truncated: {tail} byte(s) after the last packet, "
                                                                "too short for a packet header")
                return
            rest = buf[pos:]
            base += pos


# --------------------------------------------------------------------------- variable-size records


class _Cursor:
    __slots__ = ("buf", "pos", "end", "path", "base")

    def __init__(self, buf: bytes, pos: int, end: int, path: str, base: int) -> None:
        self.buf, self.pos, self.end, self.path, self.base = buf, pos, end, path, base

    def take(self, n: int, what: str) -> int:
        p = self.pos
        if p + n > self.end:
            raise RecorderFormatError(self.path, self.base + p, f"{what} runs past the end of its packet")
        self.pos = p + n
        return p

    def u16(self, what: str) -> int:
        return _U16.unpack_from(self.buf, self.take(2, what))[0]

    def u32(self, what: str) -> int:
        return _U32.unpack_from(self.buf, self.take(4, what))[0]

    def fstring(self, what: str) -> str:
        n = self.u16(what)
        p = self.take(n, what)
        try:
            return bytes(self.buf[p:p + n]).decode("utf-8")
        except UnicodeDecodeError:
            raise RecorderFormatError(self.path, self.base + p, f"{what} is not UTF-8") from None

    def done(self, what: str) -> None:
        if self.pos != self.end:
            raise RecorderFormatError(self.path, self.base + self.pos,
                                      f"{what}: {self.end - self.pos} unexpected byte(s) at the end of the packet")


def _event_add(c: _Cursor) -> list[dict[str, Any]]:
    # written flat (no call per field): a first frame can create thousands of actors
    buf, p, end = c.buf, c.pos, c.end
    head = _ADD_HEAD.unpack_from
    head_size = _ADD_HEAD.size

    def fail(at: int, what: str) -> RecorderFormatError:
        return RecorderFormatError(c.path, c.base + at, f"EventAdd {what} runs past the end of its packet")

    if p + 2 > end:
        raise fail(p, "count")
    count = buf[p] | buf[p + 1] << 8
    p += 2
    out = []
    try:
        for _ in range(count):
            if p + head_size + 2 > end:
                raise fail(p, "record")
            aid, kind, lx, ly, lz, rx, ry, rz, uid = head(buf, p)
            p += head_size
            q = p + 2 + (buf[p] | buf[p + 1] << 8)
            if q + 2 > end:
                raise fail(p, "type id")
            type_id = buf[p + 2:q].decode("utf-8")
            n_attr = buf[q] | buf[q + 1] << 8
            p = q + 2
            attrs: dict[str, str] = {}
            for _ in range(n_attr):
                if p + 3 > end:
                    raise fail(p, "attribute key")
                q = p + 3 + (buf[p + 1] | buf[p + 2] << 8)
                if q + 2 > end:
                    raise fail(p, "attribute key")
                key = buf[p + 3:q].decode("utf-8")
                p = q + 2 + (buf[q] | buf[q + 1] << 8)
                if p > end:
                    raise fail(q, "attribute value")
                attrs[key] = buf[q + 2:p].decode("utf-8")
            out.append({"id": aid, "kind": kind, "location_cm": (lx, ly, lz), "rotation_deg": (rx, ry, rz),
                        "uid": uid, "type_id": type_id, "attributes": attrs})
    except UnicodeDecodeError:
        raise RecorderFormatError(c.path, c.base + p, "EventAdd: a string is not UTF-8") from None
    c.pos = p
    c.done("EventAdd")
    return out


def _walker_bones(c: _Cursor) -> list[dict[str, Any]]:
    out = []
    for _ in range(c.u16("WalkerBones count")):
        aid = c.u32("WalkerBones actor id")
        bones = []
        for _ in range(c.u16("WalkerBones bone count")):
            name = c.fstring("bone name")
            p = c.take(24, "bone transform")
            bones.append((name, struct.unpack_from("<6f", c.buf, p)))
        out.append({"id": aid, "bones": bones})
    c.done("WalkerBones")
    return out


def _wheels(c: _Cursor) -> list[dict[str, Any]]:
    out = []
    for _ in range(c.u16("AnimVehicleWheels count")):
        aid = c.u32("AnimVehicleWheels actor id")
        n = c.u32("AnimVehicleWheels wheel count")
        if n > 64:
            raise RecorderFormatError(c.path, c.base + c.pos - 4, f"AnimVehicleWheels: {n} wheels")
        p = c.take(n * WHEEL.itemsize, "AnimVehicleWheels wheels")
        out.append({"id": aid, "wheels": np.frombuffer(c.buf, WHEEL, n, p).copy()})
    c.done("AnimVehicleWheels")
    return out


def _physics_control(c: _Cursor) -> list[dict[str, Any]]:
    # The record is a dump of carla::rpc::VehiclePhysicsControl whose members changed between
    # versions; only the count and the first record's actor id are layout-independent.
    count = c.u16("PhysicsControl count")
    first = c.u32("PhysicsControl actor id") if count else None
    raw = bytes(c.buf[c.pos:c.end])
    c.pos = c.end
    return [{"count": count, "first_id": first, "raw": raw}]


def _fixed(c: _Cursor, pid: int) -> np.ndarray:
    dt = RECORD_DTYPES[pid]
    count = c.u16(f"{PacketId(pid).name} count")
    if c.end - c.pos != count * dt.itemsize:
        raise RecorderFormatError(c.path, c.base + c.pos - 7,
                                  f"{PacketId(pid).name}: size {c.end - c.pos + 2} does not match "
                                  f"{count} record(s) of {dt.itemsize} bytes")
    arr = np.frombuffer(c.buf, dt, count, c.pos).copy()
    c.pos = c.end
    return arr


def _fits_fixed(buf: bytes, pos: int, size: int, itemsize: int) -> bool:
    return size >= 2 and size == 2 + _U16.unpack_from(buf, pos)[0] * itemsize


def _late_id(buf: bytes, pos: int, size: int, pid: int, layout: str | None) -> tuple[int, str | None]:
    """Resolve ids 21-23 (see _format): returns the packet meaning and the layout it implies."""
    std = {21: PacketId.ANIM_VEHICLE_WHEELS, 22: PacketId.ANIM_BIKER, 23: PacketId.VEHICLE_DOOR}
    alt = {21: PacketId.VEHICLE_DOOR, 22: PacketId.ANIM_VEHICLE_WHEELS, 23: PacketId.ANIM_BIKER}
    if layout == "ue4-dev-2023":
        return alt[pid], layout
    if layout == "0.9.16":
        return std[pid], layout
    door = RECORD_DTYPES[PacketId.VEHICLE_DOOR].itemsize
    biker = RECORD_DTYPES[PacketId.ANIM_BIKER].itemsize
    if pid == 21:
        if _wheels_ok(buf, pos, size):
            return std[pid], ("0.9.16" if size > 2 else None)
        if _fits_fixed(buf, pos, size, door):
            return alt[pid], "ue4-dev-2023"
    elif pid == 22:
        if _fits_fixed(buf, pos, size, biker):
            return std[pid], ("0.9.16" if size > 2 else None)
        if _wheels_ok(buf, pos, size):
            return alt[pid], "ue4-dev-2023"
    elif pid == 23:
        if _fits_fixed(buf, pos, size, door):
            return std[pid], ("0.9.16" if size > 2 else None)
        if _fits_fixed(buf, pos, size, biker):
            return alt[pid], "ue4-dev-2023"
    return std[pid], layout


def _wheels_ok(buf: bytes, pos: int, size: int) -> bool:
    if size < 2:
        return False
    end = pos + size
    count = _U16.unpack_from(buf, pos)[0]
    p = pos + 2
    for _ in range(count):
        if p + 8 > end:
            return False
        n = _U32.unpack_from(buf, p + 4)[0]
        p += 8 + n * WHEEL.itemsize
        if p > end:
            return False
    return p == end


# --------------------------------------------------------------------------- packet-level API


@dataclass
class Packet:
    offset: int
    id: int
    #: PacketId name, or "UNKNOWN_<id>"
    name: str
    #: index of the frame (0-based, in file order) the packet belongs to; -1 before the first frame
    frame_index: int
    data: Any


class RecorderReader:
    """A recorder file opened for streaming. `packets()` decodes every packet type."""

    def __init__(self, path: str | os.PathLike[str], *, block_bytes: int = _BLOCK_BYTES) -> None:
        self.path = Path(path)
        self.block_bytes = block_bytes
        try:
            with open(self.path, "rb") as fh:
                self.header = read_header(fh, str(self.path))
        except OSError as exc:
            raise RecorderFormatError(str(self.path), 0, f"cannot read: {exc.strerror}") from None

    def packets(self, *, allow_truncated: bool = False) -> Iterator[Packet]:
        path = str(self.path)
        frame_index = -1
        layout: str | None = None
        for _hdr, buf, base, packets in _blocks(path, self.block_bytes, allow_truncated):
            for pos in packets:
                pid, size = _HDR.unpack_from(buf, pos)
                start = pos + 5
                c = _Cursor(buf, start, start + size, path, base)
                meaning = pid
                if pid in (21, 22, 23):
                    meaning, layout = _late_id(buf, start, size, pid, layout)
                data: Any
                if meaning == PacketId.FRAME_START:
                    if size != FRAME_START.itemsize:
                        raise RecorderFormatError(path, base + pos, f"FrameStart has {size} bytes, expected 24")
                    data = np.frombuffer(buf, FRAME_START, 1, start)[0]
                    frame_index += 1
                elif meaning == PacketId.FRAME_END:
                    if size:
                        raise RecorderFormatError(path, base + pos, f"FrameEnd has {size} bytes, expected 0")
                    data = None
                elif meaning == PacketId.EVENT_ADD:
                    data = _event_add(c)
                elif meaning in RECORD_DTYPES:
                    data = _fixed(c, meaning)
                elif meaning in SCALAR_DTYPES:
                    dt = SCALAR_DTYPES[meaning]
                    if size != dt.itemsize:
                        raise RecorderFormatError(path, base + pos, f"{PacketId(meaning).name} has {size} bytes, expected {dt.itemsize}")
                    data = np.frombuffer(buf, dt, 1, start)[0].item()
                elif meaning == PacketId.WALKER_BONES:
                    data = _walker_bones(c)
                elif meaning == PacketId.ANIM_VEHICLE_WHEELS:
                    data = _wheels(c)
                elif meaning == PacketId.PHYSICS_CONTROL:
                    data = _physics_control(c)
                else:
                    data = bytes(buf[start:start + size])
                name = PacketId(meaning).name if meaning in PacketId._value2member_map_ else f"UNKNOWN_{pid}"
                yield Packet(base + pos, pid, name, frame_index, data)


# --------------------------------------------------------------------------- one-pass reader


TrackSelector = Callable[[Actor], bool]


def _default_track(actor: Actor) -> bool:
    return actor.kind in (ActorKind.VEHICLE, ActorKind.WALKER)


def read_recording(
    path: str | os.PathLike[str],
    *,
    track: TrackSelector | None = None,
    allow_truncated: bool = False,
    block_bytes: int = _BLOCK_BYTES,
) -> Recording:
    """Read a recorder file in one streaming pass.

    `track(actor)` decides, when an actor is created, whether its per-frame records are kept
    (default: vehicles and walkers). Everything else is kept for all actors.

    Per block, only the packet headers are walked in Python; dispatch, size checks and record
    decoding are numpy operations over all packets of the block. Packets that carry strings
    or nested lists (actor creation, bones, wheels, physics) and non-empty event packets are
    decoded one by one; they are rare.
    """
    path = Path(path)
    spath = str(path)
    if not path.is_file():
        raise RecorderFormatError(spath, 0, "no such file")

    header: RecorderHeader | None = None
    actors: dict[int, Actor] = {}
    tracked: set[int] = set()
    tracked_arr = np.zeros(0, np.uint32)
    select = track or _default_track
    frames_parts: list[np.ndarray] = []
    collisions: list[Collision] = []
    per_type: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {int(pid): [] for pid in _TRACKED_TYPES}
    tl_parts: list[np.ndarray] = []
    tl_last: dict[int, tuple[int, int]] = {}
    trigger: dict[int, Any] = {}
    boxes: dict[int, Any] = {}
    counts = np.zeros(256, np.int64)
    unknown: Counter = Counter()
    layout: str | None = None
    n_frames = 0
    elapsed_parts: list[np.ndarray] = []
    elapsed_all = np.zeros(0)

    for hdr, buf, base, packets in _blocks(spath, block_bytes, allow_truncated):
        if hdr is not None:
            header = hdr
        if len(packets) == 0:
            continue
        u8 = np.frombuffer(buf, np.uint8)
        # unaligned little-endian views with a one-byte stride: the value starting at any offset
        u16_at = np.ndarray((len(buf) - 1,), "<u2", buffer=buf, strides=(1,))
        u32_at = np.ndarray((max(len(buf) - 3, 0),), "<u4", buffer=buf, strides=(1,))
        pos = np.asarray(packets, dtype=np.int64)
        pid = u8[pos].astype(np.int64)
        size = u32_at[pos + 1].astype(np.int64)
        counts += np.bincount(pid, minlength=256)
        meaning = pid.copy()
        late = np.flatnonzero((pid >= 21) & (pid <= 23))
        for k in late.tolist():
            m, layout = _late_id(buf, int(packets[k]) + 5, int(size[k]), int(pid[k]), layout)
            meaning[k] = int(m)
        is_start = meaning == 0
        fidx = n_frames - 1 + np.cumsum(is_start)
        # structural checks, all packets at once; the first failure is reported by its offset
        bad = (is_start & (size != 24)) | ((meaning == 1) & (size != 0)) | (~is_start & (fidx < 0))
        for sid, dt in SCALAR_DTYPES.items():
            bad |= (meaning == sid) & (size != dt.itemsize)
        rec_size = _ITEMSIZE[np.minimum(meaning, 255)]
        fixed = rec_size > 0
        count = np.where(size >= 2, u16_at[np.minimum(pos + 5, len(buf) - 2)].astype(np.int64), -1)
        bad |= fixed & ((size < 2) | (size != 2 + count * rec_size))
        bad |= _COUNTED[np.minimum(meaning, 255)] & (size < 2)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            _raise_structural(spath, buf, base, int(packets[k]), int(meaning[k]), int(size[k]), int(fidx[k]))

        starts = pos[is_start]
        if starts.size:
            fr = _take_records(u8, starts + 5, np.ones(starts.size, np.int64), FRAME_START)
            frames_parts.append(fr.copy())
            elapsed_parts.append(fr["elapsed_s"].astype(np.float64))
            elapsed_all = np.concatenate([elapsed_all, elapsed_parts[-1]])
            n_frames += starts.size

        # packets decoded one by one: actor creation, non-empty events, nested layouts, unknown ids
        slow = ((meaning == 2) | ((meaning >= 3) & (meaning <= 5)) | (meaning == PacketId.WALKER_BONES)
                | (meaning == PacketId.ANIM_VEHICLE_WHEELS) | (meaning == PacketId.PHYSICS_CONTROL)
                | (meaning > 23)) & (size > 2)
        slow |= (meaning > 23) & (size <= 2)
        for k in np.flatnonzero(slow).tolist():
            p, m, sz, fi = int(packets[k]), int(meaning[k]), int(size[k]), int(fidx[k])
            c = _Cursor(buf, p + 5, p + 5 + sz, spath, base)
            t = float(elapsed_all[fi])
            if m == PacketId.EVENT_ADD:
                for rec in _event_add(c):
                    lx, ly, lz = rec["location_cm"]
                    if rec["kind"] >= len(_KINDS):
                        raise RecorderFormatError(spath, base + p, f"EventAdd: actor type {rec['kind']} is not 0-6")
                    kind = _KINDS[rec["kind"]]
                    a = Actor(rec["id"], kind, rec["type_id"], rec["uid"], rec["attributes"],
                              (lx / 100.0, ly / 100.0, lz / 100.0), rec["rotation_deg"], fi, t)
                    actors[a.id] = a
                    if select(a):
                        tracked.add(a.id)
                        tracked_arr = np.fromiter(sorted(tracked), np.uint32)
            elif m == PacketId.EVENT_DEL:
                for r in _fixed(c, m):
                    a = actors.get(int(r["id"]))
                    if a is not None:
                        a.destroyed_t = t
            elif m == PacketId.EVENT_PARENT:
                for r in _fixed(c, m):
                    a = actors.get(int(r["id"]))
                    if a is not None:
                        a.parent = int(r["parent"])
            elif m == PacketId.COLLISION:
                collisions.extend(Collision(t, fi, int(r["collision_id"]), int(r["actor1"]), int(r["actor2"]),
                                            bool(r["hero1"]), bool(r["hero2"])) for r in _fixed(c, m))
            elif m == PacketId.WALKER_BONES:
                _walker_bones(c)
            elif m == PacketId.ANIM_VEHICLE_WHEELS:
                _wheels(c)
            elif m == PacketId.PHYSICS_CONTROL:
                _physics_control(c)
            elif m > 23:
                unknown[int(pid[k])] += 1

        # fixed-size records: gathered per type with numpy
        for m in np.unique(meaning[fixed & (count > 0)]).tolist():
            if m in (PacketId.EVENT_DEL, PacketId.EVENT_PARENT, PacketId.COLLISION):
                continue
            sel = np.flatnonzero((meaning == m) & (count > 0))
            dt = RECORD_DTYPES[m]
            rf = np.repeat(fidx[sel], count[sel])
            rec_at = _record_offsets(pos[sel] + 7, count[sel], dt.itemsize)
            if m in per_type:
                if tracked_arr.size == 0:
                    continue
                # read the 4-byte actor ids first; copy whole records only for tracked actors
                keep = np.isin(u32_at[rec_at], tracked_arr)
                if keep.any():
                    per_type[m].append((_records_at(u8, rec_at[keep], dt), rf[keep]))
                continue
            if m == PacketId.TRAFFIC_LIGHT_STATE:
                fast = _tl_changes_same_layout(u8, u32_at, rec_at, rf, count[sel], tl_last)
                tl_parts.append(fast if fast is not None else _tl_changes(_records_at(u8, rec_at, dt), rf, tl_last))
                continue
            if m in (PacketId.TRIGGER_VOLUME, PacketId.BOUNDING_BOX):
                recs = _records_at(u8, rec_at, dt)
                dest = trigger if m == PacketId.TRIGGER_VOLUME else boxes
                for r in recs[_last_per_id(recs["id"])]:
                    dest[int(r["id"])] = ((float(r["ox"]) / 100, float(r["oy"]) / 100, float(r["oz"]) / 100),
                                          (float(r["ex"]) / 100, float(r["ey"]) / 100, float(r["ez"]) / 100))

    assert header is not None
    frames_raw = np.concatenate(frames_parts) if frames_parts else np.zeros(0, FRAME_START)
    frames = np.zeros(frames_raw.size, [("frame", "<u8"), ("elapsed_s", "<f8"), ("duration_s", "<f8")])
    for name in frames.dtype.names:
        frames[name] = frames_raw[name]
    elapsed = frames["elapsed_s"]

    tracks: dict[int, Track] = {}
    controls: dict[int, np.ndarray] = {}
    extra: dict[str, dict[int, np.ndarray]] = {}
    for m, parts in per_type.items():
        if not parts:
            continue
        recs = np.concatenate([p[0] for p in parts])
        fi = np.concatenate([p[1] for p in parts])
        order = np.lexsort((fi, recs["id"]))
        recs, fi = recs[order], fi[order]
        ids, first = np.unique(recs["id"], return_index=True)
        bounds = list(first[1:]) + [recs.size]
        for aid, lo, hi in zip(ids, first, bounds):
            r, f = recs[lo:hi], fi[lo:hi]
            if m == PacketId.POSITION:
                tracks[int(aid)] = Track(
                    int(aid), f, elapsed[f], r["x"] / 100.0, r["y"] / 100.0, r["z"] / 100.0,
                    r["roll"].astype(np.float64), r["pitch"].astype(np.float64), r["yaw"].astype(np.float64))
            else:
                table = _with_time(r, f, elapsed)
                if m == PacketId.ANIM_VEHICLE:
                    controls[int(aid)] = table
                else:
                    extra.setdefault(PacketId(m).name.lower(), {})[int(aid)] = table

    traffic_lights: dict[int, np.ndarray] = {}
    if tl_parts:
        allr = np.concatenate(tl_parts)
        allr = allr[np.argsort(allr["id"], kind="stable")]  # by light, frame order kept
        table = _with_time(allr, allr["frame_index"], elapsed)
        ids, first = np.unique(allr["id"], return_index=True)
        for aid, part in zip(ids.tolist(), np.split(table, first[1:])):
            traffic_lights[aid] = part

    packet_counts = Counter({i: int(c) for i, c in enumerate(counts) if c})
    return Recording(path, header, frames, actors, tracks, controls, extra, collisions, traffic_lights,
                     trigger, boxes, packet_counts, unknown, layout)


_KINDS = list(ActorKind)

#: variable-size packets that start with a u16 record count
_COUNTED = np.zeros(256, bool)
_COUNTED[[PacketId.EVENT_ADD, PacketId.PHYSICS_CONTROL, PacketId.WALKER_BONES, PacketId.ANIM_VEHICLE_WHEELS]] = True
_ITEMSIZE = np.zeros(256, np.int64)
for _pid, _dt in RECORD_DTYPES.items():
    _ITEMSIZE[int(_pid)] = _dt.itemsize


def _raise_structural(path: str, buf: bytes, base: int, p: int, meaning: int, size: int, fi: int) -> None:
    if fi < 0 and meaning != 0:
        raise RecorderFormatError(path, base + p, f"packet id {buf[p]} before the first FrameStart")
    if meaning == 0:
        raise RecorderFormatError(path, base + p, f"FrameStart has {size} bytes, expected 24")
    if meaning == 1:
        raise RecorderFormatError(path, base + p, f"FrameEnd has {size} bytes, expected 0")
    if meaning in SCALAR_DTYPES:
        raise RecorderFormatError(path, base + p, f"{PacketId(meaning).name} has {size} bytes, "
                                                  f"expected {SCALAR_DTYPES[meaning].itemsize}")
    if meaning not in RECORD_DTYPES:
        raise RecorderFormatError(path, base + p, f"{PacketId(meaning).name} has {size} bytes, "
                                                  "too short for its record count")
    _fixed(_Cursor(buf, p + 5, p + 5 + size, path, base), meaning)  # raises, naming the packet
    raise RecorderFormatError(path, base + p, f"packet id {buf[p]} is malformed")


def _record_offsets(starts: np.ndarray, counts: np.ndarray, itemsize: int) -> np.ndarray:
    """Byte offset of every record of several count-prefixed packets (runs starting at `starts`)."""
    total = int(counts.sum())
    before = np.cumsum(counts) - counts
    return np.repeat(starts - before * itemsize, counts) + np.arange(total, dtype=np.int64) * itemsize


def _records_at(u8: np.ndarray, rec_at: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Copy the records at these byte offsets into one structured array.

    One fancy-indexing copy: a zero-copy sliding window over the block has one row per byte
    offset, and its rows at the records' offsets are exactly the records.
    """
    isz = dt.itemsize
    window = as_strided(u8, shape=(u8.size - isz + 1, isz), strides=(1, 1), writeable=False)
    return window[rec_at].reshape(-1).view(dt)


def _take_records(u8: np.ndarray, starts: np.ndarray, counts: np.ndarray, dt: np.dtype) -> np.ndarray:
    if starts.size == 1:
        s = int(starts[0])
        return u8[s:s + int(counts[0]) * dt.itemsize].view(dt)
    return _records_at(u8, _record_offsets(starts, counts, dt.itemsize), dt)


def _last_per_id(ids: np.ndarray) -> np.ndarray:
    _, idx = np.unique(ids[::-1], return_index=True)
    return ids.size - 1 - idx


_TL_OUT = np.dtype([("id", "<u4"), ("frame_index", "<i8"), ("state", "u1"), ("frozen", "u1"), ("elapsed_s", "<f4")])


def _tl_changes_same_layout(u8: np.ndarray, u32_at: np.ndarray, rec_at: np.ndarray, rf: np.ndarray,
                            counts: np.ndarray, last: dict[int, tuple[int, int]]) -> np.ndarray | None:
    """State changes when every packet of the block lists the same lights in the same order.

    That is the usual case (the recorder walks its actor registry in a stable order), and then
    the block is a (packets x lights) matrix compared row to row without sorting. Returns None
    when the layout differs, for the general path.
    """
    n_pk, n_tl = counts.size, int(counts[0])
    if n_pk < 2 or not (counts == n_tl).all():
        return None
    ids = u32_at[rec_at].reshape(n_pk, n_tl)
    if not (ids == ids[0]).all():
        return None
    at = rec_at.reshape(n_pk, n_tl)
    key = u8[at + 9].astype(np.int64) * 2 + u8[at + 4]
    changed = np.empty((n_pk, n_tl), bool)
    changed[0] = True
    changed[1:] = key[1:] != key[:-1]
    for c, lid in enumerate(ids[0].tolist()):
        prev = last.get(lid)
        if prev is not None and prev[1] == int(key[0, c]):
            changed[0, c] = False
        last[lid] = (int(rf.reshape(n_pk, n_tl)[-1, c]), int(key[-1, c]))
    sel_at = at[changed]
    out = np.zeros(sel_at.size, _TL_OUT)
    out["id"] = u32_at[sel_at]
    out["frame_index"] = rf.reshape(n_pk, n_tl)[changed]
    out["state"] = u8[sel_at + 9]
    out["frozen"] = u8[sel_at + 4]
    out["elapsed_s"] = np.ndarray((u8.size - 3,), "<f4", buffer=u8, strides=(1,))[sel_at + 5]
    return out


def _tl_changes(recs: np.ndarray, fidx: np.ndarray, last: dict[int, tuple[int, int]]) -> np.ndarray:
    """Keep only the records where a light's state or frozen flag changes (and each light's first)."""
    out_dt = np.dtype([("id", "<u4"), ("frame_index", "<i8"), ("state", "u1"), ("frozen", "u1"), ("elapsed_s", "<f4")])
    # records come in frame order: a stable sort by a dense 16-bit light index groups them by
    # light and keeps frame order (numpy radix-sorts 16-bit keys)
    uniq, slot = np.unique(recs["id"], return_inverse=True)
    if uniq.size < 1 << 16:
        order = np.argsort(slot.astype(np.uint16), kind="stable")
    else:
        order = np.lexsort((fidx, recs["id"]))
    r, f = recs[order], fidx[order]
    key = r["state"].astype(np.int64) * 2 + r["frozen"].astype(np.int64)
    same_id = np.zeros(r.size, bool)
    same_id[1:] = r["id"][1:] == r["id"][:-1]
    changed = np.ones(r.size, bool)
    changed[1:] = key[1:] != key[:-1]
    changed |= ~same_id
    # compare each light's first record in this block with its last state from earlier blocks
    for i in np.flatnonzero(~same_id):
        prev = last.get(int(r["id"][i]))
        if prev is not None and prev[1] == int(key[i]):
            changed[i] = False
    ends = np.flatnonzero(np.append(r["id"][1:] != r["id"][:-1], True)) if r.size else []
    for i in ends:
        last[int(r["id"][i])] = (int(f[i]), int(key[i]))
    sel = r[changed]
    out = np.zeros(sel.size, out_dt)
    out["id"], out["frame_index"], out["state"] = sel["id"], f[changed], sel["state"]
    out["frozen"], out["elapsed_s"] = sel["frozen"], sel["elapsed_s"]
    return out


def _with_time(r: np.ndarray, f: np.ndarray, elapsed: np.ndarray) -> np.ndarray:
    names = [n for n in r.dtype.names if n not in ("frame_index",)]
    dt = np.dtype([("t", "<f8"), ("frame_index", "<i8")] + [(n, r.dtype[n]) for n in names])
    out = np.zeros(r.size, dt)
    out["t"] = elapsed[f]
    out["frame_index"] = f
    for n in names:
        out[n] = r[n]
    return out
