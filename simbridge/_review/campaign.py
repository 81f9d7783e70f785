"""Blind campaigns: which runs, which raters, K ratings per run, balanced random assignment with a seed;
export of the grades and import of grades made elsewhere."""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from simbridge._bundle import EpisodeInfo
from simbridge._errors import SimbridgeError, first_error
from simbridge._review.rubric import Rubric, load_rubric, rubric_for_tags
from simbridge._review.store import (
    MAX_EVIDENCE_CHARS,
    Assignment,
    Campaign,
    CampaignRun,
    Grade,
    Rater,
    Run,
    Store,
    StoreError,
)


class CampaignError(SimbridgeError):
    """Bad campaign input: names what is wrong and where."""


@dataclass(frozen=True)
class FoundRun:
    bundle_path: str
    task_id: str
    sim: str | None
    agent: str | None
    trial: int | None
    verifier_score: float | None


def task_tags(task_id: str) -> list[str]:
    """The task's tags from tasks/*.yaml; [] for a task this checkout does not know."""
    spec = _all_tasks().get(task_id) if task_id else None
    return list(spec.tags) if spec is not None else []


_TASKS: dict[str, Any] | None = None


def _all_tasks() -> dict[str, Any]:
    global _TASKS
    if _TASKS is None:
        from simbridge._task import load_all_tasks

        _TASKS = load_all_tasks()
    return _TASKS


def _read_score(path: Path) -> float | None:
    """The verifier's score of a bundle, None when unscored or when there is no score.json."""
    if not path.is_file():
        return None
    from simbridge._metrics import read_score_file

    score = read_score_file(path)
    return score.score if score.status == "scored" else None


def find_runs(directory: Path) -> list[FoundRun]:
    """Every bundle (a directory with episode.json) under `directory`, sorted by path."""
    if not directory.is_dir():
        raise CampaignError(f"{directory}: not a directory of bundles")
    out = []
    for ep_path in sorted(directory.rglob("episode.json")):
        try:
            raw = json.loads(ep_path.read_text(encoding="utf-8"))
            ep = EpisodeInfo.model_validate(raw)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CampaignError(f"{ep_path}: cannot read: {exc}") from None
        except ValidationError as exc:
            raise CampaignError(first_error(exc, str(ep_path))) from None
        out.append(
            FoundRun(
                str(ep_path.parent.resolve()),
                ep.task_id,
                ep.sim,
                ep.agent,
                ep.trial,
                _read_score(ep_path.parent / "score.json"),
            )
        )
    if not out:
        raise CampaignError(f"{directory}: no bundles (no episode.json below it)")
    return out


def balanced_assignment(
    run_keys: Sequence[str], raters: Sequence[str], per_run: int, seed: int, loads: dict[str, int] | None = None
) -> dict[str, list[str]]:
    """K distinct raters per run; each run goes to the K least-loaded raters (ties broken at random,
    seeded), so rater loads never differ by more than one when they start equal."""
    if per_run < 1 or per_run > len(raters):
        raise CampaignError(f"--per-run {per_run}: must be between 1 and the number of raters ({len(raters)})")
    rng = random.Random(seed)
    load = {r: (loads or {}).get(r, 0) for r in raters}
    order = list(run_keys)
    rng.shuffle(order)
    out: dict[str, list[str]] = {}
    for key in order:
        tiebreak = {r: rng.random() for r in raters}
        chosen = sorted(raters, key=lambda r: (load[r], tiebreak[r]))[:per_run]
        for r in chosen:
            load[r] += 1
        out[key] = sorted(chosen)
    return out


def _blind_ids(n: int, rng: random.Random, taken: set[str]) -> list[str]:
    """Random ids that carry nothing of the run (no agent, trial, order or score)."""
    ids: list[str] = []
    while len(ids) < n:
        b = f"R-{rng.getrandbits(24):06x}"
        if b not in taken:
            taken.add(b)
            ids.append(b)
    return ids


def _upsert_run(s: Session, f: FoundRun) -> Run:
    run = s.scalar(select(Run).where(Run.bundle_path == f.bundle_path))
    if run is None:
        run = Run(bundle_path=f.bundle_path)
        s.add(run)
    run.task_id, run.sim, run.agent, run.trial, run.verifier_score = (
        f.task_id,
        f.sim,
        f.agent,
        f.trial,
        f.verifier_score,
    )
    return run


def _check_rubric(rubric: Rubric, found: Sequence[FoundRun]) -> None:
    for f in found:
        tags = task_tags(f.task_id)
        if tags and not rubric.covers(tags):
            raise CampaignError(
                f"{f.bundle_path}: task {f.task_id} ({', '.join(tags)}) is not covered by the "
                f"'{rubric.name}' rubric; put it in another campaign"
            )


def create_campaign(
    store: Store, name: str, directory: Path, raters: Sequence[str], per_run: int, seed: int, rubric: str | None = None
) -> dict[str, list[str]]:
    """A new campaign over the bundles in `directory`; returns blind id -> raters."""
    raters = [r.strip() for r in raters if r.strip()]
    if len(set(raters)) != len(raters) or not raters:
        raise CampaignError(f"--raters {','.join(raters)}: give distinct, non-empty rater names")
    found = find_runs(directory)
    if rubric is None:
        rubric = rubric_for_tags(task_tags(found[0].task_id)).name
    rb = load_rubric(rubric)
    _check_rubric(rb, found)
    with store.session() as s:
        if s.scalar(select(Campaign).where(Campaign.name == name)) is not None:
            raise CampaignError(f"campaign {name!r} exists already")
        camp = Campaign(name=name, directory=str(directory.resolve()), rubric=str(rubric), per_run=per_run, seed=seed)
        s.add(camp)
        s.flush()
        return _add_runs(store, s, camp, found, raters, {})


def _add_runs(
    store: Store, s: Session, camp: Campaign, found: Sequence[FoundRun], raters: Sequence[str], loads: dict[str, int]
) -> dict[str, list[str]]:
    rng = random.Random(f"{camp.seed}:{camp.name}:{len(camp.runs)}")
    taken = {cr.blind_id for cr in camp.runs}
    blind = dict(zip([f.bundle_path for f in found], _blind_ids(len(found), rng, taken)))
    plan = balanced_assignment([f.bundle_path for f in found], raters, camp.per_run, camp.seed + len(camp.runs), loads)
    rater_rows = {r: store.rater(s, r, create=True) for r in raters}
    out = {}
    for f in found:
        run = _upsert_run(s, f)
        s.flush()
        cr = CampaignRun(campaign_id=camp.id, run_id=run.id, blind_id=blind[f.bundle_path])
        s.add(cr)
        s.flush()
        for r in plan[f.bundle_path]:
            s.add(Assignment(campaign_run_id=cr.id, rater_id=rater_rows[r].id))
        out[cr.blind_id] = plan[f.bundle_path]
    return dict(sorted(out.items()))


def assign_new_runs(store: Store, name: str) -> dict[str, list[str]]:
    """Bundles added to the campaign's directory since it was made, assigned keeping the loads balanced."""
    with store.session() as s:
        camp = store.campaign(s, name)
        known = {cr.run.bundle_path for cr in camp.runs}
        found = [f for f in find_runs(Path(camp.directory)) if f.bundle_path not in known]
        _check_rubric(load_rubric(camp.rubric), found)
        if not found:
            return {}
        loads = {
            name: int(n)
            for name, n in s.execute(
                select(Rater.name, func.count(Assignment.id))
                .join(Assignment.rater)
                .join(Assignment.campaign_run)
                .where(CampaignRun.campaign_id == camp.id)
                .group_by(Rater.name)
            ).all()
        }
        return _add_runs(store, s, camp, found, sorted(loads), loads)


def assignments(store: Store, name: str, rater: str | None = None) -> list[tuple[str, str, str, list[str]]]:
    """(blind id, rater, task id, competencies to grade) of a campaign; the rater's worklist with `rater`."""
    with store.session() as s:
        camp = store.campaign(s, name)
        rb = load_rubric(camp.rubric)
        q = select(Assignment).join(Assignment.campaign_run).where(CampaignRun.campaign_id == camp.id)
        if rater is not None:
            q = q.where(Assignment.rater_id == store.rater(s, rater).id)
        rows = []
        for a in s.scalars(q):
            task = a.campaign_run.run.task_id
            comps = [c.id for c in rb.competencies_for(task_tags(task))] or [c.id for c in rb.competencies]
            rows.append((a.campaign_run.blind_id, a.rater.name, task, comps))
        return sorted(rows)


def grades_frame(store: Store, name: str) -> Any:
    """All grades of a campaign as a pandas DataFrame, with the run identities the raters did not see."""
    import pandas as pd  # type: ignore[import-untyped]

    cols = [
        "campaign",
        "run",
        "bundle_path",
        "task_id",
        "sim",
        "agent",
        "trial",
        "human",
        "verifier_score",
        "rater",
        "competency",
        "level",
        "level_value",
        "evidence",
        "updated_at",
    ]
    with store.session() as s:
        camp = store.campaign(s, name)
        rows = []
        for g in store.grades(s, camp):
            run = g.campaign_run.run
            rows.append(
                [
                    camp.name,
                    g.campaign_run.blind_id,
                    run.bundle_path,
                    run.task_id,
                    run.sim,
                    run.agent,
                    run.trial,
                    run.is_human,
                    run.verifier_score,
                    g.rater.name,
                    g.competency,
                    g.level,
                    g.level_value,
                    g.evidence,
                    g.updated_at,
                ]
            )
    df = pd.DataFrame(rows, columns=cols)
    return df.astype({"trial": "Int64", "level_value": "Int64", "verifier_score": "float64"})


#: the largest grade CSV import-grades reads (a bound, so /dev/zero or a runaway file is refused)
MAX_GRADES_CSV_BYTES = 64 * 1024 * 1024


def _open_grades_csv(csv_path: Path) -> Any:
    """The CSV opened for the csv module (newline='' keeps newlines inside quoted fields exactly), after
    checking it is a regular file of bounded size."""
    import io

    from simbridge._inputs import open_input

    # opened without blocking and checked on the descriptor: a FIFO with no writer is refused
    raw = open_input(csv_path, "a grade CSV", limit=MAX_GRADES_CSV_BYTES, error=CampaignError)
    return io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")


def import_grades(store: Store, csv_path: Path) -> int:
    """Load grades made elsewhere; every row is checked first, and one bad row imports nothing.
    Evidence is kept exactly as written (newlines, control characters and spaces included)."""
    with _open_grades_csv(csv_path) as f:
        reader = csv.DictReader(f)
        try:
            return _import_rows(store, csv_path, reader)
        except csv.Error as exc:
            raise CampaignError(f"{csv_path}:{reader.reader.line_num}: {exc}") from None  # the line being read
        except UnicodeDecodeError as exc:
            raise CampaignError(
                f"{csv_path}: not UTF-8 text: {exc.reason} (after line {reader.reader.line_num})"
            ) from None


def _import_rows(store: Store, csv_path: Path, reader: Any) -> int:
    need = ["campaign", "run", "rater", "competency", "level"]
    missing = [c for c in need if c not in (reader.fieldnames or [])]
    if missing:
        raise CampaignError(f"{csv_path}:1: missing column(s) {', '.join(missing)} (need {', '.join(need)})")
    with store.session() as s:
        cache: dict[str, tuple[Campaign, Rubric, dict[str, CampaignRun]]] = {}
        todo = []
        seen: dict[tuple[int, int, str], int] = {}
        for row in reader:
            lineno = reader.line_num  # the line the row ends on (a quoted field may span lines)
            where = f"{csv_path}:{lineno}"
            if None in row or any(row.get(c) is None for c in need):
                raise CampaignError(f"{where}: wrong number of fields")
            evidence = row.get("evidence") or ""
            if len(evidence) > MAX_EVIDENCE_CHARS:
                raise CampaignError(f"{where}: evidence of {len(evidence)} characters, over {MAX_EVIDENCE_CHARS}")
            if "\x00" in evidence:
                raise CampaignError(f"{where}: evidence contains a NUL character (the store cannot keep it)")
            try:
                if row["campaign"] not in cache:
                    camp = store.campaign(s, row["campaign"])
                    cache[row["campaign"]] = (camp, load_rubric(camp.rubric), {cr.blind_id: cr for cr in camp.runs})
                camp, rb, by_blind = cache[row["campaign"]]
                cr = by_blind.get(row["run"].strip())
                if cr is None:
                    raise CampaignError(f"run {row['run']!r} is not in campaign {camp.name!r}")
                rater = store.rater(s, row["rater"].strip())
                if (
                    s.scalar(
                        select(Assignment).where(Assignment.campaign_run_id == cr.id, Assignment.rater_id == rater.id)
                    )
                    is None
                ):
                    raise CampaignError(f"rater {rater.name!r} is not assigned run {cr.blind_id}")
                comps = {c.id for c in rb.competencies_for(task_tags(cr.run.task_id))} or {
                    c.id for c in rb.competencies
                }
                comp = row["competency"].strip()
                if comp not in comps:
                    raise CampaignError(
                        f"competency {comp!r} is not graded for {cr.blind_id} "
                        f"(rubric '{rb.name}': {', '.join(sorted(comps))})"
                    )
                level = rb.level(row["level"])
            except (StoreError, CampaignError, SimbridgeError) as exc:
                raise CampaignError(f"{where}: {exc}") from None
            key = (cr.id, rater.id, comp)
            if key in seen:
                raise CampaignError(f"{where}: duplicate of line {seen[key]} (same campaign, run, rater, competency)")
            seen[key] = lineno
            todo.append((cr.id, rater.id, comp, level.id, level.value, evidence))
        for args in todo:
            store.save_grade(s, *args)
        return len(todo)


def write_grades_csv(store: Store, name: str, path: Path) -> int:
    """The campaign's grades as CSV (the columns of `grades_frame`), every text field quoted by the csv
    module, so evidence with newlines, control characters or quotes reads back exactly."""
    df = grades_frame(store, name)
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\r\n")
        w.writerow(list(df.columns))
        for row in df.itertuples(index=False):
            w.writerow(["" if _missing(v) else v.isoformat() if hasattr(v, "isoformat") else v for v in row])
    return len(df)


def _missing(v: Any) -> bool:
    import pandas as pd

    return v is None or (not isinstance(v, str) and bool(pd.isna(v)))


def issue_keys(store: Store, raters: Sequence[str], reissue: bool = False) -> dict[str, str | None]:
    """A secret sign-in key per rater: new for raters without one (or for all with `reissue`, which
    voids the old keys and their sessions); None for a rater who keeps the key they have."""
    out: dict[str, str | None] = {}
    with store.session() as s:
        for name in raters:
            rater = store.rater(s, name)
            out[name] = store.issue_key(s, rater) if reissue or store.key_of(s, rater) is None else None
    return out


def campaigns_table(store: Store) -> list[tuple[str, int, int, int, str]]:
    """(name, runs, raters, grades, rubric) of every campaign."""
    with store.session() as s:
        out = []
        for camp in s.scalars(select(Campaign).order_by(Campaign.name)):
            out.append(
                (
                    camp.name,
                    len(camp.runs),
                    len(store.campaign_raters(s, camp)),
                    len(store.grades(s, camp)),
                    camp.rubric,
                )
            )
        return out


__all__ = [
    "CampaignError",
    "FoundRun",
    "assign_new_runs",
    "assignments",
    "balanced_assignment",
    "campaigns_table",
    "create_campaign",
    "find_runs",
    "grades_frame",
    "import_grades",
    "issue_keys",
    "write_grades_csv",
    "Grade",
]
