"""`simbridge eval` of a suite that runs one agent with and without an assist (the toy double's
`readout`, declared as a `module:Class` simulator declares it): each cell has its own directory,
results.parquet says which episode was assisted, and the closing metrics table has an arm for each."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from support.runner import needs_xvfb, run_simbridge

pytestmark = [needs_xvfb, pytest.mark.display, pytest.mark.slow]

SIM = "doubles.toy_assist:ToyAssistSession"
SUITE = f"""
name: arms
lockstep: true
max_time_limit_s: 2
frame_hz: 0
matrix:
  - {{tasks: [T09], sims: ["{SIM}"], agents: [noop], expect: {{noop: timeout}}}}
  - {{tasks: [T09], sims: ["{SIM}"], agents: [noop], expect: {{noop: timeout}}, assists: [readout]}}
"""


def test_an_eval_runs_the_assisted_and_unassisted_cells_apart(tmp_path):
    suite = tmp_path / "arms.yaml"
    suite.write_text(SUITE)
    out = tmp_path / "out"
    r = run_simbridge("eval", str(suite), "--out", str(out), "--max-parallel", "1", timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    [plain] = out.glob("T09/doubles.toy_assist-ToyAssistSession/noop/trial-1/attempt-1")
    [assisted] = out.glob("T09/doubles.toy_assist-ToyAssistSession+readout/noop/trial-1/attempt-1")
    assert json.loads((plain / "episode.json").read_text())["assists"] == []
    ep = json.loads((assisted / "episode.json").read_text())
    assert ep["assists"] == ["readout"] and ep["sim_info"]["started_with_assists"] == ["readout"]
    rows = pq.read_table(out / "results.parquet").to_pylist()
    assert sorted((r["episode_id"].split("/")[1], r["assists"]) for r in rows) == [
        ("doubles.toy_assist-ToyAssistSession", ""),
        ("doubles.toy_assist-ToyAssistSession+readout", "readout"),
    ]
    assert "== agent noop   run arms" in r.stdout and "== agent noop [assist:readout]   run arms" in r.stdout
