"""The POH reference pilots on the embedded JSBSim cockpit, in exact lockstep: each flies its
procedure through pixels and input alone and earns full credit on a seeded variant (the drawn
start altitude and heading, the deviation, the tank, the failure's time), and the do-nothing
agent earns nothing on three of them. One trial each here; `benchmarks/poh_pilots.py` runs
several seeds per task and reports the wall time."""

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

from support.runner import action_kinds, reference_trial_run, run_trial_cli  # noqa: E402

session_class("jsbsim")

#: task -> seed of its trial here (the benchmark runs more seeds); about 10-30 s of wall time
#: each on an idle 2-core machine in lockstep
REFERENCE_TRIALS = {
    "P01": 2,  # restart after a configuration deviation (drawn: the mixture, selector or magnetos)
    "P02": 3,  # the selected tank runs dry: selector BOTH, restart on the starter
    "P03": 1,  # the selected tank almost empty: fuel gauges read, selector BOTH
    "P07": 1,  # rough engine: magneto check, the good magneto found by the rpm
    "P09": 2,  # carburetor ice in cruise: carb heat, full throttle until the rpm stops rising
    "P10": 2,  # the same after levelling off from a low-power descent
    "P11": 1,  # LOW VOLTS: the reset and load shedding in the POH's order
    "P15": 4,  # pitot blockage (drawn late, 39 s): found by a power cut, pitot heat ON
    "P19": 1,  # electrical fire: master off, vents closed, loads off, vents opened when clear
    "P22": 4,  # smoke: idle, master off, descent to the drawn height read from the instruction
}


def run_task(task: str, agent: str, out: Path, *extra: str, rc: int | tuple[int, ...] = 0) -> tuple[dict, dict, Path]:
    """One lockstep trial on the JSBSim cockpit (`run_trial_cli`)."""
    return run_trial_cli(task, "jsbsim", agent, out, "--lockstep", *extra, rc=rc, timeout=900)


def test_every_poh_pilot_is_registered_for_jsbsim():
    for task in REFERENCE_TRIALS:
        assert make_pilot(task, "jsbsim") is not None, task


@pytest.mark.parametrize("task", sorted(REFERENCE_TRIALS))
def test_poh_reference_pilot_scores_full_credit(tmp_path, task):
    score, ep, bundle = reference_trial_run(task, "jsbsim", REFERENCE_TRIALS[task], tmp_path)
    assert ep["variant"]["values"]  # the seeded variant was flown
    assert score["score"] == 1.0, score
    kinds = action_kinds(bundle)
    assert {"screenshot", "click"} <= kinds, kinds  # read from pixels, worked by clicks


@pytest.mark.parametrize("task", ["P03", "P11", "P19"])
def test_do_nothing_scores_zero(tmp_path, task):
    # the first 90 s: past every drawn failure time of these tasks, the final state never reached;
    # left alone the aircraft may also fly into the sea (the episode ends then: exit 0)
    score, ep, _ = run_task(task, "noop", tmp_path, "--seed", "1", "--time-limit", "90", rc=(0, 3))
    assert ep["status"] in ("timeout", "completed"), ep.get("status_detail")
    assert score["status"] == "scored" and score["score"] == 0.0 and not score["success"], score
