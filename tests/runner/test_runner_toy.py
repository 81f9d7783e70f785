"""`simbridge run` end to end on the toy test double (not a simulator; see tests/doubles/toy_sim.py):
statuses, scoring, frames and snapshots, lockstep, the MCP agent, and teardown on Ctrl-C and kill -9.

The toy runs its clock 4× faster than the wall clock; the expected scores follow from its toy
kinematics: holding Left for 3 s at 15°/s gives a 45° left bank, altitude and airspeed never
change, so bank, altitude and airspeed items are earned by construction.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time

import pytest

from simbridge import read_bundle
from simbridge._agent_port import connect
from support.runner import (
    TOY,
    episode,
    needs_xvfb,
    pid_alive,
    run_simbridge,
    runner_env,
    simbridge_cmd,
    trial_dirs,
    write_script,
)

pytestmark = [needs_xvfb, pytest.mark.display, pytest.mark.slow]

TURN = """
actions:
  - {at: 1.0, key: Left, hold_s: 3.0}
  - {at: 61.5, key: Right, hold_s: 3.0}
  - {at: 70.0, done: "turn complete"}
"""


def _wait_for(pred, timeout=60.0, what="condition"):
    t_end = time.monotonic() + timeout
    while time.monotonic() < t_end:
        v = pred()
        if v:
            return v
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def test_scripted_turn_is_recorded_and_scored(tmp_path):
    script = write_script(tmp_path / "turn.yaml", TURN)
    out = tmp_path / "runs"
    r = run_simbridge(
        "run", "T09", "--sim", TOY, "--agent", f"scripted:{script}", "--out", str(out), "--snapshot-at", "30"
    )
    assert r.returncode == 0, r.stderr
    [b] = trial_dirs(out)
    ep = episode(b)
    assert ep["status"] == "completed" and "turn complete" in ep["status_detail"]
    assert ep["unisolated"] is True and ep["sim"] == "toy"
    score = json.loads((b / "score.json").read_text())
    assert score["status"] == "scored", score
    earned = {c["name"]: c["earned"] for c in score["components"]}
    assert earned["bank_maintained"] == 1.0 and earned["altitude_held"] == 1.0 and earned["airspeed_held"] == 1.0
    assert "score" in r.stdout and "trial" in r.stdout
    bundle = read_bundle(b)
    assert bundle.signals["bank_deg"].min() < -40  # the held key reached the window through XTEST
    keys = [a for a in bundle.actions if a["kind"] == "key"]
    assert [k["args"]["keys"] for k in keys] == ["Left", "Right"]
    assert keys[0]["t"] >= 1.0 and keys[1]["t"] >= 61.5 and keys[0]["t_wall"] < keys[1]["t_wall"]
    assert (b / "snapshot_t30.png").read_bytes()[:4] == b"\x89PNG"
    assert len(list((b / "frames").glob("*.jpg"))) >= 30
    rec = ep["screen_recording"]  # what was saved, and what failed, is on record
    assert rec["frames"] == len(list((b / "frames").glob("*.jpg"))) and rec["snapshots"] == 1
    assert rec["capture_errors"] == 0 and rec["last_error"] is None
    manifest = json.loads((b / "manifest.json").read_text())["files"]
    assert {"score.json", "signals.parquet", "actions.jsonl", "episode.json"} <= set(manifest)
    v = run_simbridge("verify", str(b), "--json")
    assert json.loads(v.stdout)["score"] == score["score"]


def test_noop_times_out_and_scores_zero(tmp_path):
    out = tmp_path / "runs"
    r = run_simbridge(
        "run", "T09", "--sim", TOY, "--agent", "noop", "--out", str(out), "--time-limit", "20", "--frame-hz", "0"
    )
    assert r.returncode == 3, r.stderr  # scored, but the agent's failure (timed out)
    [b] = trial_dirs(out)
    ep = episode(b)
    assert ep["status"] == "timeout" and "time_limit_cut:20" in ep["flags"]
    score = json.loads((b / "score.json").read_text())
    assert score["status"] == "scored" and score["score"] == 0.0
    assert read_bundle(b).signals.t[-1] >= 19.5


def test_simulator_exit_is_a_harness_fault(tmp_path):
    script = write_script(tmp_path / "esc.yaml", "actions: [{at: 2, key: Escape}]\nend: wait\n")
    out = tmp_path / "runs"
    r = run_simbridge("run", "T09", "--sim", TOY, "--agent", f"scripted:{script}", "--out", str(out), "--frame-hz", "0")
    assert r.returncode == 4, r.stderr  # a trial unscored: a harness fault
    [b] = trial_dirs(out)
    assert episode(b)["status"] == "sim_crashed"
    assert "exit code 3" in episode(b)["status_detail"]
    score = json.loads((b / "score.json").read_text())
    assert score["status"] == "unscored" and "harness fault" in score["reason"]


def test_give_up_and_multiple_trials(tmp_path):
    script = write_script(tmp_path / "quit.yaml", "actions: [{at: 1, give_up: bored}]\n")
    out = tmp_path / "runs"
    r = run_simbridge(
        "run",
        "T09",
        "--sim",
        TOY,
        "--agent",
        f"scripted:{script}",
        "--out",
        str(out),
        "--trials",
        "2",
        "--frame-hz",
        "0",
    )
    assert r.returncode == 3, r.stderr
    dirs = trial_dirs(out)
    assert [d.name for d in dirs] == ["trial-1", "trial-2"]
    for d in dirs:
        assert episode(d)["status"] == "agent_quit" and "bored" in episode(d)["status_detail"]
    assert "SR" in r.stdout  # multi-trial metrics table


def test_lockstep_runs_exactly_the_requested_sim_time(tmp_path):
    script = write_script(
        tmp_path / "ls.yaml",
        """
actions:
  - {at: 2.0, key: Left, hold_s: 1.0}
  - {at: 5.0, key: x}
  - {at: 6.0, screenshot: png}
  - {at: 6.0, screenshot: png}
  - {at: 6.0, screenshot: png}
  - {at: 8.0, done: ok}
""",
    )
    out = tmp_path / "runs"
    r = run_simbridge(
        "run",
        "T09",
        "--sim",
        TOY,
        "--agent",
        f"scripted:{script}",
        "--out",
        str(out),
        "--lockstep",
        "--frame-hz",
        "0",
        time_scale=1.0,
    )
    assert r.returncode == 0, r.stderr
    [b] = trial_dirs(out)
    ep = episode(b)
    assert ep["status"] == "completed" and "lockstep" in ep["flags"]
    bundle = read_bundle(b)
    keys = [a for a in bundle.actions if a["kind"] == "key"]
    # the clock only moves inside actions: each key starts at its scheduled time, late by at most
    # the step in which the pause took effect (the toy's steps are ≤ 0.1 s of simulator time)
    assert 2.0 <= keys[0]["t"] <= 2.1 and 5.0 <= keys[1]["t"] <= 5.1
    # Left held for 1.0 s of simulator time at 15°/s: bank -15°, ± one step (0.1 s → 1.5°)
    bank = bundle.signals["bank_deg"]
    assert -16.5 <= bank.min() <= -13.5
    # observing does not advance the paused simulator: three screenshots in a row share one clock reading
    shots = [a["t"] for a in bundle.actions if a["kind"] == "screenshot"]
    assert len(shots) == 3 and len(set(shots)) == 1


def test_mcp_agent_drives_through_the_port(tmp_path):
    out = tmp_path / "runs"
    proc = subprocess.Popen(
        simbridge_cmd("run", "T09", "--sim", TOY, "--agent", "mcp", "--out", str(out), "--frame-hz", "0"),
        env=runner_env(4.0),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = token = None
        for line in proc.stderr:
            m = re.search(r"(http://127\.0\.0\.1:\d+/mcp)  token (\S+)", line)
            if m:
                url, token = m.group(1), m.group(2)
                break
        assert url and token
        client = connect(url, token=token)
        try:
            shot = client.screenshot("png", scale=0.5)
            assert (shot.width, shot.height) == (640, 400)
            _wait_for(lambda: client.elapsed() > 0.5, what="episode start")
            client.key("Left", hold_s=1.0)
            client.done("rolled")
        finally:
            client.close()
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, stderr
    [b] = trial_dirs(out)
    assert episode(b)["status"] == "completed" and "rolled" in episode(b)["status_detail"]
    bundle = read_bundle(b)
    assert [a["kind"] for a in bundle.actions] == ["screenshot", "key", "done"]
    assert bundle.signals["bank_deg"].min() < -5


def _like_a_terminal() -> None:
    """SIGINT as a foreground job in a terminal gets it: a test suite started in the background
    (`cmd &` in a script) inherits SIGINT ignored, and Python then installs no Ctrl-C handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_runner(tmp_path, script_text="actions: []\nend: wait\n"):
    script = write_script(tmp_path / "idle.yaml", script_text)
    out = tmp_path / "runs"
    proc = subprocess.Popen(
        simbridge_cmd(
            "run", "T09", "--sim", TOY, "--agent", f"scripted:{script}", "--out", str(out), "--frame-hz", "0"
        ),
        env=runner_env(1.0),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_like_a_terminal,
    )

    def started():
        dirs = trial_dirs(out)
        if not dirs:
            return None
        try:
            ep = episode(dirs[0])
        except (OSError, ValueError):
            return None
        return (dirs[0], ep) if ep.get("sandbox", {}).get("pids") else None

    try:
        bundle, ep = _wait_for(started, what="episode start")
    except AssertionError:
        proc.kill()
        proc.wait()
        raise
    return proc, bundle, list(ep["sandbox"]["pids"].values())


def test_ctrl_c_tears_everything_down(tmp_path):
    proc, bundle, pids = _start_runner(tmp_path)
    assert pids and all(pid_alive(p) for p in pids)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    try:
        proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGUSR1)  # the runner prints its threads' stacks (faulthandler)
        time.sleep(1.0)
        proc.kill()
        _, err = proc.communicate()
        pytest.fail(f"runner still running 60 s after Ctrl-C; its threads:\n{err[-6000:]}")
    assert proc.returncode == 130
    assert not [p for p in pids if pid_alive(p)], "sandbox processes survived Ctrl-C"
    ep = episode(bundle)
    assert ep["status"] == "harness_error" and "interrupted" in ep["status_detail"]
    v = run_simbridge("verify", str(bundle), "--json")
    assert json.loads(v.stdout)["status"] == "unscored"


def test_kill_9_leaves_a_readable_unscored_bundle_and_no_orphans(tmp_path):
    proc, bundle, pids = _start_runner(tmp_path)
    csv = bundle / "signals.csv"
    _wait_for(
        lambda: csv.exists() and csv.stat().st_size > 0 and len(csv.read_text().splitlines()) > 120,
        what="two seconds of flushed samples",
    )
    time.sleep(1.5)
    proc.kill()  # SIGKILL: no handler runs
    proc.communicate(timeout=30)
    _wait_for(lambda: not [p for p in pids if pid_alive(p)], timeout=10, what="sandbox processes to die")
    b = read_bundle(bundle)
    assert b.episode.status == "running"
    assert len(b.signals) > 100 and b.signals.t[-1] > 1.5
    v = run_simbridge("verify", str(bundle))
    assert v.returncode == 0, v.stderr
    assert "unscored" in v.stdout and "did not finish" in v.stdout


@pytest.mark.skipif(not __import__("shutil").which("x11vnc"), reason="x11vnc not installed")
def test_human_agent_serves_the_display_over_vnc(tmp_path):
    import socket

    out = tmp_path / "runs"
    proc = subprocess.Popen(
        simbridge_cmd(
            "run", "T09", "--sim", TOY, "--agent", "human", "--out", str(out), "--time-limit", "8", "--frame-hz", "0"
        ),
        env=runner_env(1.0),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        port = None
        for line in proc.stderr:
            m = re.search(r"VNC viewer to 127\.0\.0\.1:(\d+)", line)
            if m:
                port = int(m.group(1))
                break
        assert port

        def hello():
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
                    return s.recv(12)
            except OSError:
                return None

        assert _wait_for(hello, timeout=30, what="the VNC server").startswith(b"RFB ")
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 3, stderr  # scored; the time limit ended it
    [b] = trial_dirs(out)
    ep = episode(b)
    assert ep["status"] == "timeout" and ep["agent"] == "human"
    pids = ep["sandbox"]["pids"]
    assert "x11vnc" in pids and not pid_alive(pids["x11vnc"])
