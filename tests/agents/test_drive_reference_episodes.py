"""Real episodes on the embedded driving simulator (`--sim drive`): the pixel-reading reference
drivers earn their scores through screenshots and keys alone (T06 all items; T18 succeeds over
the full window), the
do-nothing agent earns nothing, and a run through a red light
loses exactly the red-light item.

CI time (2 cores): in exact lockstep, T06 reference ~105 s of simulator time (~60 s wall idle),
the red-light runner ~60 s (~30 s wall), T18 ~130 s (~60 s wall); two real-time do-nothing runs
of 5 s, each with ~15 s of start-up: about 3.5 minutes."""

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

from support.runner import action_kinds, reference_trial_run, run_trial_cli  # noqa: E402

session_class("drive")

RED_LIGHT_RUNNER = "py:simbridge.adapters.drive.pilots._route:red_light_runner"


def run_task(task: str, agent: str, out: Path, *extra: str, rc: int | tuple[int, ...] = 0) -> tuple[dict, dict, Path]:
    """One trial on the drive simulator (`run_trial_cli`)."""
    return run_trial_cli(task, "drive", agent, out, *extra, rc=rc)


def _items(score: dict) -> dict[str, float]:
    return {c["name"]: c["earned"] for c in score["components"]}


def _events(bundle: Path, kind: str) -> list[dict]:
    rows = [json.loads(line) for line in (bundle / "events.jsonl").read_text().splitlines() if line.strip()]
    return [e for e in rows if e.get("kind") == kind]


@pytest.fixture(scope="module")
def route_run(tmp_path_factory) -> tuple[dict, dict, Path]:
    """The T06 reference drive, shared by the score test and the red-light comparison, in exact
    lockstep (~60 s of wall time for 104 s of world time; real time is the drive's noop and
    red-team tests). A give-up is the driver's own scored failure (exit 3), judged by the tests
    on its items, not an error."""
    return run_task("T06", "reference", tmp_path_factory.mktemp("t06-reference"), "--lockstep", rc=(0, 3))


def test_lane_keep_reference_full_episode_in_lockstep(tmp_path):
    """The full T18 episode in lockstep on a seed the benchmark's sweep does not use: the driver
    reaches the band, drives the verifier's whole 120 s window through the highway's curves,
    unmarked interchanges and, in its last seconds, the loop's 54 m bend (slowed for it) by
    screenshots and keys alone, says it is done, and succeeds with >= 0.9 (the verified bar,
    `reference_trial_run`).

    Lockstep is exact here (the drive world runs whole 50 ms steps per slice and holds the keys'
    ramps while paused), so the episode is the same on a loaded machine as on an idle one."""
    score, _ep, bundle = reference_trial_run("T18", "drive", 13, tmp_path)
    comp = {c["name"]: c for c in score["components"]}
    lo, hi = comp["speed_in_band"]["window"]
    assert hi - lo == pytest.approx(120.0, abs=0.1), comp["speed_in_band"]  # the full window was recorded
    assert comp["lateral_rms"]["measured"] <= 0.3, comp["lateral_rms"]  # centred: the item's full credit
    kinds = action_kinds(bundle)
    assert {"screenshot", "key_down", "key_up"} <= kinds and not kinds & {"type", "click"}


def test_route_reference_scores_at_least_0_9(route_run):
    score, ep, bundle = route_run
    assert score["status"] == "scored", score
    assert _items(score) == {"route_completion": 1.0, "no_red_light": 1.0, "no_collision": 1.0, "under_time": 1.0}
    assert score["score"] >= 0.9
    # the driver noticed the route's end itself and said so (no give-up at the time limit)
    assert ep["status"] == "completed", ep.get("status_detail")
    assert [e["kind"] for e in map(json.loads, (bundle / "actions.jsonl").read_text().splitlines())][-1] == "done"


def test_running_a_red_light_loses_exactly_that_item(route_run, tmp_path):
    obeyed, _, obeyed_bundle = route_run
    # in exact lockstep (the world's lights run on its own clock): ~30 s of wall time, ~65 s real time
    score, ep, bundle = run_task("T06", RED_LIGHT_RUNNER, tmp_path, "--lockstep", rc=(0, 3))
    assert score["status"] == "scored", score
    assert _events(obeyed_bundle, "red_light") == []
    assert len(_events(bundle, "red_light")) >= 1  # the route's first light is red when the car gets there
    ran, kept = _items(score), _items(obeyed)
    assert ran["no_red_light"] == 0.0 and kept["no_red_light"] > 0.0
    assert {k: v for k, v in ran.items() if k != "no_red_light"} == {
        k: v for k, v in kept.items() if k != "no_red_light"
    }


@pytest.mark.parametrize("task", ["T18", "T06"])
def test_noop_scores_zero(tmp_path, task):
    score, ep, _ = run_task(task, "noop", tmp_path, "--time-limit", "5", rc=3)
    assert ep["status"] == "timeout"
    assert score["status"] == "scored" and score["score"] == 0.0, score
