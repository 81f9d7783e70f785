"""`simbridge review serve` as a subprocess on a free port, driven by Debian's chromium through Playwright
(two raters in two browser contexts signed in by their links, grading the same runs, a server restart
mid-campaign; a cross-origin page's forged posts and a hand-made cookie refused) and by httpx (the 4xx
messages, the agreement numbers against the CLI's).

The runs are the synthetic eval output of tests/report/bundles.build_suite (nine T02/T09 episodes of
agents 'good' and 'shaky') plus one copy re-labelled as flown by a human, not real episodes."""

from __future__ import annotations

import contextlib
import html
import http.server
import io
import json
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from report.bundles import build_suite
from simbridge._bundle import write_manifest
from simbridge._cli import main
from simbridge.adapters.kit import free_port
from support.browser import launch_chromium, needs_chromium

SIMBRIDGE = str(Path(sys.executable).parent / "simbridge")
PERMS = "10"  # permutations for the agreement checks: enough to get p-values, fast


class Server:
    """`simbridge review serve` in a subprocess; restartable on the same port and database."""

    def __init__(self, directory: Path, db: Path, log: Path) -> None:
        self.directory, self.db, self.log = directory, db, log
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        #: rater -> secret sign-in key, as `campaign create` printed them
        self.keys: dict[str, str] = {}

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [SIMBRIDGE, "review", "serve", str(self.directory), "--db", str(self.db), "--port", str(self.port)],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        for _ in range(600):  # poll until it answers (the machine is shared: no fixed sleep)
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited {self.proc.returncode}: {self.log.read_text()}")
            try:
                if httpx.get(self.url + "/", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            try:
                self.proc.wait(timeout=0.1)
            except subprocess.TimeoutExpired:
                pass
        raise AssertionError(f"server did not answer: {self.log.read_text()}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("review-app")
    runs = build_suite(root / "eval")
    human = runs / "T09" / "jsbsim" / "human" / "trial-1"
    shutil.copytree(runs / "T09" / "jsbsim" / "good" / "trial-1", human)
    ep = json.loads((human / "episode.json").read_text())
    (human / "episode.json").write_text(json.dumps({**ep, "agent": "human"}))
    (human / "score.json").unlink()
    write_manifest(human)
    db = root / "review.sqlite"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for name, raters, per_run, seed in (("c1", "ann,bob", "2", "5"), ("c2", "ann,cy", "1", "1")):
            # c2: one rater per run, so each of ann and cy has runs they are not assigned
            argv = ["review", "campaign", "create", name, str(runs), "--raters", raters, "--per-run", per_run]
            assert main([*argv, "--seed", seed, "--db", str(db)]) == 0
    srv = Server(runs, db, root / "server.log")
    srv.keys = dict(re.findall(r"^  (\w+)  http://\S+/signin\?key=(\S+)$", out.getvalue(), re.M))
    assert sorted(srv.keys) == ["ann", "bob", "cy"], out.getvalue()
    srv.start()
    yield srv
    srv.stop()


def _token(page: str) -> str:
    m = re.search(r'name="csrf-token" content="([^"]+)"', page)
    assert m, page[:300]
    return m.group(1)


def _client(srv: Server, rater: str) -> httpx.Client:
    """Signed in by `rater`'s link, sending the session's CSRF token on every request."""
    c = httpx.Client(base_url=srv.url, timeout=120)
    page = c.get("/signin", params={"key": srv.keys[rater]})
    r = c.post("/signin", data={"key": srv.keys[rater], "csrf": _token(page.text)})
    assert r.status_code == 303, r.text
    c.headers["x-csrf-token"] = _token(c.get("/").text)
    return c


def _link(srv: Server, rater: str) -> str:
    return f"{srv.url}/signin?key={srv.keys[rater]}"


def _assigned(srv: Server, campaign: str) -> list[tuple[str, str, list[str]]]:
    """(blind id, rater, competencies) of every assignment, read from the store as the CLI does."""
    from simbridge._review.campaign import assignments
    from simbridge._review.store import Store

    store = Store(str(srv.db))
    rows = [(b, r, c) for b, r, _, c in assignments(store, campaign)]
    store.engine.dispose()
    return rows


def _blind_ids(srv: Server, campaign: str, rater: str) -> list[str]:
    return [b for b, r, _ in _assigned(srv, campaign) if r == rater]


def _comps(campaign: str, blind: str, srv: Server) -> list[str]:
    return next(c for b, _, c in _assigned(srv, campaign) if b == blind)


from playwright import sync_api as playwright_api


LEVELS = ["fully_achieved", "mostly_achieved", "partly_achieved", "not_achieved"]


def _blank(route: object) -> None:
    route.fulfill(
        body="<!DOCTYPE html><body>replay not loaded by this test</body>",  # type: ignore[attr-defined]
        content_type="text/html",
    )


@pytest.mark.slow
@needs_chromium
def test_two_raters_grade_in_parallel_and_a_restart_loses_nothing(served: Server) -> None:
    runs = _blind_ids(served, "c1", "ann")[:2]
    assert runs == _blind_ids(served, "c1", "bob")[:2]  # per-run 2 of 2 raters: both grade every run
    want: dict[str, dict[str, dict[str, tuple[str, str]]]] = {"ann": {}, "bob": {}}
    with playwright_api.sync_playwright() as pw:
        browser = launch_chromium(pw)
        pages = {}
        errors: list[str] = []
        for rater in ("ann", "bob"):
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            if rater == "bob":  # one rater's replay is checked below; the other's would only cost time
                context.route("**/replay", _blank)
            page = context.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(_link(served, rater))
            assert page.text_content("#who") == rater
            page.click("#signin")
            page.wait_for_selector("#campaigns")
            assert served.keys[rater] not in page.url  # the key is left behind in the sign-in step
            assert page.text_content("#rater") == rater
            pages[rater] = page
        # the worklist and the run page show blind ids only: no agent, trial, bundle path or score
        pages["ann"].goto(f"{served.url}/c/c1")
        work = pages["ann"].content()
        for b in runs:
            assert b in work
        for leak in ("shaky", "good", "human", "trial-", str(served.directory), "score"):
            assert leak not in work
        for blind in runs:
            for rater, page in pages.items():
                page.goto(f"{served.url}/c/c1/r/{blind}")
                page.wait_for_function("document.body.dataset.formReady")
            if blind == runs[0]:  # the replay's plots draw in the rater's page (once: Plotly costs seconds)
                frame = pages["ann"].frame_locator("#replay")
                frame.locator("body[data-plots-ready]").wait_for(timeout=60_000)
                assert int(frame.locator("body").get_attribute("data-plots-ready") or 0) >= 2
                pages["ann"].context.route("**/replay", _blank)
            # the served HTML (the DOM holds Plotly's unpacked code, whose words prove nothing)
            replay_html = pages["ann"].request.get(f"{served.url}/c/c1/r/{blind}/replay").text()
            run_html = pages["ann"].request.get(f"{served.url}/c/c1/r/{blind}").text()
            assert 'id="plot-0"' in replay_html and 'id="figures"' in replay_html
            for leak in ("shaky", "good", "human", "trial-", "score-value", str(served.directory)):
                assert leak not in replay_html and leak not in run_html, leak
            comps = _comps("c1", blind, served)
            # interleaved: ann and bob grade the same competency of the same run, turn about
            for i, comp in enumerate(comps):
                for k, (rater, page) in enumerate(pages.items()):
                    level, text = LEVELS[(i + k) % 4], f"{rater} on {comp} of {blind}: line {i}"
                    fs = page.locator(f'fieldset[data-competency="{comp}"]')
                    fs.locator(f'input[value="{level}"]').check()
                    fs.locator("textarea").fill(text)
                    want[rater].setdefault(blind, {})[comp] = (level, text)
            for rater, page in pages.items():
                for comp, (level, text) in want[rater][blind].items():
                    page.wait_for_function(
                        "([c, l, t]) => { const f = document.querySelector(`fieldset[data-competency='${c}']`);"
                        " return f.dataset.savedLevel === l && f.dataset.savedEvidence === t; }",
                        arg=[comp, level, text],
                        timeout=30_000,
                    )
        served.stop()
        served.start()
        # after the restart: a reload shows each rater their own grades and nothing else
        for rater, page in pages.items():
            for blind in runs:
                page.goto(f"{served.url}/c/c1/r/{blind}")
                page.wait_for_function("document.body.dataset.formReady")
                for comp, (level, text) in want[rater][blind].items():
                    fs = page.locator(f'fieldset[data-competency="{comp}"]')
                    assert fs.locator("input:checked").get_attribute("value") == level
                    assert fs.locator("textarea").input_value() == text
        # grading goes on after the restart
        comp = _comps("c1", runs[0], served)[0]
        fs = pages["bob"].locator(f'fieldset[data-competency="{comp}"]')
        pages["bob"].goto(f"{served.url}/c/c1/r/{runs[0]}")
        pages["bob"].wait_for_function("document.body.dataset.formReady")
        fs.locator("textarea").fill("bob, after the restart")
        pages["bob"].wait_for_function(
            f"document.querySelector(`fieldset[data-competency='{comp}']`).dataset.savedEvidence"
            " === 'bob, after the restart'",
            timeout=30_000,
        )
        want["bob"][runs[0]][comp] = (want["bob"][runs[0]][comp][0], "bob, after the restart")
        browser.close()
    assert errors == []
    for rater in ("ann", "bob"):
        c = _client(served, rater)
        for blind in runs:
            got = c.get(f"/api/c/c1/r/{blind}/grades").json()
            assert got == {k: {"level": lv, "evidence": t} for k, (lv, t) in sorted(want[rater][blind].items())}


def test_agreement_page_shows_the_numbers_the_cli_prints(served: Server, capsys: pytest.CaptureFixture[str]) -> None:
    # both raters grade every run of c1 through the API, with a known structure: bob one level lower
    # than ann on every other run
    for k, rater in enumerate(("ann", "bob")):
        c = _client(served, rater)
        mine = [(b, comps) for b, r, comps in _assigned(served, "c1") if r == rater]
        for j, (blind, comps) in enumerate(mine):
            for i, comp in enumerate(comps):
                value = 1 + (i + j) % 4 - (k if j % 2 and (i + j) % 4 else 0)
                r = c.post(f"/api/c/c1/r/{blind}/grade", json={"competency": comp, "level": value})
                assert r.status_code == 200, r.text
    assert main(["review", "agreement", "c1", "--json", "--permutations", PERMS, "--db", str(served.db)]) == 0
    cli = json.loads(capsys.readouterr().out)
    ann = _client(served, "ann")
    api = ann.get("/api/c/c1/agreement", params={"permutations": PERMS}).json()
    assert api == cli
    page = ann.get("/c/c1/agreement", params={"permutations": PERMS}).text
    cells = {(g, c, n): html.unescape(t) for g, c, n, t in _cells(page)}
    checked = 0
    for group, g in cli["groups"].items():
        for comp, stats in [*g["competencies"].items(), ("overall", g["overall"])]:
            for name, st in stats.items():
                text = cells[(group, comp, name)]
                if st["value"] is None:
                    assert text == f"undefined ({st['undefined']})"
                else:
                    assert text.startswith(f"{st['value']:.3f}")
                    if st["p_value"] is not None:
                        assert text.endswith(f"p={st['p_value']:.4f}")
                    checked += 1
    assert checked >= 10  # the numbers are defined, not all "undefined"
    assert len(cells) == sum(
        len(st) for g in cli["groups"].values() for st in [*g["competencies"].values(), g["overall"]]
    )
    assert cli["groups"]["human"]["n_runs"] == 1


def _cells(page: str) -> list[tuple[str, str, str, str]]:
    """(group, competency, statistic, text) of every cell of the agreement page's tables."""
    out = []
    for group, sec in re.findall(r'<section data-group="([^"]+)">(.*?)</section>', page, re.S):
        for comp, row in re.findall(r'<tr data-competency="([^"]+)">(.*?)</tr>', sec, re.S):
            for name, text in re.findall(r'<td[^>]*data-stat="([^"]+)">(.*?)</td>', row, re.S):
                out.append((html.unescape(group), html.unescape(comp), html.unescape(name), text))
    return out


def test_bad_input_gets_a_one_line_4xx(served: Server) -> None:
    ann = _client(served, "ann")
    blind = _blind_ids(served, "c1", "ann")[0]
    comp = _comps("c1", blind, served)[0]
    url = f"/api/c/c1/r/{blind}/grade"
    cases = [
        (ann.post(url, json={"competency": comp, "level": 7}), 422, "level 7 is not on the scale"),
        (ann.post(url, json={"competency": comp, "level": "excellent"}), 422, "'excellent' is not on the scale"),
        (ann.post(url, json={"competency": "XYZ", "level": 1}), 422, "competency 'XYZ' is not graded"),
        (ann.post(url, content=b"{not json"), 400, "not JSON"),
        (ann.post(url, content=b"{not json", headers={"x-csrf-token": "forged"}), 403, "CSRF token"),
        (
            ann.post("/api/c/c1/r/R-nope/grade", json={"competency": comp, "level": 1}),
            404,
            "run 'R-nope' is not in campaign 'c1'",
        ),
        (
            ann.post(f"/api/c/nope/r/{blind}/grade", json={"competency": comp, "level": 1}),
            404,
            "campaign 'nope' does not exist",
        ),
        (httpx.post(served.url + url, json={"competency": comp, "level": 1}), 401, "not signed in"),
        (
            httpx.post(served.url + url, json={"competency": comp, "level": 1}, cookies={"simbridge_rater": "ann"}),
            401,
            "not signed in",
        ),
        (httpx.get(served.url + "/api/c/c1/agreement"), 401, "not signed in"),
        (httpx.get(served.url + "/signin", params={"key": "mallory"}), 403, "sign-in link is unknown"),
        (_client(served, "cy").get("/c/c1"), 403, "rater 'cy' has no assignments in campaign 'c1'"),
        (ann.get("/c/c1/agreement", params={"permutations": "lots"}), 400, "permutations='lots'"),
    ]
    not_ann = sorted(set(_blind_ids(served, "c2", "cy")) - set(_blind_ids(served, "c2", "ann")))
    assert not_ann
    cases.append(
        (
            ann.post(f"/api/c/c2/r/{not_ann[0]}/grade", json={"competency": comp, "level": 1}),
            403,
            f"rater 'ann' is not assigned run {not_ann[0]}",
        )
    )
    for r, status, text in cases:
        body = r.json()["error"] if r.request.url.path.startswith("/api/") else r.text.strip()
        assert (r.status_code, "\n" in body) == (status, False), (r.status_code, body)
        assert text in body, body
    # nothing refused was saved
    before = ann.get(f"/api/c/c1/r/{blind}/grades").json()
    assert ann.post(url, json={"competency": "XYZ", "level": 1}).status_code == 422
    after = ann.get(f"/api/c/c1/r/{blind}/grades").json()
    assert after == before and "XYZ" not in after


def test_serve_refuses_a_missing_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", "serve", str(tmp_path / "nowhere"), "--db", str(tmp_path / "r.sqlite")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "nowhere: not a directory of bundles" in err


_EVIL = """<!DOCTYPE html><html><body>
<form id="f" method="post" enctype="text/plain" action="{url}"><input name='{{"competency":"{comp}","level":1,"evidence":"forged by form","x":"' value='"}}'></form>
<script>
fetch("{url}", {{method: "POST", mode: "no-cors", credentials: "include", headers: {{"content-type": "text/plain"}},
  body: JSON.stringify({{competency: "{comp}", level: 1, evidence: "forged by fetch"}})}})
  .then(() => {{ document.body.dataset.sent = "1"; }}, () => {{ document.body.dataset.sent = "1"; }});
</script></body></html>"""


@pytest.mark.slow
@needs_chromium
def test_a_cross_origin_page_cannot_grade_and_a_hand_made_cookie_is_nobody(served: Server) -> None:
    blind = _blind_ids(served, "c1", "bob")[0]
    comp = _comps("c1", blind, served)[0]
    url = f"{served.url}/api/c/c1/r/{blind}/grade"
    bob_api = _client(served, "bob")
    before = bob_api.get(f"/api/c/c1/r/{blind}/grades").json()
    # the attacker's page, served for real from the same host on another port: the same site (SameSite
    # cookies go along) and the same loopback address space (chromium's local-network checks let it by)
    evil_html = _EVIL.format(url=url, comp=comp).encode()

    class Evil(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(evil_html)))
            self.end_headers()
            self.wfile.write(evil_html)

        def log_message(self, *args: object) -> None:
            pass

    evil_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Evil)
    threading.Thread(target=evil_server.serve_forever, daemon=True).start()
    evil = f"http://127.0.0.1:{evil_server.server_address[1]}"
    with playwright_api.sync_playwright() as pw:
        browser = launch_chromium(pw)
        context = browser.new_context()
        page = context.new_page()
        page.goto(_link(served, "bob"))
        page.click("#signin")
        page.wait_for_selector("#campaigns")
        with page.expect_response(lambda r: r.url == url) as fetched:
            page.goto(evil + "/attack")
        page.wait_for_function("document.body.dataset.sent")
        assert fetched.value.request.method == "POST"
        # 403, not 401: bob's session cookie went with the request, and the origin check refused it
        assert fetched.value.status == 403
        with page.expect_response(lambda r: r.url == url) as posted:
            page.evaluate("document.getElementById('f').submit()")
        assert posted.value.status == 403 and "cross-" in posted.value.json()["error"]
        # a hand-made cookie naming bob, in a fresh browser: nobody
        forged = browser.new_context()
        forged.add_cookies([{"name": "simbridge_rater", "value": "bob", "url": served.url}])
        fpage = forged.new_page()
        r = fpage.goto(f"{served.url}/c/c1")
        assert r is not None and r.status == 401 and "not signed in" in fpage.content()
        fpage.goto(served.url + "/")
        assert fpage.locator("#key").count() == 1 and fpage.locator("#rater").count() == 0
        # sign out (a POST with the token) ends bob's session in the browser
        page.goto(served.url + "/")
        page.click("#signout")
        page.wait_for_selector("#key")
        r = page.goto(f"{served.url}/c/c1")
        assert r is not None and r.status == 401
        browser.close()
    evil_server.shutdown()
    assert bob_api.get(f"/api/c/c1/r/{blind}/grades").json() == before
