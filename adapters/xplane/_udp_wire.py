"""X-Plane native UDP (port 49000) message layouts: pure encode/decode, no sockets.

Sources: X-Plane's "Exchanging data with X-Plane" document as summarised by the xppython3 UDP
pages (rref, dref) and the Wireshark dissector (Avacee/XPlane-Wireshark-Dissector-C). Little
endian; the fifth header byte varies between versions, so replies are matched on 4 bytes.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

RREF_NAME_BYTES = 400
DREF_NAME_BYTES = 500
#: an RREF reply packs (i32 index, f32 value) pairs after the 5-byte header
RREF_PAIR = struct.Struct("<if")
BEACON_GROUP = "239.255.1.1"
BEACON_PORT = 49707


class UdpWireError(ValueError):
    """A message cannot be encoded or a datagram is not what its header says."""


def _fixed(name: str, size: int) -> bytes:
    raw = name.encode("ascii")
    if len(raw) >= size:
        raise UdpWireError(f"dataref name {name!r} is {len(raw)} bytes; the field holds {size - 1} plus NUL")
    return raw


def encode_rref(freq_hz: int, index: int, name: str) -> bytes:
    """RREF request (413 B): i32 frequency (0 = unsubscribe), i32 client index, char[400] name.

    Array elements are subscribed one by one as `name[i]`.
    """
    return struct.pack("<4sxii400s", b"RREF", freq_hz, index, _fixed(name, RREF_NAME_BYTES))


def decode_rref(data: bytes) -> list[tuple[int, float]]:
    """RREF reply: 5-byte header (`RREF,` or `RREFO`), then n x (i32 index, f32 value)."""
    if data[:4] != b"RREF":
        raise UdpWireError(f"not an RREF reply: {data[:5]!r}")
    body = data[5:]
    if len(body) % RREF_PAIR.size:
        raise UdpWireError(f"RREF reply body is {len(body)} bytes, not a multiple of {RREF_PAIR.size}")
    return [RREF_PAIR.unpack_from(body, off) for off in range(0, len(body), RREF_PAIR.size)]


def encode_rref_reply(pairs: list[tuple[int, float]]) -> bytes:
    """What X-Plane 11/12 sends back; used by the test double and by the golden-byte tests."""
    return b"RREF," + b"".join(RREF_PAIR.pack(i, v) for i, v in pairs)


def encode_dref(value: float, name: str) -> bytes:
    """DREF (509 B): f32 value, char[500] name. Floats only; use `name[i]` for an array element."""
    return struct.pack("<4sxf500s", b"DREF", value, _fixed(name, DREF_NAME_BYTES))


def decode_dref(data: bytes) -> tuple[float, str]:
    if data[:4] != b"DREF" or len(data) < 9:
        raise UdpWireError(f"not a DREF message: {data[:5]!r}")
    value = struct.unpack_from("<f", data, 5)[0]
    return value, data[9:].split(b"\x00", 1)[0].decode("ascii", "replace")


def encode_cmnd(command: str) -> bytes:
    """CMND: header then the command path (e.g. `sim/operation/pause_toggle`)."""
    return b"CMND\x00" + command.encode("ascii")


def decode_cmnd(data: bytes) -> str:
    if data[:4] != b"CMND":
        raise UdpWireError(f"not a CMND message: {data[:5]!r}")
    return data[5:].split(b"\x00", 1)[0].decode("ascii", "replace")


def decode_rref_request(data: bytes) -> tuple[int, int, str]:
    """(frequency, index, name) of an RREF request; for the test double."""
    if data[:4] != b"RREF" or len(data) != 413:
        raise UdpWireError(f"not a 413-byte RREF request: {data[:5]!r} ({len(data)} B)")
    freq, index, raw = struct.unpack("<4xxii400s", data)
    return freq, index, raw.split(b"\x00", 1)[0].decode("ascii", "replace")


@dataclass(frozen=True)
class Beacon:
    """An X-Plane instance announcing itself on the multicast group."""

    major: int
    minor: int
    host_id: int  # 1 = X-Plane, 2 = PlaneMaker
    version: int  # e.g. 120100
    role: int  # 1 master, 2 external visual, 3 IOS
    port: int  # where it receives UDP (49000 by default)
    hostname: str
    raknet_port: int | None = None


_BECN = struct.Struct("<BBiiIH")


def encode_becn(b: Beacon) -> bytes:
    out = (
        b"BECN\x00" + _BECN.pack(b.major, b.minor, b.host_id, b.version, b.role, b.port) + b.hostname.encode() + b"\x00"
    )
    if b.raknet_port is not None:
        out += struct.pack("<H", b.raknet_port)
    return out


def decode_becn(data: bytes) -> Beacon:
    """BECN: u8 major (1), u8 minor, i32 host, i32 version, u32 role, u16 port, NUL-terminated
    hostname, then (minor >= 2, X-Plane 11.55+) u16 RakNet port."""
    if data[:4] != b"BECN" or len(data) < 5 + _BECN.size + 1:
        raise UdpWireError(f"not a BECN datagram: {data[:5]!r} ({len(data)} B)")
    major, minor, host, version, role, port = _BECN.unpack_from(data, 5)
    rest = data[5 + _BECN.size :]
    name, _, tail = rest.partition(b"\x00")
    raknet = struct.unpack_from("<H", tail)[0] if len(tail) >= 2 else None
    return Beacon(major, minor, host, version, role, port, name.decode("utf-8", "replace"), raknet)
