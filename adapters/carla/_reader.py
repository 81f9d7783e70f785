"""Streaming reader of CARLA recorder files (`client.start_recorder`), pure Python + numpy.

Recordings can be gigabytes, so the file is read in blocks and never held whole. Two levels:

* `RecorderReader.packets()` yields every packet, decoded (all packet types of 0.9.13-0.9.16;
  unknown ids are skipped by their size and yielded raw) — for inspection and tools.
* `read_recording()` makes one pass and keeps what an importer needs: frames and times, the
  actor registry, per-actor tracks and controls for the actors it is asked to track,
  collisions, traffic-light state changes, trigger volumes and bounding boxes. Fixed-size
  records (positions above all) are gathered per block and decoded with numpy structured
  dtypes, not one `struct` call per record.

The packet families are decoded beside this module: one packet at a time (actor events,
collisions, nested layouts) in `_packets`, fixed-size records over a whole block in `_records`.

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

from simbridge.adapters.carla._errors import RecorderFormatError
from simbridge.adapters.carla._format import (
    FRAME_START,
    MAGIC,
    RECORD_DTYPES,
    SCALAR_DTYPES,
    ActorKind,
    PacketId,
)
from simbridge.adapters.carla._packets import (
    _Cursor,
    _event_add,
    _fixed,
    _late_id,
    _physics_control,
    _walker_bones,
    _wheels,
)
from simbridge.adapters.carla._records import (
    _COUNTED,
    _ITEMSIZE,
    _KINDS,
    _last_per_id,
    _raise_structural,
    _record_offsets,
    _records_at,
    _take_records,
    _tl_changes,
    _tl_changes_same_layout,
    _with_time,
)

_U32 = struct.Struct("<I")
_U16 = struct.Struct("<H")
_HDR = struct.Struct("<BI")
_BLOCK_BYTES = 8 << 20
#: larger than any packet a recorder writes (a Position packet of 65,535 actors is 1.8 MB)
_MAX_PACKET_BYTES = 64 << 20
_TRACKED_TYPES = (
    PacketId.POSITION,
    PacketId.ANIM_VEHICLE,
    PacketId.ANIM_WALKER,
    PacketId.KINEMATICS,
    PacketId.VEHICLE_LIGHT,
    PacketId.ANIM_BIKER,
    PacketId.VEHICLE_DOOR,
)


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


def _blocks(
    path: str, block_bytes: int, allow_truncated: bool
) -> Iterator[tuple[RecorderHeader | None, bytes, int, list[int]]]:
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
                            path,
                            base + pos,
                            f"corrupt: packet id {pid} declares {size} bytes of data, more than "
                            f"any recorder packet ({_MAX_PACKET_BYTES} bytes)",
                        )
                        break
                    if base + end > file_size:
                        if allow_truncated:
                            eof = True
                            n = pos  # drop the partial packet
                            break
                        # hand over the packets before this one first: an earlier corrupt
                        # packet is the better error to report
                        pending = RecorderFormatError(
                            path,
                            base + pos,
                            f"truncated or corrupt: packet id {pid} declares {size} bytes of data, the file has "
                            f"{max(file_size - base - pos - 5, 0)} left",
                        )
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
                    raise RecorderFormatError(
                        path,
                        base + pos,
                        f"truncated: {tail} byte(s) after the last packet, too short for a packet header",
                    )
                return
            rest = buf[pos:]
            base += pos


# --------------------------------------------------------------------------- variable-size records


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
                        raise RecorderFormatError(
                            path, base + pos, f"{PacketId(meaning).name} has {size} bytes, expected {dt.itemsize}"
                        )
                    data = np.frombuffer(buf, dt, 1, start)[0].item()
                elif meaning == PacketId.WALKER_BONES:
                    data = _walker_bones(c)
                elif meaning == PacketId.ANIM_VEHICLE_WHEELS:
                    data = _wheels(c)
                elif meaning == PacketId.PHYSICS_CONTROL:
                    data = _physics_control(c)
                else:
                    data = bytes(buf[start : start + size])
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
    decoded one by one; they are rare. `_OnePass` holds what is gathered, one method per
    packet family.
    """
    path = Path(path)
    spath = str(path)
    if not path.is_file():
        raise RecorderFormatError(spath, 0, "no such file")
    gathered = _OnePass(spath, track or _default_track)
    for hdr, buf, base, packets in _blocks(spath, block_bytes, allow_truncated):
        if hdr is not None:
            gathered.header = hdr
        if len(packets) == 0:
            continue
        block = _Block(buf, base, packets, gathered)
        gathered.frame_starts(block)
        gathered.one_by_one(block)
        gathered.fixed_records(block)
    return gathered.recording(path)


class _Block:
    """One block of packets with numpy views of it: ids, sizes, the meaning of the ids 21-23 in
    this recording's layout, record counts and the frame each packet belongs to; checked for
    structure (all packets at once, the first failure reported by its offset) on construction."""

    def __init__(self, buf: bytes, base: int, packets: list[int], run: "_OnePass") -> None:
        self.buf, self.base, self.packets = buf, base, packets
        self.u8 = u8 = np.frombuffer(buf, np.uint8)
        # unaligned little-endian views with a one-byte stride: the value starting at any offset
        self.u16_at = u16_at = np.ndarray((len(buf) - 1,), "<u2", buffer=buf, strides=(1,))
        self.u32_at = np.ndarray((max(len(buf) - 3, 0),), "<u4", buffer=buf, strides=(1,))
        self.pos = pos = np.asarray(packets, dtype=np.int64)
        self.pid = pid = u8[pos].astype(np.int64)
        self.size = size = self.u32_at[pos + 1].astype(np.int64)
        run.counts += np.bincount(pid, minlength=256)
        self.meaning = meaning = pid.copy()
        late = np.flatnonzero((pid >= 21) & (pid <= 23))
        for k in late.tolist():
            m, run.layout = _late_id(buf, int(packets[k]) + 5, int(size[k]), int(pid[k]), run.layout)
            meaning[k] = int(m)
        self.is_start = is_start = meaning == 0
        self.fidx = fidx = run.n_frames - 1 + np.cumsum(is_start)
        bad = (is_start & (size != 24)) | ((meaning == 1) & (size != 0)) | (~is_start & (fidx < 0))
        for sid, dt in SCALAR_DTYPES.items():
            bad |= (meaning == sid) & (size != dt.itemsize)
        rec_size = _ITEMSIZE[np.minimum(meaning, 255)]
        self.fixed = fixed = rec_size > 0
        self.count = count = np.where(size >= 2, u16_at[np.minimum(pos + 5, len(buf) - 2)].astype(np.int64), -1)
        bad |= fixed & ((size < 2) | (size != 2 + count * rec_size))
        bad |= _COUNTED[np.minimum(meaning, 255)] & (size < 2)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            _raise_structural(run.path, buf, base, int(packets[k]), int(meaning[k]), int(size[k]), int(fidx[k]))


class _OnePass:
    """What read_recording keeps while it streams, filled by packet family."""

    def __init__(self, path: str, select: TrackSelector) -> None:
        self.path, self.select = path, select
        self.header: RecorderHeader | None = None
        self.actors: dict[int, Actor] = {}
        self.tracked: set[int] = set()
        self.tracked_arr = np.zeros(0, np.uint32)
        self.frames_parts: list[np.ndarray] = []
        self.collisions: list[Collision] = []
        self.per_type: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {int(pid): [] for pid in _TRACKED_TYPES}
        self.tl_parts: list[np.ndarray] = []
        self.tl_last: dict[int, tuple[int, int]] = {}
        self.trigger: dict[int, Any] = {}
        self.boxes: dict[int, Any] = {}
        self.counts = np.zeros(256, np.int64)
        self.unknown: Counter[int] = Counter()
        self.layout: str | None = None
        self.n_frames = 0
        self.elapsed_all = np.zeros(0)

    def frame_starts(self, b: _Block) -> None:
        """FrameStart packets: frame numbers and times (every later packet is stamped with them)."""
        starts = b.pos[b.is_start]
        if starts.size:
            fr = _take_records(b.u8, starts + 5, np.ones(starts.size, np.int64), FRAME_START)
            self.frames_parts.append(fr.copy())
            self.elapsed_all = np.concatenate([self.elapsed_all, fr["elapsed_s"].astype(np.float64)])
            self.n_frames += starts.size

    def one_by_one(self, b: _Block) -> None:
        """Packets decoded one by one: actor creation, non-empty events, nested layouts, unknown ids."""
        meaning, size = b.meaning, b.size
        slow = (
            (meaning == 2)
            | ((meaning >= 3) & (meaning <= 5))
            | (meaning == PacketId.WALKER_BONES)
            | (meaning == PacketId.ANIM_VEHICLE_WHEELS)
            | (meaning == PacketId.PHYSICS_CONTROL)
            | (meaning > 23)
        ) & (size > 2)
        slow |= (meaning > 23) & (size <= 2)
        for k in np.flatnonzero(slow).tolist():
            p, m, sz, fi = int(b.packets[k]), int(meaning[k]), int(size[k]), int(b.fidx[k])
            c = _Cursor(b.buf, p + 5, p + 5 + sz, self.path, b.base)
            t = float(self.elapsed_all[fi])
            if m == PacketId.EVENT_ADD:
                self._actors_added(c, b.base + p, fi, t)
            elif m == PacketId.EVENT_DEL:
                for r in _fixed(c, m):
                    a = self.actors.get(int(r["id"]))
                    if a is not None:
                        a.destroyed_t = t
            elif m == PacketId.EVENT_PARENT:
                for r in _fixed(c, m):
                    a = self.actors.get(int(r["id"]))
                    if a is not None:
                        a.parent = int(r["parent"])
            elif m == PacketId.COLLISION:
                self.collisions.extend(
                    Collision(
                        t,
                        fi,
                        int(r["collision_id"]),
                        int(r["actor1"]),
                        int(r["actor2"]),
                        bool(r["hero1"]),
                        bool(r["hero2"]),
                    )
                    for r in _fixed(c, m)
                )
            elif m == PacketId.WALKER_BONES:
                _walker_bones(c)
            elif m == PacketId.ANIM_VEHICLE_WHEELS:
                _wheels(c)
            elif m == PacketId.PHYSICS_CONTROL:
                _physics_control(c)
            elif m > 23:
                self.unknown[int(b.pid[k])] += 1

    def _actors_added(self, c: _Cursor, offset: int, fi: int, t: float) -> None:
        for rec in _event_add(c):
            lx, ly, lz = rec["location_cm"]
            if rec["kind"] >= len(_KINDS):
                raise RecorderFormatError(self.path, offset, f"EventAdd: actor type {rec['kind']} is not 0-6")
            a = Actor(
                rec["id"],
                _KINDS[rec["kind"]],
                rec["type_id"],
                rec["uid"],
                rec["attributes"],
                (lx / 100.0, ly / 100.0, lz / 100.0),
                rec["rotation_deg"],
                fi,
                t,
            )
            self.actors[a.id] = a
            if self.select(a):
                self.tracked.add(a.id)
                self.tracked_arr = np.fromiter(sorted(self.tracked), np.uint32)

    def fixed_records(self, b: _Block) -> None:
        """Fixed-size records, gathered per type with numpy: per-actor tables of the tracked actors,
        traffic-light changes, trigger volumes and bounding boxes."""
        count = b.count
        for m in np.unique(b.meaning[b.fixed & (count > 0)]).tolist():
            if m in (PacketId.EVENT_DEL, PacketId.EVENT_PARENT, PacketId.COLLISION):
                continue
            sel = np.flatnonzero((b.meaning == m) & (count > 0))
            dt = RECORD_DTYPES[m]
            rf = np.repeat(b.fidx[sel], count[sel])
            rec_at = _record_offsets(b.pos[sel] + 7, count[sel], dt.itemsize)
            if m in self.per_type:
                if self.tracked_arr.size == 0:
                    continue
                # read the 4-byte actor ids first; copy whole records only for tracked actors
                keep = np.isin(b.u32_at[rec_at], self.tracked_arr)
                if keep.any():
                    self.per_type[m].append((_records_at(b.u8, rec_at[keep], dt), rf[keep]))
                continue
            if m == PacketId.TRAFFIC_LIGHT_STATE:
                fast = _tl_changes_same_layout(b.u8, b.u32_at, rec_at, rf, count[sel], self.tl_last)
                self.tl_parts.append(
                    fast if fast is not None else _tl_changes(_records_at(b.u8, rec_at, dt), rf, self.tl_last)
                )
                continue
            if m in (PacketId.TRIGGER_VOLUME, PacketId.BOUNDING_BOX):
                recs = _records_at(b.u8, rec_at, dt)
                dest = self.trigger if m == PacketId.TRIGGER_VOLUME else self.boxes
                for r in recs[_last_per_id(recs["id"])]:
                    dest[int(r["id"])] = (
                        (float(r["ox"]) / 100, float(r["oy"]) / 100, float(r["oz"]) / 100),
                        (float(r["ex"]) / 100, float(r["ey"]) / 100, float(r["ez"]) / 100),
                    )

    def recording(self, path: Path) -> Recording:
        """The gathered parts as one Recording: frames, per-actor tracks and tables, traffic lights."""
        if self.header is None:
            raise RecorderFormatError(self.path, 0, "no recorder header")
        frames_raw = np.concatenate(self.frames_parts) if self.frames_parts else np.zeros(0, FRAME_START)
        frames = np.zeros(frames_raw.size, [("frame", "<u8"), ("elapsed_s", "<f8"), ("duration_s", "<f8")])
        for name in frames.dtype.names or ():
            frames[name] = frames_raw[name]
        elapsed = frames["elapsed_s"]
        tracks, controls, extra = self._actor_tables(elapsed)
        traffic_lights: dict[int, np.ndarray] = {}
        if self.tl_parts:
            allr = np.concatenate(self.tl_parts)
            allr = allr[np.argsort(allr["id"], kind="stable")]  # by light, frame order kept
            table = _with_time(allr, allr["frame_index"], elapsed)
            ids, first = np.unique(allr["id"], return_index=True)
            for aid, part in zip(ids.tolist(), np.split(table, first[1:])):
                traffic_lights[aid] = part
        packet_counts = Counter({i: int(c) for i, c in enumerate(self.counts) if c})
        return Recording(
            path,
            self.header,
            frames,
            self.actors,
            tracks,
            controls,
            extra,
            self.collisions,
            traffic_lights,
            self.trigger,
            self.boxes,
            packet_counts,
            self.unknown,
            self.layout,
        )

    def _actor_tables(
        self, elapsed: np.ndarray
    ) -> tuple[dict[int, Track], dict[int, np.ndarray], dict[str, dict[int, np.ndarray]]]:
        """Per tracked actor: its Track (positions), its control table and its other record tables."""
        tracks: dict[int, Track] = {}
        controls: dict[int, np.ndarray] = {}
        extra: dict[str, dict[int, np.ndarray]] = {}
        for m, parts in self.per_type.items():
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
                        int(aid),
                        f,
                        elapsed[f],
                        r["x"] / 100.0,
                        r["y"] / 100.0,
                        r["z"] / 100.0,
                        r["roll"].astype(np.float64),
                        r["pitch"].astype(np.float64),
                        r["yaw"].astype(np.float64),
                    )
                else:
                    table = _with_time(r, f, elapsed)
                    if m == PacketId.ANIM_VEHICLE:
                        controls[int(aid)] = table
                    else:
                        extra.setdefault(PacketId(m).name.lower(), {})[int(aid)] = table
        return tracks, controls, extra
