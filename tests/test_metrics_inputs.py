"""`simbridge metrics` on bad and awkward inputs: every bad score.json is a one-line error naming the
file; unfinished episodes count as unscored; duplicates count once; stale scores are re-derived;
agents and runs are not pooled; k above the trial count says so; --json is a flat table."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pyarrow as pa
import pytest

from simbridge import BundleWriter, EpisodeInfo, Score
from simbridge._cli import main
from simbridge._verify import verify_path
from simbridge._metrics import compute, load_trials
from synth import make_bundle, steep_turn


@pytest.fixture(scope="module")
def good():
    return steep_turn()


@pytest.fixture(scope="module")
def poor():
    return steep_turn(bank_deg=25.0)  # far outside the 45° band: bank not maintained


def scored_bundle(path, cols, *, agent="agent-a", trial=1, wall_start=1000.0, **kw):
    """A finished bundle with its score.json, as the runner leaves it."""
    b = make_bundle(path, "T09", cols, agent=agent, trial=trial, wall_start=wall_start, **kw)
    (b / "score.json").write_text(verify_path(b).model_dump_json())
    return b


def metrics(capsys, *args):
    capsys.readouterr()
    code = main(["metrics", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def overall(records, agent=None, label=None):
    return {
        (r["metric"], r["k"]): r
        for r in records
        if r["task_id"] is None and (agent is None or r["agent"] == agent) and (label is None or r["label"] == label)
    }


def valid_score_json() -> dict:
    return Score(
        task_id="T09", verifier="steep_turn", status="scored", score=1.0, raw_score=1.0, success=True
    ).model_dump(mode="json")


@pytest.mark.parametrize(
    "write,expect",
    [
        (lambda f: f.write_text("{not json"), "line 1: not valid JSON"),
        (lambda f: f.write_text(""), "empty file"),
        (lambda f: f.write_text("[1, 2]"), "expected a JSON object (a score), got list"),
        (lambda f: f.mkdir(), "is a directory"),
        (
            lambda f: f.write_text(json.dumps({**valid_score_json(), "score": 7.5})),
            "field 'score': 7.5 is not a score in [0, 1]",
        ),
        (lambda f: f.write_text(json.dumps({**valid_score_json(), "score": float("nan")})), "field 'score': nan"),
        (lambda f: f.write_text(json.dumps({**valid_score_json(), "raw_score": -0.1})), "field 'raw_score'"),
        (lambda f: f.write_text(json.dumps({**valid_score_json(), "status": "great"})), "field 'status'"),
        (lambda f: f.write_text(json.dumps({**valid_score_json(), "score": None})), "field 'score': null"),
        (lambda f: f.write_bytes(b"\xff\xfe\x00junk"), "cannot read"),
    ],
)
def test_bad_score_file_is_one_line_naming_file_and_field(tmp_path, capsys, write, expect):
    d = tmp_path / "run" / "trial-1"
    d.mkdir(parents=True)
    write(d / "score.json")
    code, out, err = metrics(capsys, tmp_path / "run")
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1 and "Traceback" not in err, err
    assert str(d / "score.json") in lines[0] and expect in lines[0], lines[0]


def test_bad_score_file_inside_a_bundle(tmp_path, good, capsys):
    b = scored_bundle(tmp_path / "run" / "trial-1", good)
    (b / "score.json").write_text("[]")
    code, _, err = metrics(capsys, tmp_path / "run")
    assert code == 2 and f"{b}/score.json: expected a JSON object" in err


@pytest.mark.parametrize(
    "k, message", [("-1", "argument -k: -1 must be ≥ 1"), ("two", "argument -k: 'two' is not an integer")]
)
def test_k_must_be_positive(k, message):
    p = subprocess.run(
        [sys.executable, "-m", "simbridge._cli", "metrics", ".", "-k", k], capture_output=True, text=True
    )
    [line] = [x for x in p.stderr.splitlines() if "error:" in x]
    assert p.returncode == 2 and line == f"simbridge metrics: error: {message}" and "Traceback" not in p.stderr


def test_running_and_unverified_episodes_count_as_unscored(tmp_path, good, capsys):
    run = tmp_path / "run"
    scored_bundle(run / "trial-1", good)
    w = BundleWriter(run / "trial-2", EpisodeInfo(task_id="T09", agent="agent-a"), ["bank_deg"])
    w.sample(0.0, {"bank_deg": 0.0})
    w.flush()  # still running: no score.json, no manifest
    make_bundle(run / "trial-3", "T09", good, agent="agent-a", wall_start=3.0)  # finished, never verified
    code, out, err = metrics(capsys, run, "--json")
    assert code == 0, err
    r = overall(json.loads(out))[("sr", None)]
    assert r["n_trials"] == 1 and r["n_unscored"] == 2


def test_running_episode_with_a_stored_score_is_still_unscored(tmp_path, good, capsys):
    b = scored_bundle(tmp_path / "run" / "t1", good)
    ep = json.loads((b / "episode.json").read_text())
    (b / "episode.json").write_text(json.dumps({**ep, "status": "running"}))
    code, out, _ = metrics(capsys, tmp_path / "run", "--json", "--trust-scores")
    assert code == 0 and overall(json.loads(out))[("sr", None)]["n_unscored"] == 1


def test_same_episode_twice_counts_once(tmp_path, good, poor, capsys):
    run = tmp_path / "run"
    scored_bundle(run / "trial-1", good, trial=1, wall_start=1.0)
    scored_bundle(run / "trial-2", poor, trial=2, wall_start=2.0)
    shutil.copytree(run / "trial-1", tmp_path / "copy" / "trial-1")  # a copy of the same episode
    code, out, err = metrics(capsys, f"r={run}", f"r={run}", f"r={tmp_path / 'copy'}", "--json")
    assert code == 0, err
    r = overall(json.loads(out))[("sr", None)]
    assert r["n_trials"] == 2 and r["value"] == pytest.approx(0.5)
    assert "the same episode as" in err and str(tmp_path / "copy" / "trial-1") in err


def test_stale_score_is_reported_and_rederived(tmp_path, good, poor, capsys):
    b = scored_bundle(tmp_path / "run" / "trial-1", poor)
    fresh = verify_path(b)
    assert fresh.status == "scored" and fresh.score < 1.0
    (b / "score.json").write_text(verify_path(make_bundle(tmp_path / "other", "T09", good)).model_dump_json())
    code, out, err = metrics(capsys, tmp_path / "run", "--json")
    assert code == 0
    assert f"stale score.json in {b}: stored 1, bundle gives {fresh.score:g}" in err
    assert overall(json.loads(out))[("sgo", None)]["value"] == pytest.approx(fresh.score)
    assert "re-verified 1 episode(s)" in err
    code, out, err = metrics(capsys, tmp_path / "run", "--json", "--trust-scores")
    assert "stale" not in err and overall(json.loads(out))[("sgo", None)]["value"] == pytest.approx(1.0)


def test_tampered_bundle_behind_a_score_is_an_error(tmp_path, good, capsys):
    b = scored_bundle(tmp_path / "run" / "trial-1", good)
    (b / "signals.csv").write_text((b / "signals.csv").read_text() + "\n")
    code, _, err = metrics(capsys, tmp_path / "run")
    assert code == 2 and f"{b}/signals.csv: sha256 does not match manifest.json" in err
    assert "--trust-scores uses score.json as is" in err and len(err.strip().splitlines()) == 1


def test_agents_and_labels_are_not_pooled(tmp_path, good, poor, capsys):
    for i in range(3):
        scored_bundle(tmp_path / "a" / f"t{i}", good, agent="agent-a", trial=i, wall_start=float(i))
        scored_bundle(tmp_path / "a" / f"u{i}", poor, agent="agent-b", trial=i, wall_start=float(10 + i))
        scored_bundle(tmp_path / "b" / f"t{i}", poor, agent="agent-a", trial=i, wall_start=float(20 + i))
    code, out, err = metrics(capsys, f"base={tmp_path / 'a'}", tmp_path / "b", "--json", "-k", "1")
    assert code == 0, err
    recs = json.loads(out)
    assert {(r["agent"], r["label"]) for r in recs} == {("agent-a", "base"), ("agent-b", "base"), ("agent-a", "b")}
    assert overall(recs, "agent-a", "base")[("sr", None)]["value"] == 1.0
    assert overall(recs, "agent-b", "base")[("sr", None)]["value"] == 0.0
    assert overall(recs, "agent-a", "b")[("sr", None)]["value"] == 0.0
    code, out, _ = metrics(capsys, f"base={tmp_path / 'a'}", "--trust-scores")
    assert "== agent agent-a   run base" in out and "== agent agent-b   run base" in out


def test_k_above_the_trials_says_so(tmp_path, good, poor, capsys):
    for i, cols in enumerate([good, poor, good]):
        scored_bundle(tmp_path / "run" / f"t{i}", cols, trial=i, wall_start=float(i))
    code, out, _ = metrics(capsys, tmp_path / "run", "-k", "2", "-k", "5", "--trust-scores")
    assert code == 0
    assert "pass@5: n/a (3 trials" in out and "pass@2 " in out
    code, out, _ = metrics(capsys, tmp_path / "run", "-k", "5", "--json", "--trust-scores")
    r = overall(json.loads(out))[("pass_at_k", 5)]
    assert r["value"] is None and "3 trials" in r["note"]


def test_pass_at_k_has_a_bootstrap_interval():
    def S(ok):
        return Score(task_id="T01", verifier="v", status="scored", score=1.0 if ok else 0.0, success=ok)

    # 6 trials, 3 successes: pass@2 = 1 - C(3,2)/C(6,2) = 1 - 3/15 = 0.8; pass^2 = C(3,2)/C(6,2) = 0.2
    m = compute([S(True)] * 3 + [S(False)] * 3, ks=(2,))
    assert m.pass_at_k_ci[2].value == pytest.approx(0.8) and m.pass_hat_k_ci[2].value == pytest.approx(0.2)
    for iv in (m.pass_at_k_ci[2], m.pass_hat_k_ci[2]):
        assert 0.0 <= iv.lo < iv.value < iv.hi <= 1.0
    all_ok = compute([S(True)] * 4, ks=(2,)).pass_at_k_ci[2]
    assert (all_ok.lo, all_ok.value, all_ok.hi) == (1.0, 1.0, 1.0)


def test_flat_json_loads_into_an_arrow_table(tmp_path, good, poor, capsys):
    for i, cols in enumerate([good, poor]):
        scored_bundle(tmp_path / "run" / f"t{i}", cols, trial=i, wall_start=float(i))
    make_bundle(tmp_path / "run" / "t9", "T09", good, agent="agent-a", wall_start=9.0)  # unscored
    code, out, _ = metrics(capsys, tmp_path / "run", "--json", "--trust-scores", "-k", "1", "-k", "3")
    recs = json.loads(out)
    assert all(not isinstance(v, (dict, list)) for r in recs for v in r.values())
    table = pa.Table.from_pylist(recs)
    types = {f.name: f.type for f in table.schema}
    assert types["value"] == pa.float64() and types["lo"] == pa.float64() and types["k"] == pa.int64()
    assert types["agent"] == pa.string() and types["note"] == pa.string() and types["n_trials"] == pa.int64()
    assert table.num_rows == len(recs) and len(set(table.column_names)) == 12


def test_load_trials_counts_lone_score_files_only_when_trusted(tmp_path):
    d = tmp_path / "run" / "x"
    d.mkdir(parents=True)
    (d / "score.json").write_text(json.dumps(valid_score_json()))
    loaded = load_trials([("run", tmp_path / "run")])
    assert loaded.trials == [] and loaded.n_reverified == 0
    assert any("not counted: 1 score.json file(s)" in n and "--trust-scores" in n for n in loaded.notes)
    trusted = load_trials([("run", tmp_path / "run")], trust_scores=True)
    assert len(trusted.trials) == 1 and trusted.trials[0].score.score == 1.0 and trusted.n_reverified == 0


def test_only_unscored_episodes_give_null_metrics_not_nan(tmp_path, good, capsys):
    make_bundle(tmp_path / "run" / "t1", "T09", good, agent="agent-a", wall_start=1.0)  # never verified
    code, out, _ = metrics(capsys, tmp_path / "run", "--json")
    assert code == 0 and "NaN" not in out
    r = overall(json.loads(out))
    assert r[("sr", None)]["value"] is None and r[("sr", None)]["n_unscored"] == 1
    assert r[("pass_at_k", 1)]["note"] == "n/a (no scored trials)"
    code, out, _ = metrics(capsys, tmp_path / "run")
    assert "SR  (task-balanced success)   n/a" in out
