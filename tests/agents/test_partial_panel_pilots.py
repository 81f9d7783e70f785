"""The partial-panel reference pilots (P13, P14: vacuum failure) on the embedded JSBSim cockpit,
in exact lockstep: each turns to the instruction's magnetic heading (P14: and descends to its
height) through pixels and input alone, on the attitude and heading indicators until VAC
lights and on the turn coordinator, altimeter, VSI and airspeed after, on a seed of its own,
and reaches the score the verified bar asks (≥ 0.9 with success). One trial each here;
`benchmarks/reference_pilots.py --pairs P13/jsbsim P14/jsbsim` runs the seed sweep beside the
do-nothing agent (docs/jsbsim.md)."""

from __future__ import annotations

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

from support.runner import action_kinds, jsonl, reference_trial_run  # noqa: E402

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
    _score, _ep, bundle = reference_trial_run(task, "jsbsim", PARTIAL_PANEL_TRIALS[task], tmp_path)
    kinds = action_kinds(bundle)
    assert {"screenshot", "mouse_move"} <= kinds, kinds  # read from pixels, flown by the mouse yoke
    # the vacuum failed during the flight and the pilot flew on after it
    fails = [e for e in jsonl(bundle / "events.jsonl") if e.get("kind") == "failure_injected"]
    assert fails and fails[0]["data"]["system"] == "vacuum", fails
    assert max(a.get("t", 0.0) for a in jsonl(bundle / "actions.jsonl")) > float(fails[0]["t"]) + 10.0
