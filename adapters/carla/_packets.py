"""CARLA recorder packets decoded one at a time, by family: actor events (add, delete, parent),
collisions, and the nested-layout packets (walker bones, vehicle wheels, physics control), plus
the layout probe for the ids 21-23 that changed meaning between CARLA versions. They are rare
next to the fixed-size per-frame records (simbridge.adapters.carla._records)."""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from simbridge.adapters.carla._errors import RecorderFormatError
from simbridge.adapters.carla._format import (
    RECORD_DTYPES,
    WHEEL,
    PacketId,
)

_U32 = struct.Struct("<I")
_U16 = struct.Struct("<H")
_ADD_HEAD = struct.Struct("<IB6fI")  # id, type, location xyz (cm), rotation xyz (deg), description uid


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
            return bytes(self.buf[p : p + n]).decode("utf-8")
        except UnicodeDecodeError:
            raise RecorderFormatError(self.path, self.base + p, f"{what} is not UTF-8") from None

    def done(self, what: str) -> None:
        if self.pos != self.end:
            raise RecorderFormatError(
                self.path,
                self.base + self.pos,
                f"{what}: {self.end - self.pos} unexpected byte(s) at the end of the packet",
            )


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
            type_id = buf[p + 2 : q].decode("utf-8")
            n_attr = buf[q] | buf[q + 1] << 8
            p = q + 2
            attrs: dict[str, str] = {}
            for _ in range(n_attr):
                if p + 3 > end:
                    raise fail(p, "attribute key")
                q = p + 3 + (buf[p + 1] | buf[p + 2] << 8)
                if q + 2 > end:
                    raise fail(p, "attribute key")
                key = buf[p + 3 : q].decode("utf-8")
                p = q + 2 + (buf[q] | buf[q + 1] << 8)
                if p > end:
                    raise fail(q, "attribute value")
                attrs[key] = buf[q + 2 : p].decode("utf-8")
            out.append(
                {
                    "id": aid,
                    "kind": kind,
                    "location_cm": (lx, ly, lz),
                    "rotation_deg": (rx, ry, rz),
                    "uid": uid,
                    "type_id": type_id,
                    "attributes": attrs,
                }
            )
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
    raw = bytes(c.buf[c.pos : c.end])
    c.pos = c.end
    return [{"count": count, "first_id": first, "raw": raw}]


def _fixed(c: _Cursor, pid: int) -> np.ndarray:
    dt = RECORD_DTYPES[pid]
    count = c.u16(f"{PacketId(pid).name} count")
    if c.end - c.pos != count * dt.itemsize:
        raise RecorderFormatError(
            c.path,
            c.base + c.pos - 7,
            f"{PacketId(pid).name}: size {c.end - c.pos + 2} does not match {count} record(s) of {dt.itemsize} bytes",
        )
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
