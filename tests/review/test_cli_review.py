"""`simbridge review` end to end: create a campaign, import grades, agreement and verifiers vs raters."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from simbridge._cli import main

from .conftest import make_bundle

LABELS = {1: "Not Achieved", 2: "Partly Achieved", 3: "Mostly Achieved", 4: "Fully Achieved"}


def _setup(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, list[list[str]]]:
    """Eight T09 runs graded by three raters who agree; the verifier agrees except on ep7."""
    root = tmp_path / "runs"
    quality = [1, 2, 3, 4, 1, 2, 3, 4]
    scores = [0.0, 0.3, 0.6, 1.0, 0.1, 0.35, 0.7, 0.0]  # ep7: raters say Fully Achieved, verifier 0
    for i, (q, sc) in enumerate(zip(quality, scores)):
        make_bundle(root, f"ep{i}", agent="human" if i % 2 else "mcp", trial=i, score=sc)
    db = str(tmp_path / "r.sqlite")
    assert (
        main(
            [
                "review",
                "campaign",
                "create",
                "c1",
                str(root),
                "--raters",
                "ann,bob,cy",
                "--per-run",
                "3",
                "--seed",
                "4",
                "--db",
                db,
            ]
        )
        == 0
    )
    assert "loads: ann 8, bob 8, cy 8" in capsys.readouterr().out
    assert main(["review", "campaign", "assign", "c1", "--db", db]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == 24 and all("ep" not in r[0] for r in rows)
    main(["review", "campaign", "export", "c1", "--csv", str(tmp_path / "empty.csv"), "--db", db])
    capsys.readouterr()
    return db, rows


def _blind_to_quality(db: str) -> dict[str, int]:
    """The evaluator's side: blind id -> the quality the synthetic run was built with."""
    from sqlalchemy import select

    from simbridge._review.store import CampaignRun, Store

    quality = [1, 2, 3, 4, 1, 2, 3, 4]
    with Store(db).session() as s:
        return {cr.blind_id: quality[int(Path(cr.run.bundle_path).name[2:])] for cr in s.scalars(select(CampaignRun))}


def test_review_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db, rows = _setup(tmp_path, capsys)
    q = _blind_to_quality(db)
    grades = tmp_path / "grades.csv"
    with grades.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["campaign", "run", "rater", "competency", "level", "evidence"])
        for blind, rater, _task, comps in rows:
            for comp in comps.split(","):
                w.writerow(["c1", blind, rater, comp, LABELS[q[blind]], "seen on the replay"])
    assert main(["review", "import-grades", str(grades), "--db", db]) == 0
    assert "120 grade(s) imported" in capsys.readouterr().out
    assert main(["review", "agreement", "c1", "--permutations", "19", "--json", "--db", db]) == 0
    rep = json.loads(capsys.readouterr().out)
    for group in ("all", "human", "agent"):
        g = rep["groups"][group]
        assert g["overall"]["ICC(A,1)"]["value"] == pytest.approx(1.0)
        assert g["overall"]["kendall_w"]["p_value"] == pytest.approx(1 / 20)
        assert set(g["competencies"]) == {"PRO", "FPM", "SAW", "WLM", "KNO"}
    assert rep["groups"]["human"]["n_runs"] == 4
    assert rep["groups"]["all"]["deviation"]["ann"] == {"0": 40}
    # mcp flew ep0, ep2, ep4, ep6 (Not, Partly, Not, Partly); human ep1, ep3, ep5, ep7 (Partly, Fully, Partly, Fully)
    assert rep["verdicts"]["mcp"]["overall"] == "Unsatisfactory"
    assert rep["verdicts"]["human"]["FPM"] == "Unsatisfactory"  # Partly Achieved twice: a repeated pattern
    v = rep["verifiers"]["T09"]
    assert v["n_runs"] == 8 and 0 < v["spearman"]["value"] < 1
    worst = v["disagreements"][0]
    assert worst["bundle_path"].endswith("ep7") and worst["verifier_score"] == 0.0 and worst["consensus_01"] == 1.0
    # the text form prints the same numbers
    assert main(["review", "agreement", "c1", "--permutations", "19", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "ICC(A,1)             1.000  p=0.0500" in out and "T09: 8 runs, rho=" in out
    assert main(["review", "campaign", "list", "--db", db]) == 0
    assert "c1                       8      3    120  flight" in capsys.readouterr().out
    assert main(["review", "campaign", "export", "c1", "--parquet", str(tmp_path / "g.parquet"), "--db", db]) == 0
    assert "120 grade(s) written" in capsys.readouterr().out


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db, rows = _setup(tmp_path, capsys)
    bad = tmp_path / "bad.csv"
    bad.write_text(
        f"campaign,run,rater,competency,level\nc1,{rows[0][0]},{rows[0][1]},PRO,4\nc1,{rows[0][0]},{rows[0][1]},FPM,7\n"
    )
    assert main(["review", "import-grades", str(bad), "--db", db]) == 2
    err = capsys.readouterr().err.strip()
    assert (
        err == f"simbridge: error: {bad}:3: level '7' is not on the scale (Fully Achieved, Mostly Achieved, "
        "Partly Achieved, Not Achieved)"
    )
    assert main(["review", "agreement", "nope", "--db", db]) == 2
    assert capsys.readouterr().err.strip() == "simbridge: error: campaign 'nope' does not exist (campaigns: c1)"
    assert (
        main(
            [
                "review",
                "campaign",
                "create",
                "c2",
                str(tmp_path / "none"),
                "--raters",
                "a",
                "--per-run",
                "1",
                "--db",
                db,
            ]
        )
        == 2
    )
    assert "not a directory of bundles" in capsys.readouterr().err
    assert main(["review", "import-grades", str(tmp_path / "missing.csv"), "--db", db]) == 2
    assert "missing.csv: cannot read" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args, message",
    [
        (["campaign", "create", "c1", ".", "--raters", "ann", "--per-run", "-1"], "argument --per-run: -1 must be ≥ 0"),
        (
            ["campaign", "create", "c1", ".", "--raters", "ann", "--per-run", "2.5"],
            "argument --per-run: '2.5' is not an integer",
        ),
        (["serve", ".", "--port", "0"], "argument --port: 0 must be ≥ 1"),
        (["serve", ".", "--port", "70000"], "argument --port: 70000 must be ≤ 65535"),
        (["agreement", "c1", "--permutations", "-3"], "argument --permutations: -3 must be ≥ 0"),
    ],
)
def test_bad_numbers_are_one_line_naming_the_flag_and_value(args, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["review", *args, "--db", str(tmp_path / "r.sqlite")])
    assert exc.value.code == 2
    [line] = [x for x in capsys.readouterr().err.splitlines() if "error:" in x]
    assert line.endswith(f"error: {message}")
    assert not (tmp_path / "r.sqlite").exists(), "a refused command opened the store"
