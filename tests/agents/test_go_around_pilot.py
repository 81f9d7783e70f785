"""The P18 go-around reference pilot on the embedded JSBSim cockpit, in exact lockstep: from
short final with the flaps failed at 30° it goes around (throttle full, carb heat cold, the flap
lever to 20°), climbs at 65 KIAS to the height the instruction names and holds it level with the
power reduced, through pixels and input alone, on a seed of its own, reaching the verified bar
(≥ 0.9 with success). One trial here; `benchmarks/reference_pilots.py --pairs P18/jsbsim` runs
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
from simbridge.adapters.jsbsim.pilots._go_around import GoAroundPilot  # noqa: E402
from simbridge.agents._reference import make_pilot  # noqa: E402

from support.runner import reference_trial  # noqa: E402

session_class("jsbsim")

#: the seed of the trial here (the benchmark sweep flies 1-5, 8, 9)
SEED = 12


def test_the_go_around_pilot_is_registered_for_p18_on_jsbsim():
    assert isinstance(make_pilot("P18", "jsbsim"), GoAroundPilot)


def test_go_around_pilot_climbs_to_the_height_and_holds_it(tmp_path: Path):
    kinds = reference_trial("P18", "jsbsim", SEED, tmp_path)
    assert {"screenshot", "key", "mouse_move"} <= kinds, kinds  # read from pixels, flown by keys and the yoke
