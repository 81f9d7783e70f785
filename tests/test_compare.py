"""`simbridge compare`: two runs of T09 side by side, paired by trial index, from verified
re-scoring (score.json is re-derived, never trusted), as a table, JSON and an HTML page."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from simbridge import read_bundle
from simbridge._cli import main
from simbridge._task import load_task
from simbridge import score_bundle
from synth import make_bundle, steep_turn

TASK = load_task("T09")


def lose_altitude(cols, ft=500.0):
    out = dict(cols)
    m = (cols["t"] >= 25.0) & (cols["t"] <= 30.0)
    out["alt_msl_ft"] = np.where(m, cols["alt_msl_ft"] + ft, cols["alt_msl_ft"])
    return out


def run_dir(root: Path, agent: str, n: int, bad_trials: set[int], *, lie: bool = False) -> Path:
    """n T09 episodes of `agent`; trials in bad_trials lose altitude (0.7). With `lie`, every
    score.json claims 1.0: compare must re-derive the real scores from the bundles."""
    for i in range(n):
        cols = lose_altitude(steep_turn()) if i in bad_trials else steep_turn()
        d = make_bundle(
            root / f"T09-{i}",
            "T09",
            cols,
            fmt="parquet",
            agent=agent,
            trial=i,
            wall_start=1000.0,
            wall_end=1060.0 + i,
            cpu_s={"runner": 2.0, "cockpit": 3.0},
            agent_actions={"served": 10 + i, "failed": 0},
        )
        s = score_bundle(read_bundle(d), TASK)
        if lie:
            s = s.model_copy(update={"score": 1.0, "raw_score": 1.0, "success": True})
        (d / "score.json").write_text(s.model_dump_json())
    return root


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("runs")
    a = run_dir(base / "a", "pilot-a", 6, set())
    b = run_dir(base / "b", "pilot-b", 6, {0, 1, 2, 3, 4}, lie=True)
    return a, b


def test_json_paired_differences_from_verified_scores(runs, capsys):
    a, b = runs
    assert main(["compare", f"a={a}", f"b={b}", "--json", "--n-boot", "500"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["arms"] == ["a", "b"] and data["by"] == "label" and data["n_reverified"] == 12
    assert "stale score.json" in err  # b's score.json files claim 1.0
    ta, tb = data["per_arm"]["a"]["tasks"]["T09"], data["per_arm"]["b"]["tasks"]["T09"]
    assert ta["success_rate"] == 1.0 and ta["mean_score"] == pytest.approx(1.0)
    assert tb["success_rate"] == pytest.approx(1 / 6) and tb["mean_score"] == pytest.approx((5 * 0.7 + 1) / 6)
    d = data["paired"][0]["tasks"]["T09"]["score"]
    assert d["n_pairs"] == 6 and d["mean_diff"] == pytest.approx(-0.25)
    assert d["lo"] < -0.1 and d["hi"] <= 0.0 and d["lo"] <= d["mean_diff"] <= d["hi"]
    assert 0 < d["p_value"] < 0.1
    item = data["paired"][0]["tasks"]["T09"]["items"]["altitude_held"]
    assert item["mean_diff"] == pytest.approx(-5 / 6)
    assert data["per_arm"]["b"]["fails_most"][0] == {
        "task_id": "T09",
        "item": "altitude_held",
        "fail_rate": pytest.approx(5 / 6),
        "n": 6,
    }
    assert data["per_arm"]["a"]["fails_most"] == []
    assert tb["cost"]["cpu_s"] == pytest.approx(5.0) and tb["cost"]["actions"] == pytest.approx(12.5)
    assert tb["cost"]["wall_s"] == pytest.approx(62.5) and tb["cost"]["tokens"] is None
    diff = data["difficulty"]["T09"]
    assert diff["catalog"] == TASK.difficulty and diff["measured"] == pytest.approx(1 - 7 / 12)


def test_terminal_table_and_html_page(runs, capsys, tmp_path):
    a, b = runs
    out_html = tmp_path / "cmp.html"
    assert main(["compare", f"a={a}", f"b={b}", "--html", str(out_html), "--n-boot", "500"]) == 0
    out = capsys.readouterr().out
    assert "T09" in out and "altitude_held" in out and "-0.250" in out
    page = out_html.read_text()
    assert "<script" not in page and "http" not in page.split("<body>", 1)[1]
    assert "altitude_held" in page and "−0.250" not in page and "-0.250" in page


def test_one_arm_is_an_error(runs, capsys):
    a, _ = runs
    assert main(["compare", f"a={a}"]) == 2
    assert "only one" in capsys.readouterr().err


def test_html_page_in_chromium(runs, tmp_path):
    """The page in Debian's chromium (Playwright): renders its tables, fetches nothing, no errors."""
    from playwright import sync_api as playwright_api
    from support.browser import launch_chromium

    a, b = runs
    out_html = tmp_path / "cmp.html"
    assert main(["compare", f"a={a}", f"b={b}", "--html", str(out_html), "--n-boot", "500"]) == 0
    with playwright_api.sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            errors: list[str] = []
            requests: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("request", lambda r: requests.append(r.url))
            page.goto(out_html.as_uri())
            row = page.locator("#per-task tr[data-task='T09'] td")
            assert row.count() == 5
            assert row.nth(3).inner_text().startswith("0.17 / 0.750")
            diff = row.nth(4)
            assert diff.inner_text().startswith("-0.250") and "worse" in (diff.get_attribute("class") or "")
            assert "altitude_held" in page.locator("#fails").inner_text()
            assert page.locator("#cost tr").count() == 3
            assert errors == [] and requests == [out_html.as_uri()]
        finally:
            browser.close()
