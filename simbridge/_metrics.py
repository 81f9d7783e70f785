"""Metrics over repeated trials and many tasks (AeroCopilotBench-style safety-gated scoring).

- SR  (success rate, task-balanced): mean over tasks of the fraction of trials with `success`.
- SGO (safety-gated outcome): mean over tasks of the mean gated score (partial credit, 0 when a
  hard constraint was violated).
- SCR (safety compliance rate): mean over tasks of the fraction of trials with no violation.
- pass@k / pass^k (τ-bench): probability that at least one / all of k trials drawn without
  replacement from a task's n trials succeed, averaged over tasks.

Unscored episodes (harness faults, telemetry gaps) are excluded and counted, never treated as
failures. Confidence intervals are percentile bootstraps that resample trials within each task.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from math import comb
from pathlib import Path

import numpy as np


from simbridge._bundle import EpisodeInfo, read_json_model, walk_tree
from simbridge._errors import BundleError, SimbridgeError
from simbridge._score import Score
from simbridge._status import RUNNING


@dataclass(frozen=True)
class Interval:
    value: float
    lo: float
    hi: float

    def __str__(self) -> str:
        if math.isnan(self.value):
            return "n/a"
        return f"{self.value:.3f} [{self.lo:.3f}, {self.hi:.3f}]"


@dataclass
class Metrics:
    n_tasks: int
    n_scored: int
    n_unscored: int
    sr: Interval
    sgo: Interval
    scr: Interval
    pass_at_k: dict[int, float] = field(default_factory=dict)
    pass_hat_k: dict[int, float] = field(default_factory=dict)
    per_task: dict[str, dict[str, float]] = field(default_factory=dict)
    #: bootstrap intervals of pass@k / pass^k (same keys as pass_at_k)
    pass_at_k_ci: dict[int, Interval] = field(default_factory=dict)
    pass_hat_k_ci: dict[int, Interval] = field(default_factory=dict)
    #: k values that could not be computed and why, e.g. {5: "n/a (3 trials: T09)"}
    pass_na: dict[int, str] = field(default_factory=dict)
    #: per task, pass@k of that task (None when the task has fewer than k trials)
    per_task_pass: dict[str, dict[int, tuple[float | None, float | None]]] = field(default_factory=dict)

    def table(self) -> str:
        lines = [
            f"tasks {self.n_tasks}   scored episodes {self.n_scored}   unscored {self.n_unscored} (excluded)",
            f"SR  (task-balanced success)   {self.sr}",
            f"SGO (safety-gated outcome)    {self.sgo}",
            f"SCR (safety compliance)       {self.scr}",
        ]
        for k in sorted(set(self.pass_at_k) | set(self.pass_na)):
            if k in self.pass_at_k:
                lines.append(
                    f"pass@{k} {self.pass_at_k_ci.get(k, self.pass_at_k[k])}   "
                    f"pass^{k} {self.pass_hat_k_ci.get(k, self.pass_hat_k[k])}"
                )
            else:
                lines.append(f"pass@{k}: {self.pass_na[k]}   (pass^{k} likewise)")
        lines.append("")
        lines.append(f"{'task':<12}{'n':>4}{'success':>9}{'score':>8}{'safe':>7}")
        for tid, row in sorted(self.per_task.items()):
            lines.append(f"{tid:<12}{int(row['n']):>4}{row['sr']:>9.2f}{row['sgo']:>8.3f}{row['scr']:>7.2f}")
        return "\n".join(lines)


def pass_at_k(n: int, c: int, k: int) -> float:
    """P(at least one success among k of n trials, c successful), unbiased (Chen et al. 2021)."""
    if k > n:
        raise ValueError(f"k={k} > n={n} trials")
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """P(all k of k trials drawn from n succeed) (τ-bench pass^k)."""
    if k > n:
        raise ValueError(f"k={k} > n={n} trials")
    return comb(c, k) / comb(n, k)


def _bootstrap(
    groups: Sequence[np.ndarray],
    n_boot: int,
    rng: np.random.Generator,
    stat: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[float, float]:
    """Percentile CI of the task-balanced mean of a per-task statistic, resampling trials within
    each task. `stat` maps the (n_boot, n) resampled trials of one task to n_boot values (default:
    their mean)."""
    means = np.zeros(n_boot)
    for g in groups:  # one iteration per task, vectorised over bootstrap draws
        idx = rng.integers(0, g.size, size=(n_boot, g.size))
        draws = g[idx]
        means += draws.mean(axis=1) if stat is None else stat(draws)
    means /= len(groups)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def _pass_stat(fn: Callable[[int, int, int], float], n: int, k: int) -> Callable[[np.ndarray], np.ndarray]:
    """pass@k (or pass^k) of resampled 0/1 trials, by lookup over the number of successes."""
    table = np.array([fn(n, c, k) for c in range(n + 1)])
    return lambda draws: table[np.rint(draws.sum(axis=1)).astype(int)]


def compute(scores: Iterable[Score], ks: Sequence[int] = (1, 3, 5), *, n_boot: int = 2000, seed: int = 0) -> Metrics:
    """Metrics of one group of trials (one agent and run label). pass@k/pass^k are given for each
    k that every task has at least k trials for; other k are listed in `pass_na` with why."""
    by_task: dict[str, list[Score]] = defaultdict(list)
    unscored = 0
    for s in scores:
        if s.status != "scored":
            unscored += 1
            continue
        by_task[s.task_id].append(s)
    if not by_task:
        nan = Interval(float("nan"), float("nan"), float("nan"))
        return Metrics(0, 0, unscored, nan, nan, nan, pass_na={k: "n/a (no scored trials)" for k in ks})
    rng = np.random.default_rng(seed)
    succ = [np.array([bool(s.success) for s in v], float) for v in by_task.values()]
    gated = [np.array([s.score or 0.0 for s in v], float) for v in by_task.values()]
    safe = [np.array([s.safe for s in v], float) for v in by_task.values()]

    def interval(groups: list[np.ndarray]) -> Interval:
        lo, hi = _bootstrap(groups, n_boot, rng)
        return Interval(float(np.mean([g.mean() for g in groups])), lo, hi)

    per_task = {
        tid: {"n": len(v), "sr": float(a.mean()), "sgo": float(b.mean()), "scr": float(c.mean())}
        for (tid, v), a, b, c in zip(by_task.items(), succ, gated, safe)
    }
    pk: dict[int, float] = {}
    phk: dict[int, float] = {}
    pk_ci: dict[int, Interval] = {}
    phk_ci: dict[int, Interval] = {}
    na: dict[int, str] = {}
    per_task_pass: dict[str, dict[int, tuple[float | None, float | None]]] = {tid: {} for tid in by_task}
    for k in ks:
        short = sorted((len(v), tid) for tid, v in by_task.items() if len(v) < k)
        for tid, g in zip(by_task, succ):
            per_task_pass[tid][k] = (
                (pass_at_k(g.size, int(g.sum()), k), pass_hat_k(g.size, int(g.sum()), k))
                if g.size >= k
                else (None, None)
            )
        if short:
            shown = ", ".join(f"{tid} {n}" for n, tid in short[:5]) + (" …" if len(short) > 5 else "")
            na[k] = f"n/a ({short[0][0]} trial{'s' if short[0][0] != 1 else ''}; fewer than {k}: {shown})"
            continue
        for fn, point, ci in ((pass_at_k, pk, pk_ci), (pass_hat_k, phk, phk_ci)):
            vals = [fn(g.size, int(g.sum()), k) for g in succ]
            point[k] = float(np.mean(vals))

            def stat(draws: np.ndarray, fn: Callable[[int, int, int], float] = fn) -> np.ndarray:
                return _pass_stat(fn, draws.shape[1], k)(draws)

            lo, hi = _bootstrap(succ, n_boot, rng, stat=stat)
            ci[k] = Interval(point[k], lo, hi)
    return Metrics(
        len(by_task),
        sum(len(v) for v in by_task.values()),
        unscored,
        interval(succ),
        interval(gated),
        interval(safe),
        pk,
        phk,
        per_task,
        pk_ci,
        phk_ci,
        na,
        per_task_pass,
    )


# --------------------------------------------------------------------------- reading trials


def read_score_file(path: Path) -> Score:
    """One score.json, validated: BundleError naming the file (and field) when it is not a score."""
    score = read_json_model(path, Score, "a score file", kind="a score", top="?")
    for name in ("score", "raw_score"):
        v = getattr(score, name)
        if v is not None and not (math.isfinite(v) and 0.0 <= v <= 1.0):
            raise BundleError(f"{path}: field '{name}': {v!r} is not a score in [0, 1]")
    if score.status == "scored" and (score.score is None or score.success is None):
        missing = "score" if score.score is None else "success"
        raise BundleError(f"{path}: field '{missing}': null, but status is 'scored'")
    return score


def load_scores(paths: Iterable[Path]) -> list[Score]:
    """score.json files found under the given bundle or run directories, validated (as stored)."""
    out = []
    for p in paths:
        files = [p] if p.is_file() else sorted(q for q, _m in walk_tree(p, what="the folder") if q.name == "score.json")
        for f in files:
            out.append(read_score_file(f))
    return out


@dataclass
class Trial:
    """One episode as metrics count it: its score (re-derived unless trusted), who ran it, where from."""

    score: Score
    source: Path
    agent: str | None
    label: str
    reverified: bool = False
    #: its episode.json as read when it was counted (None for a lone score.json)
    episode: EpisodeInfo | None = None


@dataclass
class Loaded:
    trials: list[Trial]
    #: things a reader must be told: stale scores, duplicates, unverifiable score files
    notes: list[str] = field(default_factory=list)
    reverify_s: float = 0.0
    n_reverified: int = 0


def _episode(path: Path) -> EpisodeInfo:
    return read_json_model(path / "episode.json", EpisodeInfo, "episode.json")  # bounded in size and depth


def _fmt_score(s: Score) -> str:
    return f"{s.score:g}" if s.status == "scored" and s.score is not None else f"unscored ({s.reason[:60]})"


def _differs(a: Score, b: Score) -> bool:
    if a.status != b.status or a.success != b.success:
        return True
    return a.status == "scored" and abs((a.score or 0.0) - (b.score or 0.0)) > 1e-6


def load_trials(paths: Sequence[tuple[str, Path]], *, trust_scores: bool = False) -> Loaded:
    """Trials under (label, path) pairs, counted by the one rule of `simbridge._counting`: each
    episode once (real path, episode identity), only a bundle that can be verified, never a
    superseded eval attempt or a bundle outside its eval's plan. An episode without score.json
    or still `running` counts as unscored. Unless `trust_scores`, every stored score is
    re-derived from its bundle (manifest checked) and a stale one is replaced and reported; a
    lone score.json (no bundle) is then not counted."""
    from simbridge._verify import verify_path
    from simbridge._counting import find, identity_keys, plan_mismatch

    out = Loaded([])
    seen: dict[object, Path] = {}

    def first_time(keys: list, src: Path) -> bool:
        for key in keys:
            if key in seen:
                if seen[key] != src:
                    out.notes.append(f"skipped {src}: the same episode as {seen[key]} (counted once)")
                return False
        for key in keys:
            seen[key] = src
        return True

    for label, root in paths:
        found = find(root)
        out.notes += found.notes
        for d in found.episodes:
            real = d.resolve()
            ep = _episode(d)
            spec = found.planned.get(d)
            if spec is not None and (why := plan_mismatch(ep, spec)) is not None:
                out.notes.append(f"not counted: {d}: {why}")
                continue
            if not first_time([("path", real), *identity_keys(d, ep)], d):
                continue
            sfile = d / "score.json"
            if ep.status == RUNNING:
                score = Score.unscored(ep.task_id, "", "episode did not finish (status 'running')")
            elif not sfile.exists():
                score = Score.unscored(ep.task_id, "", "no score.json: the episode was not verified")
            else:
                score = read_score_file(sfile)
                if score.task_id != ep.task_id:
                    # the task id comes from episode.json (hash-covered by the manifest), never
                    # from score.json (derived, not hashed)
                    out.notes.append(
                        f"score.json in {d} names task {score.task_id!r}, episode.json {ep.task_id!r}: "
                        f"counted as {ep.task_id!r}" + ("" if trust_scores else ", re-scored as that task")
                    )
                    score = score.model_copy(update={"task_id": ep.task_id})
                if not trust_scores:
                    t0 = time.perf_counter()
                    try:
                        fresh = verify_path(d)
                    except SimbridgeError as exc:
                        raise type(exc)(
                            f"{exc} (while re-verifying the stored score; --trust-scores uses score.json as is)"
                        ) from None
                    out.reverify_s += time.perf_counter() - t0
                    out.n_reverified += 1
                    if _differs(score, fresh):
                        out.notes.append(
                            f"stale score.json in {d}: stored {_fmt_score(score)}, "
                            f"bundle gives {_fmt_score(fresh)} (using the bundle's)"
                        )
                    score = fresh
            out.trials.append(
                Trial(score, d, ep.agent, label, reverified=not trust_scores and sfile.exists(), episode=ep)
            )
        n_bare = 0
        for f in found.bare:
            score = read_score_file(f)  # a malformed one is an error whatever the flags
            if not trust_scores:
                n_bare += 1
                continue
            if first_time([("path", f.resolve())], f):
                out.trials.append(Trial(score, f, None, label))
        if n_bare:
            out.notes.append(
                f"not counted: {n_bare} score.json file(s) under {root} with no bundle beside them "
                "(nothing to re-derive them from; --trust-scores uses them as stored)"
            )
    return out


def trial_assists(t: Trial) -> tuple[str, ...]:
    """The assists the trial's simulator showed (episode.json `assists`; for a lone score.json,
    its `assist:NAME` flags)."""
    if t.episode is not None:
        return tuple(sorted(t.episode.assists))
    return tuple(sorted(f.removeprefix("assist:") for f in t.score.flags if f.startswith("assist:")))


def with_assists(name: str | None, t: Trial) -> str | None:
    """An arm's name with the trial's assists (`reference [assist:readout]`): an assisted arm
    is never the unassisted arm of the same agent or run, so the two are never pooled."""
    assists = trial_assists(t)
    return f"{name or '(not recorded)'} [assist:{','.join(assists)}]" if assists else name


def compute_groups(
    trials: Iterable[Trial], ks: Sequence[int] = (1, 3, 5), *, n_boot: int = 2000, seed: int = 0
) -> dict[tuple[str | None, str], Metrics]:
    """Metrics per (agent, label): different agents or runs, or one with an assist and one
    without (`with_assists`), are never pooled into one cell."""
    groups: dict[tuple[str | None, str], list[Score]] = defaultdict(list)
    for t in trials:
        groups[(with_assists(t.agent, t), t.label)].append(t.score)
    return {
        key: compute(scores, ks, n_boot=n_boot, seed=seed)
        for key, scores in sorted(groups.items(), key=lambda kv: (kv[0][0] or "", kv[0][1]))
    }


def _num(v: float | None) -> float | None:
    return None if v is None or not math.isfinite(v) else float(v)


def records(groups: dict[tuple[str | None, str], Metrics]) -> list[dict[str, object]]:
    """Flat records, one per (agent, label, task or overall, metric, k): every column has one
    type (str/None, int/None or float/None), so the list loads as a Parquet/Arrow table."""
    rows: list[dict[str, object]] = []

    def row(agent, label, m: Metrics, metric, *, task=None, k=None, value=None, lo=None, hi=None, n=None, note=None):
        rows.append(
            {
                "agent": agent,
                "label": label,
                "task_id": task,
                "metric": metric,
                "k": k,
                "value": _num(value),
                "lo": _num(lo),
                "hi": _num(hi),
                "n_trials": int(m.n_scored if n is None else n),
                "n_tasks": int(m.n_tasks),
                "n_unscored": int(m.n_unscored),
                "note": note,
            }
        )

    for (agent, label), m in groups.items():
        for name in ("sr", "sgo", "scr"):
            iv: Interval = getattr(m, name)
            row(agent, label, m, name, value=iv.value, lo=iv.lo, hi=iv.hi)
        for k in sorted(set(m.pass_at_k) | set(m.pass_na)):
            for metric, ci in (("pass_at_k", m.pass_at_k_ci), ("pass_hat_k", m.pass_hat_k_ci)):
                if k in ci:
                    row(agent, label, m, metric, k=int(k), value=ci[k].value, lo=ci[k].lo, hi=ci[k].hi)
                else:
                    row(agent, label, m, metric, k=int(k), note=m.pass_na.get(k))
        for tid, r in sorted(m.per_task.items()):
            for name in ("sr", "sgo", "scr"):
                row(agent, label, m, name, task=tid, value=r[name], n=int(r["n"]))
            for k, (pa, ph) in sorted(m.per_task_pass.get(tid, {}).items()):
                note = None if pa is not None else f"n/a ({int(r['n'])} trials)"
                row(agent, label, m, "pass_at_k", task=tid, k=int(k), value=pa, n=int(r["n"]), note=note)
                row(agent, label, m, "pass_hat_k", task=tid, k=int(k), value=ph, n=int(r["n"]), note=note)
    return rows
