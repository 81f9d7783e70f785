"""Signed sessions are revocable server-side, and the replay's refusal keeps the run blind (issue 43):
a copy of the session cookie taken before sign-out grades nothing after it (401), a session past its
lifetime is refused, and a 409 for a damaged bundle names no server path (in an eval layout the
path names the agent)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from sqlalchemy import select, update
from starlette.testclient import TestClient

from simbridge._review.app import SESSION_COOKIE, SESSION_MAX_AGE_S, blinded, create_app
from simbridge._review.campaign import create_campaign, issue_keys
from simbridge._review.store import CampaignRun, Grade, Store, WebSession

from .test_doors import ORIGIN, Env, _one_line_4xx, _run, sign_in


@pytest.fixture
def env(tmp_path: Path, runs_dir: Path) -> Env:
    """Two campaigns over the conftest's runs, keys for ann and bob (as test_doors' fixture)."""
    store = Store(str(tmp_path / "r.sqlite"))
    create_campaign(store, "c1", runs_dir, ["ann", "bob"], 2, seed=3)
    keys = {k: v for k, v in issue_keys(store, ["ann", "bob"]).items() if v}
    return Env(store, tmp_path / "r.sqlite", runs_dir, keys, TestClient(create_app(runs_dir, store)))


def _copy(env: Env, c: TestClient) -> TestClient:
    """A second client holding a copy of `c`'s session cookie (taken, say, from a shared machine)."""
    stolen = c.cookies.get(SESSION_COOKIE)
    assert stolen
    return TestClient(env.client.app, cookies={SESSION_COOKIE: stolen})


def _grade(c: TestClient, blind: str, comp: str, token: str) -> int:
    r = c.post(
        f"/api/c/c1/r/{blind}/grade",
        json={"competency": comp, "level": 1},
        headers={"x-csrf-token": token, "origin": ORIGIN},
    )
    return r.status_code


def test_a_cookie_copied_before_sign_out_no_longer_grades(env: Env) -> None:
    ann = sign_in(env, "ann")
    blind, comp = _run(env)
    copy = _copy(env, ann)
    token = ann.headers["x-csrf-token"]
    assert _grade(copy, blind, comp, token) == 200  # the copy works while the session is live
    with env.store.session() as s:
        assert len(s.scalars(select(WebSession)).all()) == 1
    assert ann.post("/signout", follow_redirects=False).status_code == 303
    with env.store.session() as s:
        assert s.scalars(select(WebSession)).all() == []  # deleted server-side, not only in the browser
        before = len(s.scalars(select(Grade)).all())
    r = copy.post(
        f"/api/c/c1/r/{blind}/grade",
        json={"competency": comp, "level": 2},
        headers={"x-csrf-token": token, "origin": ORIGIN},
    )
    _one_line_4xx(r, 401, "signed out")
    _one_line_4xx(copy.get("/c/c1"), 401)
    _one_line_4xx(copy.get(f"/c/c1/r/{blind}/replay"), 401)
    with env.store.session() as s:
        assert len(s.scalars(select(Grade)).all()) == before
        assert {g.level_value for g in s.scalars(select(Grade))} == {1}
    # signing in again opens a new session; the old copy stays void
    again = sign_in(env, "ann")
    assert again.get("/c/c1").status_code == 200
    _one_line_4xx(copy.get("/c/c1"), 401)


def test_sign_out_ends_only_that_session(env: Env) -> None:
    laptop, desk = sign_in(env, "ann"), sign_in(env, "ann")
    assert laptop.post("/signout", follow_redirects=False).status_code == 303
    _one_line_4xx(laptop.get("/c/c1"), 401)
    assert desk.get("/c/c1").status_code == 200


def test_a_session_past_its_lifetime_is_refused_and_pruned(env: Env) -> None:
    ann = sign_in(env, "ann")
    with env.store.session() as s:
        s.execute(update(WebSession).values(created_s=time.time() - SESSION_MAX_AGE_S - 5))
    _one_line_4xx(ann.get("/c/c1"), 401, "expired")
    sign_in(env, "bob")  # a sign-in prunes expired rows
    with env.store.session() as s:
        assert [r.rater.name for r in s.scalars(select(WebSession))] == ["bob"]


def test_the_replay_refusal_names_no_server_path(env: Env, tmp_path: Path) -> None:
    ann = sign_in(env, "ann")
    blind, _ = _run(env)
    with env.store.session() as s:
        cr = s.scalar(select(CampaignRun).where(CampaignRun.blind_id == blind))
        assert cr is not None
        bundle = Path(cr.run.bundle_path)
    secret = tmp_path / "agent-gpt-x" / "outside"
    secret.parent.mkdir()
    secret.write_text("not for raters")
    (bundle / "screen.mp4").symlink_to(secret)
    r = ann.get(f"/c/c1/r/{blind}/replay")
    body = _one_line_4xx(r, 409, "screen.mp4: is a symbolic link")
    for leak in (str(bundle), bundle.name, str(env.runs), str(tmp_path), "agent-gpt-x", "/"):
        assert leak not in body, (leak, body)


def test_blinded_withholds_every_path_form() -> None:
    d = Path("/srv/evals/run1")
    b = "/srv/evals/run1/T09/jsbsim/claude-x/trial-2/attempt-1"
    msg = f"{b}/screen.mp4: is a symbolic link (to ../../../gpt-y/trial-0/screen.mp4); more at {d}"
    out = blinded(msg, b, d)
    assert out.startswith("screen.mp4: is a symbolic link") and "claude-x" not in out and "gpt-y" not in out
    assert "/" not in out and "[path withheld]" in out
    assert blinded(f"{b}: cannot read: Permission denied", b, d) == "the bundle: cannot read: Permission denied"
