"""A campaign's agreement report (per competency, overall, human vs agent runs, deviation from the
modal grade) and the verifiers compared with the raters' consensus."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np

from simbridge._review.rubric import load_rubric
from simbridge._review.stats import GroupReport, Stat, agreement, deviation_counts, to_jsonable
from simbridge._review.store import Store

GROUPS = ("all", "human", "agent")


@dataclass
class RunGrades:
    blind_id: str
    bundle_path: str
    agent: str
    task_id: str
    human: bool
    verifier_score: float | None
    #: competency -> rater -> level value
    grades: dict[str, dict[str, int]]


def _load(store: Store, name: str) -> tuple[list[RunGrades], list[str], list[int], Any]:
    with store.session() as s:
        camp = store.campaign(s, name)
        rubric = load_rubric(camp.rubric)
        raters = [r.name for r in store.campaign_raters(s, camp)]
        runs: dict[int, RunGrades] = {}
        for cr in camp.runs:
            runs[cr.id] = RunGrades(
                cr.blind_id,
                cr.run.bundle_path,
                cr.run.agent or "?",
                cr.run.task_id,
                cr.run.is_human,
                cr.run.verifier_score,
                defaultdict(dict),
            )
        for g in store.grades(s, camp):
            runs[g.campaign_run_id].grades[g.competency][g.rater.name] = g.level_value
    domain = sorted(lv.value for lv in rubric.levels)
    return list(runs.values()), raters, domain, rubric


def _matrix(runs: list[RunGrades], raters: list[str], comps: list[str]) -> np.ndarray:
    """(run, competency) targets × raters, NaN where not graded; targets nobody graded are dropped."""
    rows = []
    for r in runs:
        for c in comps:
            g = r.grades.get(c, {})
            if g:
                rows.append([float(g[name]) if name in g else math.nan for name in raters])
    return np.array(rows, dtype=float).reshape(-1, len(raters))


def agreement_report(store: Store, name: str, n_perm: int = 1000, seed: int = 0) -> dict[str, Any]:
    runs, raters, domain, rubric = _load(store, name)
    comps = [c.id for c in rubric.competencies if any(c.id in r.grades for r in runs)]
    groups: dict[str, GroupReport] = {}
    for group in GROUPS:
        sel = [r for r in runs if group == "all" or r.human == (group == "human")]
        rep = GroupReport(n_runs=len(sel))
        for c in comps:
            rep.competencies[c] = agreement(_matrix(sel, raters, [c]), domain, n_perm, seed)
        rep.overall = agreement(_matrix(sel, raters, comps), domain, n_perm, seed)
        rep.deviation = deviation_counts(_matrix(sel, raters, comps), raters)
        groups[group] = rep
    return {
        "campaign": name,
        "rubric": rubric.name,
        "raters": raters,
        "permutations": n_perm,
        "seed": seed,
        "groups": to_jsonable(groups),
        "verdicts": verdicts(runs, rubric),
        "verifiers": verifiers_vs_raters(runs, domain),
    }


def verdicts(runs: list[RunGrades], rubric: Any) -> dict[str, dict[str, str]]:
    """Per candidate (the run's agent; `human` for all human runs) and competency, Satisfactory or
    Unsatisfactory by the rubric's rule over the modal grade of each of its runs, and `overall`."""
    from simbridge._review.stats import modal

    per: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for r in runs:
        for comp, by_rater in r.grades.items():
            if by_rater:
                level = rubric.level_by_value(int(modal(list(by_rater.values()))))
                per[r.agent][comp].append(level.id)
    out: dict[str, dict[str, str]] = {}
    for agent, comps in sorted(per.items()):
        out[agent] = {c: rubric.satisfactory_of(levels) for c, levels in comps.items()}
        out[agent]["overall"] = rubric.overall(comps)
    return out


def consensus(run: RunGrades) -> float | None:
    """The raters' consensus on a run: the median of every grade given to it (level value)."""
    vals = [v for per in run.grades.values() for v in per.values()]
    return float(np.median(vals)) if vals else None


def verifiers_vs_raters(runs: list[RunGrades], domain: list[int], top: int = 5) -> dict[str, Any]:
    """Per task: Spearman ρ of the verifier's score with the raters' consensus, and the runs where
    they disagree most (both on [0, 1]: the consensus level rescaled from the scale's ends)."""
    from scipy.stats import spearmanr

    lo, hi = domain[0], domain[-1]
    by_task: dict[str, list[tuple[RunGrades, float, float]]] = defaultdict(list)
    for r in runs:
        c = consensus(r)
        if c is not None and r.verifier_score is not None:
            by_task[r.task_id].append((r, r.verifier_score, (c - lo) / (hi - lo)))
    out: dict[str, Any] = {}
    for task, rows in sorted(by_task.items()):
        v = np.array([x[1] for x in rows])
        h = np.array([x[2] for x in rows])
        if len(rows) < 3:
            rho = Stat(None, undefined=f"{len(rows)} run(s) with both a verifier score and grades; needs 3")
        elif v.std() == 0 or h.std() == 0:
            which = "verifier score" if v.std() == 0 else "raters' consensus"
            rho = Stat(None, undefined=f"the {which} is the same for every run")
        else:
            res = spearmanr(v, h)
            rho = Stat(round(float(res.statistic), 6), round(float(res.pvalue), 6), n_runs=len(rows))
        worst = sorted(rows, key=lambda x: -abs(x[1] - x[2]))[:top]
        out[task] = {
            "spearman": to_jsonable(rho),
            "n_runs": len(rows),
            "disagreements": [
                {
                    "run": r.blind_id,
                    "bundle_path": r.bundle_path,
                    "verifier_score": vs,
                    "consensus_01": round(cs, 4),
                    "difference": round(vs - cs, 4),
                }
                for r, vs, cs in worst
            ],
        }
    return out
