"""The review app's doors, by raw HTTP through Starlette's TestClient (the real app in process): sign-in
that cannot be forged, CSRF refusals, every route behind sign-in, bounded work per request and 4xx (never
500) for bad input; the grade CSV's exact round trip and the CLI's one-line errors for bad files.

The browser side of the same doors (chromium through Playwright) is in test_app.py."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

import itsdangerous
import pytest
from sqlalchemy import delete, select
from starlette.routing import Route
from starlette.testclient import TestClient

from simbridge._cli import main
from simbridge._bundle import check_bundle_dir
from simbridge._review.app import MAX_BODY_BYTES, MAX_PERMUTATIONS, SESSION_COOKIE, create_app
from simbridge._review.campaign import assignments, create_campaign, issue_keys
from simbridge._errors import SimbridgeError
from simbridge._review.store import Grade, RaterKey, Setting, Store

from .conftest import make_bundle

ORIGIN = "http://testserver"  # TestClient's own origin


@dataclass
class Env:
    store: Store
    db: Path
    runs: Path
    keys: dict[str, str]
    client: TestClient


@pytest.fixture
def env(tmp_path: Path, runs_dir: Path) -> Env:
    db = tmp_path / "r.sqlite"
    store = Store(str(db))
    create_campaign(store, "c1", runs_dir, ["ann", "bob"], 2, seed=3)
    create_campaign(store, "c2", runs_dir, ["cy"], 1, seed=1)
    keys = {k: v for k, v in issue_keys(store, ["ann", "bob", "cy"]).items() if v}
    assert sorted(keys) == ["ann", "bob", "cy"]
    return Env(store, db, runs_dir, keys, TestClient(create_app(runs_dir, store)))


def _csrf(text: str) -> str:
    m = re.search(r'name="csrf-token" content="([^"]+)"', text)
    assert m, text[:500]
    return m.group(1)


def sign_in(env: Env, rater: str) -> TestClient:
    """A client signed in through `rater`'s link, sending the session's CSRF token as a header."""
    c = TestClient(env.client.app)
    page = c.get("/signin", params={"key": env.keys[rater]})
    assert page.status_code == 200 and f'<span id="who">{rater}</span>' in page.text
    r = c.post("/signin", data={"key": env.keys[rater], "csrf": _csrf(page.text)}, follow_redirects=False)
    assert r.status_code == 303, r.text
    home = c.get("/")
    assert f'<b id="rater">{rater}</b>' in home.text
    c.headers["x-csrf-token"] = _csrf(home.text)
    return c


def _run(env: Env, rater: str = "ann", campaign: str = "c1") -> tuple[str, str]:
    blind, _, _, comps = next(a for a in assignments(env.store, campaign) if a[1] == rater)
    return blind, comps[0]


def _one_line_4xx(r: object, status: int, text: str = "") -> str:
    status_code = r.status_code  # type: ignore[attr-defined]
    body = r.text.strip()  # type: ignore[attr-defined]
    if r.headers.get("content-type", "").startswith("application/json"):  # type: ignore[attr-defined]
        body = r.json()["error"]  # type: ignore[attr-defined]
    assert status_code == status, (status_code, body[:300])
    assert "\n" not in body and "Traceback" not in body and text in body, body[:300]
    return body


def test_a_hand_made_or_forged_cookie_grants_nothing(env: Env) -> None:
    blind, comp = _run(env)
    secret = env.store.session_secret()
    forged_unsigned = base64.b64encode(json.dumps({"rater": "bob", "kid": "0" * 16}).encode()).decode()
    wrong_secret = itsdangerous.TimestampSigner("not-the-secret").sign(forged_unsigned).decode()
    # signed with the real secret but naming bob without bob's key id: still refused
    no_key = itsdangerous.TimestampSigner(secret).sign(forged_unsigned).decode()
    for cookies in (
        {"simbridge_rater": "bob"},
        {SESSION_COOKIE: forged_unsigned},
        {SESSION_COOKIE: wrong_secret},
        {SESSION_COOKIE: no_key},
    ):
        c = TestClient(env.client.app, cookies=cookies)
        home = c.get("/")
        assert home.status_code == 200 and 'id="key"' in home.text and "bob" not in home.text
        _one_line_4xx(c.get("/c/c1"), 401)
        _one_line_4xx(c.get("/api/c/c1/agreement", params={"permutations": 0}), 401)
        _one_line_4xx(c.get(f"/c/c1/r/{blind}/replay"), 401)
        token = _csrf(home.text)
        r = c.post(
            f"/api/c/c1/r/{blind}/grade",
            json={"competency": comp, "level": 1},
            headers={"x-csrf-token": token, "origin": ORIGIN},
        )
        _one_line_4xx(r, 401, "not signed in")
    with env.store.session() as s:
        assert s.scalars(select(Grade)).all() == []


def test_sign_in_by_link_and_a_new_link_voids_the_old_one(env: Env, capsys: pytest.CaptureFixture[str]) -> None:
    ann = sign_in(env, "ann")
    assert ann.get("/c/c1").status_code == 200
    _one_line_4xx(TestClient(env.client.app).get("/signin", params={"key": "x" * 43}), 403, "unknown")
    # the key is stored as its SHA-256 only
    with env.store.session() as s:
        rows = [(k.rater.name, k.key_sha256) for k in s.scalars(select(RaterKey))]
    assert ("ann", hashlib.sha256(env.keys["ann"].encode()).hexdigest()) in rows
    assert not any(env.keys["ann"] in h for _, h in rows)
    assert main(["review", "link", "ann", "--db", str(env.db), "--base-url", "http://lab:9000"]) == 0
    out = capsys.readouterr().out
    new_key = re.search(r"http://lab:9000/signin\?key=(\S+)", out)
    assert new_key and new_key.group(1) != env.keys["ann"]
    # the old session and the old link are void; the new link works
    _one_line_4xx(ann.get("/c/c1"), 401, "replaced or revoked")
    _one_line_4xx(TestClient(env.client.app).get("/signin", params={"key": env.keys["ann"]}), 403)
    env.keys["ann"] = new_key.group(1)
    assert sign_in(env, "ann").get("/c/c1").status_code == 200
    # the key pasted into the front page's form signs in the same way
    paste = TestClient(env.client.app)
    front = paste.get("/")
    r = paste.post("/signin", data={"key": env.keys["bob"], "csrf": _csrf(front.text)}, follow_redirects=False)
    assert r.status_code == 303 and '<b id="rater">bob</b>' in paste.get("/").text
    assert main(["review", "link", "zed", "--db", str(env.db)]) == 2
    assert "rater 'zed' does not exist" in capsys.readouterr().err
    # sign-out is a POST with the token, and ends the session
    c = sign_in(env, "bob")
    _one_line_4xx(c.post("/signout", headers={"x-csrf-token": ""}), 403, "CSRF")
    assert c.post("/signout", follow_redirects=False).status_code == 303
    _one_line_4xx(c.get("/c/c1"), 401)


def test_campaign_create_prints_a_link_per_new_rater(
    tmp_path: Path, runs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "r.sqlite")
    assert (
        main(["review", "campaign", "create", "a", str(runs_dir), "--raters", "ann,bob", "--per-run", "1", "--db", db])
        == 0
    )
    out = capsys.readouterr().out
    links = dict(re.findall(r"^  (\w+)  http://127\.0\.0\.1:8765/signin\?key=(\S+)$", out, re.M))
    assert sorted(links) == ["ann", "bob"] and len(set(links.values())) == 2
    assert (
        main(["review", "campaign", "create", "b", str(runs_dir), "--raters", "ann,cy", "--per-run", "1", "--db", db])
        == 0
    )
    out = capsys.readouterr().out
    assert "  ann  (has a link already)" in out and re.search(r"^  cy  http://\S+key=\S+$", out, re.M)
    store = Store(db)
    with store.session() as s:  # ann's first link still works: nothing re-issued behind her back
        assert store.rater_for_key(s, links["ann"]) is not None
    assert (tmp_path / "r.sqlite").stat().st_mode & 0o777 == 0o600  # it keeps the session secret


def test_cross_origin_and_tokenless_posts_are_refused(env: Env) -> None:
    ann = sign_in(env, "ann")
    blind, comp = _run(env)
    url = f"/api/c/c1/r/{blind}/grade"
    good = json.dumps({"competency": comp, "level": 2})
    cases = [
        # the classic: a form or no-cors fetch from another origin, text/plain, the victim's cookie
        ({"content-type": "text/plain", "origin": "http://evil.example"}, 403, "cross-origin request refused"),
        ({"content-type": "text/plain", "origin": "null"}, 403, "cross-origin"),
        ({"content-type": "application/json", "sec-fetch-site": "cross-site"}, 403, "cross-site request refused"),
        ({"content-type": "application/json", "sec-fetch-site": "same-site"}, 403, "cross-site request refused"),
        ({"content-type": "application/json", "origin": "http://testserver:1"}, 403, "cross-origin"),
        ({"content-type": "application/json", "x-csrf-token": ""}, 403, "CSRF token"),
        ({"content-type": "application/json", "x-csrf-token": "guess"}, 403, "CSRF token"),
    ]
    for headers, status, text in cases:
        _one_line_4xx(ann.post(url, content=good, headers=headers), status, text)
    # bob's token in ann's session is no token at all
    bob_token = sign_in(env, "bob").headers["x-csrf-token"]
    _one_line_4xx(ann.post(url, content=good, headers={"x-csrf-token": bob_token}), 403, "CSRF token")
    # sign-in itself: a cross-origin form post (login CSRF) is refused
    fresh = TestClient(env.client.app)
    page = fresh.get("/signin", params={"key": env.keys["bob"]})
    r = fresh.post(
        "/signin",
        data={"key": env.keys["bob"], "csrf": _csrf(page.text)},
        headers={"origin": "http://evil.example"},
    )
    _one_line_4xx(r, 403, "cross-origin")
    _one_line_4xx(fresh.post("/signin", data={"key": env.keys["bob"]}), 403, "CSRF token")
    with env.store.session() as s:
        assert s.scalars(select(Grade)).all() == []
    # the same request, same-origin with the token: saved
    r = ann.post(
        url,
        content=good,
        headers={"content-type": "application/json", "origin": ORIGIN, "sec-fetch-site": "same-origin"},
    )
    assert r.status_code == 200 and r.json()["level"] == "partly_achieved"


def test_every_route_is_behind_sign_in(env: Env) -> None:
    """Walks the app's own routing table, so a route added later without the door fails here."""
    blind, _ = _run(env)
    anon = TestClient(env.client.app)
    token = _csrf(anon.get("/").text)
    seen = 0
    for route in env.client.app.routes:
        assert isinstance(route, Route)
        path = route.path.replace("{campaign}", "c1").replace("{run}", blind)
        for method in sorted(route.methods or []):
            if method == "HEAD" or path in ("/", "/signin", "/signout"):
                continue  # the doors themselves: checked by the sign-in tests
            r = anon.request(method, path, headers={"x-csrf-token": token, "origin": ORIGIN}, json={})
            _one_line_4xx(r, 401, "not signed in")
            seen += 1
    assert seen >= 6
    # a signed-in rater who is not a rater of the campaign sees neither its pages nor its agreement
    cy = sign_in(env, "cy")
    _one_line_4xx(cy.get("/c/c1"), 403, "no assignments")
    _one_line_4xx(cy.get("/c/c1/agreement", params={"permutations": 0}), 403, "not a rater of campaign 'c1'")
    _one_line_4xx(cy.get("/api/c/c1/agreement", params={"permutations": 0}), 403, "not a rater")
    _one_line_4xx(cy.get(f"/c/c1/r/{blind}"), 403, "not assigned")


def test_bounded_work_and_4xx_for_bad_input(env: Env) -> None:
    ann = sign_in(env, "ann")
    blind, comp = _run(env)
    url = f"/api/c/c1/r/{blind}/grade"
    js = {"content-type": "application/json"}
    level_5001 = b'{"competency": "%s", "level": %s}' % (comp.encode(), b"7" * 5001)
    cases = [(ann.get("/api/c/c1/agreement", params={"permutations": MAX_PERMUTATIONS + 1}), 400, "permutations=")]
    for perms in ("1" + "0" * 27, "100000000", "²", "-1", "1e3", " 5"):
        cases.append((ann.get("/api/c/c1/agreement", params={"permutations": perms}), 400, "not a whole number"))
    cases += [
        (ann.get("/c/c1/agreement", params={"seed": str(2**40)}), 400, "seed="),
        (ann.post(url, content=level_5001, headers=js), 400, "not JSON the app accepts"),
        (ann.post(url, content=b"[" * 100_000, headers=js), 400, "not JSON the app accepts"),
        (ann.post(url, content=b'{"competency": {"a": [1]}, "level": 1}', headers=js), 400, "nested"),
        (
            ann.post(
                url, content=b'{"competency": "%s", "level": 1, "evidence": "a\\ud800b"}' % comp.encode(), headers=js
            ),
            400,
            "lone surrogate",
        ),
        (ann.post(url, content=b'{"competency": "\\udfff", "level": 1}', headers=js), 400, "lone surrogate"),
        (ann.post(url, content=b'{"competency": "%s", "level": NaN}' % comp.encode(), headers=js), 400, "NaN"),
        (
            ann.post(url, content=b'{"competency": "%s", "level": %s}' % (comp.encode(), b"9" * 4000), headers=js),
            400,
            "out of range",
        ),
        (ann.post(url, content=b"\xff\xfe", headers=js), 400, "not UTF-8"),
        (ann.post(url, content=b"x" * (MAX_BODY_BYTES + 1), headers=js), 413, f"over {MAX_BODY_BYTES} bytes"),
        (ann.post(url, json={"competency": comp, "level": 1, "evidence": "nul\x00"}), 422, "NUL"),
        (ann.post(url, json={"competency": comp, "level": 1, "evidence": "e" * 20_001}), 422, "at most 20000"),
        (ann.post(url, json={"competency": "C" * 10_000, "level": 1}), 422, "at most 128 characters"),
        (ann.post("/signin", content=b"key=" + b"k" * (MAX_BODY_BYTES + 10)), 413, "over"),
    ]

    # a body streamed without Content-Length is cut off at the bound too
    def chunks() -> object:
        for _ in range(MAX_BODY_BYTES // 1024 + 2):
            yield b" " * 1024

    cases.append((ann.post(url, content=chunks(), headers=js), 413, "over"))  # type: ignore[arg-type]
    for r, status, text in cases:
        _one_line_4xx(r, status, text)
    with env.store.session() as s:
        assert s.scalars(select(Grade)).all() == []
    # the cap itself answers on graded runs (both raters grade all six runs), in bounded time
    bob = sign_in(env, "bob")
    for k, (client, rater) in enumerate(((ann, "ann"), (bob, "bob"))):
        for j, (b, _, _, comps) in enumerate(a for a in assignments(env.store, "c1") if a[1] == rater):
            for i, c in enumerate(comps):
                level = 1 + (i + j + k * (j % 2)) % 4
                assert client.post(f"/api/c/c1/r/{b}/grade", json={"competency": c, "level": level}).status_code == 200
    t0 = time.monotonic()
    r = ann.get("/api/c/c1/agreement", params={"permutations": MAX_PERMUTATIONS, "seed": 2**32 - 1})
    assert r.status_code == 200 and r.json()["permutations"] == MAX_PERMUTATIONS
    assert r.json()["groups"]["all"]["overall"]["ICC(A,1)"]["p_value"] is not None
    print(f"agreement at {MAX_PERMUTATIONS} permutations (6 runs, 2 raters): {time.monotonic() - t0:.1f} s")
    # one computation at a time: while one runs, another waits, then is told to come back (503)
    review = env.client.app.state.review
    review.agreement_wait_s = 0.05
    with review.agreement_lock:
        _one_line_4xx(ann.get("/api/c/c1/agreement", params={"permutations": 0}), 503, "try again")
    assert ann.get("/api/c/c1/agreement", params={"permutations": 0}).status_code == 200


def test_evidence_round_trips_exactly_through_export_and_import(env: Env, tmp_path: Path) -> None:
    ann = sign_in(env, "ann")
    blind, _ = _run(env)
    comps = next(a[3] for a in assignments(env.store, "c1") if a[0] == blind and a[1] == "ann")
    texts = [
        "  two lines\nand a CRLF\r\nand a CR\rend  ",
        'quotes " and , commas; tab\there\x01\x1b\x7f\x1c\x1d\x1e\x85\u2028\u2029',
        "é中文😀 \ufeffBOM inside, \u200bzero width",
        "",
        "=1+1 looks like a formula",
    ]
    sent = {}
    for comp, text in zip(comps, texts):
        r = ann.post(f"/api/c/c1/r/{blind}/grade", json={"competency": comp, "level": 3, "evidence": text})
        assert r.status_code == 200, r.text
        sent[comp] = text
    assert ann.get(f"/api/c/c1/r/{blind}/grades").json() == {
        k: {"level": "mostly_achieved", "evidence": v} for k, v in sorted(sent.items())
    }
    out = tmp_path / "grades.csv"
    assert main(["review", "campaign", "export", "c1", "--csv", str(out), "--db", str(env.db)]) == 0
    with out.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert {r["competency"]: r["evidence"] for r in rows} == sent
    with env.store.session() as s:
        s.execute(delete(Grade))
    assert main(["review", "import-grades", str(out), "--db", str(env.db)]) == 0
    with env.store.session() as s:
        back = {g.competency: g.evidence for g in s.scalars(select(Grade))}
    assert back == sent


def test_bad_grade_files_are_one_line_errors(env: Env, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blind, comp = _run(env)
    big = tmp_path / "big.csv"
    with big.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["campaign", "run", "rater", "competency", "level", "evidence"])
        w.writerow(["c1", blind, "ann", comp, "3", "fine"])
        w.writerow(["c1", blind, "bob", comp, "3", "x" * (128 * 1024 + 1)])
    nul = tmp_path / "nul.csv"
    nul.write_text(f"campaign,run,rater,competency,level,evidence\nc1,{blind},ann,{comp},3,a\x00b\n")
    latin = tmp_path / "latin.csv"
    latin.write_bytes(b"campaign,run,rater,competency,level,evidence\nc1,R,ann,PRO,3,caf\xe9\n")
    cases = [
        (big, f"{big}:3: field larger than field limit"),
        (nul, f"{nul}:2: evidence contains a NUL"),
        (latin, "not UTF-8"),
        (Path("/dev/zero"), "/dev/zero: cannot read: not a regular file"),
        (tmp_path, "cannot read"),
    ]
    for path, text in cases:
        assert main(["review", "import-grades", str(path), "--db", str(env.db)]) == 2, path
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and text in err and "Traceback" not in err, err[:300]
    with env.store.session() as s:
        assert s.scalars(select(Grade)).all() == []


def test_a_db_that_is_not_a_database_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = Path("/etc/passwd").read_bytes()
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n")
    cases = [
        ("/etc/passwd", "not a SQLite database"),
        (str(text), "not a SQLite database"),
        (str(tmp_path), "not a SQLite database file (it is not a regular file)"),
        ("/dev/null", "not a SQLite database file (it is not a regular file)"),
        (str(tmp_path / "no" / "such" / "dir.sqlite"), "cannot create the database"),
    ]
    for db, msg in cases:
        for argv in (["review", "campaign", "list"], ["review", "agreement", "c1"], ["review", "link", "ann"]):
            assert main([*argv, "--db", db]) == 2
            err = capsys.readouterr().err.strip()
            assert err.count("\n") == 0 and f"--db {db}: {msg}" in err, err
    assert Path("/etc/passwd").read_bytes() == before and not Path("/etc/passwd-wal").exists()
    assert text.read_text() == "not a database\n"


def test_the_replay_refuses_symlinks_and_special_files(env: Env, tmp_path: Path) -> None:
    secret = tmp_path / "outside-secret"
    secret.write_text("not for raters")
    linked = make_bundle(tmp_path / "more", "linked")
    (linked / "screen.mp4").symlink_to(secret)
    with pytest.raises(SimbridgeError, match="screen.mp4: is a symbolic link"):
        check_bundle_dir(str(linked))
    import os

    fifo = make_bundle(tmp_path / "more", "fifo")
    os.mkfifo(fifo / "logs.bin")
    with pytest.raises(SimbridgeError, match="logs.bin: is a FIFO"):
        check_bundle_dir(str(fifo))
    via_link = tmp_path / "via"
    via_link.symlink_to(make_bundle(tmp_path / "more", "plain"))
    with pytest.raises(SimbridgeError, match="goes through a symlink"):
        check_bundle_dir(str(via_link))
    assert check_bundle_dir(str(tmp_path / "more" / "plain")) == tmp_path / "more" / "plain"
    # through the app: a bundle of the campaign that gains a link is refused with a 409, nothing served
    ann = sign_in(env, "ann")
    blind, _ = _run(env)
    with env.store.session() as s:
        from simbridge._review.store import CampaignRun

        cr = s.scalar(select(CampaignRun).where(CampaignRun.blind_id == blind))
        assert cr is not None
        bundle = Path(cr.run.bundle_path)
    (bundle / "screen.mp4").symlink_to(secret)
    r = ann.get(f"/c/c1/r/{blind}/replay")
    _one_line_4xx(r, 409, "screen.mp4: is a symbolic link")
    assert "not for raters" not in r.text


def test_the_session_secret_is_made_once_and_kept(env: Env) -> None:
    first = env.store.session_secret()
    assert len(first) == 64 and Store(str(env.db)).session_secret() == first
    with env.store.session() as s:
        assert [x.name for x in s.scalars(select(Setting))] == ["session_secret"]


# --------------------------------------------------------------------------- the campaign, seeded

SEED = 27


def _grades(env: Env) -> dict[tuple[int, int, str], tuple[str, str]]:
    with env.store.session() as s:
        return {(g.campaign_run_id, g.rater_id, g.competency): (g.level, g.evidence) for g in s.scalars(select(Grade))}


def test_seeded_http_mutations_are_4xx_or_saved_only_when_every_door_is_passed(env: Env) -> None:
    """80 seeded requests against the grade API with a random choice of cookie, CSRF token, Origin,
    Sec-Fetch-Site and body. Each is a one-line 4xx, or (only with a real session, its token, no foreign
    origin and a well-formed body) a 200 that saved exactly what was sent. TestClient raises on any 500."""
    import random

    rng = random.Random(SEED)
    ann = sign_in(env, "ann")
    token = ann.headers["x-csrf-token"]
    session = ann.cookies.get(SESSION_COOKIE)
    blind, comp = _run(env)
    url = f"/api/c/c1/r/{blind}/grade"
    secret = env.store.session_secret()
    forged = itsdangerous.TimestampSigner(secret).sign(
        base64.b64encode(json.dumps({"rater": "ann", "kid": "f" * 16, "csrf": token}).encode())
    )
    cookies = {
        "none": {},
        "hand-made": {"simbridge_rater": "ann"},
        "forged": {SESSION_COOKIE: forged.decode()},
        "garbage": {SESSION_COOKIE: "x" * rng.randint(1, 400)},
        "real": {SESSION_COOKIE: session},
    }
    tokens = {"none": None, "wrong": "w" * 43, "real": token, "empty": ""}
    origins = {"none": None, "same": ORIGIN, "evil": "http://evil.example", "null": "null", "port": ORIGIN + ":81"}
    sites = {"none": None, "same-origin": "same-origin", "cross-site": "cross-site", "same-site": "same-site"}
    bodies: dict[str, tuple[bytes, bool]] = {  # body, well-formed
        "good": (b"", True),
        "digits": (b'{"competency": "%s", "level": %s}' % (comp.encode(), b"1" * rng.randint(4301, 9000)), False),
        "deep": (b"{" * rng.randint(2000, 50_000), False),
        "surrogate": (b'{"competency": "%s", "level": 1, "evidence": "\\ud83d"}' % comp.encode(), False),
        "bytes": (bytes(rng.randrange(256) for _ in range(200)), False),
        "array": (b"[1, 2, 3]", False),
        "huge": (b'{"evidence": "' + b"e" * (MAX_BODY_BYTES + 5) + b'"}', False),
        "level": (b'{"competency": "%s", "level": 99}' % comp.encode(), False),
        "bool": (b'{"competency": "%s", "level": true}' % comp.encode(), False),
        "inf": (b'{"competency": "%s", "level": Infinity}' % comp.encode(), False),
        "nested": (b'{"competency": ["%s"], "level": 1}' % comp.encode(), False),
    }
    saved: dict[str, str] = {}
    outcomes: dict[int, int] = {}
    for i in range(80):
        ck, tk, og, st, bd = (rng.choice(list(d)) for d in (cookies, tokens, origins, sites, bodies))
        if rng.random() < 0.4:  # every door passed, only the body varies
            ck, tk, og, st = "real", "real", rng.choice(["none", "same"]), rng.choice(["none", "same-origin"])
        body, ok_body = bodies[bd]
        if bd == "good":
            text = "".join(chr(rng.choice([10, 13, 9, 1, 0x7F, 0xE9, 0x4E2D, 0x1F600, 32, 97])) for _ in range(30))
            body = json.dumps({"competency": comp, "level": rng.randint(1, 4), "evidence": f"{i}:{text}"}).encode()
        headers = {"content-type": rng.choice(["application/json", "text/plain", "application/x-www-form-urlencoded"])}
        for k, v in (("x-csrf-token", tokens[tk]), ("origin", origins[og]), ("sec-fetch-site", sites[st])):
            if v is not None:
                headers[k] = v
        c = TestClient(env.client.app, cookies=cookies[ck])
        r = c.post(url, content=body, headers=headers)
        outcomes[r.status_code] = outcomes.get(r.status_code, 0) + 1
        passes = ck == "real" and tk == "real" and og in ("none", "same") and st in ("none", "same-origin")
        if passes and ok_body:
            assert r.status_code == 200, (ck, tk, og, st, bd, r.text)
            saved = {comp: json.loads(body)["evidence"]}
        else:
            assert 400 <= r.status_code < 500, (ck, tk, og, st, bd, r.status_code)
            _one_line_4xx(r, r.status_code)
            if ck != "real":
                assert r.status_code == 401, (ck, r.text)
            elif not (tk == "real" and og in ("none", "same") and st in ("none", "same-origin")):
                assert r.status_code in (403, 413), (tk, og, st, r.text)
        assert {k: v["evidence"] for k, v in ann.get(f"/api/c/c1/r/{blind}/grades").json().items()} == saved
    assert outcomes.get(200, 0) >= 1 and outcomes.get(401, 0) >= 10 and outcomes.get(403, 0) >= 5, outcomes


def test_seeded_grade_file_mutations_import_exactly_or_nothing(
    env: Env, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """42 seeded mutations of a valid grade CSV: each imports every row exactly as the csv module reads
    it (exit 0), or is a one-line error naming the file (exit 2) with the store unchanged."""
    import random

    rng = random.Random(SEED)
    rows = [
        ["c1", b, r, c, str(rng.randint(1, 4)), f"row {n}"]
        for n, (b, r, _, comps) in enumerate(assignments(env.store, "c1"))
        for c in comps[:2]
    ][:8]
    header = ["campaign", "run", "rater", "competency", "level", "evidence"]

    def write(path: Path, table: list[list[str]]) -> bytes:
        buf = io.StringIO(newline="")
        csv.writer(buf, lineterminator=rng.choice(["\n", "\r\n"])).writerows([header, *table])
        return buf.getvalue().encode()

    mutations = [
        lambda t, b: b,
        lambda t, b: b"\xef\xbb\xbf" + b,
        lambda t, b: b.replace(b"row 1", "row 1 \x01\x1b tab\t é中😀 \u2028".encode()),
        lambda t, b: b.replace(b"row 2", b'"multi\nline\r\nrow"'),
        lambda t, b: b.replace(b"row 3", b"a\x00b"),
        lambda t, b: b.replace(b"row 3", b"caf\xe9"),
        lambda t, b: b.replace(b"row 4", b'"unterminated'),
        lambda t, b: b.replace(b"row 4", b"x" * (131072 + rng.randint(1, 5000))),
        lambda t, b: b.replace(b"evidence", b"evidenz"),
        lambda t, b: b.replace(b",level,", b",lvl,"),
        lambda t, b: b + b"c1,R-000000,ann,PRO,3,x\n",
        lambda t, b: b + b"c1,onlythree,fields\n",
        lambda t, b: b + b",".join([b"x"] * 50) + b"\n",
        lambda t, b: b + b.split(b"\n", 2)[1] + b"\n",  # a duplicate row
        lambda t, b: b"",
        lambda t, b: bytes(rng.randrange(256) for _ in range(300)),
        lambda t, b: b.replace(b",3,", b",Excellent,", 1),
        lambda t, b: b.replace(b"ann", b"zed", 1),
        lambda t, b: b.replace(b"row 5", b"e" * 20_001),
        lambda t, b: b.replace(b"\n", b"\r"),
        lambda t, b: b.replace(b"c1,", b"c9,", 1),
    ]
    classes = {0: 0, 2: 0}
    for i in range(42):
        path = tmp_path / f"g{i}.csv"
        data = mutations[i % len(mutations)](rows, write(path, rows))
        path.write_bytes(data)
        with env.store.session() as s:
            s.execute(delete(Grade))
        code = main(["review", "import-grades", str(path), "--db", str(env.db)])
        out, err = capsys.readouterr()
        classes[code] += 1
        if code == 0:
            with path.open(encoding="utf-8-sig", newline="") as f:
                want = sorted((r["competency"], r.get("evidence") or "") for r in csv.DictReader(f))
            with env.store.session() as s:
                got = sorted((g.competency, g.evidence) for g in s.scalars(select(Grade)))
            assert got == want, i
        else:
            assert code == 2 and err.count("\n") == 1 and str(path) in err and "Traceback" not in err, (i, err)
            assert _grades(env) == {}, i
    assert classes[0] >= 4 and classes[2] >= 20, classes


def test_unreasonable_cli_numbers_are_usage_errors(
    tmp_path: Path, runs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "r.sqlite")
    cases = [
        [
            "review",
            "campaign",
            "create",
            "c",
            str(runs_dir),
            "--raters",
            "a",
            "--per-run",
            "1",
            "--seed",
            "1" + "0" * 30,
        ],
        ["review", "agreement", "c", "--permutations", "1" + "0" * 27],
        ["review", "agreement", "c", "--seed", str(2**32)],
    ]
    for argv in cases:
        with pytest.raises(SystemExit) as exc:
            main([*argv, "--db", db])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert "must be ≤" in err and "Traceback" not in err, err
