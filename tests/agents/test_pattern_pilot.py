"""T05's reference pilot on the embedded JSBSim cockpit, in exact lockstep: a left-hand traffic
pattern from KPAO 31 (takeoff, crosswind, downwind at 1,000 ft, base, final) and a landing
rolled to a stop, flown through pixels and input alone (the heading indicator, the airspeed
indicator and the watch place the turns; the landing pilot's visual final lands), on a seed
of its own. One trial (about 290 s flown, about 3 minutes of wall time);
`benchmarks/reference_pilots.py --pairs T05/jsbsim` runs the seed sweep beside the do-nothing
agent."""

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

from support.runner import action_kinds, reference_trial_run  # noqa: E402

session_class("jsbsim")

#: the seed of this trial (the benchmark sweep flies 1-5, 9, 10; no other test flies it)
SEED = 12


def test_pattern_pilot_is_registered_for_jsbsim():
    assert make_pilot("T05", "jsbsim") is not None


def test_pattern_reference_pilot_flies_the_pattern_and_lands(tmp_path: Path):
    score, _ep, bundle = reference_trial_run("T05", "jsbsim", SEED, tmp_path)
    earned = {c["name"]: c["earned"] for c in score["components"]}
    assert earned == {"pattern_geometry": 1.0, "altitude_discipline": 1.0, "landing_and_stop": 1.0}, earned
    kinds = action_kinds(bundle)
    assert {"screenshot", "key", "mouse_move"} <= kinds, kinds  # read from pixels, flown by keys and the yoke
