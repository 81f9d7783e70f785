"""The state ports speak what the shared FlightGear clients (`fgproto`) expect."""

import socket
import threading

import pytest

from simbridge._task import load_task
from simbridge.adapters.fgproto import TelnetProps, UdpReceiver
from simbridge.adapters.jsbsim.cockpit._controls import Controls
from simbridge.adapters.jsbsim.cockpit._fdm import FlightModel
from simbridge.adapters.jsbsim._mapping import to_canonical
from simbridge.adapters.jsbsim.cockpit._props import PropertyTree
from simbridge.adapters.jsbsim._scenario import from_task
from simbridge.adapters.jsbsim._mapping import default_protocol
from simbridge.adapters.jsbsim.cockpit._server import PROTOCOL_FILE, GenericSender, TelnetServer


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


class _Loop:
    """A server of its own, polled on one thread that also publishes what it is given (the
    cockpit loop does both on its one thread)."""

    def __init__(self) -> None:
        import queue

        c = Controls()
        self.model = FlightModel(from_task(load_task("T09")), c)
        self.tree = PropertyTree(self.model, c, {"frame_rate": 25.0})
        self.server = TelnetServer(self.tree, 0)
        self.outbox: queue.Queue = queue.Queue()
        self._stop = threading.Event()
        self._th = threading.Thread(target=self._run, daemon=True)
        self._th.start()

    def _run(self) -> None:
        import queue

        while not self._stop.is_set():
            try:
                while True:
                    self.server.publish(self.outbox.get_nowait())
            except queue.Empty:
                pass
            self.server.poll(0.005)

    def close(self) -> None:
        self._stop.set()
        self._th.join(2)
        self.server.close()


def _wait(pred, timeout_s=5.0):
    import time

    end = time.monotonic() + timeout_s
    while not pred():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


def test_stream_connection_gets_every_packet_and_answers_nothing_else():
    from simbridge.adapters.fgproto import TcpStreamReceiver
    from simbridge.adapters.jsbsim.cockpit._server import GenericPacket
    from simbridge.adapters.jsbsim._session import STREAM_REQUEST

    loop = _Loop()
    packets = GenericPacket(loop.tree)
    try:
        with (
            TcpStreamReceiver(default_protocol(), "127.0.0.1", loop.server.port, request=STREAM_REQUEST) as rx,
            TelnetProps("127.0.0.1", loop.server.port, timeout_s=5) as control,
        ):
            _wait(lambda: loop.server.n_streams == 1)
            sent = []
            for _ in range(200):
                loop.model.step()  # stepped and read on this thread; the loop thread only sends bytes
                loop.outbox.put(packets.packet())
                sent.append(loop.model.sim_time_s)
            _wait(lambda: rx.n_packets == 200)
            got = [t for t, _ in rx.drain()]
            assert got == pytest.approx(sent, abs=1e-3) and rx.n_bad == 0 and rx.failed is None
            # an ordinary connection next to it still answers, and gets no packets
            assert control.get("/sim/aircraft") == "c172x"
    finally:
        loop.close()


def test_a_server_that_refuses_the_stream_fails_the_receiver():
    from simbridge._errors import HarnessError
    from simbridge.adapters.fgproto import TcpStreamReceiver

    loop = _Loop()
    try:
        rx = TcpStreamReceiver(
            default_protocol(), "127.0.0.1", loop.server.port, request=b"data\r\nsubscribe-all\r\n"
        ).start()
        _wait(lambda: rx.failed is not None)
        assert "refused" in rx.failed and "unknown command" in rx.failed
        with pytest.raises(HarnessError, match="refused"):
            rx.wait_first(1)
        rx.close()
    finally:
        loop.close()
