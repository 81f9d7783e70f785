"""The landing reference pilots on the embedded JSBSim cockpit, in exact lockstep: each flies a
visual final (the runway read from the window, the needles from the panel) to a landing and a
stop through pixels and input alone, on a seed of its own, and reaches the score the verified
bar asks (≥ 0.9 with success). One trial each here (T03's is about 3 minutes of wall time: a
5 nm final is 280 s flown); `benchmarks/reference_pilots.py --pairs T03/jsbsim P17/jsbsim` runs
the seed sweep beside the do-nothing agent."""

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

from support.runner import reference_trial  # noqa: E402

session_class("jsbsim")

#: task -> seed of its trial here (no other test flies these seeds)
LANDING_TRIALS = {
    "T03": 7,  # KPAO 31 from a 5 nm final: touchdown zone, sink, centreline, stop on the runway
    "P17": 6,  # KHAF 30, flaps failed up, wind 110° at 10 kt (a 9 kt tailwind): brakes from the touchdown
}


def test_every_landing_pilot_is_registered_for_jsbsim():
    for task in LANDING_TRIALS:
        assert make_pilot(task, "jsbsim") is not None, task


@pytest.mark.parametrize("task", sorted(LANDING_TRIALS))
def test_landing_reference_pilot_lands(tmp_path: Path, task: str):
    kinds = reference_trial(task, "jsbsim", LANDING_TRIALS[task], tmp_path)
    assert {"screenshot", "key", "mouse_move"} <= kinds, kinds  # read from pixels, flown by keys and the yoke
