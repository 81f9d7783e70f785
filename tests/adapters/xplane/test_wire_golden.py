"""Golden bytes for every XPC and native UDP message, worked out by hand from the layouts.

Float32/64 little-endian constants used below:
  1.0f = 00 00 80 3f   2.0f = 00 00 00 40   0.5f = 00 00 00 3f   -1.0f = 00 00 80 bf
  -2.0f = 00 00 00 c0   -998.0f = 00 80 79 c4  (sign 1, exponent 127+9, mantissa 998/512-1)
  1.0d = 00 00 00 00 00 00 f0 3f   2.0d = 00 .. 00 40   0.5d = 00 .. e0 3f
"""

import pytest

from simbridge.adapters.xplane import _fms, _udp_wire as u, _xpc_wire as x

F1, F2, FH, FM1, FM2, F998 = (
    bytes.fromhex(h) for h in ("0000803f", "00000040", "0000003f", "000080bf", "000000c0", "008079c4")
)
D1, D2, DH = (bytes.fromhex(h) for h in ("000000000000f03f", "0000000000000040", "000000000000e03f"))


# --------------------------------------------------------------------------- XPlaneConnect


def test_conn():
    assert x.encode_conn(49008) == b"CONN\x00\x70\xbf"  # 49008 = 0xbf70


def test_conf_reply():
    assert x.decode_conf(b"CONF\x00\x07") == 7
    with pytest.raises(x.XpcWireError):
        x.decode_conf(b"RESP\x00\x07")


def test_simu():
    assert x.encode_simu(1) == b"SIMU\x00\x01"
    assert x.encode_simu(205) == b"SIMU\x00\xcd"
    with pytest.raises(x.XpcWireError):
        x.encode_simu(3)


def test_dref_two_datarefs():
    got = x.encode_dref([("sim/a", [1.0]), ("b", [2.0, -1.0])])
    assert got == b"DREF\x00" + b"\x05sim/a" + b"\x01" + F1 + b"\x01b" + b"\x02" + F2 + FM1


def test_getd_and_resp():
    assert x.encode_getd(["ab", "c"]) == b"GETD\x00\x02\x02ab\x01c"
    assert x.encode_getd([]) == b"GETD\x00\x00"  # repeat last request
    reply = b"RESP\x00\x02" + b"\x01" + F1 + b"\x02" + F2 + FM1
    assert x.decode_resp(reply) == [[1.0], [2.0, -1.0]]
    with pytest.raises(x.XpcWireError):
        x.decode_resp(reply[:-2])


def test_posi_46_bytes():
    got = x.encode_posi(1.0, 2.0, 0.5, 1.0, -1.0, 2.0, gear=-1.0, aircraft=0)
    assert got == b"POSI\x00\x00" + D1 + D2 + DH + F1 + FM1 + F2 + FM1
    assert len(got) == 46


def test_getp_and_posi_reply():
    assert x.encode_getp(0) == b"GETP\x00\x00"
    reply = b"POSI\x00\x01" + D1 + D2 + DH + F1 + FM1 + F2 + F1
    p = x.decode_posi(reply)
    assert (p.gear_handle, p.lat_deg, p.lon_deg, p.elev_m_msl, p.roll_deg, p.gear) == (1, 1.0, 2.0, 0.5, -1.0, 1.0)


def test_ctrl_31_bytes_with_unchanged_marker():
    got = x.encode_ctrl(elevator=0.5)
    assert got == b"CTRL\x00" + FH + F998 + F998 + F998 + b"\xff" + F998 + b"\x00" + F998
    assert len(got) == 31


def test_getc_and_ctrl_reply():
    assert x.encode_getc(2) == b"GETC\x00\x02"
    c = x.decode_ctrl(b"CTRL\x00" + FH + F1 + FM1 + F1 + b"\x01" + FH + b"\x00" + F2)
    assert (c.elevator, c.aileron, c.rudder, c.throttle, c.gear, c.flaps, c.aircraft, c.speedbrake) == (
        0.5,
        1.0,
        -1.0,
        1.0,
        1,
        0.5,
        0,
        2.0,
    )


def test_text():
    assert x.encode_text("Hi", 10, 20) == b"TEXT\x00" + b"\x0a\x00\x00\x00" + b"\x14\x00\x00\x00" + b"\x02Hi"
    assert x.encode_text("") == b"TEXT\x00" + b"\xff" * 8 + b"\x00"  # x = y = -1, length 0 clears


def test_wypt_count_is_number_of_points():
    got = x.encode_wypt(x.WYPT_ADD, [(1.0, 2.0, 0.5), (2.0, 1.0, 0.5)])
    assert got[:7] == b"WYPT\x00\x01\x02"  # 2 points, not 6 floats
    assert got[7:] == F1 + F2 + FH + F2 + F1 + FH
    assert x.encode_wypt(x.WYPT_CLEAR, []) == b"WYPT\x00\x03\x00"


def test_view():
    assert x.encode_view(73) == b"VIEW\x00\x49\x00\x00\x00"


def test_comm():
    assert x.encode_comm(["a/b", "cd"]) == b"COMM\x00\x03a/b\x02cd"


def test_message_size_limit():
    with pytest.raises(x.XpcWireError):
        x.encode_getd(["x" * 200] * 30)  # 30 * 201 + 6 > 4096


# --------------------------------------------------------------------------- native UDP


def test_rref_request_413_bytes():
    got = u.encode_rref(50, 3, "sim/x")
    assert got == b"RREF\x00" + b"\x32\x00\x00\x00" + b"\x03\x00\x00\x00" + b"sim/x" + b"\x00" * 395
    assert len(got) == 413
    assert u.decode_rref_request(got) == (50, 3, "sim/x")


def test_rref_unsubscribe_is_frequency_zero():
    assert u.encode_rref(0, 7, "a[2]")[5:13] == b"\x00\x00\x00\x00\x07\x00\x00\x00"


def test_rref_reply():
    data = b"RREF," + b"\x03\x00\x00\x00" + F1 + b"\x01\x00\x00\x00" + FM2
    assert u.decode_rref(data) == [(3, 1.0), (1, -2.0)]
    assert u.decode_rref(b"RREFO" + b"\x03\x00\x00\x00" + F1) == [(3, 1.0)]  # X-Plane 10 header
    assert u.encode_rref_reply([(3, 1.0), (1, -2.0)]) == data
    with pytest.raises(u.UdpWireError):
        u.decode_rref(data[:-1])


def test_dref_509_bytes():
    got = u.encode_dref(1.0, "sim/x")
    assert got == b"DREF\x00" + F1 + b"sim/x" + b"\x00" * 495
    assert len(got) == 509
    assert u.decode_dref(got) == (1.0, "sim/x")


def test_cmnd():
    assert u.encode_cmnd("sim/operation/pause_toggle") == b"CMND\x00sim/operation/pause_toggle"


def test_becn():
    data = (
        b"BECN\x00"
        + b"\x01\x02"
        + b"\x01\x00\x00\x00"
        + b"\x50\xd6\x01\x00"  # version 120400 = 0x1d650
        + b"\x01\x00\x00\x00"
        + b"\x68\xbf"
        + b"host\x00"
        + b"\x72\xbf"
    )  # port 49000, RakNet 49010
    b = u.decode_becn(data)
    assert (b.major, b.minor, b.host_id, b.version, b.role, b.port, b.hostname, b.raknet_port) == (
        1,
        2,
        1,
        120400,
        1,
        49000,
        "host",
        49010,
    )
    assert u.encode_becn(b) == data
    assert u.decode_becn(data[:-2]).raknet_port is None  # 10.40-style beacon without the RakNet port


def test_name_too_long():
    with pytest.raises(u.UdpWireError):
        u.encode_rref(1, 0, "x" * 400)


# --------------------------------------------------------------------------- FMS probe (simbridge's own layout)


def test_fms_probe_layout():
    e = _fms.FmsEntry(0, 512, "OSI", 17, 7500, 1.0, 2.0)
    got = _fms.encode_fmsl([e], 0)
    assert got == (
        b"FMSL\x00"
        + b"\x01\x00\x00\x00"
        + b"\x00\x00\x00\x00"
        + b"\x00\x02\x00\x00"
        + b"\x11\x00\x00\x00"
        + b"\x4c\x1d\x00\x00"
        + F1
        + F2
        + b"\x03OSI"
    )
    assert _fms.decode_fmsl(got) == ([e], 0)
