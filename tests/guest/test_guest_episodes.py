"""Whole episodes on the embedded JSBSim cockpit with the agent port going through the guest
service (SIMBRIDGE_AGENT_TRANSPORT=guest: `simbridge guest` started as a separate process on the
sandbox's Xvfb, one authenticated connection): the reference pilots score as on the X11 path
(tests/agents/test_reference_episodes.py), by the same actions."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.display,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb not installed"),
]

import jsbsim  # noqa: E402,F401
import pygame  # noqa: E402,F401


def run_guest(task: str, out: Path, *extra: str, transport: str = "guest") -> tuple[dict, dict, Path, str]:
    """`simbridge run TASK --agent reference` through the guest service; (score, episode, bundle, stderr)."""
    env = {**os.environ, "SIMBRIDGE_AGENT_TRANSPORT": transport}
    for name in ("SIMBRIDGE_GUEST_ADDR", "SIMBRIDGE_GUEST_TOKEN", "SIMBRIDGE_GUEST_TOKEN_FILE"):
        env.pop(name, None)
    r = subprocess.run(
        [sys.executable, "-m", "simbridge._cli", "run", task, "--sim", "jsbsim", "--agent", "reference"]
        + ["--out", str(out), "--frame-hz", "0", *extra],
        capture_output=True,
        text=True,
        timeout=1200,
        env=env,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    [bundle] = sorted(out.glob("*/trial-1"))
    score = json.loads((bundle / "score.json").read_text())
    return score, json.loads((bundle / "episode.json").read_text()), bundle, r.stderr


def _actions(bundle: Path) -> list[tuple]:
    """(kind, args, simulator time) of every action; `done`'s reason carries wall-clock timings."""
    recs = [json.loads(line) for line in (bundle / "actions.jsonl").read_text().splitlines() if line.strip()]
    return [(r["kind"], None if r["kind"] == "done" else r["args"], r["t"]) for r in recs]


def _kinds(bundle: Path) -> set[str]:
    lines = (bundle / "actions.jsonl").read_text().splitlines()
    return {json.loads(line)["kind"] for line in lines if line.strip()}


def test_steep_turn_lockstep_through_guest_scores_as_x11(tmp_path):
    score, ep, bundle, err = run_guest("T09", tmp_path / "guest", "--lockstep")
    assert "simbridge guest: host 127.0.0.1:" in err and "authenticated" in err  # the guest path served it
    assert ep["status"] == "completed", ep.get("detail")
    assert score["status"] == "scored" and score["score"] >= 0.9, score
    assert {"screenshot", "key", "mouse_move"} <= _kinds(bundle)  # it saw, typed and moved through the guest
    # the same episode on the X11 path: in lockstep the pilot sees the same pixels at the same
    # simulator times, so it takes the same actions at the same times and earns the same score
    x_score, x_ep, x_bundle, x_err = run_guest("T09", tmp_path / "x11", "--lockstep", transport="x11")
    assert "simbridge guest:" not in x_err and x_ep["status"] == "completed"
    assert x_score["score"] == score["score"]
    assert _actions(x_bundle) == _actions(bundle)


def test_radios_by_clicks_through_guest_score_full(tmp_path):
    score, ep, bundle, err = run_guest("T16", tmp_path)
    assert "simbridge guest: host 127.0.0.1:" in err and "authenticated" in err
    assert ep["status"] == "completed", ep.get("detail")
    assert score["status"] == "scored" and score["score"] == 1.0, score
    kinds = _kinds(bundle)
    assert "click" in kinds and "screenshot" in kinds and not kinds & {"type"}
