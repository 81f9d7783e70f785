"""`simbridge run --sim drive`: the drive process on the sandbox's display through the runner,
the host's canonical signals in the bundle, T18's verifier scoring the do-nothing agent 0."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from simbridge import read_bundle

pytestmark = [
    pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb not installed"),
    pytest.mark.display,
    pytest.mark.slow,
]

import libsumo  # noqa: F401
import vehiclemodels  # noqa: F401
import pygame  # noqa: F401


def test_noop_on_t18_in_lockstep_is_a_valid_bundle_scored_zero(tmp_path):
    out = tmp_path / "runs"
    r = subprocess.run(
        [sys.executable, "-m", "simbridge._cli", "run", "T18", "--sim", "drive", "--agent", "noop"]
        + ["--time-limit", "4", "--lockstep", "--frame-hz", "0", "--no-report", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert r.returncode == 3, r.stdout[-2000:] + r.stderr[-2000:]  # scored; the agent timed out
    [b] = sorted(out.glob("*/trial-*"))
    ep = json.loads((b / "episode.json").read_text())
    assert ep["status"] == "timeout" and ep["sim"] == "drive", ep
    assert ep["sim_info"]["town"] == "Town04" and ep["sim_info"]["telemetry"]["bad_lines"] == 0
    bundle = read_bundle(b)
    sig = bundle.signals
    assert sig.t[-1] >= 3.9 and len(sig.t) >= 75  # 20 Hz of simulator time
    assert (sig["lane_id"] == -2).all()  # standing at the start, in lane 2 from the median
    assert abs(sig["lane_offset_m"]).max() < 0.1 and sig["speed_kmh"].max() == 0.0
    assert sig["x_m"][0] == pytest.approx(284.44) and sig["y_m"][0] == pytest.approx(16.66)
    assert (b / "events.jsonl").exists() and not bundle.events_of("lane_invasion")
    start = json.loads((b / "snapshots.json").read_text())["start"]
    assert start["map"] == "Town04" and start["ego_type_id"] == "vehicle.lincoln.mkz_2017"
    score = json.loads((b / "score.json").read_text())
    assert score["status"] == "scored" and score["score"] == 0.0
