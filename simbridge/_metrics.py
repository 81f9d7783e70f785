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

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from math import comb
from pathlib import Path

import numpy as np

from simbridge._score import Score


@dataclass(frozen=True)
class Interval:
    value: float
    lo: float
    hi: float

    def __str__(self) -> str:
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

    def table(self) -> str:
        lines = [f"tasks {self.n_tasks}   scored episodes {self.n_scored}   unscored {self.n_unscored} (excluded)",
                 f"SR  (task-balanced success)   {self.sr}",
                 f"SGO (safety-gated outcome)    {self.sgo}",
                 f"SCR (safety compliance)       {self.scr}"]
        for k in sorted(self.pass_at_k):
            lines.append(f"pass@{k} {self.pass_at_k[k]:.3f}   pass^{k} {self.pass_hat_k[k]:.3f}")
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


def _bootstrap(groups: Sequence[np.ndarray], n_boot: int, rng: np.random.Generator) -> tuple[float, float]:
    """Percentile CI of the task-balanced mean, resampling trials within each task."""
    means = np.zeros(n_boot)
    for g in groups:  # one iteration per task, vectorised over bootstrap draws
        idx = rng.integers(0, g.size, size=(n_boot, g.size))
        means += g[idx].mean(axis=1)
    means /= len(groups)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def compute(scores: Iterable[Score], ks: Sequence[int] = (1, 3, 5), *, n_boot: int = 2000, seed: int = 0) -> Metrics:
    by_task: dict[str, list[Score]] = defaultdict(list)
    unscored = 0
    for s in scores:
        if s.status != "scored":
            unscored += 1
            continue
        by_task[s.task_id].append(s)
    if not by_task:
        nan = Interval(float("nan"), float("nan"), float("nan"))
        return Metrics(0, 0, unscored, nan, nan, nan)
    rng = np.random.default_rng(seed)
    succ = [np.array([bool(s.success) for s in v], float) for v in by_task.values()]
    gated = [np.array([s.score or 0.0 for s in v], float) for v in by_task.values()]
    safe = [np.array([s.safe for s in v], float) for v in by_task.values()]

    def interval(groups: list[np.ndarray]) -> Interval:
        lo, hi = _bootstrap(groups, n_boot, rng)
        return Interval(float(np.mean([g.mean() for g in groups])), lo, hi)

    per_task = {tid: {"n": len(v), "sr": float(a.mean()), "sgo": float(b.mean()), "scr": float(c.mean())}
                for (tid, v), a, b, c in zip(by_task.items(), succ, gated, safe)}
    n_min = min(len(v) for v in by_task.values())
    pk, phk = {}, {}
    for k in ks:
        if k <= n_min:
            pk[k] = float(np.mean([pass_at_k(g.size, int(g.sum()), k) for g in succ]))
            phk[k] = float(np.mean([pass_hat_k(g.size, int(g.sum()), k) for g in succ]))
    return Metrics(len(by_task), sum(len(v) for v in by_task.values()), unscored,
                   interval(succ), interval(gated), interval(safe), pk, phk, per_task)


def load_scores(paths: Iterable[Path]) -> list[Score]:
    """score.json files found under the given bundle or run directories."""
    out = []
    for p in paths:
        files = [p] if p.is_file() else sorted(p.rglob("score.json"))
        for f in files:
            out.append(Score.model_validate(json.loads(f.read_text())))
    return out
