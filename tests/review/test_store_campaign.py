"""The grade store (upsert, two raters at once), balanced blind campaigns, import and export."""

from __future__ import annotations

import threading
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from simbridge._review.campaign import (
    CampaignError,
    assign_new_runs,
    assignments,
    balanced_assignment,
    create_campaign,
    grades_frame,
    import_grades,
)
from simbridge._review.store import CampaignRun, Grade, Store, StoreError

from .conftest import make_bundle


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(1, 30), st.integers(1, 8), st.data())
def test_balanced_assignment(n_runs: int, n_raters: int, data: st.DataObject) -> None:
    k = data.draw(st.integers(1, n_raters))
    seed = data.draw(st.integers(0, 1000))
    raters = [f"r{i}" for i in range(n_raters)]
    plan = balanced_assignment([f"run{i}" for i in range(n_runs)], raters, k, seed)
    assert sorted(plan) == sorted(f"run{i}" for i in range(n_runs))
    assert all(len(set(v)) == k for v in plan.values())
    loads = [sum(r in v for v in plan.values()) for r in raters]
    assert max(loads) - min(loads) <= 1
    assert plan == balanced_assignment([f"run{i}" for i in range(n_runs)], raters, k, seed)


def test_per_run_larger_than_raters_is_an_error() -> None:
    with pytest.raises(CampaignError, match="--per-run 3: must be between 1 and the number of raters"):
        balanced_assignment(["a"], ["x", "y"], 3, 0)


def test_campaign_is_blind_and_balanced(tmp_path: Path, runs_dir: Path) -> None:
    store = Store(str(tmp_path / "r.sqlite"))
    plan = create_campaign(store, "c1", runs_dir, ["ann", "bob", "cy"], 2, seed=7)
    assert len(plan) == 6 and all(len(v) == 2 for v in plan.values())
    for blind in plan:
        assert blind.startswith("R-") and "mcp" not in blind and "human" not in blind and "ep" not in blind
    rows = assignments(store, "c1", "ann")
    assert len(rows) == 4 and {r[1] for r in rows} == {"ann"}
    assert rows[0][3] == ["PRO", "FPM", "SAW", "WLM", "KNO"]  # T09 (steep turn): no automation, no radios
    with pytest.raises(CampaignError, match="exists already"):
        create_campaign(store, "c1", runs_dir, ["ann"], 1, seed=0)
    # a second store over the same file sees the same campaign (it survives a restart)
    assert assignments(Store(str(tmp_path / "r.sqlite")), "c1", "ann") == rows


def test_assign_picks_up_new_bundles(tmp_path: Path, runs_dir: Path) -> None:
    store = Store(str(tmp_path / "r.sqlite"))
    create_campaign(store, "c1", runs_dir, ["ann", "bob", "cy"], 1, seed=1)
    make_bundle(runs_dir, "late", trial=9)
    new = assign_new_runs(store, "c1")
    assert len(new) == 1 and assign_new_runs(store, "c1") == {}
    loads = [sum(r[1] == name for r in assignments(store, "c1")) for name in ("ann", "bob", "cy")]
    assert sorted(loads) == [2, 2, 3]


def test_unknown_campaign_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="campaign 'nope' does not exist"):
        assignments(Store(str(tmp_path / "r.sqlite")), "nope")


def _grade_csv(path: Path, rows: list[list[str]]) -> Path:
    path.write_text("campaign,run,rater,competency,level,evidence\n" + "".join(",".join(r) + "\n" for r in rows))
    return path


def _count(store: Store) -> int:
    with store.session() as s:
        return len(s.scalars(select(Grade)).all())


def test_import_is_all_or_nothing_and_regrade_replaces(tmp_path: Path, runs_dir: Path) -> None:
    store = Store(str(tmp_path / "r.sqlite"))
    create_campaign(store, "c1", runs_dir, ["ann", "bob"], 2, seed=3)
    blind = sorted(assignments(store, "c1"))[0][0]
    good = [["c1", blind, "ann", "PRO", "Fully Achieved", "clean"], ["c1", blind, "bob", "PRO", "partly_achieved", ""]]
    bad_cases = {
        "level 'Excellent' is not on the scale": ["c1", blind, "ann", "SAW", "Excellent", ""],
        "run 'R-000000' is not in campaign 'c1'": ["c1", "R-000000", "ann", "SAW", "3", ""],
        "competency 'COM' is not graded": ["c1", blind, "ann", "COM", "3", ""],
        "campaign 'c9' does not exist": ["c9", blind, "ann", "SAW", "3", ""],
        "rater 'zed' does not exist": ["c1", blind, "zed", "SAW", "3", ""],
    }
    for msg, row in bad_cases.items():
        f = _grade_csv(tmp_path / "bad.csv", [*good, row])
        with pytest.raises(CampaignError) as exc:
            import_grades(store, f)
        assert str(exc.value).startswith(f"{f}:4: ") and msg in str(exc.value)
        assert _count(store) == 0  # nothing partially imported
    assert import_grades(store, _grade_csv(tmp_path / "g.csv", good)) == 2
    assert (
        import_grades(store, _grade_csv(tmp_path / "g2.csv", [["c1", blind, "ann", "PRO", "Not Achieved", "x"]])) == 1
    )
    df = grades_frame(store, "c1")
    assert len(df) == 2
    assert dict(zip(df["rater"], df["level"])) == {"ann": "not_achieved", "bob": "partly_achieved"}
    with pytest.raises(CampaignError, match=r"g3.csv:1: missing column\(s\) level"):
        (tmp_path / "g3.csv").write_text("campaign,run,rater,competency\n")
        import_grades(store, tmp_path / "g3.csv")


def test_two_raters_at_once_never_overwrite_each_other(tmp_path: Path, runs_dir: Path) -> None:
    store = Store(str(tmp_path / "r.sqlite"))
    create_campaign(store, "c1", runs_dir, ["ann", "bob"], 2, seed=3)
    with store.session() as s:
        cr = s.scalars(select(CampaignRun)).first()
        assert cr is not None
        ids = {name: store.rater(s, name).id for name in ("ann", "bob")}
        cr_id = cr.id
    errors: list[BaseException] = []
    barrier = threading.Barrier(2)

    def grade(rater: str) -> None:
        try:
            barrier.wait()
            for i in range(40):
                with store.session() as s:
                    store.save_grade(s, cr_id, ids[rater], "PRO", "x", 1 + (i % 4), f"{rater} {i}")
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=grade, args=(r,)) for r in ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    with store.session() as s:
        rows = {g.rater.name: g.evidence for g in s.scalars(select(Grade))}
    assert rows == {"ann": "ann 39", "bob": "bob 39"}


def test_export_round_trips_csv_and_parquet(tmp_path: Path, runs_dir: Path) -> None:
    store = Store(str(tmp_path / "r.sqlite"))
    create_campaign(store, "c1", runs_dir, ["ann"], 1, seed=3)
    rows = [["c1", b, "ann", "FPM", "Mostly Achieved", "ok"] for b, *_ in assignments(store, "c1")]
    import_grades(store, _grade_csv(tmp_path / "g.csv", rows))
    df = grades_frame(store, "c1")
    df.to_parquet(tmp_path / "g.parquet")
    back = pd.read_parquet(tmp_path / "g.parquet")
    assert len(back) == 6 and set(back["level_value"]) == {3} and set(back["human"]) == {True, False}
    assert sorted(back["verifier_score"]) == pytest.approx([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])


def test_bad_db_url_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="not a usable database URL"):
        Store("nosuchdialect://x")
