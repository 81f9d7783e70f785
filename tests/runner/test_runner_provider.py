"""The local provider: a private Xvfb on a free display; everything it started dies with stop()."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from simbridge._errors import SimbridgeError
from simbridge._providers import LocalProvider, make_provider
from support.runner import needs_xvfb, pid_alive, run_simbridge

pytestmark = [needs_xvfb, pytest.mark.display]


def test_two_providers_get_distinct_displays_and_clean_up(tmp_path):
    a, b = LocalProvider(), LocalProvider()
    sa, sb = a.start(tmp_path / "a"), b.start(tmp_path / "b")
    try:
        assert sa.display != sb.display
        assert sa.env["DISPLAY"] == sa.display and not sa.isolated and sa.provider == "local"
        # a process that forks its own children: the whole group must go
        p = sa.spawn(["sh", "-c", "sleep 300 & sleep 300 & wait"], name="forker")
        child_pids = []
        for _ in range(50):
            out = subprocess.run(["pgrep", "-g", str(p.pid)], capture_output=True, text=True).stdout.split()
            child_pids = [int(x) for x in out if int(x) != p.pid]
            if len(child_pids) >= 2:
                break
            import time

            time.sleep(0.1)
        assert len(child_pids) >= 2
        xvfb_a = sa.info["xvfb_pid"]
        r = subprocess.run(["xdpyinfo", "-display", sa.display], capture_output=True, text=True)
        assert "1280x800" in r.stdout
    finally:
        a.stop()
        b.stop()
    assert not pid_alive(xvfb_a) and not pid_alive(sb.info["xvfb_pid"])
    assert not pid_alive(p.pid) and not [c for c in child_pids if pid_alive(c)]
    a.stop()  # idempotent


def test_stop_runs_at_interpreter_exit(tmp_path):
    code = (
        "from simbridge._providers import LocalProvider\n"
        f"p = LocalProvider(); sb = p.start({str(tmp_path)!r})\n"
        "print(sb.info['xvfb_pid'], sb.spawn(['sleep', '300']).pid, flush=True)\n"
        "raise SystemExit(0)  # no stop(): atexit must do it\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    pids = [int(x) for x in r.stdout.split()]
    assert len(pids) == 2, r.stderr
    assert not [p for p in pids if pid_alive(p)]


def test_unknown_provider_and_state_ports():
    from simbridge import load_task
    from simbridge._providers import state_ports
    from simbridge.adapters.jsbsim import JSBSimSession

    with pytest.raises(SimbridgeError, match="unknown provider"):
        make_provider("cloud9")
    # T09's lockdown (SimConnect 500/2048) plus the JSBSim cockpit's own telnet port
    assert state_ports(load_task("T09"), JSBSimSession) == ([500, 2048, 5401], [])
    assert make_provider("netns", task=load_task("T09"), session_cls=JSBSimSession).state_tcp == [500, 2048, 5401]


def test_clear_cli_errors(tmp_path):
    r = run_simbridge("run", "T09", "--sim", "carla", "--agent", "noop")
    assert r.returncode == 2 and "not 'carla'" in r.stderr and "Traceback" not in r.stderr
    r = run_simbridge(
        "run", "T04", "--sim", "doubles.toy_sim:ToySimSession", "--agent", "reference", "--out", str(tmp_path)
    )
    assert r.returncode == 2 and "no reference pilot for task T04" in r.stderr
    if not os.path.exists("/usr/bin/x11vnc"):
        r = run_simbridge(
            "run", "T09", "--sim", "doubles.toy_sim:ToySimSession", "--agent", "human", "--out", str(tmp_path)
        )
        assert r.returncode == 2 and "x11vnc" in r.stderr
