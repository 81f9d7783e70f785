"""The suite page without a browser: its numbers are `simbridge metrics`', its cells link to
episode pages that exist, unscored episodes are counted apart with their reasons."""

from __future__ import annotations

import json
import re
import urllib.parse

import pytest

from simbridge._cli import main
from simbridge._report import load_suite
from simbridge._report._suite import render_suite


def _row(page: str, agent: str) -> str:
    return re.search(rf'<tr data-agent="{agent}" data-sim="jsbsim">(.*?)</tr>', page, re.S).group(1)


def test_numbers_are_simbridge_metrics(suite_dir, suite_report, capsys):
    _, page = suite_report
    capsys.readouterr()
    assert main(["metrics", str(suite_dir), "--json"]) == 0
    recs = json.loads(capsys.readouterr().out)
    for agent in ("good", "shaky"):
        row = _row(page, agent)
        keys = re.findall(r'data-sort="([^"]*)"', row)
        sr, sgo, scr = (float(k) for k in keys[2:5])
        want = {r["metric"]: r for r in recs if r["agent"] == agent and r["task_id"] is None and r["k"] is None}
        assert (sr, sgo, scr) == pytest.approx(
            (want["sr"]["value"], want["sgo"]["value"], want["scr"]["value"]), abs=1e-6
        )
        assert f"[{want['sr']['lo']:.3f}, {want['sr']['hi']:.3f}]" in row
    # good succeeds at T09 every time, shaky once of three (its crashed fourth trial is unscored)
    assert re.search(r'1\.000</span> <span class="cell-sr">100% success</span> <span class="n">n=3', _row(page, "good"))
    assert re.search(r'33% success</span> <span class="n">n=3</span><div class="uns">1 unscored', _row(page, "shaky"))


def test_every_cell_links_to_an_episode_page_that_exists(suite_report):
    out, page = suite_report
    links = [urllib.parse.unquote(html) for html in re.findall(r'<a href="([^"]+)"', page)]
    # 9 episodes: 8 in the leaderboard cells, and the crashed one twice (its cell and the unscored table)
    assert len(links) == 10 and len(set(links)) == 9
    for rel in links:
        target = out.parent / rel
        assert rel.startswith("episodes/") and target.is_file(), rel
    assert "trial-2.html" in " ".join(links)
    ep_page = (out.parent / "episodes/T09/jsbsim/good/trial-1.html").read_text()
    assert 'id="score-value">1.000<' in ep_page


def test_unscored_counted_apart_with_reason(suite_report):
    _, page = suite_report
    row = _row(page, "shaky")
    keys = re.findall(r'data-sort="([^"]*)"', row)
    assert keys[-4:-2] == ["4", "1"]  # scored (T09 ×3, T02), unscored: before the two task cells
    reasons = re.search(r'id="unscored-reasons">(.*?)</ul>', page, re.S).group(1)
    assert "1 × no score.json" in reasons and "sim_crashed (fdm died)" in reasons


def test_suite_rows_split_by_simulator(suite_dir, tmp_path):
    suite = load_suite(suite_dir, trust_scores=True)
    assert sorted(suite.groups) == [("good", "jsbsim"), ("shaky", "jsbsim")]
    assert suite.tasks == ["T02", "T09"]
    page = render_suite(suite)
    assert not re.search(r'(src|href)="(https?:)?//', page)  # nothing fetched


def test_suite_bad_input_is_one_line(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["report", str(tmp_path / "empty")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no episode.json in it or under it" in err
    bad = tmp_path / "runs" / "T09" / "jsbsim" / "a" / "trial-1"
    bad.mkdir(parents=True)
    (bad / "episode.json").write_text("{nope")
    assert main(["report", str(tmp_path / "runs")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{bad / 'episode.json'}: line 1: not valid JSON" in err
