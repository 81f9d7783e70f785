"""An agent that ends the episode at once — `done` or `give_up` at t = 0 in lockstep, the mode
Gymnasium, Inspect and `eval` use — is scored 0 and counted by `metrics`: giving up on the tasks
it cannot do must not lift its success rate (an unscored trial is left out of SR)."""

from __future__ import annotations

import json
import subprocess

import pytest

from support.runner import run_trial_cli, simbridge_cmd, write_script

pytestmark = [pytest.mark.display]


@pytest.mark.parametrize(
    "task, sim, end, status, rc",
    [
        ("T16", "jsbsim", "done", "completed", 0),
        ("P01", "jsbsim", "give_up", "agent_quit", 3),
        ("T18", "drive", "done", "completed", 0),
    ],
)
def test_ending_at_t0_in_lockstep_scores_zero_and_counts(tmp_path, task, sim, end, status, rc):
    script = write_script(tmp_path / "end.yaml", f"actions: []\nend: {end}\n")
    score, ep, bundle = run_trial_cli(task, sim, f"scripted:{script}", tmp_path / "runs", "--lockstep", rc=rc)
    assert ep["status"] == status and ep["sim_end_s"] == pytest.approx(0.0, abs=0.5)
    assert score["status"] == "scored", score.get("reason")
    assert score["score"] == 0.0 and score["success"] is False
    # metrics counts it: one trial, SR 0 (an unscored trial would be left out)
    r = subprocess.run(
        simbridge_cmd("metrics", str(tmp_path / "runs"), "--json"), capture_output=True, text=True, timeout=120
    )
    assert r.returncode in (0, 3), r.stderr[-2000:]
    [sr] = [m for m in json.loads(r.stdout) if m["metric"] == "sr" and m["task_id"] is None]
    assert (sr["value"], sr["n_trials"], sr["n_unscored"]) == (0.0, 1, 0)
