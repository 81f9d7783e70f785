"""Episodes on the netns provider: audited, isolated, scored, and torn down (needs root)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simbridge._errors import HarnessError

pytestmark = [pytest.mark.root, pytest.mark.slow]

if os.geteuid() != 0:
    pytest.skip("network namespaces need root", allow_module_level=True)

from simbridge._isolation import list_namespaces, sandbox_python  # noqa: E402

try:
    sandbox_python()
except HarnessError as exc:
    pytest.skip(str(exc), allow_module_level=True)

from simbridge import read_bundle  # noqa: E402
from simbridge.episode import RunConfig, run  # noqa: E402


def _cfg(tmp_path, **kw):
    base = dict(task="T09", sim="jsbsim", agent="noop", provider="netns", time_limit_s=4, out=tmp_path, frame_hz=0)
    return RunConfig(**{**base, **kw}, say=lambda s: None)


def test_netns_episode_is_audited_isolated_and_scored(tmp_path):
    (res,) = run(_cfg(tmp_path))
    assert res.status == "timeout" and res.score.status == "scored" and res.score.score == 0.0
    ep = read_bundle(res.path).episode
    assert ep.unisolated is False and res.score.unisolated is False
    audit = ep.isolation["audit"]
    assert audit["ok"] and audit["user"] == "simbridge-agent"
    probed = {(p["port"], p["proto"]) for p in audit["probes"]}
    assert {(5401, "tcp"), (500, "tcp"), (2048, "tcp")} <= probed  # adapter + task lockdown ports
    assert all(p["result"] == "blocked" for p in audit["probes"])
    assert ep.sample_rate_hz and ep.sample_rate_hz >= 50  # telemetry crossed the veth link
    # nothing left behind (other tests on another worker have namespaces of their own meanwhile)
    assert ep.isolation["netns"].startswith("sb-") and ep.isolation["netns"] not in list_namespaces()


def test_failed_audit_refuses_the_episode_unless_unisolated(tmp_path, monkeypatch):
    from simbridge._providers._netns import NetnsProvider

    real = NetnsProvider.audit

    def failing(self, ports):
        rep = real(self, ports)
        rep["ok"] = False
        rep["problems"].append("unexpected X client pid 4242: xterm")
        return rep

    monkeypatch.setattr(NetnsProvider, "audit", failing)
    (res,) = run(_cfg(tmp_path / "strict"))
    assert res.status == "harness_error" and "isolation audit failed" in res.detail and "xterm" in res.detail
    assert res.score.status == "unscored"  # never scored as the agent's failure
    (res2,) = run(_cfg(tmp_path / "loose", unisolated=True))
    assert res2.status == "timeout" and res2.score.status == "scored" and res2.score.unisolated is True
    assert "audit_failed" in read_bundle(res2.path).episode.flags


def test_enabled_console_fails_the_audit(tmp_path, monkeypatch):
    from simbridge.adapters.jsbsim import JSBSimSession

    def console_on(self, names):
        return {"developer console": {"state": "enabled", "evidence": "stand-in: the adapter read it as on"}}

    monkeypatch.setattr(JSBSimSession, "check_consoles", console_on)
    (res,) = run(_cfg(tmp_path))
    assert res.status == "harness_error" and "in-sim console enabled: developer console" in res.detail
    assert res.score.status == "unscored"
    ep = read_bundle(res.path).episode
    assert ep.isolation["consoles"]["developer console"]["state"] == "enabled"


def _namespaces_owned_by(pid: int) -> set[str]:
    from simbridge._isolation._netns import PREFIX, STATE_DIR

    names = set()
    for f in STATE_DIR.glob(f"{PREFIX}*.json"):
        try:
            if json.loads(f.read_text()).get("owner_pid") == pid:
                names.add(f.stem)
        except (OSError, ValueError):
            continue  # removed or half-written meanwhile
    return names


def test_kill_9_of_runner_leaves_no_namespace(tmp_path):
    before = set(list_namespaces())
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "simbridge._cli",
            "run",
            "T09",
            "--sim",
            "jsbsim",
            "--agent",
            "noop",
            "--provider",
            "netns",
            "--out",
            str(tmp_path),
            "--frame-hz",
            "0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 120
    for line in p.stdout:
        if line.startswith("trial 1:") or time.monotonic() > deadline:
            break
    # the episode's own namespace, by its record's owner (the runner): other tests on another
    # worker make and remove namespaces of their own meanwhile
    ours = _namespaces_owned_by(p.pid)
    assert ours and ours <= set(list_namespaces()) - before, "the episode's namespace should exist while it runs"
    time.sleep(2)
    p.send_signal(signal.SIGKILL)
    p.wait()
    end = time.monotonic() + 20
    while ours & set(list_namespaces()) and time.monotonic() < end:
        time.sleep(0.2)
    assert not ours & set(list_namespaces())
    bundle = next(Path(tmp_path).glob("T09-*/trial-1"))
    out = subprocess.run(
        [sys.executable, "-m", "simbridge._cli", "verify", str(bundle), "--json"], capture_output=True, text=True
    )
    assert json.loads(out.stdout)["status"] == "unscored"


def test_drive_episode_on_netns_is_audited_with_its_window_on_the_sandbox_display(tmp_path):
    """The embedded driving simulator in the sandbox: its state port (8800) and CARLA's are
    blocked for the agent's user, its window is an allowed X client on the sandbox's display,
    the state stream crosses the namespace, and doing nothing on T18 scores 0."""
    (res,) = run(_cfg(tmp_path, task="T18", sim="drive", time_limit_s=5))
    assert res.status == "timeout" and res.score.status == "scored" and res.score.score == 0.0
    ep = read_bundle(res.path).episode
    audit = ep.isolation["audit"]
    assert audit["ok"] and audit["user"] == "simbridge-agent" and ep.unisolated is False
    probed = {(p["port"], p["proto"]) for p in audit["probes"]}
    assert {(8800, "tcp"), (2000, "tcp")} <= probed
    assert all(p["result"] == "blocked" for p in audit["probes"])
    world = [c for c in audit["x_clients"] if "simbridge.adapters.drive.world.sim" in c["command"]]
    assert world and all(c["allowed"] for c in world)
    assert ep.sim_info["video_driver"] == "x11"
    assert ep.sample_rate_hz and ep.sample_rate_hz >= 15  # 20 world steps a second, over the veth link
