"""The episode page without a browser: decimation, figures, track marks, the CLI's errors."""

from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from report.bundles import build_t09
from simbridge._cli import main
from simbridge._report import load_episode
from simbridge._report._html import render_episode
from simbridge._report._plots import decimate, signal_figures
from simbridge._report._track import track_figure
from synth import make_bundle
from synth_flight_a import takeoff_hold


def test_decimate_keeps_extremes_and_size():
    t = np.arange(0.0, 600.0, 0.05)  # 10 minutes at 20 Hz
    v = np.sin(t / 10.0)
    v[7777] = 99.0  # a one-sample excursion must survive decimation
    td, vd = decimate(t, v, 2000)
    assert td.size <= 2002 and 99.0 in vd and td[0] == 0.0 and td[-1] == t[-1]
    assert np.all(np.diff(td) > 0)


def test_decimate_breaks_the_line_at_gaps_and_dropouts():
    t = np.concatenate([np.arange(0, 10, 0.1), np.arange(12, 20, 0.1)])  # a 2 s telemetry gap
    v = np.ones_like(t)
    v[150] = np.nan
    td, vd = decimate(t, v, 50, max_gap_s=0.5)
    inside = (td > 9.95) & (td < 12.0)
    assert inside.sum() == 1 and np.isnan(vd[inside]).all()  # one NaN inside the gap, nothing else
    assert np.isnan(vd[(td > 12) & (td < 20)]).any()  # the dropout still shows


@settings(derandomize=True, max_examples=40, deadline=None)
@given(st.lists(st.floats(-1e4, 1e4), min_size=1, max_size=3000), st.integers(4, 500))
def test_decimate_keeps_min_and_max(values, max_points):
    v = np.asarray(values)
    td, vd = decimate(np.arange(v.size, dtype=float), v, max_points)
    assert vd.min() == v.min() and vd.max() == v.max()
    assert td.size <= max(v.size, max_points + 2)


def test_page_contents(tmp_path):
    b = build_t09(tmp_path / "t09", frames=False)
    view = load_episode(b)
    page = render_episode(view)
    score = json.loads((b / "score.json").read_text())
    assert re.search(r'id="score-value">([^<]*)<', page).group(1) == f"{score['score']:.3f}"
    assert "test brief" in page  # the agent's brief, not the catalog text
    assert "provider netns: isolated, audit passed" in page
    # nothing fetched: no external script, stylesheet or media
    assert not re.search(r'(src|href)="(https?:)?//', page)
    figs = json.loads(re.search(r'id="figures">(.*?)</script>', page, re.S).group(1).replace("<\\/", "</"))
    # every non-position signal of T09: bank, altitude, airspeed, heading, autopilot, crash flag;
    # then the actions
    assert [f["fig"]["layout"]["meta"]["signal"] for f in figs] == [
        "bank_deg",
        "alt_msl_ft",
        "ias_kt",
        "heading_mag_deg",
        "autopilot_on",
        "crashed",
        "actions",
    ]
    acts = figs[-1]["fig"]["data"]
    assert [tr["name"] for tr in acts] == ["action", "failed action"]
    assert acts[1]["x"] == [20.0] and "unknown key" in acts[1]["text"][0]
    assert "No screen frames" in page


def test_gap_and_violation_are_drawn(tmp_path):
    b = build_t09(tmp_path / "t09", frames=False, gap=(5.0, 6.5))
    view = load_episode(b)
    assert view.score.status == "unscored"  # a gap makes autopilot-off undecidable
    fig = signal_figures(view, [])[0]
    gap_rects = [s for s in fig.layout.shapes if s.type == "rect" and s.fillcolor == "rgba(214,39,40,0.25)"]
    assert len(gap_rects) == 1 and gap_rects[0].x0 < 5.0 and gap_rects[0].x1 > 6.5


def test_track_of_a_takeoff_over_the_runway(tmp_path):
    cols = takeoff_hold(hold_s=30)
    b = make_bundle(tmp_path / "t02", "T02", cols, sim="jsbsim")
    view = load_episode(b)
    fig = track_figure(view)
    names = [tr.name for tr in fig.data]
    assert names[0] == "runway 34R" and "path" in names
    rwy = fig.data[0]
    # origin is the 34R threshold: the runway runs ~11,900 ft (3627 m) north from (0, 0)
    assert max(rwy.y) == pytest.approx(3627, abs=15) and min(rwy.y) == pytest.approx(0, abs=1)
    path = next(tr for tr in fig.data if tr.name == "path")
    assert abs(path.x[0]) < 1 and abs(path.y[0]) < 1  # the roll starts on the threshold
    marks = next(tr for tr in fig.data if tr.name == "marks")
    assert list(marks.text) == ["start", "end"]  # no touchdown in a takeoff


def test_cli_writes_beside_the_bundle_and_verify_still_passes(tmp_path, capsys):
    b = build_t09(tmp_path / "t09", frames=False)
    assert main(["report", str(b)]) == 0
    out = tmp_path / "t09.report.html"
    assert capsys.readouterr().out.strip() == str(out) and out.stat().st_size > 1_000_000
    assert main(["verify", str(b)]) == 0  # the bundle itself was not touched


@pytest.mark.parametrize(
    "case, expect",
    [
        ("missing", "not a bundle directory"),
        ("no_episode", "no episode.json"),
        ("unknown_task", "episode.json"),
    ],
)
def test_cli_bad_input_is_one_line(tmp_path, capsys, case, expect):
    b = build_t09(tmp_path / "t09", frames=False)
    if case == "missing":
        shutil.rmtree(b)
    elif case == "no_episode":
        (b / "episode.json").unlink()
    elif case == "unknown_task":
        ep = json.loads((b / "episode.json").read_text())
        (b / "episode.json").write_text(json.dumps({**ep, "task_id": "T77"}))
    assert main(["report", str(b)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and expect in err and "Traceback" not in err


@pytest.mark.parametrize("bad", ["{nope", json.dumps({"task_id": "T09", "verifier": "steep_turn", "status": "great"})])
def test_a_broken_score_json_is_ignored_and_flagged_not_shown(tmp_path, bad):
    b = build_t09(tmp_path / "t09", frames=False)
    truth = load_episode(b).score
    (b / "score.json").write_text(bad)
    view = load_episode(b)
    assert view.score.score == truth.score and "score_json_disagrees" in view.score.flags
    assert "score.json ignored (not a score" in view.score.explanation


def test_harness_fault_page_says_unscored_with_the_reason(tmp_path):
    b = build_t09(tmp_path / "t09", frames=False)
    ep = json.loads((b / "episode.json").read_text())
    (b / "episode.json").write_text(json.dumps({**ep, "status": "sim_crashed", "status_detail": "fdm died"}))
    (b / "score.json").unlink()
    (b / "manifest.json").unlink()  # a crashed run is not finished: no manifest
    view = load_episode(b)
    assert view.score.status == "unscored" and view.score_source.startswith("derived now")
    page = render_episode(view)
    assert 'id="score-value">unscored<' in page and "sim_crashed (fdm died)" in page
    assert view.score.reason in page


def test_unisolated_episode_is_marked(tmp_path):
    b = build_t09(tmp_path / "t09", frames=False)
    ep = json.loads((b / "episode.json").read_text())
    iso = {"provider": "local", "isolated": False, "audit": {"ok": False, "problems": ["port 500 reachable"]}}
    (b / "episode.json").write_text(json.dumps({**ep, "unisolated": True, "isolation": iso}))
    page = render_episode(load_episode(b))
    assert '<span class="unisolated">unisolated</span>' in page
    assert "provider local: not isolated, audit FAILED: port 500 reachable, UNISOLATED" in page


def test_tampered_bundle_page_warns(tmp_path):
    b = build_t09(tmp_path / "t09", frames=False)
    (b / "events.jsonl").write_text('{"t": 1.0, "kind": "inserted"}\n')
    page = render_episode(load_episode(b))
    assert "integrity: " in page and "events.jsonl: sha256 does not match manifest.json" in page
    (b / "score.json").unlink()  # without a recorded score it is not scored at all
    view = load_episode(b)
    assert view.score.status == "unscored" and "manifest" in view.score.reason
