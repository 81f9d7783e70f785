"""The do-nothing baseline on the real embedded JSBSim cockpit scores 0 on every POH task, and
scripted runs of the POH checklists (clicks on the panel at fixed times) score 1.0.

tests/fixtures/poh/PNN are `--agent noop --seed 1 --lockstep` episodes of each task (150 s of
simulator time, the task's drawn variant recorded in episode.json), kept with the signals the
task reads at 5 Hz (every 12th sample of the cockpit's 60 Hz; flagged decimated:5hz). Left
alone, the aircraft dives past Vne after an engine stop, stalls in the full-power climb, or
simply never runs the checklist: no trial reaches a procedure's final state.

tests/fixtures/poh/scripted/PNN are `--agent scripted:PNN.script.yaml --seed 1 --lockstep` runs
(the scripts beside them: the switch clicks of the checklist after the seed's failure time),
kept the same way."""

from __future__ import annotations

from pathlib import Path

import pytest

from simbridge import read_bundle, score_bundle
from simbridge._task import load_task

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "poh"
IDS = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir() and p.name.startswith("P"))
SCRIPTED = sorted(p.name for p in (FIXTURES / "scripted").iterdir() if p.is_dir())


def test_every_poh_task_has_a_real_do_nothing_recording():
    assert IDS == [f"P{i:02d}" for i in range(1, 23)]


@pytest.mark.parametrize("tid", IDS)
def test_real_do_nothing_scores_zero(tid):
    b = read_bundle(FIXTURES / tid)
    assert b.episode.agent == "noop" and b.episode.seed == 1
    task = load_task(tid)
    assert b.episode.variant == task.drawn(1).variant  # the drawn values were recorded
    s = score_bundle(b, task)
    assert s.status == "scored", s.reason
    assert s.score == 0.0 and s.success is False
    assert next(c for c in s.components if c.name == "final_state").earned == 0.0
    if task.initial_state.failures and tid != "P04":  # P04: noop never takes off to the failure height
        assert b.events_of("failure_injected"), "the harness injected the task's failure"


@pytest.mark.parametrize("tid", SCRIPTED)
def test_real_scripted_checklist_scores_one(tid):
    b = read_bundle(FIXTURES / "scripted" / tid)
    assert b.episode.agent is not None and b.episode.agent.startswith("scripted")
    s = score_bundle(b, load_task(tid))
    assert s.status == "scored", s.reason
    assert s.score == 1.0 and s.success is True
