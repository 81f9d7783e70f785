"""The VM sandbox on real QEMU: build the guest image, boot an overlay, audit inside, tear down.

Slow (the image build runs debootstrap and fetches wheels: several minutes, once per machine;
the boot takes 1-3 minutes under software emulation), so it runs only where the image already
exists or SIMBRIDGE_VM_TESTS=1 asks for the build (the `image` fixture in conftest.py). CI sets it.
"""

import time
from pathlib import Path

import pytest

from simbridge import load_task
from simbridge._isolation import USUAL_PORTS
from simbridge._vm import VmProvider
from simbridge.adapters.jsbsim import JSBSimSession

pytestmark = [pytest.mark.vm, pytest.mark.slow, pytest.mark.root]

_CONNECT = """
import socket, sys
s = socket.socket(); s.settimeout(2)
try:
    s.connect((sys.argv[1], int(sys.argv[2]))); print("open")
except socket.timeout:
    print("dropped")
except OSError as exc:
    print(type(exc).__name__)
"""


def test_guest_boots_isolated_and_audited(image, tmp_path):
    prov = VmProvider(image_dir=image, state_tcp=[5401])
    try:
        sb = prov.start(tmp_path)
        assert sb.isolated and sb.harness_addr is None  # nothing in the guest reaches the host
        # the host reaches the guest's display through a forwarded loopback port
        from Xlib import display

        d = display.Display(sb.display)
        assert (d.screen().width_in_pixels, d.screen().height_in_pixels) == (1280, 800)
        d.close()
        report = prov.audit([(p, proto, svc) for p, proto, svc in USUAL_PORTS] + [(5401, "tcp", "jsbsim telnet")])
        assert report["ok"], report["problems"]
        assert report["user"] == "simbridge-agent"
        targets = {p["addr"] for p in report["probes"]}
        assert {"127.0.0.1", "10.0.2.2", "10.0.2.15"} <= targets  # loopback, the host (gateway), itself
        assert all(p["result"] == "blocked" for p in report["probes"])
        # the supervisor runs processes as the sandbox users, not root
        out = prov.vm.request("run", argv=["id", "-un"], user="sim")
        assert out["stdout"].strip() == "simbridge-sim"
        # even the simulator user cannot reach the X server or a state port over the guest's
        # loopback TCP: X clients in the guest use the unix socket (so the audit sees their pid)
        for port in (6000, 5401):
            r = prov.vm.request("run", argv=[sb.python, "-c", _CONNECT, "127.0.0.1", str(port)], user="sim")
            assert r["stdout"].strip() == "dropped", (port, r)
        # no host connection to the display at audit time, and no X client but the audit itself
        assert report["host_x_connections"] == 0
        assert [c for c in report["x_clients"] if "_audit.py" not in c["command"]] == []
        overlay = Path(tmp_path) / "vm" / "overlay.qcow2"
        assert overlay.exists()
        _guest_that_stops_answering_is_a_lost_simulator(prov, sb)
    finally:
        prov.stop()
    assert not overlay.exists()  # reset = a new overlay next time


def _guest_that_stops_answering_is_a_lost_simulator(prov, sb):
    """The embedded simulator in the guest streams its state out over the forwarded state port;
    when the whole guest stops (QEMU's CPUs halted) the session says so within seconds, and
    stopping it does not wait out every timeout."""
    session = JSBSimSession()
    try:
        session.start(load_task("T09"), sb)
        assert session.telemetry_mode == "tcp-stream"
        samples, end = [], time.monotonic() + 3
        while time.monotonic() < end:
            samples += session.poll()
            time.sleep(0.05)
        assert len(samples) > 30 and session.alive()
        prov.vm._monitor("stop")
        t0 = time.monotonic()
        while session.alive() and time.monotonic() - t0 < 30:
            session.poll()
            time.sleep(0.1)
        assert not session.alive() and time.monotonic() - t0 < 8
    finally:
        t1 = time.monotonic()
        session.stop()
    assert time.monotonic() - t1 < 20
