"""The POH-on-final pilots (P08 rough magneto, P12 LOW VOLTS) on the embedded JSBSim cockpit, in
exact lockstep: each flies the landing pilot's visual final to KHAF 30, sees the indication on
the panel (the tachometer's drop at a held throttle; the LOW VOLTS annunciator), works the POH's
steps by clicks read back on the panel, lands and stops, through pixels and input alone, and
reaches the verified bar's score (≥ 0.9 with success) on a seed of its own, one trial each (a
6.5-7 nm final is about 375 s flown, 3-6 minutes of wall time on a loaded machine). Both are their
tasks' registered references and fly as `--agent reference` (`benchmarks/reference_pilots.py
--pairs P08/jsbsim P12/jsbsim` runs their seed sweeps beside the do-nothing agent)."""

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
from simbridge.adapters.jsbsim.pilots._approach_poh import PILOTS  # noqa: E402
from simbridge.agents._reference import make_pilot  # noqa: E402

from support.runner import reference_trial  # noqa: E402

session_class("jsbsim")

#: task -> (seed of its trial here, the agent flying it); no other test flies these seeds and the
#: benchmark sweep uses others
APPROACH_POH_TRIALS = {
    "P08": (8, "reference"),  # wind 0° at 2 kt, 6.5 nm
    "P12": (6, "reference"),  # wind 70° at 1 kt, 7 nm
}


def test_the_reference_trials_fly_the_registered_pilot():
    for task, (_seed, agent) in APPROACH_POH_TRIALS.items():
        assert agent == "reference" and isinstance(make_pilot(task, "jsbsim"), PILOTS[task]), task


@pytest.mark.parametrize("task", sorted(APPROACH_POH_TRIALS))
def test_approach_poh_pilot_runs_the_procedure_and_lands(tmp_path: Path, task: str):
    seed, agent = APPROACH_POH_TRIALS[task]
    kinds = reference_trial(task, "jsbsim", seed, tmp_path, agent)
    # read from pixels, flown by keys and the mouse yoke, the panel worked by clicks
    assert {"screenshot", "key", "mouse_move", "click"} <= kinds, kinds
