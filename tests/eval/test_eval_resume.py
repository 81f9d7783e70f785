"""`simbridge eval --resume` with the local executor on the embedded JSBSim cockpit: the driver
(a subprocess) is killed with SIGKILL once the first episode is in results.parquet; its running
episode dies with it (PR_SET_PDEATHSIG); --resume keeps the finished episode and reruns only
the others, in new attempt directories."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import jsbsim  # noqa: F401

pytestmark = [
    pytest.mark.slow,
    pytest.mark.display,
    pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb not installed"),
]

SUITE = """
name: resume
max_time_limit_s: 3
frame_hz: 0
matrix:
  - {tasks: [T09], sims: [jsbsim], agents: ["scripted:quick.yaml"], trials: 3}
"""


def _eval(*args: str) -> list[str]:
    return [sys.executable, "-m", "simbridge._cli", "eval", *args]


def _finished(out: Path) -> list[dict]:
    try:
        rows = pq.read_table(out / "results.parquet").to_pylist()
    except (OSError, ValueError):
        return []
    return [r for r in rows if r["state"] == "finished"]


def test_resume_after_the_driver_is_killed_reruns_only_what_did_not_finish(tmp_path):
    (tmp_path / "quick.yaml").write_text("actions:\n  - {at: 1.0, done: quick}\n")
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE)
    out = tmp_path / "out"
    driver = subprocess.Popen(
        _eval(str(suite), "--out", str(out), "--max-parallel", "1"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        t_end = time.monotonic() + 180
        while not _finished(out) and time.monotonic() < t_end and driver.poll() is None:
            time.sleep(0.2)
        assert _finished(out), "no episode finished"
        os.kill(driver.pid, signal.SIGKILL)
    finally:
        driver.kill()
        driver.wait()
    [first] = _finished(out)
    r = subprocess.run(_eval(str(suite), "--out", str(out), "--resume"), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr  # every episode scored, the agent said done
    rows = {row["episode_id"]: row for row in pq.read_table(out / "results.parquet").to_pylist()}
    assert len(rows) == 3 and all(row["state"] == "finished" and row["status"] == "completed" for row in rows.values())
    kept = rows[first["episode_id"]]
    assert kept["attempt"] == 1 and kept["end_wall"] == first["end_wall"]  # not rerun
    assert [p.name for p in sorted((out / first["episode_id"]).glob("attempt-*")) if p.is_dir()] == ["attempt-1"]
    assert "finished earlier" in r.stdout and r.stdout.count("skipped") == 1
    for eid, row in rows.items():
        complete = [p for p in (out / eid).glob("attempt-*") if (p / "manifest.json").is_file()]
        assert len(complete) == 1 and complete[0].name == f"attempt-{row['attempt']}", eid  # one finished run each
        assert json.loads((out / row["bundle"] / "score.json").read_text())["status"] == "scored"
