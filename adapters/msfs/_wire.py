"""SimConnect's network (TCP) protocol: packets the client sends, messages the server returns.

Layouts were worked out from node-simconnect (EvenAR/node-simconnect@c83d785, v4.1.1), read
for the byte order and field widths and re-written here:

- client packet header (16 B: size, protocol, 0xF0000000 | function id, send id):
  src/SimConnectPacketBuilder.ts:9-19 and 80-88;
- server message header (12 B: size, protocol, recv id): src/SimConnectSocket.ts:116-129;
- per-function bodies: src/SimConnectConnection.ts (cited on each builder);
- strings are latin-1, NUL-padded to a fixed width: src/RawBuffer.ts:319-328.

Everything is little-endian. Nothing here does I/O: the transport moves bytes, the client
keeps state, so every packet can be checked byte for byte.
"""

from __future__ import annotations

import enum
import functools
import struct
from dataclasses import dataclass, field

HEADER_OUT = struct.Struct("<IIII")  # size, protocol, 0xF0000000 | function, send id
HEADER_IN = struct.Struct("<III")  # size, protocol, recv id
MAX_PATH = 260
UNUSED = 0xFFFFFFFF
OBJECT_ID_USER = 0
#: the fallback port of a SimConnect server with no registry key (PROTOCOLS.md §3)
DEFAULT_PORT = 2048
#: a message longer than this is not SimConnect (SimConnect.xml MaxRecvSize defaults to 4096;
#: large lists reach tens of kB)
MAX_MESSAGE_BYTES = 1 << 20


class Protocol(enum.IntEnum):
    """Protocol numbers in every header (src/enums/Protocol.ts:14-21)."""

    KITTYHAWK = 5  # MSFS 2020
    SUNRISE = 6  # MSFS 2024


@dataclass(frozen=True)
class OpenVersion:
    alias: bytes
    major: int
    minor: int
    build_major: int
    build_minor: int


#: what the Open packet announces per protocol (src/SimConnectConnection.ts:100-113)
OPEN_VERSIONS: dict[Protocol, OpenVersion] = {
    Protocol.KITTYHAWK: OpenVersion(b"HK", 11, 0, 62651, 3),
    Protocol.SUNRISE: OpenVersion(b"RS", 12, 2, 282174, 999),
}


class Fn(enum.IntEnum):
    """Function ids (low bits of the header's third word)."""

    OPEN = 0x01
    MAP_CLIENT_EVENT_TO_SIM_EVENT = 0x04
    TRANSMIT_CLIENT_EVENT = 0x05
    ADD_TO_DATA_DEFINITION = 0x0C
    CLEAR_DATA_DEFINITION = 0x0D
    REQUEST_DATA_ON_SIM_OBJECT = 0x0E
    SET_DATA_ON_SIM_OBJECT = 0x10
    SUBSCRIBE_TO_SYSTEM_EVENT = 0x17
    UNSUBSCRIBE_FROM_SYSTEM_EVENT = 0x18
    FLIGHT_LOAD = 0x3D


class RecvId(enum.IntEnum):
    """Server message ids (src/SimConnectSocket.ts:8-18)."""

    NULL = 0
    EXCEPTION = 1
    OPEN = 2
    QUIT = 3
    EVENT = 4
    EVENT_OBJECT_ADDREMOVE = 5
    EVENT_FILENAME = 6
    EVENT_FRAME = 7
    SIMOBJECT_DATA = 8
    SIMOBJECT_DATA_BYTYPE = 9


class Period(enum.IntEnum):
    """SIMCONNECT_PERIOD (src/enums/SimConnectPeriod.ts)."""

    NEVER = 0
    ONCE = 1
    VISUAL_FRAME = 2
    SIM_FRAME = 3
    SECOND = 4


class RequestFlag(enum.IntFlag):
    """SIMCONNECT_DATA_REQUEST_FLAG (src/flags/DataRequestFlag.ts)."""

    DEFAULT = 0
    CHANGED = 1
    TAGGED = 2


class DataType(enum.IntEnum):
    """SIMCONNECT_DATATYPE (src/enums/SimConnectDataType.ts); the harness uses the numeric and
    fixed-width string types (STRINGV and the structs are not decoded)."""

    INVALID = 0
    INT32 = 1
    INT64 = 2
    FLOAT32 = 3
    FLOAT64 = 4
    STRING8 = 5
    STRING32 = 6
    STRING64 = 7
    STRING128 = 8
    STRING256 = 9
    STRING260 = 10


#: how each supported datum type sits in a data message
DATUM_FORMAT: dict[DataType, str] = {
    DataType.INT32: "<i",
    DataType.INT64: "<q",
    DataType.FLOAT32: "<f",
    DataType.FLOAT64: "<d",
    DataType.STRING8: "<8s",
    DataType.STRING32: "<32s",
    DataType.STRING64: "<64s",
    DataType.STRING128: "<128s",
    DataType.STRING256: "<256s",
    DataType.STRING260: "<260s",
}

#: SIMCONNECT_EXCEPTION names in order (src/enums/SimConnectException.ts)
EXCEPTION_NAMES: tuple[str, ...] = (
    "NONE",
    "ERROR",
    "SIZE_MISMATCH",
    "UNRECOGNIZED_ID",
    "UNOPENED",
    "VERSION_MISMATCH",
    "TOO_MANY_GROUPS",
    "NAME_UNRECOGNIZED",
    "TOO_MANY_EVENT_NAMES",
    "EVENT_ID_DUPLICATE",
    "TOO_MANY_MAPS",
    "TOO_MANY_OBJECTS",
    "TOO_MANY_REQUESTS",
    "WEATHER_INVALID_PORT",
    "WEATHER_INVALID_METAR",
    "WEATHER_UNABLE_TO_GET_OBSERVATION",
    "WEATHER_UNABLE_TO_CREATE_STATION",
    "WEATHER_UNABLE_TO_REMOVE_STATION",
    "INVALID_DATA_TYPE",
    "INVALID_DATA_SIZE",
    "DATA_ERROR",
    "INVALID_ARRAY",
    "CREATE_OBJECT_FAILED",
    "LOAD_FLIGHTPLAN_FAILED",
    "OPERATION_INVALID_FOR_OBJECT_TYPE",
    "ILLEGAL_OPERATION",
    "ALREADY_SUBSCRIBED",
    "INVALID_ENUM",
    "DEFINITION_ERROR",
    "DUPLICATE_ID",
    "DATUM_ID",
    "OUT_OF_BOUNDS",
    "ALREADY_CREATED",
    "OBJECT_OUTSIDE_REALITY_BUBBLE",
    "OBJECT_CONTAINER",
    "OBJECT_AI",
    "OBJECT_ATC",
    "OBJECT_SCHEDULE",
)


def exception_name(code: int) -> str:
    return EXCEPTION_NAMES[code] if 0 <= code < len(EXCEPTION_NAMES) else f"EXCEPTION_{code}"


class WireError(ValueError):
    """Bytes that are not a SimConnect message (bad size, truncated body)."""


# --------------------------------------------------------------------------- strings


def fixed_string(value: str, width: int, *, what: str = "string") -> bytes:
    """latin-1, NUL-padded to `width` (src/RawBuffer.ts:319-328). One byte is kept for the NUL
    terminator the C side expects, so a name that would fill the field is refused."""
    try:
        raw = value.encode("latin-1")
    except UnicodeEncodeError:
        raise WireError(f"{what} {value!r} is not latin-1") from None
    if len(raw) >= width:
        raise WireError(f"{what} {value!r} is {len(raw)} bytes; at most {width - 1} fit")
    return raw.ljust(width, b"\0")


def read_fixed_string(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("latin-1")


# --------------------------------------------------------------------------- client packets


def packet(protocol: int, fn: int, send_id: int, body: bytes) -> bytes:
    """Header + body (src/SimConnectPacketBuilder.ts:16-19, 80-88)."""
    return HEADER_OUT.pack(HEADER_OUT.size + len(body), protocol, 0xF0000000 | fn, send_id) + body


def open_body(app_name: str, protocol: Protocol) -> bytes:
    """src/SimConnectConnection.ts:2022-2031: name[256], u32 0, byte 0, alias[3] ('HK'/'RS' + NUL),
    then the version quadruple."""
    v = OPEN_VERSIONS[protocol]
    return (
        fixed_string(app_name, 256, what="application name")
        + struct.pack("<IB", 0, 0)
        + v.alias.ljust(3, b"\0")
        + struct.pack("<IIII", v.major, v.minor, v.build_major, v.build_minor)
    )


def map_client_event_body(client_event_id: int, event_name: str) -> bytes:
    """src/SimConnectConnection.ts:273-279: u32 event id, name[256]."""
    return struct.pack("<I", client_event_id) + fixed_string(event_name, 256, what="event name")


def transmit_client_event_body(object_id: int, client_event_id: int, data: int, group_id: int, flags: int) -> bytes:
    """src/SimConnectConnection.ts:285-299: five u32 (data is sent as its 32-bit pattern)."""
    return struct.pack("<IIIII", object_id, client_event_id, data & 0xFFFFFFFF, group_id, flags)


def add_to_data_definition_body(
    define_id: int, datum_name: str, units: str | None, datatype: DataType, epsilon: float = 0.0, datum_id: int = UNUSED
) -> bytes:
    """src/SimConnectConnection.ts:393-410: u32 define id, name[256], units[256] (empty for
    strings and structs), u32 datatype, f32 epsilon, u32 datum id."""
    return (
        struct.pack("<I", define_id)
        + fixed_string(datum_name, 256, what="SimVar name")
        + fixed_string(units or "", 256, what="units")
        + struct.pack("<IfI", int(datatype), epsilon, datum_id)
    )


def request_data_body(
    request_id: int,
    define_id: int,
    object_id: int,
    period: Period,
    flags: int = 0,
    origin: int = 0,
    interval: int = 0,
    limit: int = 0,
) -> bytes:
    """src/SimConnectConnection.ts:448-467: eight u32."""
    return struct.pack("<IIIIIIII", request_id, define_id, object_id, int(period), int(flags), origin, interval, limit)


def set_data_body(define_id: int, object_id: int, data: bytes, *, tagged: bool = False, array_count: int = 1) -> bytes:
    """src/SimConnectConnection.ts:498-534 (the raw-buffer form): u32 define id, u32 object id,
    u32 flags (1 = tagged), u32 array count, u32 unit size (the byte length), the bytes."""
    return struct.pack("<IIIII", define_id, object_id, 1 if tagged else 0, max(array_count, 1), len(data)) + data


def subscribe_system_event_body(client_event_id: int, event_name: str) -> bytes:
    """src/SimConnectConnection.ts:632-638: u32 event id, name[256]."""
    return struct.pack("<I", client_event_id) + fixed_string(event_name, 256, what="system event name")


def unsubscribe_system_event_body(client_event_id: int) -> bytes:
    """src/SimConnectConnection.ts:644-649."""
    return struct.pack("<I", client_event_id)


def flight_load_body(path: str) -> bytes:
    """src/SimConnectConnection.ts:1249-1254: the file name in MAX_PATH (260) bytes."""
    return fixed_string(path, MAX_PATH, what="flight file name")


# --------------------------------------------------------------------------- server messages


@dataclass(frozen=True)
class RecvOpen:
    application_name: str
    application_version: tuple[int, int, int, int]
    simconnect_version: tuple[int, int, int, int]


@dataclass(frozen=True)
class RecvException:
    exception: int
    send_id: int
    index: int

    @property
    def name(self) -> str:
        return exception_name(self.exception)


@dataclass(frozen=True)
class RecvQuit:
    pass


@dataclass(frozen=True)
class RecvEvent:
    group_id: int
    event_id: int
    data: int


@dataclass(frozen=True)
class RecvEventFilename(RecvEvent):
    filename: str = ""
    flags: int = 0


@dataclass(frozen=True)
class RecvSimObjectData:
    request_id: int
    object_id: int
    define_id: int
    flags: int
    entry_number: int
    out_of: int
    define_count: int
    data: bytes = field(repr=False)


@dataclass(frozen=True)
class RecvOther:
    recv_id: int
    body: bytes = field(repr=False)


Recv = RecvOpen | RecvException | RecvQuit | RecvEvent | RecvEventFilename | RecvSimObjectData | RecvOther

_OPEN = struct.Struct("<256s10I")  # src/recv/RecvOpen.ts:26-38
_EXC = struct.Struct("<III")  # src/recv/RecvException.ts:13-17
_EVENT = struct.Struct("<III")  # src/recv/RecvEvent.ts:11-15
_FILENAME = struct.Struct(f"<III{MAX_PATH}sI")  # src/recv/RecvEventFilename.ts:10-14
_DATA = struct.Struct("<7I")  # src/recv/RecvSimObjectData.ts:22-31


def parse_message(frame: bytes) -> tuple[int, Recv]:
    """(protocol, message) from one whole server frame, header included."""
    if len(frame) < HEADER_IN.size:
        raise WireError(f"SimConnect message of {len(frame)} bytes is shorter than its 12-byte header")
    size, protocol, recv_id = HEADER_IN.unpack_from(frame)
    if size != len(frame):
        raise WireError(f"SimConnect message says {size} bytes but has {len(frame)}")
    body = frame[HEADER_IN.size :]
    try:
        if recv_id == RecvId.SIMOBJECT_DATA or recv_id == RecvId.SIMOBJECT_DATA_BYTYPE:
            r, o, d, fl, en, of, dc = _DATA.unpack_from(body)
            return protocol, RecvSimObjectData(r, o, d, fl, en, of, dc, body[_DATA.size :])
        if recv_id == RecvId.EVENT:
            return protocol, RecvEvent(*_EVENT.unpack_from(body))
        if recv_id == RecvId.EXCEPTION:
            return protocol, RecvException(*_EXC.unpack_from(body))
        if recv_id == RecvId.OPEN:
            name, *v = _OPEN.unpack_from(body)
            return protocol, RecvOpen(read_fixed_string(name), (v[0], v[1], v[2], v[3]), (v[4], v[5], v[6], v[7]))
        if recv_id == RecvId.EVENT_FILENAME:
            g, e, d, fn, fl = _FILENAME.unpack_from(body)
            return protocol, RecvEventFilename(g, e, d, read_fixed_string(fn), fl)
        if recv_id == RecvId.QUIT:
            return protocol, RecvQuit()
    except struct.error:
        raise WireError(f"SimConnect message id {recv_id} truncated: {len(body)} body bytes") from None
    return protocol, RecvOther(recv_id, body)


def server_message(protocol: int, recv_id: int, body: bytes) -> bytes:
    """A server frame (what the double sends; src/SimConnectSocket.ts:116-129 reads it)."""
    return HEADER_IN.pack(HEADER_IN.size + len(body), protocol, recv_id) + body


class FrameSplitter:
    """Whole frames out of a TCP byte stream: chunks may split a frame or hold several
    (the size-prefix loop of src/SimConnectSocket.ts:116-142)."""

    def __init__(self, max_bytes: int = MAX_MESSAGE_BYTES) -> None:
        self._buf = bytearray()
        self.max_bytes = max_bytes

    def feed(self, chunk: bytes) -> list[bytes]:
        self._buf += chunk
        out: list[bytes] = []
        while len(self._buf) >= 4:
            (size,) = struct.unpack_from("<I", self._buf)
            if size < HEADER_IN.size or size > self.max_bytes:
                raise WireError(f"SimConnect stream out of step: a frame claims {size} bytes")
            if len(self._buf) < size:
                break
            out.append(bytes(self._buf[:size]))
            del self._buf[:size]
        return out

    @property
    def pending_bytes(self) -> int:
        return len(self._buf)


# --------------------------------------------------------------------------- data blocks


@functools.lru_cache(maxsize=64)
def _block_struct(types: tuple[DataType, ...]) -> struct.Struct:
    """One Struct for a whole default-format block ("<" packs with no padding, as SimConnect does)."""
    return struct.Struct("<" + "".join(DATUM_FORMAT[dt][1:] for dt in types))


def decode_untagged(data: bytes, types: list[DataType]) -> list[float | str]:
    """Values of a default-format data block, in definition order."""
    try:
        values = _block_struct(tuple(types)).unpack_from(data)
    except struct.error:
        raise WireError(
            f"data block of {len(data)} bytes is shorter than its definition ({_block_struct(tuple(types)).size} bytes)"
        ) from None
    return [read_fixed_string(v) if isinstance(v, bytes) else v for v in values]


def decode_tagged(data: bytes, count: int, types: list[DataType]) -> dict[int, float | str]:
    """datum id -> value of a tagged block: `count` pairs of (u32 datum id, value)."""
    out: dict[int, float | str] = {}
    off = 0
    for _ in range(count):
        (datum,) = struct.unpack_from("<I", data, off)
        off += 4
        if datum >= len(types):
            raise WireError(f"tagged data names datum {datum}; the definition has {len(types)}")
        fmt = DATUM_FORMAT[types[datum]]
        (v,) = struct.unpack_from(fmt, data, off)
        off += struct.calcsize(fmt)
        out[datum] = read_fixed_string(v) if isinstance(v, bytes) else v
    return out


def encode_values(values: list[float | str], types: list[DataType]) -> bytes:
    """A default-format data block (SetDataOnSimObject, and the double's replies)."""
    parts = []
    for v, dt in zip(values, types, strict=True):
        fmt = DATUM_FORMAT[dt]
        if isinstance(v, str):
            parts.append(struct.pack(fmt, v.encode("latin-1")))
        elif dt in (DataType.INT32, DataType.INT64):
            parts.append(struct.pack(fmt, int(v)))
        else:
            parts.append(struct.pack(fmt, v))
    return b"".join(parts)
