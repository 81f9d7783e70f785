"""Byte-level layout of every packet the client builds, against layouts read from node-simconnect
(EvenAR/node-simconnect@c83d785, v4.1.1; file:line on each test). Expected bytes are written out
field by field here, not produced by the code under test."""

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simbridge.adapters.msfs import _wire as w
from simbridge.adapters.msfs._transport import TcpTransport
from simbridge.adapters.msfs._wire import DataType, Fn, Period, Protocol


def s(text: str, width: int) -> bytes:
    return text.encode("latin-1") + b"\0" * (width - len(text))


def build(fn, *args, protocol=Protocol.KITTYHAWK):
    t = TcpTransport("127.0.0.1", 1, protocol=protocol)
    send_id, pkt = t.encode(fn, *args)
    assert send_id == 1
    return pkt


def header(size, fn, send_id=1, protocol=5):
    # SimConnectPacketBuilder.ts:9-19 (size, protocol, 0xF0000000|type, packet id), 80-88
    return struct.pack("<IIII", size, protocol, 0xF0000000 | fn, send_id)


def test_open_kittyhawk():
    # SimConnectConnection.ts:2022-2031 with openPacketData[KittyHawk] at :100-106
    body = s("simbridge", 256) + struct.pack("<I", 0) + b"\0" + b"HK\0" + struct.pack("<IIII", 11, 0, 62651, 3)
    assert build(Fn.OPEN, "simbridge", Protocol.KITTYHAWK) == header(16 + 280, 0x01) + body


def test_open_sunrise():
    # SimConnectConnection.ts:2022-2031 with openPacketData[SunRise] at :107-113
    body = s("simbridge", 256) + struct.pack("<I", 0) + b"\0" + b"RS\0" + struct.pack("<IIII", 12, 2, 282174, 999)
    assert (
        build(Fn.OPEN, "simbridge", Protocol.SUNRISE, protocol=Protocol.SUNRISE) == header(296, 0x01, protocol=6) + body
    )


def test_add_to_data_definition():
    # SimConnectConnection.ts:393-410: defineId, name[256], units[256], datatype, f32 epsilon, datumId
    body = struct.pack("<I", 3) + s("PLANE BANK DEGREES", 256) + s("radians", 256) + struct.pack("<IfI", 4, 0.5, 2)
    assert (
        build(Fn.ADD_TO_DATA_DEFINITION, 3, "PLANE BANK DEGREES", "radians", DataType.FLOAT64, 0.5, 2)
        == header(16 + 4 + 512 + 12, 0x0C) + body
    )


def test_add_to_data_definition_string_without_units():
    # units null -> 256 NUL bytes (RawBuffer.ts:319-328)
    pkt = build(Fn.ADD_TO_DATA_DEFINITION, 1, "ATC ID", None, DataType.STRING32)
    assert pkt[16 + 4 + 256 : 16 + 4 + 512] == b"\0" * 256
    assert pkt[-12:] == struct.pack("<IfI", 6, 0.0, 0xFFFFFFFF)


def test_request_data_on_sim_object():
    # SimConnectConnection.ts:448-467: request, define, object, period, flags, origin, interval, limit
    body = struct.pack("<8I", 7, 1, 0, 3, 3, 0, 0, 0)
    assert build(Fn.REQUEST_DATA_ON_SIM_OBJECT, 7, 1, 0, Period.SIM_FRAME, 3) == header(48, 0x0E) + body


def test_subscribe_to_system_event():
    # SimConnectConnection.ts:632-638
    assert build(Fn.SUBSCRIBE_TO_SYSTEM_EVENT, 4, "Crashed") == header(276, 0x17) + struct.pack("<I", 4) + s(
        "Crashed", 256
    )


def test_unsubscribe_from_system_event():
    # SimConnectConnection.ts:644-649
    assert build(Fn.UNSUBSCRIBE_FROM_SYSTEM_EVENT, 4) == header(20, 0x18) + struct.pack("<I", 4)


def test_map_client_event_to_sim_event():
    # SimConnectConnection.ts:273-279
    assert build(Fn.MAP_CLIENT_EVENT_TO_SIM_EVENT, 20, "PAUSE_ON") == header(276, 0x04) + struct.pack("<I", 20) + s(
        "PAUSE_ON", 256
    )


def test_transmit_client_event_with_negative_data():
    # SimConnectConnection.ts:285-299: objectId, eventId, data, groupId, flags (u32 each)
    assert build(Fn.TRANSMIT_CLIENT_EVENT, 0, 20, -1, 1, 0x10) == header(36, 0x05) + struct.pack(
        "<5I", 0, 20, 0xFFFFFFFF, 1, 0x10
    )


def test_set_data_on_sim_object():
    # SimConnectConnection.ts:498-534 (raw buffer form): define, object, flags, arrayCount, unitSize, data
    data = struct.pack("<dd", 2500.0, 1.5)
    assert (
        build(Fn.SET_DATA_ON_SIM_OBJECT, 5, 0, data)
        == header(16 + 20 + 16, 0x10) + struct.pack("<5I", 5, 0, 0, 1, 16) + data
    )


def test_flight_load():
    # SimConnectConnection.ts:1249-1254: fileName in MAX_PATH (260) bytes
    assert build(Fn.FLIGHT_LOAD, r"C:\f\T03.FLT") == header(276, 0x3D) + s(r"C:\f\T03.FLT", 260)


def test_send_ids_count_up_per_call():
    t = TcpTransport("127.0.0.1", 1)
    ids = [t.encode(Fn.CLEAR_DATA_DEFINITION, i)[0] for i in range(3)]
    assert ids == [1, 2, 3]


def test_a_name_too_long_or_not_latin1_is_refused():
    with pytest.raises(w.WireError, match="at most 255"):
        w.subscribe_system_event_body(1, "x" * 256)
    with pytest.raises(w.WireError, match="latin-1"):
        w.map_client_event_body(1, "ÉVÉNEMENT€")


def test_server_messages_parse():
    # RecvOpen.ts:26-38, RecvException.ts:13-17, RecvEvent.ts:11-15, RecvSimObjectData.ts:22-31
    body = s("KittyHawk", 256) + struct.pack("<10I", 11, 0, 62651, 3, 11, 0, 62651, 3, 0, 0)
    proto, msg = w.parse_message(w.server_message(5, 2, body))
    assert proto == 5 and msg == w.RecvOpen("KittyHawk", (11, 0, 62651, 3), (11, 0, 62651, 3))
    assert w.parse_message(w.server_message(5, 1, struct.pack("<3I", 7, 12, 2)))[1] == w.RecvException(7, 12, 2)
    assert w.parse_message(w.server_message(5, 4, struct.pack("<3I", 0xFFFFFFFF, 3, 1)))[1] == w.RecvEvent(
        0xFFFFFFFF, 3, 1
    )
    d = w.parse_message(w.server_message(5, 8, struct.pack("<7I", 1, 1, 2, 0, 1, 1, 1) + struct.pack("<d", 3.5)))[1]
    assert d.request_id == 1 and d.define_id == 2 and w.decode_untagged(d.data, [DataType.FLOAT64]) == [3.5]
    with pytest.raises(w.WireError, match="truncated"):
        w.parse_message(w.server_message(5, 1, b"\0\0"))


@settings(derandomize=True, max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(0, 40), min_size=1, max_size=8), cuts=st.lists(st.integers(1, 64), max_size=30))
def test_frame_splitter_reassembles_any_chunking(sizes, cuts):
    frames = [w.server_message(5, 8, bytes([i % 251]) * n) for i, n in enumerate(sizes)]
    stream = b"".join(frames)
    out, i = [], 0
    sp = w.FrameSplitter()
    for c in cuts + [len(stream)]:
        out += sp.feed(stream[i : i + c])
        i += c
    assert out == frames and sp.pending_bytes == 0


def test_frame_splitter_rejects_a_stream_out_of_step():
    with pytest.raises(w.WireError, match="out of step"):
        w.FrameSplitter().feed(struct.pack("<I", 3) + b"\0" * 8)
