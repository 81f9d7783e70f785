"""The state ports speak what the shared FlightGear clients (`fgproto`) expect."""

import socket
import threading

import pytest

from simbridge._task import load_task
from simbridge.adapters.fgproto import TelnetProps, UdpReceiver
from simbridge.adapters.jsbsim._controls import Controls
from simbridge.adapters.jsbsim._fdm import FlightModel
from simbridge.adapters.jsbsim._mapping import to_canonical
from simbridge.adapters.jsbsim._props import PropertyTree
from simbridge.adapters.jsbsim._scenario import from_task
from simbridge.adapters.jsbsim._server import PROTOCOL_FILE, GenericSender, TelnetServer, default_protocol


@pytest.fixture(scope="module")
def served():
    c = Controls()
    m = FlightModel(from_task(load_task("T16")), c)
    runs: list[str] = []

    def on_run(cmd):
        runs.append(cmd)
        return None if cmd in ("exit", "pause") else f"unknown command {cmd!r}"

    tree = PropertyTree(m, c, {"frame_rate": 25.0})
    server = TelnetServer(tree, 0, on_run=on_run)
    stop = threading.Event()

    def loop():
        while not stop.is_set():
            server.poll(0.01)
            m.step()

    th = threading.Thread(target=loop, daemon=True)
    th.start()
    yield m, c, tree, server, runs
    stop.set()
    th.join(2)
    server.close()


def test_fgproto_telnet_client_get_set_ls_run(served):
    m, c, tree, server, runs = served
    with TelnetProps("127.0.0.1", server.port, timeout_s=5) as fg:
        assert fg.get("/sim/aircraft") == "c172x"
        assert fg.get_float("/sim/signals/fdm-initialized") == 1.0
        t1, t2 = fg.get_floats(["/sim/time/elapsed-sec", "/sim/time/elapsed-sec"])
        assert t2 >= t1 >= 0
        fg.set("/instrumentation/comm[0]/frequencies/standby-mhz", 118.6)
        assert c.com1_stby_mhz == pytest.approx(118.6)
        fg.set_many({"/controls/switches/master-bat": True, "/instrumentation/transponder/mode": 3})
        assert (c.master_bat, c.xpdr_mode) == (1, 3)
        assert "switches/" in fg.ls("/controls")
        assert "master-bat" in fg.ls("/controls/switches")
        from simbridge._errors import HarnessError

        with pytest.raises(HarnessError):
            fg.get("/no/such/node")
        with pytest.raises(HarnessError):
            fg.set("/sim/crashed", 1)  # read-only
        fg.run("pause")
        assert runs[-1] == "pause"
        with pytest.raises(HarnessError):
            fg.run("reset")


def test_prompt_mode_answers_like_flightgear(served):
    *_, server, _ = served
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
        s.sendall(b"get /sim/aircraft\r\n")
        buf = b""
        while not buf.endswith(b"> "):
            buf += s.recv(4096)
        assert buf == b"/sim/aircraft = 'c172x' (string)\r\n/> "


def test_generic_packets_decode_with_the_shared_protocol(served):
    m, c, tree, *_ = served
    proto = default_protocol()
    assert PROTOCOL_FILE.read_text() == proto.render_xml(), "generic.xml is stale: regenerate it"
    with UdpReceiver(proto) as rx:
        sender = GenericSender(tree, "127.0.0.1", rx.port)
        for _ in range(5):
            sender.send()
        t, values = rx.wait_first(3)
        sender.close()
    assert rx.n_bad == 0
    assert t == pytest.approx(m.sim_time_s, abs=0.5)
    canon = to_canonical(values)
    assert canon["alt_msl_ft"] == pytest.approx(m.fdm["position/h-sl-ft"], abs=0.5)
    assert canon["on_ground"] == 1.0 and canon["engine_running"] == 0.0
    assert canon["xpdr_code"] == c.xpdr_code
