"""`simbridge review serve`: the raters' web app (Starlette, server-rendered HTML, nothing from a CDN).

A rater signs in by name (no password: the app is for a closed lab network), sees their assignments
in the blind campaigns over DIR by blind id only, and grades each competency beside the replay. Each
grade is POSTed as it is entered and upserted in the store, so nothing typed is lost and a restart
changes nothing. Bad input is a 4xx with a one-line message (JSON {"error": ...} under /api)."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote

from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from simbridge._errors import SimbridgeError
from simbridge._review.campaign import task_tags
from simbridge._review.rubric import Rubric, RubricError, load_rubric
from simbridge._review.store import Assignment, Campaign, CampaignRun, Grade, Rater, Store, StoreError

COOKIE = "simbridge_rater"
MAX_EVIDENCE_CHARS = 20_000


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
    const res = await fetch(form.dataset.url, {method: 'POST', headers: {'content-type': 'application/json'},
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


def _page(title: str, body: str, rater: str | None = None, script: str = "") -> HTMLResponse:
    who = (
        (f'signed in as <b id="rater">{_e(rater)}</b> · <a href="/">assignments</a> · <a href="/signout">sign out</a>')
        if rater
        else "not signed in"
    )
    return HTMLResponse(
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>'
        f"<style>{_CSS}</style></head><body><nav>simbridge review · {who}</nav>{body}"
        + (f"<script>{script}</script>" if script else "")
        + "</body></html>"
    )


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

    @staticmethod
    def signed_in(request: Request, s: Session) -> Rater:
        name = request.cookies.get(COOKIE)
        if not name:
            raise ApiError(401, "not signed in: sign in by name at /")
        r = s.scalar(select(Rater).where(Rater.name == name))
        if r is None:
            raise ApiError(401, f"rater {name!r} is not in the review store; sign in again at /")
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
            name = request.cookies.get(COOKIE)
            rater = s.scalar(select(Rater).where(Rater.name == name)) if name else None
            if rater is None:
                return _page(
                    "sign in",
                    '<h1>Sign in</h1><form method="post" action="/signin">'
                    '<label>Your name <input name="name" id="name" autofocus></label> '
                    '<button type="submit">Sign in</button></form>'
                    "<p>No password: this app is meant for a closed lab network.</p>",
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
            return _page("campaigns", body, rater.name)

    async def signin(self, request: Request) -> Response:
        form = parse_qs((await request.body()).decode("utf-8", "replace"))
        name = (form.get("name") or [""])[0].strip()
        if not name:
            raise ApiError(400, "sign in: field 'name' is empty")
        with self.store.session() as s:
            if s.scalar(select(Rater).where(Rater.name == name)) is None:
                raise ApiError(403, f"rater {name!r} is not a rater of any campaign in this review store")
        resp = RedirectResponse("/", status_code=303)
        resp.set_cookie(COOKIE, name, httponly=True, samesite="strict")
        return resp

    async def signout(self, request: Request) -> Response:
        resp = RedirectResponse("/", status_code=303)
        resp.delete_cookie(COOKIE)
        return resp

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
            return _page(camp.name, body, rater.name)

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
            return _page(f"run {c.run.blind_id}", body, c.rater.name, _GRADE_JS)

    async def replay(self, request: Request) -> Response:
        from simbridge._review._replay import replay_page

        with self.store.session() as s:
            c = self.ctx(request, s)
            path, blind = c.run.run.bundle_path, c.run.blind_id
        if not self._in_dir(path):
            raise ApiError(404, f"run {blind}: its bundle is not under {self.directory}")
        try:
            return HTMLResponse(await run_in_threadpool(replay_page, path, blind))
        except SimbridgeError as exc:
            raise ApiError(409, f"run {blind}: the recording cannot be shown: {exc}") from None

    # ----------------------------------------------------------------- API
    async def save_grade(self, request: Request) -> Response:
        try:
            body = json.loads(await request.body())
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ApiError(400, "the request body is not JSON") from None
        if not isinstance(body, dict):
            raise ApiError(400, "the request body must be a JSON object {competency, level, evidence}")
        comp, level, evidence = body.get("competency"), body.get("level"), body.get("evidence", "")
        if not isinstance(comp, str) or not isinstance(level, (str, int)) or isinstance(level, bool):
            raise ApiError(422, "fields 'competency' (text) and 'level' (a level of the scale) are required")
        if not isinstance(evidence, str) or len(evidence) > MAX_EVIDENCE_CHARS:
            raise ApiError(422, f"field 'evidence' must be text of at most {MAX_EVIDENCE_CHARS} characters")
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
            self.store.save_grade(s, c.run.id, c.rater.id, comp, lv.id, lv.value, evidence.strip())
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

    def _agreement(self, request: Request) -> dict[str, Any]:
        from simbridge._review.report import agreement_report

        args = {}
        for key, default in (("permutations", 1000), ("seed", 0)):
            raw = request.query_params.get(key, str(default))
            if not raw.isdigit():
                raise ApiError(400, f"query parameter {key}={raw!r}: not a whole number >= 0")
            args[key] = int(raw)
        with self.store.session() as s:
            name = self.campaign(s, request.path_params["campaign"]).name
        try:
            return agreement_report(self.store, name, args["permutations"], args["seed"])
        except SimbridgeError as exc:
            raise ApiError(409, f"campaign {name!r}: {exc}") from None

    async def agreement_json(self, request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(self._agreement, request))

    async def agreement_page(self, request: Request) -> Response:
        rep = await run_in_threadpool(self._agreement, request)
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
        name = request.cookies.get(COOKIE)
        return _page(f"agreement {rep['campaign']}", "".join(parts), name)


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
        Route("/signin", a.signin, methods=["POST"]),
        Route("/signout", a.signout),
        Route("/c/{campaign}", a.worklist),
        Route("/c/{campaign}/agreement", a.agreement_page),
        Route("/c/{campaign}/r/{run}", a.run_page),
        Route("/c/{campaign}/r/{run}/replay", a.replay),
        Route("/api/c/{campaign}/r/{run}/grade", a.save_grade, methods=["POST"]),
        Route("/api/c/{campaign}/r/{run}/grades", a.my_grades),
        Route("/api/c/{campaign}/agreement", a.agreement_json),
    ]
    return Starlette(routes=routes, exception_handlers={HTTPException: _error})


def serve(directory: Path, db: str | None, host: str, port: int) -> None:
    """Run the app until interrupted (uvicorn)."""
    import uvicorn

    app = create_app(directory, Store(db))
    print(
        f"simbridge review: serving {directory} on http://{host}:{port}/ (closed lab network only: no passwords)",
        flush=True,
    )
    uvicorn.run(app, host=host, port=port, log_level="warning")
