"""Multi-trial metrics with hand-worked values."""

import json

import pytest

from simbridge import Score
from simbridge._metrics import compute, load_scores, pass_at_k, pass_hat_k
from simbridge._cli import main


def S(task, score, success, safe=True, status="scored"):
    from simbridge._score import SafetyResult

    return Score(
        task_id=task,
        verifier="v",
        status=status,
        score=score if status == "scored" else None,
        success=success if status == "scored" else None,
        safety=[SafetyResult(name="s", ok=safe)],
        reason="" if status == "scored" else "gap",
    )


def test_pass_at_k_and_hat_k():
    # n=5, c=2: pass@1 = 2/5; pass@2 = 1 - C(3,2)/C(5,2) = 1 - 3/10 = 0.7; pass^2 = C(2,2)/C(5,2) = 0.1
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)
    assert pass_hat_k(5, 2, 2) == pytest.approx(0.1)
    assert pass_hat_k(5, 5, 5) == 1.0 and pass_at_k(5, 0, 3) == 0.0
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)


def test_task_balanced_and_unscored_excluded():
    scores = (
        # T01: 4 trials, 3 successes -> SR 0.75; scores 1,1,1,0.4 -> SGO 0.85; all safe
        [S("T01", 1, True), S("T01", 1, True), S("T01", 1, True), S("T01", 0.4, False)]
        # T02: 2 trials, 0 successes; one unsafe (score 0) -> SR 0, SGO 0.25, SCR 0.5
        + [S("T02", 0.5, False), S("T02", 0.0, False, safe=False)]
        # harness faults: excluded
        + [S("T02", 0, False, status="unscored")]
    )
    m = compute(scores, ks=(1, 2))
    assert m.n_tasks == 2 and m.n_scored == 6 and m.n_unscored == 1
    assert m.sr.value == pytest.approx((0.75 + 0) / 2)  # task-balanced, not 3/6
    assert m.sgo.value == pytest.approx((0.85 + 0.25) / 2)
    assert m.scr.value == pytest.approx((1 + 0.5) / 2)
    assert m.sr.lo <= m.sr.value <= m.sr.hi
    # pass@2: T01 1 - C(1,2)/C(4,2) = 1; T02 0 -> 0.5. pass^2: T01 C(3,2)/C(4,2) = 0.5; T02 0 -> 0.25
    assert m.pass_at_k[2] == pytest.approx(0.5)
    assert m.pass_hat_k[2] == pytest.approx(0.25)


def test_cli_reads_score_files(tmp_path, capsys):
    for i, s in enumerate([S("T09", 1, True), S("T09", 0.7, False)]):
        d = tmp_path / f"trial{i}"
        d.mkdir()
        (d / "score.json").write_text(s.model_dump_json())
    assert len(load_scores([tmp_path])) == 2
    # lone score files (no bundle to re-derive them from) count only when trusted
    assert main(["metrics", str(tmp_path), "--json", "-k", "1"]) == 2
    assert "not counted: 2 score.json file(s)" in capsys.readouterr().err
    assert main(["metrics", str(tmp_path), "--json", "-k", "1", "--trust-scores"]) == 0
    out = {r["metric"]: r for r in json.loads(capsys.readouterr().out) if r["task_id"] is None and r["k"] is None}
    assert out["sr"]["value"] == pytest.approx(0.5) and out["sgo"]["value"] == pytest.approx(0.85)
    assert main(["metrics", str(tmp_path / "missing")]) == 2
