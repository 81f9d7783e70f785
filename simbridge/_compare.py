"""Two or more agents (or runs, or labels) side by side: `simbridge compare`.

Trials come from `_metrics.load_trials`, so every score is the verified re-scoring `simbridge
metrics` uses (manifest checked, verifier re-run; score.json is never trusted). Per arm (an agent,
or a run label; episodes with an assist, `--assist readout`, are an arm of their own, `reference
[assist:readout]`, never pooled with the unassisted ones) and task: trials, success rate, mean
score, per scored item the mean earned fraction and how often it was failed, and the cost per
episode (wall seconds, CPU seconds, agent actions, model tokens and cost when the agent reports
them in episode.json).

Paired differences: every arm against the first (the reference). Two trials pair when they are
of the same task and the same trial index (episode.json `trial`), else the same `seed`; trials
with neither, or unscored on either side, do not pair; nor do trials whose index (or seed) two
trials of one side share (one trial is never in two pairs; a note names the task and index). Per task, per item and over all tasks: the
mean difference (arm − reference) with a 95 % bootstrap interval (scipy.stats.bootstrap,
percentile, resampling pairs) and a Wilcoxon signed-rank test (scipy.stats.wilcoxon, two-sided;
p = 1 when every difference is zero). Per-task difficulty measured from the results (1 − the
success rate over every arm's scored trials) beside the catalog's `difficulty` label (1–5).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simbridge._bundle import EpisodeInfo
from simbridge._metrics import Loaded, Trial, with_assists

#: fewer pairs than this: no interval and no test (n/a), the difference alone is shown
MIN_PAIRS = 2


@dataclass
class _Row:
    trial: Trial
    ep: EpisodeInfo


def _arm_of(t: Trial, by: str) -> str:
    """The trial's arm: its label or agent, with its assists (an assisted arm is its own arm)."""
    if by == "label":
        return with_assists(t.label, t) or t.label
    return with_assists(t.agent, t) or f"(no agent) {t.label}"


def _cost(ep: EpisodeInfo) -> dict[str, float | None]:
    """Cost of one episode from episode.json; None for what it does not record."""
    wall = ep.wall_run_s
    if wall is None and ep.wall_start is not None and ep.wall_end is not None:
        wall = ep.wall_end - ep.wall_start
    cpu = None
    if ep.cpu_s:
        vals = [v for v in ep.cpu_s.values() if v is not None]
        cpu = float(sum(vals)) if vals else None
    actions = float(sum(ep.agent_actions.values())) if ep.agent_actions else None
    usage = ep.extra.get("agent_usage") or ep.extra.get("usage") or {}
    usage = usage if isinstance(usage, dict) else {}

    def num(*keys: str) -> float | None:
        for k in keys:
            v = usage.get(k, ep.extra.get(k))
            if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
                return float(v)
        return None

    tokens = num("total_tokens", "tokens")
    if tokens is None:
        i, o = num("input_tokens"), num("output_tokens")
        tokens = None if i is None and o is None else (i or 0.0) + (o or 0.0)
    return {"wall_s": wall, "cpu_s": cpu, "actions": actions, "tokens": tokens, "cost_usd": num("cost_usd", "cost")}


def _mean_or_none(xs: list[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return float(np.mean(vals)) if vals else None


def paired_stats(diffs: list[float], *, n_boot: int = 2000, seed: int = 0) -> dict[str, Any]:
    """Mean of paired differences, its 95 % bootstrap interval and a Wilcoxon signed-rank p."""
    from scipy import stats

    n = len(diffs)
    out: dict[str, Any] = {"n_pairs": n, "mean_diff": float(np.mean(diffs)) if n else None}
    out.update(lo=None, hi=None, p_value=None, test="wilcoxon")
    if n < MIN_PAIRS:
        return out
    d = np.asarray(diffs, dtype=float)
    if np.all(d == d[0]):
        out.update(lo=float(d[0]), hi=float(d[0]))  # every resample has the same mean
    else:
        res = stats.bootstrap(
            (d,), np.mean, n_resamples=n_boot, confidence_level=0.95, method="percentile", random_state=seed
        )
        out.update(lo=float(res.confidence_interval.low), hi=float(res.confidence_interval.high))
    if np.all(d == 0):
        out["p_value"] = 1.0
    else:
        out["p_value"] = float(stats.wilcoxon(d, zero_method="zsplit").pvalue)
    return out


def _pair_key(ep: EpisodeInfo) -> tuple[str, object] | None:
    if ep.trial is not None:
        return ("trial", ep.trial)
    if ep.seed is not None:
        return ("seed", ep.seed)
    return None


def pair_trials(ref: list[_Row], arm: list[_Row]) -> tuple[list[tuple[_Row, _Row]], list[tuple[Any, int, int]]]:
    """Pairs of one reference and one arm trial of a task with the same trial index (else seed).
    A key that two trials of either side share pairs nothing: which of them would be the pair
    is not known, and reusing one trial in two pairs would count it twice. Returns the pairs
    and the ambiguous keys with how many trials of each side have them."""
    by_ref: dict[Any, list[_Row]] = defaultdict(list)
    by_arm: dict[Any, list[_Row]] = defaultdict(list)
    for rs, into in ((ref, by_ref), (arm, by_arm)):
        for r in rs:
            if (k := _pair_key(r.ep)) is not None:
                into[k].append(r)
    pairs: list[tuple[_Row, _Row]] = []
    ambiguous: list[tuple[Any, int, int]] = []
    for k in sorted(by_ref.keys() & by_arm.keys(), key=repr):
        x, y = by_ref[k], by_arm[k]
        if len(x) == 1 and len(y) == 1:
            pairs.append((x[0], y[0]))
        else:
            ambiguous.append((k, len(x), len(y)))
    return pairs, ambiguous


def compare(loaded: Loaded, *, by: str = "auto", n_boot: int = 2000, seed: int = 0) -> dict[str, Any]:
    """The comparison as plain data (what --json prints; the table and the page render it)."""
    from simbridge._task import load_task

    labels = {t.label for t in loaded.trials}
    if by == "auto":
        by = "label" if len(labels) > 1 else "agent"
    rows: dict[str, dict[str, list[_Row]]] = defaultdict(lambda: defaultdict(list))
    for t in loaded.trials:
        ep = t.episode or EpisodeInfo(task_id=t.score.task_id)
        rows[_arm_of(t, by)][t.score.task_id].append(_Row(t, ep))
    arms = list(rows)
    tasks = sorted({task for a in arms for task in rows[a]})

    def item_earned(r: _Row) -> dict[str, float]:
        return {c.name: c.earned for c in r.trial.score.components}

    per_arm: dict[str, Any] = {}
    for a in arms:
        tasks_out: dict[str, Any] = {}
        for task in tasks:
            rs = rows[a].get(task, [])
            scored = [r for r in rs if r.trial.score.status == "scored"]
            items: dict[str, list[float]] = defaultdict(list)
            for r in scored:
                for name, e in item_earned(r).items():
                    items[name].append(e)
            costs = [_cost(r.ep) for r in rs]
            tasks_out[task] = {
                "n_trials": len(rs),
                "n_scored": len(scored),
                "n_unscored": len(rs) - len(scored),
                "success_rate": float(np.mean([bool(r.trial.score.success) for r in scored])) if scored else None,
                "mean_score": float(np.mean([r.trial.score.score or 0.0 for r in scored])) if scored else None,
                "items": {
                    n: {"mean_earned": float(np.mean(v)), "fail_rate": float(np.mean([e < 1.0 - 1e-9 for e in v]))}
                    for n, v in items.items()
                },
                "cost": {
                    k: _mean_or_none([c[k] for c in costs])
                    for k in ("wall_s", "cpu_s", "actions", "tokens", "cost_usd")
                },
            }
        fails = [
            {"task_id": task, "item": n, "fail_rate": v["fail_rate"], "n": tasks_out[task]["n_scored"]}
            for task in tasks
            for n, v in tasks_out[task]["items"].items()
            if v["fail_rate"] > 0
        ]
        fails.sort(key=lambda f: (-f["fail_rate"], f["task_id"], f["item"]))
        per_arm[a] = {"tasks": tasks_out, "fails_most": fails[:5]}

    ref = arms[0] if arms else None
    pairs_out: list[dict[str, Any]] = []
    notes = list(loaded.notes)
    for a in arms[1:]:
        all_diffs: list[float] = []
        per_task: dict[str, Any] = {}
        for task in tasks:
            pairs, ambiguous = pair_trials(rows[ref].get(task, []), rows[a].get(task, []))  # type: ignore[index]
            for (kind, value), n_ref, n_arm in ambiguous:
                notes.append(
                    f"not paired: {task} {kind} {value}: {n_ref} trial(s) of {ref} and {n_arm} of {a} share it "
                    "(a pair is one trial on each side)"
                )
            both = [(x, y) for x, y in pairs if x.trial.score.status == y.trial.score.status == "scored"]
            diffs = [(y.trial.score.score or 0.0) - (x.trial.score.score or 0.0) for x, y in both]
            all_diffs += diffs
            item_diffs: dict[str, list[float]] = defaultdict(list)
            for x, y in both:
                ex, ey = item_earned(x), item_earned(y)
                for n in ex.keys() & ey.keys():
                    item_diffs[n].append(ey[n] - ex[n])
            per_task[task] = {
                "score": paired_stats(diffs, n_boot=n_boot, seed=seed),
                "unpaired": len(rows[a].get(task, [])) - len(pairs),
                "items": {n: paired_stats(v, n_boot=n_boot, seed=seed) for n, v in sorted(item_diffs.items())},
            }
        pairs_out.append(
            {
                "reference": ref,
                "arm": a,
                "overall": paired_stats(all_diffs, n_boot=n_boot, seed=seed),
                "tasks": per_task,
            }
        )

    difficulty: dict[str, Any] = {}
    for task in tasks:
        scored = [r for a in arms for r in rows[a].get(task, []) if r.trial.score.status == "scored"]
        try:
            label: int | None = load_task(task).difficulty
        except Exception:  # a task id not in this catalog: no label, the measurement stands
            label = None
        difficulty[task] = {
            "catalog": label,
            "measured": 1.0 - float(np.mean([bool(r.trial.score.success) for r in scored])) if scored else None,
            "n_scored": len(scored),
        }
    return {
        "by": by,
        "arms": arms,
        "reference": ref,
        "tasks": tasks,
        "per_arm": per_arm,
        "paired": pairs_out,
        "difficulty": difficulty,
        "notes": notes,
        "n_reverified": loaded.n_reverified,
    }


def _f(v: float | None, fmt: str = ".3f") -> str:
    return "—" if v is None else format(v, fmt)


def interval_text(s: dict[str, Any]) -> str:
    """'+0.150 [+0.050, +0.250] p=0.031 (n=8)' for one paired statistic."""
    if s["mean_diff"] is None:
        return "no pairs"
    ci = f" [{s['lo']:+.3f}, {s['hi']:+.3f}]" if s["lo"] is not None else ""
    p = f" p={s['p_value']:.3g}" if s["p_value"] is not None else ""
    return f"{s['mean_diff']:+.3f}{ci}{p} (n={s['n_pairs']})"


def render_terminal(data: dict[str, Any], console: Any | None = None) -> None:
    """The comparison as rich tables on the terminal."""
    from rich.console import Console
    from rich.table import Table

    con = console or Console()
    arms = data["arms"]
    t = Table(title=f"per task ({data['by']}s side by side; success rate / mean score)")
    t.add_column("task")
    t.add_column("difficulty (measured / catalog)")
    for a in arms:
        t.add_column(a)
    for p in data["paired"]:
        t.add_column(f"{p['arm']} − {p['reference']} (score, 95% CI, Wilcoxon p)")
    for task in data["tasks"]:
        d = data["difficulty"][task]
        cells = [task, f"{_f(d['measured'], '.2f')} / {d['catalog'] if d['catalog'] is not None else '—'}"]
        for a in arms:
            x = data["per_arm"][a]["tasks"][task]
            cells.append(f"{_f(x['success_rate'], '.2f')} / {_f(x['mean_score'])} (n={x['n_scored']})")
        for p in data["paired"]:
            cells.append(interval_text(p["tasks"][task]["score"]))
        t.add_row(*cells)
    con.print(t)
    for p in data["paired"]:
        con.print(f"overall {p['arm']} − {p['reference']}: {interval_text(p['overall'])}")
        it = Table(title=f"per item: {p['arm']} − {p['reference']} (earned fraction)")
        for col in ("task", "item", "difference"):
            it.add_column(col)
        for task, v in p["tasks"].items():
            for name, s in v["items"].items():
                it.add_row(task, name, interval_text(s))
        con.print(it)
    ft = Table(title="items each fails most (fail rate over scored trials)")
    ft.add_column("arm")
    ft.add_column("items")
    for a in arms:
        fails = data["per_arm"][a]["fails_most"]
        ft.add_row(a, ", ".join(f"{f['task_id']}/{f['item']} {f['fail_rate']:.0%}" for f in fails) or "none")
    con.print(ft)
    ct = Table(title="cost per episode (mean)")
    for col in ("arm", "task", "wall s", "CPU s", "actions", "tokens", "cost $"):
        ct.add_column(col)
    for a in arms:
        for task in data["tasks"]:
            c = data["per_arm"][a]["tasks"][task]["cost"]
            ct.add_row(
                a,
                task,
                _f(c["wall_s"], ".1f"),
                _f(c["cpu_s"], ".1f"),
                _f(c["actions"], ".0f"),
                _f(c["tokens"], ".0f"),
                _f(c["cost_usd"], ".4f"),
            )
    con.print(ct)


def load(paths: list[tuple[str, Path]]) -> Loaded:
    """Trials under (label, path) pairs, every score re-derived from its verified bundle."""
    from simbridge._metrics import load_trials

    return load_trials(paths, trust_scores=False)
