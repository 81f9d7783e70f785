"""The partial-panel reference pilots (P13, P14: vacuum failure) on the embedded JSBSim cockpit,
in exact lockstep: each turns to the instruction's magnetic heading (P14: and descends to its
height) through pixels and input alone, on the attitude and heading indicators until VAC
lights and on the turn coordinator, altimeter, VSI and airspeed after, on a seed of its own,
and reaches the score the verified bar asks (≥ 0.9 with success). One trial each here;
`benchmarks/reference_pilots.py --pairs P13/jsbsim P14/jsbsim` runs the seed sweep beside the
do-nothing agent (docs/jsbsim.md)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.display,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb not installed"),
]

# Only a genuinely absent third-party dependency skips; a broken import inside our own adapter
# raises here and fails the collection.
import jsbsim  # noqa: F401
import pygame  # noqa: F401

from simbridge._sims import session_class  # noqa: E402
from simbridge.agents._reference import make_pilot  # noqa: E402

from support.runner import run_trial_cli  # noqa: E402

session_class("jsbsim")

#: task -> seed of its trial here (no other test and not the benchmark's sweep flies these seeds)
PARTIAL_PANEL_TRIALS = {
    "P13": 9,  # the turn and the altitude held on, the heading timed on the turn coordinator after VAC
    "P14": 9,  # a descending turn, then level at the drawn height, on the partial panel
}


def test_every_partial_panel_pilot_is_registered_for_jsbsim():
    for task in PARTIAL_PANEL_TRIALS:
        assert make_pilot(task, "jsbsim") is not None, task


@pytest.mark.parametrize("task", sorted(PARTIAL_PANEL_TRIALS))
def test_partial_panel_pilot_flies_the_procedure(tmp_path: Path, task: str):
    seed = PARTIAL_PANEL_TRIALS[task]
    score, ep, bundle = run_trial_cli(
        task, "jsbsim", "reference", tmp_path, "--lockstep", "--seed", str(seed), timeout=900
    )
    assert ep["status"] == "completed", ep.get("status_detail")
    assert score["status"] == "scored" and score["success"] is True and score["score"] >= 0.9, score
    actions = [json.loads(line) for line in (bundle / "actions.jsonl").read_text().splitlines() if line.strip()]
    kinds = {a["kind"] for a in actions}
    assert {"screenshot", "mouse_move"} <= kinds, kinds  # read from pixels, flown by the mouse yoke
    # the vacuum failed during the flight and the pilot flew on after it
    fails = [
        json.loads(line)
        for line in (bundle / "events.jsonl").read_text().splitlines()
        if line.strip() and json.loads(line).get("kind") == "failure_injected"
    ]
    assert fails and fails[0]["data"]["system"] == "vacuum", fails
    assert max(a.get("t", 0.0) for a in actions) > float(fails[0]["t"]) + 10.0
