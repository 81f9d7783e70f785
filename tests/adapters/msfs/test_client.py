"""SimConnectClient against the SimConnect double (not MSFS): handshake, data, events,
exceptions by send id, setup-only writes, quit and reconnect, split frames."""

import math
import time

import pytest
from doubles.simconnect_double import SimConnectDouble

from simbridge._errors import HarnessError
from simbridge.adapters.msfs import DataType, Datum, Period, Protocol, RequestFlag, SetupClosed


def wait_for(pred, timeout_s=10.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(0.01)
    raise AssertionError("condition not met in time")


@pytest.mark.parametrize("protocol,app", [(Protocol.KITTYHAWK, "KittyHawk"), (Protocol.SUNRISE, "SunRise")])
def test_open_handshake_for_msfs_2020_and_2024(double, client_for, protocol, app):
    c = client_for(double, protocol=protocol)
    server = c.open(5)
    assert server.application_name == app
    assert c.server_protocol == int(protocol)
    assert double.clients == ["simbridge-test"]


def test_open_against_a_non_simconnect_server_is_a_harness_error():
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    from simbridge.adapters.msfs import SimConnectClient, TcpTransport

    c = SimConnectClient(lambda: TcpTransport("127.0.0.1", s.getsockname()[1]))
    with pytest.raises(HarnessError, match="no Open reply"):
        c.open(0.5)
    s.close()


def test_sim_frame_data_in_requested_units(double, client_for):
    c = client_for(double)
    c.open(5)
    c.define(
        1,
        [
            Datum("PLANE BANK DEGREES", "radians"),
            Datum("PLANE BANK DEGREES", "degrees"),
            Datum("PLANE ALTITUDE", "meters"),
            Datum("PLANE ALTITUDE", "feet"),
            Datum("TRANSPONDER CODE:1", "BCO16", DataType.INT32),
            Datum("SIMULATION TIME", "number"),
            Datum("ATC ID", None, DataType.STRING32),
        ],
    )
    c.request(7, 1, Period.SIM_FRAME)
    frames = wait_for(lambda: c.frames(7) if c.received(7) >= 30 else None)
    rad, deg, alt_m, alt_ft, xpdr, t, atc = frames[-1].values
    assert deg == pytest.approx(math.degrees(rad))
    assert alt_ft == pytest.approx(alt_m / 0.3048)
    assert xpdr == 0x1200
    assert atc == "N172SB"
    native = double.script.values(t)
    assert rad == pytest.approx(native["bank"]) and alt_ft == pytest.approx(native["alt_ft"])
    times = [f.values[5] for f in frames]
    assert times == sorted(times) and len(set(times)) == len(times)  # one message per sim frame


def test_once_second_and_changed_tagged(double, client_for):
    c = client_for(double)
    c.open(5)
    c.define(
        2,
        [
            Datum("SIMULATION TIME", "number"),
            Datum("COM ACTIVE FREQUENCY:1", "MHz"),
            Datum("CRASH FLAG", "enum", DataType.INT32),
        ],
    )
    assert c.read_once(2, 50)[1] == pytest.approx(118.6)
    c.request(3, 2, Period.SIM_FRAME, RequestFlag.CHANGED | RequestFlag.TAGGED)
    first = wait_for(lambda: c.frames(3))
    assert first[0].values[1] == pytest.approx(118.6)  # the first message carries every datum
    later = wait_for(lambda: c.frames(3))
    assert later[-1].values[0] is not None and later[-1].values[1] is None  # only the clock changed
    c.request(4, 2, Period.SECOND)
    wait_for(lambda: c.received(4) >= 2, timeout_s=5)
    assert c.received(4) < 5


def test_exception_names_the_call_by_send_id(double, client_for):
    c = client_for(double)
    c.open(5)
    ids = c.define(1, [Datum("PLANE ALTITUDE", "feet"), Datum("PLANE BANK DEGREEZ", "degrees")])
    c.subscribe(9, "NotAnEvent")
    excs = wait_for(lambda: c.exceptions if len(c.exceptions) >= 2 else None)
    assert excs[0].send_id == ids[1] and excs[0].exception == "NAME_UNRECOGNIZED"
    assert "PLANE BANK DEGREEZ" in excs[0].call and "datum 1" in excs[0].call
    assert "NotAnEvent" in excs[1].call


def test_an_exception_answered_before_the_call_returns_still_names_it(double):
    """The server's reply can beat the client's bookkeeping of the call it answers."""
    from simbridge.adapters.msfs import SimConnectClient, TcpTransport

    class SlowReturn(TcpTransport):
        def call(self, fn, *args):
            send_id = super().call(fn, *args)
            time.sleep(0.3)  # the reader has the exception by now
            return send_id

    c = SimConnectClient(lambda: SlowReturn("127.0.0.1", double.port), app_name="simbridge-test")
    try:
        c.open(5)
        send_id = c.subscribe(9, "NotAnEvent")
        assert len(c.exceptions) == 1, "the exception should have arrived before subscribe returned"
        assert c.exceptions[0].send_id == send_id and "NotAnEvent" in c.exceptions[0].call
    finally:
        c.close()


def test_events_pause_crash_and_flight_loaded(client_for):
    d = SimConnectDouble(hz=60.0, crash_at_s=0.5).start()
    try:
        c = client_for(d)
        c.open(5)
        for i, name in enumerate(("Crashed", "Pause", "Sim", "FlightLoaded"), start=1):
            c.subscribe(i, name)
        c.map_event(20, "PAUSE_ON")
        c.map_event(21, "PAUSE_OFF")
        got = wait_for(lambda: [e for _, e in c.events if e.event_id == 1])
        assert got
        c.transmit_event(20)
        wait_for(lambda: d.paused)
        frame = d.frame
        time.sleep(0.1)
        assert d.frame == frame  # paused: no sim frames
        c.transmit_event(21)
        ev = wait_for(lambda: (lambda x: x if len(x) >= 2 else None)([e.data for _, e in c.events if e.event_id == 2]))
        assert ev == [1, 0]
        c.flight_load(r"C:\flights\T03.FLT")
        fl = wait_for(lambda: [e for _, e in c.events if e.event_id == 4])
        assert fl[0].filename == r"C:\flights\T03.FLT"
    finally:
        d.stop()


def test_set_data_only_during_setup(double, client_for):
    c = client_for(double)
    c.open(5)
    c.define(5, [Datum("PLANE ALTITUDE", "feet")])
    c.set_data(5, [2500.0])
    wait_for(lambda: double.sets)
    assert c.read_once(5, 51)[0] == pytest.approx(2500.0)
    c.end_setup()
    with pytest.raises(SetupClosed, match="setup is over"):
        c.set_data(5, [100.0])
    with pytest.raises(SetupClosed):
        c.flight_load("x.FLT")
    assert double.sets == [5]


def test_quit_then_reconnect_replays_definitions(double, client_for):
    c = client_for(double)
    c.open(5)
    c.define(1, [Datum("SIMULATION TIME", "number")])
    c.subscribe(1, "Pause")
    c.request(1, 1, Period.SIM_FRAME)
    wait_for(lambda: c.received(1) > 3)
    double.quit_all()
    wait_for(lambda: not c.connected)
    assert c.quit and "Quit" in c.lost
    n = c.received(1)
    c.reconnect(10)
    assert c.connected and c.reconnects == 1
    wait_for(lambda: c.received(1) > n + 3)


def test_frames_split_across_reads(client_for):
    d = SimConnectDouble(hz=60.0, split_writes=True).start()
    try:
        c = client_for(d)
        c.open(5)
        c.define(1, [Datum("PLANE LATITUDE", "degrees"), Datum("SIMULATION TIME", "number")])
        c.request(1, 1, Period.SIM_FRAME)
        frames = wait_for(lambda: c.frames(1) if c.received(1) >= 10 else None)
        for f in frames:
            assert f.values[0] == pytest.approx(d.script.values(f.values[1])["lat"])
    finally:
        d.stop()


def test_package_imports_on_linux_without_the_dll_package():
    import subprocess
    import sys

    code = (
        "import sys, simbridge.adapters.msfs as m; t = m.make_transport(None, None); "
        "print('SimConnect' in sys.modules, type(t).__name__, t.where)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    if sys.platform != "win32":
        assert r.stdout.split() == ["False", "TcpTransport", "127.0.0.1:2048"], r.stderr


def test_dll_transport_asked_for_off_windows_is_a_clear_error():
    import sys

    from simbridge.adapters.msfs import make_transport

    if sys.platform != "win32":
        with pytest.raises(HarnessError, match="needs Windows"):
            make_transport(None, None, prefer="dll")
    with pytest.raises(HarnessError, match="not one of auto, tcp, dll"):
        make_transport("h", 1, prefer="pipe")
