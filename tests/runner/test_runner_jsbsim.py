"""`simbridge run` on the real embedded JSBSim cockpit: a scripted agent's keys reach the
cockpit through XTEST and the bundle is scored by `simbridge verify`; `noop` scores 0 on T09."""

from __future__ import annotations

import json

import pytest

from simbridge import read_bundle
from support.runner import episode, needs_xvfb, run_simbridge, trial_dirs, write_script

pytestmark = [needs_xvfb, pytest.mark.display, pytest.mark.slow]

# Only a genuinely absent third-party dependency skips; a broken import inside our own adapter
# raises here and fails the collection.
import jsbsim  # noqa: F401
import pygame  # noqa: F401

from simbridge._sims import session_class  # noqa: E402

session_class("jsbsim")

# Left arrow: aileron -0.05 per press (FlightGear binding); KP_5 centres the controls.
ROLL_LEFT = """
actions:
  - {at: 2.0, key: Left, repeat: 5}
  - {at: 4.4, key: KP_5}
  - {at: 12.0, done: "rolled left"}
"""


def test_scripted_agent_on_jsbsim_is_scored(tmp_path):
    script = write_script(tmp_path / "roll.yaml", ROLL_LEFT)
    out = tmp_path / "runs"
    r = run_simbridge(
        "run", "T09", "--sim", "jsbsim", "--agent", f"scripted:{script}", "--out", str(out), "--snapshot-at", "6"
    )
    assert r.returncode == 0, r.stderr
    [b] = trial_dirs(out)
    ep = episode(b)
    assert ep["status"] == "completed" and ep["sim"] == "jsbsim", ep
    bundle = read_bundle(b)
    bank = bundle.signals["bank_deg"]
    assert abs(bank[:10]).max() < 5  # straight and level at the start (task initial state)
    assert bank.min() < -20  # the keys rolled the real flight model left
    assert bundle.signals.t[-1] >= 11.5
    assert (b / "snapshot_t6.png").exists()
    v = run_simbridge("verify", str(b), "--json")
    assert v.returncode == 0, v.stderr
    verdict = json.loads(v.stdout)
    assert verdict["status"] == "scored"
    assert verdict["score"] == json.loads((b / "score.json").read_text())["score"]


def test_noop_scores_zero_on_t09(tmp_path):
    out = tmp_path / "runs"
    r = run_simbridge(
        "run", "T09", "--sim", "jsbsim", "--agent", "noop", "--out", str(out), "--time-limit", "8", "--frame-hz", "0"
    )
    assert r.returncode == 3, r.stderr  # scored; the agent timed out
    [b] = trial_dirs(out)
    assert episode(b)["status"] == "timeout"
    score = json.loads((b / "score.json").read_text())
    assert score["status"] == "scored" and score["score"] == 0.0
    assert not read_bundle(b).actions or all(a["kind"] == "wait" for a in read_bundle(b).actions)
