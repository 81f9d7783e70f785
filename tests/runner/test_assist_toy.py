"""An episode with an assist (`simbridge run --assist NAME`) on the toy double: the session is
started with it, episode.json records it, the episode's and the score's flags carry
`assist:NAME`, the brief tells the agent, and `simbridge metrics` names the assisted arm."""

from __future__ import annotations

import json

import pytest

from simbridge._verify import verify_path
from support.runner import needs_xvfb, run_simbridge

pytestmark = [needs_xvfb, pytest.mark.display, pytest.mark.slow]

TOY_ASSIST = "doubles.toy_assist:ToyAssistSession"


def test_an_assisted_episode_is_started_recorded_flagged_and_briefed(tmp_path):
    out = tmp_path / "runs"
    r = run_simbridge(
        "run", "T09", "--sim", TOY_ASSIST, "--agent", "noop", "--assist", "readout", "--assist", "readout",
        "--lockstep", "--time-limit", "2", "--frame-hz", "0", "--no-report", "--out", str(out),
    )  # fmt: skip
    assert r.returncode == 3, r.stderr[-2000:]  # noop runs out of time: its own outcome, scored
    [bundle] = sorted(out.glob("*/trial-1"))
    ep = json.loads((bundle / "episode.json").read_text())
    assert ep["assists"] == ["readout"]  # asked twice, recorded once
    assert ep["flags"].count("assist:readout") == 1
    assert ep["sim_info"]["started_with_assists"] == ["readout"]  # the session was started with it
    brief = ep["agent_brief"]
    assert [a["name"] for a in brief["assists"]] == ["readout"] and brief["assists_offered"] == ["readout"]
    score = json.loads((bundle / "score.json").read_text())
    assert score["status"] == "scored" and "assist:readout" in score["flags"]
    assert "assist:readout" in verify_path(bundle).flags  # re-derived from the bundle, still flagged
    m = run_simbridge("metrics", str(out), "--json", "-k", "1")
    assert m.returncode == 0, m.stderr
    assert {row["agent"] for row in json.loads(m.stdout)} == {"noop [assist:readout]"}


def test_an_unassisted_episode_records_none_and_is_told_the_panel_only(tmp_path):
    out = tmp_path / "runs"
    r = run_simbridge(
        "run", "T09", "--sim", TOY_ASSIST, "--agent", "noop", "--lockstep", "--time-limit", "2",
        "--frame-hz", "0", "--no-report", "--out", str(out),
    )  # fmt: skip
    assert r.returncode == 3, r.stderr[-2000:]
    [bundle] = sorted(out.glob("*/trial-1"))
    ep = json.loads((bundle / "episode.json").read_text())
    assert ep["assists"] == [] and not any(f.startswith("assist:") for f in ep["flags"])
    assert ep["sim_info"]["started_with_assists"] == []
    assert ep["agent_brief"]["assists"] == [] and ep["agent_brief"]["assists_offered"] == ["readout"]
