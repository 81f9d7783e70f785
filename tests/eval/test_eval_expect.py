"""Expected outcomes and per-entry limits in a suite (the smoke suite's baseline is meant to time
out; its steep turn needs time for a full 360°), and eval's exit codes that follow from them."""

from __future__ import annotations

from pathlib import Path

import pytest

from simbridge._eval import SuiteError, expand, load_suite
from simbridge._eval._driver import _exit_code
from simbridge._exit import Exit

REPO = Path(__file__).resolve().parents[2]


def test_expect_and_entry_limits_reach_the_episodes(tmp_path):
    p = tmp_path / "s.yaml"
    p.write_text(
        "name: s\ntime_limit_scale: 0.1\nmatrix:\n"
        "  - {tasks: [T09], sims: [jsbsim], agents: [reference, noop], max_time_limit_s: 90,"
        " time_limit_scale: 1, expect: {noop: timeout}}\n"
        "  - {tasks: [T16], sims: [jsbsim], agents: [noop]}\n"
        "  - {tasks: [T01], sims: [jsbsim], agents: [noop], expect: {noop: [timeout, completed]}}\n"
    )
    eps = {e.episode_id: e for e in expand(load_suite(p), p)[0]}
    assert eps["T09/jsbsim/reference/trial-1"].expect == "completed"
    assert eps["T09/jsbsim/noop/trial-1"].expect == "timeout"
    assert eps["T09/jsbsim/noop/trial-1"].time_limit_s == 90  # the entry's own cap, not 300 × 0.1
    assert eps["T16/jsbsim/noop/trial-1"].time_limit_s == 60  # the suite's scale: 600 × 0.1
    assert eps["T16/jsbsim/noop/trial-1"].expect == "completed"
    assert eps["T01/jsbsim/noop/trial-1"].expect == "timeout|completed"


@pytest.mark.parametrize(
    "entry, field",
    [
        ("expect: {reference: timeout}", "expect: 'reference' is not one of this entry's agents"),
        ("expect: {noop: sim_crashed}", "matrix[0].expect.noop"),  # a harness fault is never expected
        ("max_time_limit_s: 0", "matrix[0].max_time_limit_s"),
    ],
)
def test_a_bad_expectation_or_limit_is_one_line_naming_the_field(tmp_path, entry, field):
    p = tmp_path / "s.yaml"
    p.write_text(f"name: s\nmatrix:\n  - tasks: [T09]\n    sims: [jsbsim]\n    agents: [noop]\n    {entry}\n")
    with pytest.raises(SuiteError) as exc:
        load_suite(p)
    assert field in str(exc.value) and "s.yaml" in str(exc.value) and "\n" not in str(exc.value)


def _row(eid: str, status: str, scored: bool = True) -> dict:
    return {"episode_id": eid, "status": status, "score_status": "scored" if scored else "unscored"}


def test_exit_code_follows_the_expected_outcomes():
    expect = {"a": "completed", "b": "timeout"}
    assert _exit_code([_row("a", "completed"), _row("b", "timeout")], expect) == Exit.OK
    assert _exit_code([_row("a", "completed"), _row("b", "completed")], expect) == Exit.AGENT_FAILED  # not as expected
    assert _exit_code([_row("a", "timeout"), _row("b", "timeout")], expect) == Exit.AGENT_FAILED
    either = {"a": "completed", "b": "timeout|completed"}
    assert _exit_code([_row("a", "completed"), _row("b", "completed")], either) == Exit.OK
    assert _exit_code([_row("a", "completed"), _row("b", "agent_quit")], either) == Exit.AGENT_FAILED
    assert _exit_code([_row("a", "completed"), _row("b", "harness_error", scored=False)], expect) == Exit.UNSCORED
    assert _exit_code([_row("a", "timeout")]) == Exit.AGENT_FAILED  # no expectation: done is expected


def test_the_smoke_suite_expects_the_baseline_to_time_out_and_gives_the_turn_its_time():
    p = REPO / "suites/smoke.yaml"
    eps = expand(load_suite(p), p)[0]
    assert {e.expect for e in eps if e.agent == "noop"} == {"timeout"}
    assert {e.expect for e in eps if e.agent == "reference"} == {"completed"}
    [turn] = [e for e in eps if e.task_id == "T09" and e.agent == "reference"]
    # a 360° at 45° bank and 100 KIAS is ~33 s of turning, plus roll-in and roll-out
    assert turn.time_limit_s is None or turn.time_limit_s >= 90
