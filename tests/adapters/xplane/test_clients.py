"""The three clients against the protocol double on loopback (the double is not X-Plane)."""

import time

import pytest

from simbridge._errors import HarnessError
from simbridge.adapters.xplane import FmsProbeClient, UdpClient, WebApiClient, XpcClient, listen_beacon
from simbridge.adapters.xplane import _fms, _xpc_wire
from simbridge.adapters.xplane._transport import DatagramTransport

from doubles.xplane_double import XPlaneDouble


# --------------------------------------------------------------------------- XPlaneConnect


def test_xpc_round_trips(double):
    with XpcClient("127.0.0.1", double.xpc_port) as xpc:
        assert xpc.conn() == 0
        got = xpc.get_drefs(["sim/cockpit2/radios/actuators/transponder_code", "sim/flightmodel2/gear/deploy_ratio"])
        assert got["sim/cockpit2/radios/actuators/transponder_code"] == [1200.0]
        assert got["sim/flightmodel2/gear/deploy_ratio"] == [1.0, 1.0, 1.0]
        xpc.set_dref("sim/cockpit2/radios/actuators/transponder_code", 4521)
        xpc.send_ctrl(throttle=0.5)
        xpc.send_posi(47.5, -122.3, 500.0, 1.0, -2.0, 90.0)
        xpc.send_text("hello")
        xpc.send_wypt(_xpc_wire.WYPT_ADD, [(47.0, -122.0, 100.0), (47.1, -122.1, 200.0)])
        xpc.send_view(73)
        xpc.send_comm(["sim/operation/pause_toggle"])
        time.sleep(0.1)
        assert xpc.get_drefs(["sim/cockpit2/radios/actuators/transponder_code"])[
            "sim/cockpit2/radios/actuators/transponder_code"
        ] == [4521.0]
        ctrl = xpc.get_ctrl()
        assert ctrl.throttle == 0.5
        posi = xpc.get_posi()
        assert (posi.lat_deg, posi.lon_deg, posi.roll_deg, posi.true_heading_deg) == (47.5, -122.3, -2.0, 90.0)
        xpc.pause(0)
    assert double.text == "hello"
    assert len(double.waypoints) == 2
    assert double.view == 73
    assert "sim/operation/pause_toggle" in double.commands


def test_xpc_paces_itself_under_the_20_per_frame_limit():
    """The client assumes >= 20 fps; the double runs at 50 fps (margin for a loaded test machine)."""
    with XPlaneDouble(fps=50) as d, XpcClient("127.0.0.1", d.xpc_port, min_frame_s=1 / 20) as xpc:
        t0 = time.monotonic()
        for i in range(60):
            xpc.set_dref("sim/cockpit2/radios/actuators/transponder_code", float(i))
        assert time.monotonic() - t0 >= 2 * (1 / 20)  # 60 messages need at least 3 windows of 20
        time.sleep(0.3)
        assert d.xpc_overflows == 0
        assert d.d["sim/cockpit2/radios/actuators/transponder_code"] == 59.0


def test_unpaced_burst_loses_the_backlog_in_the_double():
    """The double enforces the plugin's limit: a raw burst of 60 in one frame drops the rest."""
    with XPlaneDouble(fps=2) as d:
        t = DatagramTransport("127.0.0.1", d.xpc_port)
        time.sleep(0.6)
        for i in range(60):
            t.send(_xpc_wire.encode_dref([("sim/cockpit2/radios/actuators/transponder_code", [float(i)])]))
        time.sleep(1.2)
        t.close()
        assert d.xpc_overflows >= 1
        assert d.d["sim/cockpit2/radios/actuators/transponder_code"] < 59.0


def test_xpc_timeout_raises_after_retries():
    silent = DatagramTransport("127.0.0.1", 9)  # a port nothing answers on
    port = silent.local_port
    silent.close()
    with XpcClient("127.0.0.1", port, timeout_s=0.05, retries=1) as xpc:
        t0 = time.monotonic()
        with pytest.raises(HarnessError, match="no RESP reply"):
            xpc.get_drefs(["sim/x"])
        assert 0.09 <= time.monotonic() - t0 < 1.0


# --------------------------------------------------------------------------- native UDP


def test_rref_subscribe_array_elements_and_unsubscribe(double):
    with UdpClient("127.0.0.1", double.udp_port) as udp:
        idx = udp.subscribe(
            ["sim/flightmodel2/gear/deploy_ratio[1]", "sim/cockpit2/radios/actuators/transponder_code"], 20
        )
        assert idx == {0: "sim/flightmodel2/gear/deploy_ratio[1]", 1: "sim/cockpit2/radios/actuators/transponder_code"}
        pkt = udp.receive(1.0)
        assert pkt is not None and pkt.values == {
            "sim/flightmodel2/gear/deploy_ratio[1]": 1.0,
            "sim/cockpit2/radios/actuators/transponder_code": 1200.0,
        }
        udp.set_dref("sim/cockpit2/radios/actuators/transponder_code", 7000)
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            pkt = udp.receive(0.5)
            if pkt and pkt.values.get("sim/cockpit2/radios/actuators/transponder_code") == 7000.0:
                break
        else:
            pytest.fail("DREF did not reach the double")
        udp.unsubscribe()
        time.sleep(0.2)
        while udp.receive(0.05):
            pass
        assert udp.receive(0.3) is None
    assert double.subs == {}


def test_rref_rate_is_respected(double):
    with UdpClient("127.0.0.1", double.udp_port) as udp:
        udp.subscribe(["sim/time/total_running_time_sec"], 25)
        udp.receive(1.0)
        t0, n = time.monotonic(), 0
        while time.monotonic() - t0 < 1.0:
            if udp.receive(0.2):
                n += 1
        assert 20 <= n <= 30


def test_cmnd_pauses_the_double(double):
    with UdpClient("127.0.0.1", double.udp_port) as udp:
        udp.command("sim/operation/pause_on")
        time.sleep(0.1)
        assert double.d["sim/time/paused"] == 1.0
        udp.command("sim/operation/pause_off")
        time.sleep(0.1)
        assert double.d["sim/time/paused"] == 0.0


def test_beacon_discovery_unicast():
    probe = DatagramTransport("127.0.0.1", 9)
    port = probe.local_port
    probe.close()
    with XPlaneDouble(beacon_to=("127.0.0.1", port), beacon_interval_s=0.1, web=False) as d:
        beacon, addr = listen_beacon(2.0, group=None, port=port, bind_host="127.0.0.1")
        udp_port = d.udp_port
    assert addr == "127.0.0.1"
    assert (beacon.port, beacon.hostname, beacon.version, beacon.raknet_port) == (
        udp_port,
        "xplane-double",
        124000,
        49010,
    )


# --------------------------------------------------------------------------- Web API


def test_webapi_rest_and_flight(double):
    with WebApiClient("127.0.0.1", double.http_port) as web:
        assert web.capabilities()["api"]["versions"][-1] == "v3"
        ids = web.dataref_ids(["sim/cockpit2/radios/actuators/transponder_code", "sim/flightmodel2/gear/deploy_ratio"])
        assert len(set(ids.values())) == 2
        assert web.get("sim/cockpit2/radios/actuators/transponder_code") == 1200.0
        assert web.get("sim/flightmodel2/gear/deploy_ratio", index=2) == 1.0
        web.set("sim/cockpit2/radios/actuators/transponder_code", 2200)
        assert double.d["sim/cockpit2/radios/actuators/transponder_code"] == 2200
        assert web.get("sim/aircraft/view/acf_ICAO")[:4] == [67.0, 49.0, 55.0, 50.0]  # "C172"
        web.command("sim/operation/pause_toggle")
        assert double.commands[-1] == "sim/operation/pause_toggle"
        with pytest.raises(HarnessError, match="unknown dataref"):
            web.dataref_ids(["sim/not/a/dataref"])
        web.start_flight(
            {"aircraft": {"path": "Aircraft/x.acf"}, "runway_start": {"airport_id": "KHAF", "runway": "30"}}
        )
        assert double.d["sim/flightmodel/position/psi"] == 300.0
        with pytest.raises(HarnessError, match="exactly one start key"):
            web.start_flight({"aircraft": {"path": "a"}, "runway_start": {}, "ramp_start": {}})


def test_webapi_websocket_subscription(double):
    with WebApiClient("127.0.0.1", double.http_port, ws_url=double.ws_url) as web:
        sub = web.subscribe(["sim/cockpit2/radios/actuators/transponder_code"])
        try:
            first = sub.updates(timeout_s=2.0)
            assert first == {"sim/cockpit2/radios/actuators/transponder_code": 1200.0}
            ids = web.dataref_ids(["sim/cockpit2/radios/actuators/transponder_code"])
            sub.set_values({ids["sim/cockpit2/radios/actuators/transponder_code"]: 4321})
            deadline = time.monotonic() + 2
            got = {}
            while time.monotonic() < deadline and not got:
                got = sub.updates(timeout_s=0.5)
            assert got == {"sim/cockpit2/radios/actuators/transponder_code": 4321}
        finally:
            sub.close()


# --------------------------------------------------------------------------- FMS probe


def test_fms_probe(double):
    double.fms_entries = [
        _fms.FmsEntry(0, 1, "KPAO", 0, 7, 37.46, -122.11),
        _fms.FmsEntry(1, 4, "OSI", 0, 7500, 37.39, -122.28),
    ]
    double.fms_destination = 1
    c = FmsProbeClient("127.0.0.1", double.fms_port)
    try:
        snap = c.snapshot()
    finally:
        c.close()
    assert [leg["ident"] for leg in snap["legs"]] == ["KPAO", "OSI"]
    assert snap["legs"][1]["kind"] == "vor" and snap["destination_index"] == 1
