"""The engine-failure reference pilots on the embedded JSBSim cockpit, in exact lockstep: each
flies its task through pixels and input alone (P04: the takeoff and climb, the engine failing
between 400 and 900 ft, best glide, the POH's securing steps, a landing straight ahead and a
stop; T11: the failure between 400 and 1,200 ft, best glide, a turn back towards the runway, a
landing and a stop) on a seed of its own, and reaches the score the verified bar asks (≥ 0.9 with success).
One trial each here; `benchmarks/reference_pilots.py --pairs P04/jsbsim T11/jsbsim` runs the seed sweep
beside the do-nothing agent (docs/jsbsim.md, the forced-landing pilots)."""

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

#: task -> seed of its trial here (the benchmark's sweep and no other test fly these seeds)
FORCED_LANDING_TRIALS = {
    "P04": 11,  # flaps 10 for the take-off, wind 310° at 10 kt
    "T11": 14,  # the engine fails at 463 ft: best glide, a turn back, a landing and a stop
}


def test_every_forced_landing_pilot_is_registered_for_jsbsim():
    for task in FORCED_LANDING_TRIALS:
        assert make_pilot(task, "jsbsim") is not None, task


@pytest.mark.parametrize("task", sorted(FORCED_LANDING_TRIALS))
def test_forced_landing_reference_pilot_lands_secured(tmp_path: Path, task: str):
    _score, _ep, bundle = reference_trial_run(task, "jsbsim", FORCED_LANDING_TRIALS[task], tmp_path)
    kinds = [e["kind"] for e in jsonl(bundle / "events.jsonl")]
    assert "failure_injected" in kinds and "crash" not in kinds, kinds
    acted = action_kinds(bundle)
    assert {"screenshot", "key", "mouse_move", "click"} <= acted, acted  # pixels in; keys, yoke and clicks out
