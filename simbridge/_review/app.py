"""`simbridge review serve`: the raters' web app (Starlette, server-rendered HTML, nothing from a CDN).

A rater signs in with the secret link `campaign create` (or `review link`) issued them; the session is
a row in the store, named by a random id in a cookie signed with a secret kept in the store
(Starlette's SessionMiddleware, itsdangerous), so a hand-made cookie grants nothing and sign-out,
which deletes the row, voids every copy of the cookie. Every state-changing request needs the session's CSRF token and a
same-origin Origin / Sec-Fetch-Site. The rater sees their assignments in the blind campaigns over DIR
by blind id only, and grades each competency beside the replay. Each grade is POSTed as it is entered
and upserted in the store, so nothing typed is lost and a restart changes nothing. Work per request is
bounded (body size, permutations); bad input is a 4xx with a one-line message (JSON {"error": ...}
under /api)."""

from __future__ import annotations

import hmac
import html
import json
import logging
import re
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from simbridge._errors import SimbridgeError
from simbridge._review.campaign import task_tags
from simbridge._review.rubric import Rubric, RubricError, load_rubric
from simbridge._review.store import (
    MAX_EVIDENCE_CHARS,
    Assignment,
    Campaign,
    CampaignRun,
    Grade,
    Rater,
    Store,
    StoreError,
)

#: the signed session cookie (rater, the sign-in key's id, the CSRF token)
SESSION_COOKIE = "simbridge_session"
SESSION_MAX_AGE_S = 14 * 24 * 3600
#: bounds on one request's work
MAX_BODY_BYTES = 256 * 1024
#: the agreement page's permutation test: 2,000 take ~25 s on a seed-sized campaign (19 runs x 7 raters x
#: 5 competencies) on a loaded 2-core machine (10,000 took 97 s); larger tests are the CLI's
MAX_PERMUTATIONS = 2_000
#: one agreement computation at a time; another request waits this long for it, then gets a 503
AGREEMENT_WAIT_S = 60.0
MAX_SEED = 2**32 - 1
MAX_NAME_CHARS = 128
_DIGITS = re.compile(r"[0-9]{1,12}")
log = logging.getLogger("simbridge.review")

_HEADERS = {
    # a sign-in link's key never leaves in a Referer to another origin; "no-referrer" would make
    # browsers send "Origin: null" on same-origin form posts, which the origin check refuses
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "SAMEORIGIN",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


def _e(x: object) -> str:
    return html.escape("" if x is None else str(x))


def _q(x: str) -> str:
    return quote(x, safe="")


class ApiError(HTTPException):
    """A 4xx with a one-line message."""


_CSS = """body{font-family:system-ui,sans-serif;margin:1em auto;max-width:1400px;padding:0 1em;color:#222}
nav{margin-bottom:.8em;color:#555}table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}
.cols{display:flex;gap:1em;align-items:flex-start}.replay{flex:3}.replay iframe{width:100%;height:85vh;border:1px solid #ccc}
form.grades{flex:2}fieldset{margin:0 0 .8em;border:1px solid #ccc}legend{font-weight:600}
textarea{width:100%;min-height:4em}.status{color:#555;font-size:.9em}.status.err{color:#b00}.undef{color:#777}"""

_GRADE_JS = r"""
const form = document.querySelector('form.grades');
async function save(fs) {
  const st = fs.querySelector('.status'), r = fs.querySelector('input[type=radio]:checked');
  const evidence = fs.querySelector('textarea').value;
  if (!r) { st.textContent = 'choose a level to save'; return; }
  st.textContent = 'saving…'; st.classList.remove('err');
  try {
    const res = await fetch(form.dataset.url, {method: 'POST', headers: {'content-type': 'application/json',
      'x-csrf-token': document.querySelector('meta[name=csrf-token]').content},
      body: JSON.stringify({competency: fs.dataset.competency, level: r.value, evidence: evidence})});
    const j = await res.json();
    if (!res.ok) throw new Error(j.error || res.status);
    fs.dataset.savedLevel = r.value; fs.dataset.savedEvidence = evidence;
    st.textContent = 'saved';
  } catch (e) { st.textContent = 'NOT saved: ' + e.message; st.classList.add('err'); }
}
for (const fs of form.querySelectorAll('fieldset')) {
  let chain = Promise.resolve(), timer = null;
  const queue = () => { chain = chain.then(() => save(fs)); };  // in order: an older save never lands last
  fs.addEventListener('change', () => { clearTimeout(timer); queue(); });
  fs.querySelector('textarea').addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(queue, 400); });
}
document.body.dataset.formReady = '1';
"""


def csrf_token(request: Request) -> str:
    """The session's CSRF token (made on first use); forms carry it as `csrf`, fetch as X-CSRF-Token."""
    tok = request.session.get("csrf")
    if not isinstance(tok, str):
        tok = request.session["csrf"] = secrets.token_urlsafe(32)
    return tok


def _csrf_field(request: Request) -> str:
    return f'<input type="hidden" name="csrf" value="{_e(csrf_token(request))}">'


def _page(request: Request, title: str, body: str, rater: str | None = None, script: str = "") -> HTMLResponse:
    who = (
        (
            f'signed in as <b id="rater">{_e(rater)}</b> · <a href="/">assignments</a> · '
            f'<form method="post" action="/signout" style="display:inline">{_csrf_field(request)}'
            '<button id="signout" type="submit">sign out</button></form>'
        )
        if rater
        else "not signed in"
    )
    return HTMLResponse(
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>'
        f'<meta name="csrf-token" content="{_e(csrf_token(request))}">'
        f"<style>{_CSS}</style></head><body><nav>simbridge review · {who}</nav>{body}"
        + (f"<script>{script}</script>" if script else "")
        + "</body></html>",
        headers=_HEADERS,
    )


def check_same_origin(request: Request, form_token: str | None = None) -> None:
    """Refuse a state-changing request that a browser sent from another origin (Sec-Fetch-Site,
    Origin) or that lacks the session's CSRF token: 403."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        raise ApiError(403, f"cross-site request refused (Sec-Fetch-Site: {site[:40]})")
    origin = request.headers.get("origin")
    host = request.headers.get("host", "")
    if origin is not None and (origin == "null" or urlsplit(origin).netloc.lower() != host.lower()):
        raise ApiError(403, f"cross-origin request refused (Origin {origin[:100]!r} is not this app's {host[:100]!r})")
    token = request.headers.get("x-csrf-token") or form_token or ""
    want = request.session.get("csrf")
    if not isinstance(want, str) or not hmac.compare_digest(token.encode("utf-8", "replace"), want.encode()):
        raise ApiError(403, "missing or wrong CSRF token: reload the page and try again")


async def read_body(request: Request) -> bytes:
    """The request body, at most MAX_BODY_BYTES (413 past it, whatever Content-Length says)."""
    declared = request.headers.get("content-length")
    if declared is not None and not (declared.isascii() and declared.isdigit()):
        raise ApiError(400, "Content-Length is not a whole number")
    if declared is not None and (len(declared) > 12 or int(declared) > MAX_BODY_BYTES):
        raise ApiError(413, f"request body over {MAX_BODY_BYTES} bytes")
    chunks, n = [], 0
    async for chunk in request.stream():
        n += len(chunk)
        if n > MAX_BODY_BYTES:
            raise ApiError(413, f"request body over {MAX_BODY_BYTES} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def json_object(raw: bytes) -> dict[str, Any]:
    """A flat JSON object of text and numbers; 400 for anything else (not UTF-8, not JSON, NaN, an
    integer of over 4300 digits, nesting past the parser's depth, lone surrogates)."""
    try:
        body = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError:
        raise ApiError(400, "the request body is not UTF-8 text") from None
    except RecursionError:
        raise ApiError(400, "the request body is not JSON the app accepts: nested too deeply") from None
    except ValueError as exc:
        why = str(exc).splitlines()[0][:160]
        raise ApiError(400, f"the request body is not JSON the app accepts: {why}") from None
    if not isinstance(body, dict):
        raise ApiError(400, "the request body must be a JSON object {competency, level, evidence}")
    for k, v in body.items():
        if isinstance(v, (dict, list)):
            raise ApiError(400, f"field {k[:40]!r}: must be text or a number, not nested JSON")
        for text in (k, v):
            if isinstance(text, str):
                try:
                    text.encode("utf-8")
                except UnicodeEncodeError:
                    raise ApiError(400, f"field {k[:40]!r}: not valid Unicode text (a lone surrogate)") from None
    return body


def _form(raw: bytes) -> dict[str, str]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError(400, "the form is not UTF-8 text") from None
    try:
        form = parse_qs(text, max_num_fields=16)
    except ValueError:
        raise ApiError(400, "the form has too many fields") from None
    return {k: v[0] for k, v in form.items()}


@dataclass
class Ctx:
    """A rater's view of one run: the campaign, its rubric, the campaign run and the competencies to grade."""

    campaign: Campaign
    rubric: Rubric
    run: CampaignRun
    rater: Rater
    competencies: list[Any]


class ReviewApp:
    def __init__(self, directory: Path, store: Store) -> None:
        self.directory = directory.resolve()
        self.store = store
        self._rubrics: dict[str, Rubric] = {}
        self.agreement_lock = threading.Lock()
        self.agreement_wait_s = AGREEMENT_WAIT_S

    # ----------------------------------------------------------------- lookups
    def rubric(self, camp: Campaign) -> Rubric:
        if camp.rubric not in self._rubrics:
            self._rubrics[camp.rubric] = load_rubric(camp.rubric)
        return self._rubrics[camp.rubric]

    def _in_dir(self, path: str) -> bool:
        return Path(path).resolve().is_relative_to(self.directory)

    def campaigns(self, s: Session) -> list[Campaign]:
        return [c for c in s.scalars(select(Campaign).order_by(Campaign.name)) if self._in_dir(c.directory)]

    def campaign(self, s: Session, name: str) -> Campaign:
        try:
            camp = self.store.campaign(s, name)
        except StoreError as exc:
            raise ApiError(404, str(exc)) from None
        if not self._in_dir(camp.directory):
            raise ApiError(404, f"campaign {name!r} is not over {self.directory} (it is over {camp.directory})")
        return camp

    def signed_in(self, request: Request, s: Session) -> Rater:
        """The rater of the request's signed session: 401 without one, or when the session's sign-in
        key has since been replaced (`simbridge review link`)."""
        sid = request.session.get("sid")
        if not isinstance(sid, str):
            raise ApiError(401, "not signed in: open your sign-in link (simbridge review link RATER issues one)")
        row = self.store.web_session(s, sid, SESSION_MAX_AGE_S)
        if row is None:
            raise ApiError(401, "not signed in: this session was signed out or has expired; open your sign-in link")
        r = row.rater
        key = self.store.key_of(s, r)
        if key is None or not hmac.compare_digest(key.kid, row.kid):
            raise ApiError(401, "not signed in: your sign-in link was replaced or revoked; sign in with your new link")
        return r

    def ctx(self, request: Request, s: Session) -> Ctx:
        rater = self.signed_in(request, s)
        camp = self.campaign(s, request.path_params["campaign"])
        blind = request.path_params["run"]
        cr = next((r for r in camp.runs if r.blind_id == blind), None)
        if cr is None:
            raise ApiError(404, f"run {blind!r} is not in campaign {camp.name!r}")
        if (
            s.scalar(select(Assignment).where(Assignment.campaign_run_id == cr.id, Assignment.rater_id == rater.id))
            is None
        ):
            raise ApiError(403, f"rater {rater.name!r} is not assigned run {blind} of campaign {camp.name!r}")
        rb = self.rubric(camp)
        comps = rb.competencies_for(task_tags(cr.run.task_id)) or list(rb.competencies)
        return Ctx(camp, rb, cr, rater, comps)

    @staticmethod
    def own_grades(s: Session, cr: CampaignRun, rater: Rater) -> dict[str, Grade]:
        return {
            g.competency: g
            for g in s.scalars(select(Grade).where(Grade.campaign_run_id == cr.id, Grade.rater_id == rater.id))
        }

    # ----------------------------------------------------------------- pages
    async def home(self, request: Request) -> Response:
        with self.store.session() as s:
            try:
                rater = self.signed_in(request, s)
            except ApiError:
                return _page(
                    request,
                    "sign in",
                    "<h1>Sign in</h1><p>Open the sign-in link you were given, or paste its key here.</p>"
                    f'<form method="post" action="/signin">{_csrf_field(request)}'
                    '<label>Key <input type="password" name="key" id="key" autocomplete="off" autofocus></label> '
                    '<button type="submit">Sign in</button></form>',
                )
            rows = []
            for camp in self.campaigns(s):
                n = sum(
                    1
                    for cr in camp.runs
                    if s.scalar(
                        select(Assignment).where(Assignment.campaign_run_id == cr.id, Assignment.rater_id == rater.id)
                    )
                    is not None
                )
                if n:
                    rows.append(
                        f'<li><a href="/c/{_q(camp.name)}">{_e(camp.name)}</a> — {n} run(s) to grade · '
                        f'<a href="/c/{_q(camp.name)}/agreement">agreement</a></li>'
                    )
            body = "<h1>Your campaigns</h1>" + (
                f'<ul id="campaigns">{"".join(rows)}</ul>'
                if rows
                else '<p id="campaigns">No assignments for you here.</p>'
            )
            return _page(request, "campaigns", body, rater.name)

    async def signin_link(self, request: Request) -> Response:
        """GET /signin?key=K: who the link signs in, and a button that does it (a GET changes nothing)."""
        key = request.query_params.get("key", "")
        with self.store.session() as s:
            row = self.store.rater_for_key(s, key)
            if row is None:
                raise ApiError(403, "this sign-in link is unknown or was replaced by a newer one")
            name = row.rater.name
        return _page(
            request,
            "sign in",
            f'<h1>Sign in as <span id="who">{_e(name)}</span></h1><form method="post" action="/signin">'
            f'{_csrf_field(request)}<input type="hidden" name="key" value="{_e(key)}">'
            '<button type="submit" id="signin">Sign in</button></form>',
        )

    async def signin(self, request: Request) -> Response:
        form = _form(await read_body(request))
        check_same_origin(request, form.get("csrf"))
        key = form.get("key", "").strip()
        if not key:
            raise ApiError(400, "sign in: field 'key' is empty")
        with self.store.session() as s:
            row = self.store.rater_for_key(s, key)
            if row is None:
                raise ApiError(403, "sign in: the key is unknown or was replaced by a newer one")
            sid = self.store.open_web_session(s, row, SESSION_MAX_AGE_S)
        request.session.clear()  # a new session: nothing of the anonymous one is kept
        request.session.update({"sid": sid, "csrf": secrets.token_urlsafe(32)})
        return RedirectResponse("/", status_code=303, headers=_HEADERS)

    async def signout(self, request: Request) -> Response:
        form = _form(await read_body(request))
        check_same_origin(request, form.get("csrf"))
        sid = request.session.get("sid")
        if isinstance(sid, str):
            with self.store.session() as s:
                self.store.end_web_session(s, sid)  # revoked server-side: a copy of the cookie is void too
        request.session.clear()
        return RedirectResponse("/", status_code=303, headers=_HEADERS)

    async def worklist(self, request: Request) -> Response:
        with self.store.session() as s:
            rater = self.signed_in(request, s)
            camp = self.campaign(s, request.path_params["campaign"])
            rb = self.rubric(camp)
            rows = []
            for cr in camp.runs:
                if (
                    s.scalar(
                        select(Assignment).where(Assignment.campaign_run_id == cr.id, Assignment.rater_id == rater.id)
                    )
                    is None
                ):
                    continue
                comps = rb.competencies_for(task_tags(cr.run.task_id)) or rb.competencies
                done = len(self.own_grades(s, cr, rater))
                rows.append(
                    f'<tr><td><a href="/c/{_q(camp.name)}/r/{_q(cr.blind_id)}">{_e(cr.blind_id)}</a></td>'
                    f"<td>{_e(cr.run.task_id)}</td><td>{done} / {len(comps)}</td></tr>"
                )
            if not rows:
                raise ApiError(403, f"rater {rater.name!r} has no assignments in campaign {camp.name!r}")
            body = (
                f"<h1>Campaign {_e(camp.name)}</h1><p>Runs are shown by blind id only.</p>"
                f'<table id="worklist"><tr><th>run</th><th>task</th><th>graded</th></tr>{"".join(rows)}</table>'
            )
            return _page(request, camp.name, body, rater.name)

    async def run_page(self, request: Request) -> Response:
        with self.store.session() as s:
            c = self.ctx(request, s)
            mine = self.own_grades(s, c.run, c.rater)
            base = f"/c/{_q(c.campaign.name)}/r/{_q(c.run.blind_id)}"
            sets = []
            for comp in c.competencies:
                g = mine.get(comp.id)
                radios = "".join(
                    f'<label><input type="radio" name="level-{_e(comp.id)}" value="{_e(lv.id)}"'
                    f"{' checked' if g is not None and g.level == lv.id else ''}> {_e(lv.label)}</label><br>"
                    for lv in c.rubric.levels
                )
                saved = (
                    f' data-saved-level="{_e(g.level)}" data-saved-evidence="{_e(g.evidence)}"' if g is not None else ""
                )
                sets.append(
                    f'<fieldset data-competency="{_e(comp.id)}"{saved}><legend>{_e(comp.id)} — '
                    f'{_e(comp.name)}</legend><p class="none">{_e(comp.description)}</p>{radios}'
                    f'<label>Evidence<br><textarea name="evidence-{_e(comp.id)}">'
                    f"{_e(g.evidence if g else '')}</textarea></label>"
                    f'<div class="status">{"saved" if g is not None else ""}</div></fieldset>'
                )
            body = (
                f"<h1>Run {_e(c.run.blind_id)} <small>({_e(c.run.run.task_id)}, campaign "
                f'{_e(c.campaign.name)})</small></h1><div class="cols">'
                f'<div class="replay"><iframe id="replay" src="{base}/replay" title="replay"></iframe></div>'
                f'<form class="grades" data-url="/api{base}/grade" onsubmit="return false">'
                f"<p>Each grade is saved as you enter it.</p>{''.join(sets)}</form></div>"
            )
            return _page(request, f"run {c.run.blind_id}", body, c.rater.name, _GRADE_JS)

    async def replay(self, request: Request) -> Response:
        from simbridge._review._replay import replay_page

        with self.store.session() as s:
            c = self.ctx(request, s)
            path, blind = c.run.run.bundle_path, c.run.blind_id
        if not self._in_dir(path):
            raise ApiError(404, f"run {blind}: its bundle is not under {self.directory}")
        try:
            return HTMLResponse(await run_in_threadpool(replay_page, path, blind), headers=_HEADERS)
        except SimbridgeError as exc:
            log.warning("replay of run %s (%s) refused: %s", blind, path, exc)
            raise ApiError(
                409, f"run {blind}: the recording cannot be shown: {blinded(str(exc), path, self.directory)}"
            ) from None

    # ----------------------------------------------------------------- API
    async def save_grade(self, request: Request) -> Response:
        with self.store.session() as s:
            self.signed_in(request, s)
        check_same_origin(request)
        body = json_object(await read_body(request))
        comp, level, evidence = body.get("competency"), body.get("level"), body.get("evidence", "")
        if isinstance(level, int) and not isinstance(level, bool) and abs(level) > 1000:
            raise ApiError(400, "field 'level': number out of range (a level of the scale is expected)")
        if not isinstance(comp, str) or not isinstance(level, (str, int)) or isinstance(level, bool):
            raise ApiError(422, "fields 'competency' (text) and 'level' (a level of the scale) are required")
        if len(comp) > MAX_NAME_CHARS or (isinstance(level, str) and len(level) > MAX_NAME_CHARS):
            raise ApiError(422, f"fields 'competency' and 'level' are at most {MAX_NAME_CHARS} characters")
        if not isinstance(evidence, str) or len(evidence) > MAX_EVIDENCE_CHARS:
            raise ApiError(422, f"field 'evidence' must be text of at most {MAX_EVIDENCE_CHARS} characters")
        if "\x00" in evidence:
            raise ApiError(422, "field 'evidence' contains a NUL character (the store cannot keep it)")
        with self.store.session() as s:
            c = self.ctx(request, s)
            ids = [x.id for x in c.competencies]
            if comp not in ids:
                raise ApiError(
                    422,
                    f"competency {comp!r} is not graded for run {c.run.blind_id} "
                    f"(rubric '{c.rubric.name}': {', '.join(ids)})",
                )
            try:
                lv = c.rubric.level(level)
            except RubricError as exc:
                raise ApiError(422, str(exc)) from None
            self.store.save_grade(s, c.run.id, c.rater.id, comp, lv.id, lv.value, evidence)
            return JSONResponse(
                {
                    "saved": True,
                    "run": c.run.blind_id,
                    "rater": c.rater.name,
                    "competency": comp,
                    "level": lv.id,
                    "level_value": lv.value,
                }
            )

    async def my_grades(self, request: Request) -> Response:
        with self.store.session() as s:
            c = self.ctx(request, s)
            return JSONResponse(
                {
                    k: {"level": g.level, "evidence": g.evidence}
                    for k, g in sorted(self.own_grades(s, c.run, c.rater).items())
                }
            )

    def _agreement(self, request: Request) -> tuple[dict[str, Any], str]:
        """The agreement report for a rater of the campaign, with bounded work: permutations at most
        MAX_PERMUTATIONS, the seed 32-bit (400 otherwise)."""
        from simbridge._review.report import agreement_report

        with self.store.session() as s:
            rater = self.signed_in(request, s)
            camp = self.campaign(s, request.path_params["campaign"])
            name = camp.name
            if rater.id not in {r.id for r in self.store.campaign_raters(s, camp)}:
                raise ApiError(403, f"rater {rater.name!r} is not a rater of campaign {name!r}")
            who = rater.name
        args = {}
        for key, default, hi in (("permutations", 1000, MAX_PERMUTATIONS), ("seed", 0, MAX_SEED)):
            raw = request.query_params.get(key, str(default))
            if not _DIGITS.fullmatch(raw) or int(raw) > hi:
                raise ApiError(400, f"query parameter {key}={raw[:40]!r}: not a whole number from 0 to {hi}")
            args[key] = int(raw)
        if not self.agreement_lock.acquire(timeout=self.agreement_wait_s):
            raise ApiError(503, "another agreement computation is running: try again in a minute")
        try:
            return agreement_report(self.store, name, args["permutations"], args["seed"]), who
        except SimbridgeError as exc:
            raise ApiError(409, f"campaign {name!r}: {exc}") from None
        finally:
            self.agreement_lock.release()

    async def agreement_json(self, request: Request) -> Response:
        rep, _ = await run_in_threadpool(self._agreement, request)
        return JSONResponse(rep, headers=_HEADERS)

    async def agreement_page(self, request: Request) -> Response:
        rep, who = await run_in_threadpool(self._agreement, request)
        parts = [
            f"<h1>Agreement — campaign {_e(rep['campaign'])}</h1><p>rubric {_e(rep['rubric'])}; raters "
            f"{_e(', '.join(rep['raters']))}; {rep['permutations']} permutations, seed {rep['seed']} "
            f"(the numbers of <code>simbridge review agreement {_e(rep['campaign'])} --json</code>). "
            "Verdicts per agent and verifiers vs raters name agents and scores, so they are left to the "
            "CLI.</p>"
        ]
        for group, g in rep["groups"].items():
            stat_names = list(next(iter([*g["competencies"].values(), g["overall"]])).keys())
            head = "".join(f"<th>{_e(n)}</th>" for n in stat_names)
            rows = []
            for comp, stats in [*g["competencies"].items(), ("overall", g["overall"])]:
                cells = []
                for n in stat_names:
                    st = stats[n]
                    if st["value"] is None:
                        cells.append(f'<td class="undef" data-stat="{_e(n)}">undefined ({_e(st["undefined"])})</td>')
                    else:
                        p = f" p={st['p_value']:.4f}" if st["p_value"] is not None else ""
                        cells.append(f'<td data-stat="{_e(n)}">{st["value"]:.3f}{p}</td>')
                rows.append(f'<tr data-competency="{_e(comp)}"><th>{_e(comp)}</th>{"".join(cells)}</tr>')
            dev = "".join(
                f"<li>{_e(r)}: " + " ".join(f"{_e(d)}={n}" for d, n in c.items()) + "</li>"
                for r, c in g["deviation"].items()
            )
            parts.append(
                f'<section data-group="{_e(group)}"><h2>{_e(group)} runs ({g["n_runs"]})</h2>'
                f"<table><tr><th>competency</th>{head}</tr>{''.join(rows)}</table>"
                f"<p>Deviation from the modal grade (rater: d=count)</p><ul>{dev}</ul></section>"
            )
        return _page(request, f"agreement {rep['campaign']}", "".join(parts), who)


_PATHLIKE = re.compile(r"[^\s()'\"]*/[^\s()'\"]*")


def blinded(message: str, bundle_path: str, directory: Path) -> str:
    """An error message fit for a rater: the bundle's own path (which in an eval layout names the
    agent and the trial) and every other path in it are withheld; names inside the bundle stay
    ('screen.mp4: is a symbolic link')."""
    bundle = Path(bundle_path)
    forms = {bundle_path, str(bundle.absolute())}
    try:
        forms.add(str(bundle.resolve()))
    except (OSError, RuntimeError):
        pass
    for form in sorted((f.rstrip("/") for f in forms if f.strip("/")), key=len, reverse=True):
        message = message.replace(form + "/", "").replace(form, "the bundle")
    message = message.replace(str(directory), "[path withheld]")
    return _PATHLIKE.sub("[path withheld]", message)


async def _error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    msg = str(exc.detail).replace("\n", " ")
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": msg}, status_code=exc.status_code)
    return PlainTextResponse(msg + "\n", status_code=exc.status_code)


def create_app(directory: Path, store: Store) -> Starlette:
    """The app over the campaigns whose bundles are under `directory`."""
    if not directory.is_dir():
        raise SimbridgeError(f"{directory}: not a directory of bundles")
    a = ReviewApp(directory, store)
    routes = [
        Route("/", a.home),
        Route("/signin", a.signin_link, methods=["GET"]),
        Route("/signin", a.signin, methods=["POST"]),
        Route("/signout", a.signout, methods=["POST"]),
        Route("/c/{campaign}", a.worklist),
        Route("/c/{campaign}/agreement", a.agreement_page),
        Route("/c/{campaign}/r/{run}", a.run_page),
        Route("/c/{campaign}/r/{run}/replay", a.replay),
        Route("/api/c/{campaign}/r/{run}/grade", a.save_grade, methods=["POST"]),
        Route("/api/c/{campaign}/r/{run}/grades", a.my_grades),
        Route("/api/c/{campaign}/agreement", a.agreement_json),
    ]
    session = Middleware(
        SessionMiddleware,
        secret_key=store.session_secret(),
        session_cookie=SESSION_COOKIE,
        max_age=SESSION_MAX_AGE_S,
        same_site="strict",
        https_only=False,  # the lab serves plain HTTP on 127.0.0.1 unless a TLS proxy is put in front
    )
    app = Starlette(routes=routes, middleware=[session], exception_handlers={HTTPException: _error})
    app.state.review = a
    return app


def serve(directory: Path, db: str | None, host: str, port: int) -> None:
    """Run the app until interrupted (uvicorn)."""
    import uvicorn

    app = create_app(directory, Store(db))
    print(
        f"simbridge review: serving {directory} on http://{host}:{port}/ (raters sign in with their secret links)",
        flush=True,
    )
    uvicorn.run(app, host=host, port=port, log_level="warning")
