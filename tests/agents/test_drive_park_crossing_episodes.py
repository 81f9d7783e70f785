"""Real episodes on the embedded driving simulator (`--sim drive`) for the T07 and T13
reference drivers, each on a seed of its own, in exact lockstep: the parallel park (pose from the
HUD, bay from its paint) ends inside the bay, centred and straight, without contact; the crossing
drive stops for the walker who steps out from behind the van, having come up to it at the limit,
and drives on to the route's end. The do-nothing agent scores 0 on both.

CI time (2 cores): T07 ~40 s of simulator time (~45 s wall), T13 ~29 s (~35 s wall), two
5-second do-nothing runs with ~15 s of start-up each: about 2 minutes. The seed sweep is
`benchmarks/reference_pilots.py --pairs T07/drive T13/drive`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.display,
    pytest.mark.slow,
]

import libsumo  # noqa: E402,F401  (SUMO in process: the drive simulator's world)
import pygame  # noqa: E402,F401  (the driver's window)

from simbridge._sims import session_class  # noqa: E402

from support.runner import run_trial_cli  # noqa: E402

session_class("drive")


def _events(bundle: Path, kind: str) -> list[dict]:
    rows = [json.loads(line) for line in (bundle / "events.jsonl").read_text().splitlines() if line.strip()]
    return [e for e in rows if e.get("kind") == kind]


def _gui_only(bundle: Path) -> None:
    kinds = {json.loads(line)["kind"] for line in (bundle / "actions.jsonl").read_text().splitlines() if line}
    assert {"screenshot", "key_down", "key_up"} <= kinds and not kinds & {"type", "click"}
    assert kinds <= {"screenshot", "key_down", "key_up", "key", "wait", "done", "give_up", "task", "elapsed"}


def test_parking_reference_parks_in_the_bay(tmp_path):
    score, ep, bundle = run_trial_cli("T07", "drive", "reference", tmp_path, "--lockstep", "--seed", "31", rc=(0, 3))
    assert score["status"] == "scored", score
    comp = {c["name"]: c for c in score["components"]}
    assert ep["status"] == "completed", ep.get("status_detail")
    assert comp["inside_space"]["earned"] == 1.0 and comp["heading"]["earned"] == 1.0, comp
    assert comp["centre_offset"]["measured"] <= 0.3, comp["centre_offset"]
    assert _events(bundle, "collision") == []
    assert score["success"] and score["score"] >= 0.9, score["score"]
    _gui_only(bundle)


def test_crossing_reference_stops_for_the_walker_and_finishes(tmp_path):
    score, ep, bundle = run_trial_cli("T13", "drive", "reference", tmp_path, "--lockstep", "--seed", "32", rc=(0, 3))
    assert score["status"] == "scored", score
    comp = {c["name"]: c for c in score["components"]}
    assert ep["status"] == "completed", ep.get("status_detail")
    assert len(_events(bundle, "scenario_trigger")) == 1  # the walker did step out
    assert comp["speed_before_event"]["measured"] >= 24.0
    assert _events(bundle, "collision") == []
    assert score["success"] and score["score"] >= 0.9, {k: c["earned"] for k, c in comp.items()}
    _gui_only(bundle)


@pytest.mark.parametrize("task", ["T07", "T13"])
def test_noop_scores_zero(tmp_path, task):
    score, ep, _ = run_trial_cli(task, "drive", "noop", tmp_path, "--time-limit", "5", rc=3)
    assert ep["status"] == "timeout"
    assert score["status"] == "scored" and score["score"] == 0.0, score
