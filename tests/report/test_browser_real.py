"""A real embedded-sim episode, end to end: `simbridge run` flies a short scripted T09 on the
embedded JSBSim cockpit (12 simulator seconds, ~30 s wall), writes screen.mp4 into the bundle
and the episode page beside it; the page is opened in Debian's chromium. Plus the suite page
in the browser: its cells open episode pages and its columns sort.

Screenshots go to tests/report/artifacts/ (git-ignored)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from report.browser import launch_chromium, needs_chromium, open_page, screenshot
from simbridge._cli import main

from playwright import sync_api as playwright_api

pytestmark = needs_chromium

ROLL_LEFT = """
actions:
  - {at: 2.0, key: Left, repeat: 5}
  - {at: 4.4, key: KP_5}
  - {at: 12.0, done: "rolled left"}
"""


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as pw:
        b = launch_chromium(pw)
        yield b
        b.close()


@pytest.fixture(scope="module")
def real_episode(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(bundle, episode page) of one `simbridge run` on the embedded JSBSim cockpit."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb not installed")
    import jsbsim  # noqa: F401
    import pygame  # noqa: F401

    tmp = tmp_path_factory.mktemp("real")
    script = tmp / "roll.yaml"
    script.write_text(ROLL_LEFT)
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "simbridge._cli",
            "run",
            "T09",
            "--sim",
            "jsbsim",
            "--agent",
            f"scripted:{script}",
            "--out",
            str(tmp / "runs"),
            "--frame-hz",
            "2",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=240,
        env=dict(os.environ),
    )
    assert r.returncode == 0, r.stderr[-3000:]
    [line] = [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]
    assert line["report"] and line["screen_mp4"], (line, r.stderr[-2000:])
    return Path(line["bundle"]), Path(line["report"])


@pytest.mark.slow
@pytest.mark.display
def test_real_episode_page(browser, real_episode, capsys):
    bundle, report = real_episode
    assert report == bundle.parent / "reports" / "trial-1.html"
    assert (bundle / "screen.mp4").is_file()
    assert main(["verify", str(bundle)]) == 0  # screen.mp4 was sealed into the manifest
    capsys.readouterr()

    from simbridge._report import load_episode
    from simbridge._report._plots import actions_figure, plotted_signals
    from simbridge._report._track import track_figure

    view = load_episode(bundle)
    sig = view.bundle.signals
    n_time = len(plotted_signals(view)[0])
    has_actions = actions_figure(view, (float(sig.t.min()), float(sig.t.max()))) is not None
    has_track = track_figure(view) is not None
    assert n_time >= 4 and has_actions

    page, errors, requests = open_page(browser, report.as_uri(), "document.body.dataset.plotsReady")
    try:
        assert errors == []
        assert all(u.startswith(("file:", "data:", "blob:")) for u in requests), requests
        # every plot drawn with data: a line of real length per signal plot, markers on the timeline
        drawn = page.evaluate("""[...document.querySelectorAll('.js-plotly-plot')].map(d => [d.id,
            [...d.querySelectorAll('.scatterlayer .trace path.js-line')].filter(p => (p.getAttribute('d') || '').length > 50).length,
            d.querySelectorAll('.scatterlayer .trace path.point').length])""")
        assert len(drawn) == n_time + has_actions + has_track, drawn
        for div, lines, points in drawn:
            assert (points if div == "plot-actions" else lines) >= 1, (div, lines, points)
        score = json.loads((bundle / "score.json").read_text())
        assert page.locator("#score-value").inner_text() == (
            f"{score['score']:.3f}" if score["status"] == "scored" else "unscored"
        )
        # the bundle's own screen.mp4 is the one shown, and it plays
        assert "screen.mp4" in page.locator("#video-source").inner_text()
        page.wait_for_function("document.getElementById('screen').readyState >= 2", timeout=15_000)
        assert page.evaluate("document.getElementById('screen').duration") > 8
        page.evaluate("document.getElementById('screen').play()")
        page.wait_for_function("document.getElementById('screen').currentTime > 0.3", timeout=15_000)
        page.evaluate("(() => { const v = document.getElementById('screen'); v.pause(); v.currentTime = 0; })()")
        # a real click on the altitude plot at 2/3 of its width seeks the video there
        drag = page.locator("#plot-1 .nsewdrag").first
        drag.scroll_into_view_if_needed()
        box = drag.bounding_box()
        page.mouse.click(box["x"] + box["width"] * 0.66, box["y"] + box["height"] * 0.5)
        page.wait_for_function("document.getElementById('screen').currentTime > 3", timeout=10_000)
        t_video = page.evaluate("document.getElementById('screen').currentTime")
        t0 = float(page.evaluate("document.getElementById('screen').dataset.t0"))
        assert abs(t0 + t_video - float(page.evaluate("document.body.dataset.cursorT"))) < 0.5
        # the CSV link hands out every sample of every column
        page.wait_for_function("document.body.dataset.csvReady", timeout=10_000)
        head, n_rows = page.evaluate("""(async () => { const t = await (await fetch(
            document.getElementById('csv-download').href)).text(); const l = t.trim().split('\\n');
            return [l[0], l.length - 1]; })()""")
        assert head.split(",") == ["t", *sig.names] and n_rows == len(sig)
        assert errors == []
        screenshot(page, "report-real-t09.png")
    finally:
        page.close()


@pytest.mark.slow
def test_suite_page_links_and_sorting(browser, suite_dir, suite_report):
    out, _ = suite_report
    page, errors, requests = open_page(browser, out.as_uri(), "document.body.dataset.sortReady")
    try:
        assert errors == [] and all(u.startswith(("file:", "data:")) for u in requests), requests
        agents = "[...document.querySelectorAll('#leaderboard tbody tr')].map(r => r.dataset.agent)"
        assert page.evaluate(agents) == ["good", "shaky"]
        # SGO (column 4): first click high→low, second low→high; agent (column 1) A→Z
        sgo = page.locator("#leaderboard thead th").nth(3)
        assert sgo.inner_text().startswith("SGO")
        sgo.click()
        assert page.evaluate(agents) == ["good", "shaky"]
        assert sgo.get_attribute("aria-sort") == "descending"
        sgo.click()
        assert page.evaluate(agents) == ["shaky", "good"]
        page.locator("#leaderboard thead th").first.click()
        assert page.evaluate(agents) == ["good", "shaky"]
        screenshot(page, "report-suite.png")
        # a cell's trial link opens that trial's episode page, which renders
        link = page.locator('#leaderboard tr[data-agent="shaky"] a', has_text="t2").first
        href = link.get_attribute("href")
        assert href == "episodes/T09/jsbsim/shaky/trial-2.html"
        link.click()
        page.wait_for_function("document.body.dataset.plotsReady", timeout=30_000)
        assert page.url.endswith(href)
        shaky2 = json.loads((suite_dir / "T09/jsbsim/shaky/trial-2/score.json").read_text())
        assert page.locator("#score-value").inner_text() == f"{shaky2['score']:.3f}"
        assert errors == []
    finally:
        page.close()
