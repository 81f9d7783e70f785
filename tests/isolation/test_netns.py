"""The netns sandbox on the real kernel: firewall, reachability, audit, cleanup (needs root)."""

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from simbridge._errors import HarnessError

pytestmark = [pytest.mark.root]

if os.geteuid() != 0:
    pytest.skip("network namespaces need root", allow_module_level=True)

from simbridge._isolation import NetnsSandbox, cleanup_stale, list_namespaces, sandbox_python  # noqa: E402
from simbridge._isolation._netns import SIM_USER, Netns  # noqa: E402

try:
    PY = sandbox_python()
except HarnessError as exc:  # the dev venv under /root; CI's venv is built from /usr/bin/python3
    pytest.skip(str(exc), allow_module_level=True)

LISTEN = """
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1]))); s.listen()
while True:
    c, _ = s.accept(); c.sendall(sys.argv[2].encode()); c.close()
"""

STATE, AGENT, OTHER = 5401, 8765, 7777


def _connect(addr, port, timeout=3.0):
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection((addr, port), timeout=1) as c:
                return c.recv(16)
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


@pytest.fixture
def sandbox():
    with NetnsSandbox(state_tcp=[STATE], agent_port=AGENT) as sb:
        sb.spawn([PY, "-c", LISTEN, str(STATE), "state"])  # the simulator's state port
        sb.spawn([PY, "-c", LISTEN, str(AGENT), "agent"], user="simbridge-agent")  # the agent port
        sb.spawn([PY, "-c", LISTEN, str(OTHER), "other"])  # some other local service
        _connect(sb.sandbox_addr, STATE)
        yield sb


def _probe_inside(sb, user, addr, port):
    code = f"import socket,errno\ntry:\n socket.create_connection(('{addr}',{port}),timeout=1).close(); print('open')\nexcept OSError as e: print(errno.errorcode.get(e.errno, str(e)))"
    p = sb.spawn([PY, "-c", code], user=user, stdout=subprocess.PIPE, text=True)
    return p.communicate(timeout=10)[0].strip()


def test_state_port_only_from_host_side(sandbox):
    sb = sandbox
    assert _connect(sb.sandbox_addr, STATE) == b"state"  # host side reaches the simulator
    assert _connect(sb.sandbox_addr, AGENT) == b"agent"  # and the agent port
    # from inside, as the agent user: nothing, not even loopback
    for addr in ("127.0.0.1", sb.sandbox_addr, sb.host_addr):
        assert _probe_inside(sb, "simbridge-agent", addr, STATE) != "open"
    # the simulator user itself cannot use loopback to the state port either (dropped)
    assert _probe_inside(sb, SIM_USER, "127.0.0.1", STATE) != "open"
    # positive control: the probe does see an open path where there is one (root, other port)
    assert _probe_inside(sb, None, "127.0.0.1", OTHER) == "open"
    # a port the firewall does not open is closed to the host too
    with pytest.raises(OSError):
        socket.create_connection((sb.sandbox_addr, OTHER), timeout=1).close()


def test_audit_passes_and_sees_open_paths(sandbox):
    rep = sandbox.audit([(STATE, "tcp", "state"), (OTHER, "tcp", "other")])
    assert rep["ok"], rep["problems"]
    assert rep["user"] == "simbridge-agent"
    assert {p["result"] for p in rep["probes"]} == {"blocked"}
    assert len(rep["probes"]) >= 3 * 14


def test_extra_x_client_fails_audit(sandbox):
    sb = sandbox
    # a client the harness did not start (e.g. a terminal the agent opened) connects to the display
    intruder = subprocess.Popen(
        sb.ns.argv(
            [
                "env",
                f"DISPLAY={sb.display}",
                PY,
                "-c",
                "from Xlib import display; import time; d = display.Display(); d.sync(); time.sleep(60)",
            ]
        ),
        start_new_session=True,
    )
    try:
        time.sleep(1.5)
        rep = sb.audit([(STATE, "tcp", "state")])
        assert not rep["ok"]
        assert any(not c["allowed"] for c in rep["x_clients"])
        assert any("unexpected X client" in p for p in rep["problems"])
    finally:
        os.killpg(intruder.pid, signal.SIGKILL)
        intruder.wait()


def test_everything_removed_after_close():
    with NetnsSandbox(state_tcp=[STATE]) as sb:
        name, host_if = sb.ns.name, sb.ns.record.host_if
        assert name in list_namespaces()
    assert name not in list_namespaces()
    assert host_if not in subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout


RUNNER = """
import sys, time
from simbridge._isolation import NetnsSandbox
sb = NetnsSandbox(state_tcp=[5401]).__enter__()
print(sb.ns.name, flush=True)
time.sleep(120)
"""


def test_kill_9_of_runner_removes_namespace():
    p = subprocess.Popen([sys.executable, "-c", RUNNER], stdout=subprocess.PIPE, text=True)
    name = p.stdout.readline().strip()
    assert name in list_namespaces()
    p.send_signal(signal.SIGKILL)
    p.wait()
    deadline = time.monotonic() + 15
    while name in list_namespaces() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert name not in list_namespaces()


def test_cleanup_removes_stale_namespace():
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    ns = Netns.create(owner_pid=dead.pid)  # no reaper: as if the runner died before starting it
    assert ns.name in list_namespaces()
    removed = cleanup_stale()
    assert ns.name in removed and ns.name not in list_namespaces()


def test_audit_command(capsys):
    from simbridge._cli import main

    assert main(["audit", "--provider", "netns", "--task", "T09", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["ok"] and rep["host_side"] == {"tcp/500": "reachable", "tcp/2048": "reachable"}
