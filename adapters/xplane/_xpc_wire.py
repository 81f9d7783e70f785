"""XPlaneConnect (XPC) message layouts: pure encode/decode, no sockets.

Written from the plugin's message handlers (nasa/XPlaneConnect `xpcPlugin/MessageHandlers.cpp`):
every message is a 4-byte ASCII tag, one ignored byte, then a little-endian body. -998 means
"leave this value unchanged". A message is at most 4096 bytes.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

UNCHANGED = -998.0
MAX_MESSAGE_BYTES = 4096
#: the plugin handles at most this many messages per simulator frame; past that the backlog is lost
MAX_MESSAGES_PER_FRAME = 20


class XpcWireError(ValueError):
    """A message cannot be encoded (too long, bad argument) or a reply is malformed."""


def _head(tag: bytes) -> bytes:
    return tag + b"\x00"


def _checked(msg: bytes) -> bytes:
    if len(msg) > MAX_MESSAGE_BYTES:
        raise XpcWireError(
            f"XPC message {msg[:4]!r} is {len(msg)} bytes; the plugin accepts at most {MAX_MESSAGE_BYTES}"
        )
    return msg


def _name(name: str, what: str = "name") -> bytes:
    raw = name.encode("ascii")
    if not 0 < len(raw) <= 255:
        raise XpcWireError(f"{what} {name!r} must be 1..255 bytes")
    return bytes([len(raw)]) + raw


# --------------------------------------------------------------------------- requests


def encode_conn(client_port: int) -> bytes:
    """CONN: tell the plugin which port to send replies to (u16)."""
    return _head(b"CONN") + struct.pack("<H", client_port)


def encode_simu(mode: int) -> bytes:
    """SIMU: 0 run, 1 pause, 2 toggle; 100-119 pause aircraft n; 200-219 resume aircraft n."""
    if not (0 <= mode <= 2 or 100 <= mode <= 119 or 200 <= mode <= 219):
        raise XpcWireError(f"SIMU value {mode} is not 0-2, 100-119 or 200-219")
    return _head(b"SIMU") + bytes([mode])


def encode_dref(items: Iterable[tuple[str, Sequence[float]]]) -> bytes:
    """DREF: repeated {u8 name length, name, u8 value count, count x f32}."""
    body = b""
    for name, values in items:
        vals = list(values)
        if not 0 < len(vals) <= 255:
            raise XpcWireError(f"DREF {name!r}: 1..255 values, got {len(vals)}")
        body += _name(name, "dataref") + bytes([len(vals)]) + struct.pack(f"<{len(vals)}f", *vals)
    return _checked(_head(b"DREF") + body)


def encode_getd(names: Sequence[str]) -> bytes:
    """GETD: u8 count, repeated {u8 length, name}. Count 0 repeats this client's last list."""
    if len(names) > 255:
        raise XpcWireError(f"GETD: at most 255 datarefs per request, got {len(names)}")
    return _checked(_head(b"GETD") + bytes([len(names)]) + b"".join(_name(n, "dataref") for n in names))


def encode_posi(
    lat_deg: float,
    lon_deg: float,
    elev_m_msl: float,
    pitch_deg: float,
    roll_deg: float,
    true_heading_deg: float,
    gear: float = -1.0,
    aircraft: int = 0,
) -> bytes:
    """POSI (46 B): u8 aircraft, f64 lat, f64 lon, f64 elevation m MSL, f32 pitch, roll, true heading, gear (<0 ignored)."""
    return _head(b"POSI") + struct.pack(
        "<Bdddffff", aircraft, lat_deg, lon_deg, elev_m_msl, pitch_deg, roll_deg, true_heading_deg, gear
    )


def encode_getp(aircraft: int = 0) -> bytes:
    return _head(b"GETP") + bytes([aircraft])


def encode_ctrl(
    elevator: float = UNCHANGED,
    aileron: float = UNCHANGED,
    rudder: float = UNCHANGED,
    throttle: float = UNCHANGED,
    gear: int = -1,
    flaps: float = UNCHANGED,
    aircraft: int = 0,
    speedbrake: float = UNCHANGED,
) -> bytes:
    """CTRL (31 B): f32 elevator, aileron, rudder, throttle; i8 gear (-1 keep); f32 flaps; u8 aircraft; f32 speedbrake."""
    return _head(b"CTRL") + struct.pack(
        "<ffffbfBf", elevator, aileron, rudder, throttle, gear, flaps, aircraft, speedbrake
    )


def encode_getc(aircraft: int = 0) -> bytes:
    return _head(b"GETC") + bytes([aircraft])


def encode_text(text: str, x: int = -1, y: int = -1) -> bytes:
    """TEXT: i32 x, i32 y (-1 = default place), u8 length, text. Empty text clears the message."""
    raw = text.encode("ascii")
    if len(raw) > 255:
        raise XpcWireError(f"TEXT: at most 255 bytes, got {len(raw)}")
    return _head(b"TEXT") + struct.pack("<iiB", x, y, len(raw)) + raw


WYPT_ADD, WYPT_DEL, WYPT_CLEAR = 1, 2, 3


def encode_wypt(op: int, points: Sequence[tuple[float, float, float]]) -> bytes:
    """WYPT: u8 op (1 add, 2 delete, 3 clear), u8 number of points, points x (f32 lat, lon, alt m).

    The count is the number of points (NASA's Python client sends 3 x points; the plugin reads points).
    """
    if op not in (WYPT_ADD, WYPT_DEL, WYPT_CLEAR):
        raise XpcWireError(f"WYPT op {op} is not 1 (add), 2 (delete) or 3 (clear)")
    if len(points) > 255:
        raise XpcWireError(f"WYPT: at most 255 points, got {len(points)}")
    body = b"".join(struct.pack("<fff", lat, lon, alt) for lat, lon, alt in points)
    return _checked(_head(b"WYPT") + bytes([op, len(points)]) + body)


def encode_view(view: int) -> bytes:
    """VIEW (9 B): i32 view type (73 forwards, 79 runway, 80 chase, ...)."""
    return _head(b"VIEW") + struct.pack("<i", view)


def encode_comm(commands: Iterable[str]) -> bytes:
    """COMM: repeated {u8 length, command path}; the plugin runs each once."""
    return _checked(_head(b"COMM") + b"".join(_name(c, "command") for c in commands))


# --------------------------------------------------------------------------- replies


def decode_conf(data: bytes) -> int:
    """CONF reply to CONN: byte 5 is the client id."""
    if len(data) < 6 or data[:4] != b"CONF":
        raise XpcWireError(f"expected a 6-byte CONF reply, got {data[:8]!r} ({len(data)} B)")
    return data[5]


def decode_resp(data: bytes) -> list[list[float]]:
    """RESP reply to GETD: u8 count at byte 5, then per dataref {u8 n, n x f32}."""
    if len(data) < 6 or data[:4] != b"RESP":
        raise XpcWireError(f"expected a RESP reply, got {data[:8]!r}")
    count, pos, out = data[5], 6, []
    for i in range(count):
        if pos >= len(data):
            raise XpcWireError(f"RESP truncated at dataref {i} of {count}")
        n = data[pos]
        pos += 1
        if pos + 4 * n > len(data):
            raise XpcWireError(f"RESP truncated in the values of dataref {i}")
        out.append(list(struct.unpack_from(f"<{n}f", data, pos)))
        pos += 4 * n
    return out


@dataclass(frozen=True)
class Posi:
    gear_handle: int
    lat_deg: float
    lon_deg: float
    elev_m_msl: float
    pitch_deg: float
    roll_deg: float
    true_heading_deg: float
    gear: float


def decode_posi(data: bytes) -> Posi:
    """POSI reply to GETP (46 B); byte 5 carries the gear handle (the plugin writes it there)."""
    if len(data) != 46 or data[:4] != b"POSI":
        raise XpcWireError(f"expected a 46-byte POSI reply, got {data[:4]!r} ({len(data)} B)")
    return Posi(*struct.unpack("<5xBdddffff", data))


@dataclass(frozen=True)
class Ctrl:
    elevator: float
    aileron: float
    rudder: float
    throttle: float
    gear: int
    flaps: float
    aircraft: int
    speedbrake: float


def decode_ctrl(data: bytes) -> Ctrl:
    """CTRL reply to GETC (31 B)."""
    if len(data) != 31 or data[:4] != b"CTRL":
        raise XpcWireError(f"expected a 31-byte CTRL reply, got {data[:4]!r} ({len(data)} B)")
    return Ctrl(*struct.unpack("<5xffffbfBf", data))
