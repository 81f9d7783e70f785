"""The episode page in a real browser: Debian's chromium driven by Playwright (no
`playwright install`; scripts/setup.sh installs both).

The bundle is the synthetic T09 steep turn of bundles.build_t09 (tests/synth.py's trace,
frames from ffmpeg's test pattern), not a recorded embedded-sim episode: running JSBSim for a
page test would cost minutes. Screenshots go to the pytest tmp dir; SIMBRIDGE_REPORT_SCREENSHOT
set to a path also writes one there (how docs/report-episode.png is made).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from simbridge._report import write_episode_report
from support.browser import launch_chromium, needs_chromium

from playwright import sync_api as playwright_api

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as pw:
        b = launch_chromium(pw)
        yield b
        b.close()


@pytest.fixture(scope="module")
def page_of_t09(browser, t09_bundle: Path, tmp_path_factory: pytest.TempPathFactory):
    out = write_episode_report(t09_bundle, tmp_path_factory.mktemp("html") / "t09.html")
    errors: list[str] = []
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(out.as_uri())
    page.wait_for_function("document.body.dataset.plotsReady", timeout=30_000)
    yield page, errors, requests
    page.close()


def test_no_console_errors_and_nothing_fetched(page_of_t09):
    page, errors, requests = page_of_t09
    assert errors == []
    # the page itself and the data: video only; no network
    assert all(u.startswith(("file:", "data:", "blob:")) for u in requests), requests


def test_every_plot_rendered_with_data(page_of_t09):
    page, _, _ = page_of_t09
    # drawn lines (SVG paths of a real length) and drawn markers, per plot
    counts = page.evaluate("""[...document.querySelectorAll('.js-plotly-plot')].map(d => [
        [...d.querySelectorAll('.scatterlayer .trace path.js-line')]
            .filter(p => (p.getAttribute('d') || '').length > 100).length,
        d.querySelectorAll('.scatterlayer .trace path.point').length])""")
    # T09's five time-series signals and the crash flag its no_crash gate reads, as lines (no
    # positions, so no track map), then the actions timeline: 4 actions as markers
    assert len(counts) == 7 and all(lines >= 1 for lines, _ in counts[:6]) and counts[6] == [0, 4]


def test_score_shown_is_score_json(page_of_t09, t09_bundle):
    page, _, _ = page_of_t09
    score = json.loads((t09_bundle / "score.json").read_text())
    assert page.locator("#score-value").inner_text() == f"{score['score']:.3f}"
    assert page.locator("#components tr").count() == 1 + len(score["components"])


def test_video_plays_and_clicking_a_plot_seeks_it(page_of_t09, tmp_path):
    page, errors, _ = page_of_t09
    assert page.evaluate("document.getElementById('screen').canPlayType('video/mp4; codecs=\"avc1.42E01E\"')") != ""
    page.wait_for_function("document.getElementById('screen').readyState >= 2", timeout=10_000)
    assert page.evaluate("document.getElementById('screen').duration") > 50
    page.evaluate("document.getElementById('screen').play()")
    page.wait_for_function("document.getElementById('screen').currentTime > 0.3", timeout=10_000)
    page.evaluate("document.getElementById('screen').pause()")
    # click the altitude plot at about 2/3 of its width: the video seeks to that sim time
    drag = page.locator("#plot-1 .nsewdrag").first
    drag.scroll_into_view_if_needed()
    box = drag.bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.66, box["y"] + box["height"] * 0.5)
    page.wait_for_function(
        "document.body.dataset.cursorT && document.getElementById('screen').currentTime > 20", timeout=10_000
    )
    t_video = page.evaluate("document.getElementById('screen').currentTime")
    cursor_t = float(page.evaluate("document.body.dataset.cursorT"))
    assert abs(t_video - cursor_t) < 0.5  # video t0 is sim t 0 here
    # the cursor line is drawn on every time plot
    n_cursor = page.evaluate("""[...document.querySelectorAll('.js-plotly-plot')].filter(
        d => (d.layout.shapes || []).some(s => s.name === 'cursor')).length""")
    assert n_cursor == 7 and errors == []  # the six signal plots and the actions timeline
    page.evaluate("window.scrollTo(0, 0)")
    shot = tmp_path / "report-episode.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 50_000
    if os.environ.get("SIMBRIDGE_REPORT_SCREENSHOT"):
        shutil.copy(shot, os.environ["SIMBRIDGE_REPORT_SCREENSHOT"])


def test_t02_track_click_seeks_the_video(browser, tmp_path):
    from report.bundles import build_t02

    b = build_t02(tmp_path / "t02")
    out = write_episode_report(b, tmp_path / "t02.html")
    errors: list[str] = []
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(out.as_uri())
    page.wait_for_function("document.body.dataset.plotsReady", timeout=30_000)
    # heading, altitude, airspeed, on_ground, autopilot and the crash flag its no_crash gate
    # reads against time, then the track map
    kinds = page.evaluate("[...document.querySelectorAll('.js-plotly-plot')].map(d => d.dataset.kind)")
    assert kinds == ["time"] * 6 + ["track"]
    names = page.evaluate("document.getElementById('plot-track').data.map(tr => tr.name)")
    assert names[0] == "runway 34R" and "path" in names
    page.wait_for_function("document.getElementById('screen').readyState >= 2", timeout=10_000)
    # a real click on the path point recorded at t ≈ 100 s (pixel from the map's own axes)
    page.locator("#plot-track").scroll_into_view_if_needed()
    xy = page.evaluate("""(() => {
        const d = document.getElementById('plot-track'), L = d._fullLayout;
        const tr = d._fullData.find(t => t.name === 'path');
        const cd = Array.from(tr.customdata), k = cd.findIndex(t => t >= 100);
        const r = d.querySelector('.nsewdrag').getBoundingClientRect();
        return [r.left + L.xaxis.l2p(tr.x[k]), r.top + L.yaxis.l2p(tr.y[k]), cd[k]]; })()""")
    page.mouse.click(xy[0], xy[1])
    page.wait_for_function("document.body.dataset.cursorT !== undefined", timeout=10_000)
    # the map's nearest point: neighbours 0.1 s apart can share a pixel
    cursor_t = float(page.evaluate("document.body.dataset.cursorT"))
    assert cursor_t == pytest.approx(xy[2], abs=1.0)
    assert page.evaluate("document.getElementById('screen').currentTime") == pytest.approx(cursor_t, abs=0.5)
    # the "now" marker sits on the path point at the cursor's time
    now = page.evaluate("""(() => { const d = document.getElementById('plot-track');
        const p = d._fullData.find(t => t.name === 'path'), n = d._fullData.find(t => t.name === 'now');
        const k = Array.from(p.customdata).findLastIndex(t => t <= Number(document.body.dataset.cursorT));
        return [n.x[0], n.y[0], p.x[k], p.y[k]]; })()""")
    assert now[:2] == now[2:] and now[0] is not None
    assert errors == []
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(tmp_path / "report-t02.png"), full_page=True)
    page.close()
