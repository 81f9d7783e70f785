"""Inter-rater agreement on an ordinal scale, as in the seed paper: ICC (one-way, two-way consistency,
two-way absolute agreement; single and average raters), mean pairwise Spearman ρ, Kendall's W
(tie-corrected), Krippendorff's α (ordinal), each with a seeded permutation test.

Data is a runs × raters matrix of level values (NaN: not rated). ICC and Kendall's W need every rater
on every run (a fully crossed design, `--per-run` = number of raters, as in the seed), so they use the
runs rated by all raters; Spearman uses each pair's common runs and Krippendorff's α takes missing
ratings as they are. A statistic that cannot be computed is `undefined` with the reason, never NaN.

The permutation test shuffles each rater's scores across runs (destroying agreement, keeping each
rater's distribution) N times: p = (1 + #{permuted ≥ observed}) / (1 + N valid permutations)."""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from scipy.stats import rankdata

#: McGraw & Wong's names (pingouin >= 0.6); Shrout & Fleiss call them ICC1, ICC2, ICC3, ICC1k, ICC2k, ICC3k
ICC_NAMES = ("ICC(1,1)", "ICC(1,k)", "ICC(A,1)", "ICC(A,k)", "ICC(C,1)", "ICC(C,k)")
_SHROUT_FLEISS = dict(zip(("ICC1", "ICC1k", "ICC2", "ICC2k", "ICC3", "ICC3k"), ICC_NAMES))
STAT_NAMES = (*ICC_NAMES, "spearman_mean", "kendall_w", "krippendorff_alpha")


@dataclass
class Stat:
    """One agreement statistic: a value and its permutation p-value, or why it is undefined."""

    value: float | None
    p_value: float | None = None
    undefined: str | None = None
    n_runs: int = 0
    n_raters: int = 0
    permutations: int = 0

    def text(self) -> str:
        if self.value is None:
            return f"undefined ({self.undefined})"
        p = f"  p={self.p_value:.4f}" if self.p_value is not None else ""
        return f"{self.value:.3f}{p}"


class Undefined(Exception):
    """Why a statistic has no value for this data."""


# --------------------------------------------------------------------------- the statistics


def _complete(x: np.ndarray) -> np.ndarray:
    """Runs rated by every rater (ICC and W need a fully crossed design)."""
    return x[~np.isnan(x).any(axis=1)]


def _check_crossed(x: np.ndarray) -> np.ndarray:
    if x.shape[1] < 2:
        raise Undefined(f"{x.shape[1]} rater: agreement needs at least 2")
    c = _complete(x)
    if c.shape[0] < 2:
        raise Undefined(
            f"{c.shape[0]} run(s) rated by all {x.shape[1]} raters: needs at least 2 "
            "(ICC and Kendall's W need every rater on every run)"
        )
    if np.all(c == c.flat[0]):
        raise Undefined(f"constant grades: every grade is {c.flat[0]:g}, no variance to agree on")
    return c


def icc_batch(x: np.ndarray) -> dict[str, np.ndarray]:
    """The six Shrout & Fleiss ICCs of complete matrices x (..., n runs, k raters), from the ANOVA
    mean squares; NaN where a denominator is zero. Vectorised so that permutations are cheap."""
    n, k = x.shape[-2], x.shape[-1]
    gm = x.mean(axis=(-2, -1), keepdims=True)
    rows = x.mean(axis=-1, keepdims=True)
    cols = x.mean(axis=-2, keepdims=True)
    sst = ((x - gm) ** 2).sum(axis=(-2, -1))
    ssr = k * ((rows - gm) ** 2).sum(axis=(-2, -1))
    ssc = n * ((cols - gm) ** 2).sum(axis=(-2, -1))
    msr = ssr / (n - 1)
    msc = ssc / (k - 1)
    mse = (sst - ssr - ssc) / ((n - 1) * (k - 1))
    msw = (sst - ssr) / (n * (k - 1))
    tiny = 1e-9 * np.maximum(sst, 1e-300)  # below this a denominator is rounding noise: zero

    def div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(np.abs(b) > tiny, a / np.where(b == 0, 1, b), np.nan)

    return {
        "ICC(1,1)": div(msr - msw, msr + (k - 1) * msw),
        "ICC(1,k)": div(msr - msw, msr),
        "ICC(A,1)": div(msr - mse, msr + (k - 1) * mse + k * (msc - mse) / n),
        "ICC(A,k)": div(msr - mse, msr + (msc - mse) / n),
        "ICC(C,1)": div(msr - mse, msr + (k - 1) * mse),
        "ICC(C,k)": div(msr - mse, msr),
    }


def icc_pingouin(x: np.ndarray) -> dict[str, float]:
    """The same six ICCs by pingouin (the observed values the report shows)."""
    import pandas as pd  # type: ignore[import-untyped]
    import pingouin as pg  # type: ignore[import-untyped,unused-ignore]

    c = _check_crossed(x)
    n, k = c.shape
    if c.size < 5:  # pingouin asserts on fewer than 5 values (2 runs x 2 raters): the same ANOVA formulas
        return {name: float(v) for name, v in icc_batch(c).items()}
    df = pd.DataFrame({"run": np.repeat(np.arange(n), k), "rater": np.tile(np.arange(k), n), "v": c.ravel()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = pg.intraclass_corr(df, targets="run", raters="rater", ratings="v")
    by_type = {_SHROUT_FLEISS.get(t, t): v for t, v in zip(res["Type"], res["ICC"])}
    return {name: float(by_type[name]) for name in ICC_NAMES}


def kendall_w_batch(x: np.ndarray, ties: float | None = None) -> np.ndarray:
    """Kendall's W with the tie correction, of complete matrices x (..., n runs, m raters). `ties`
    (Σ over raters and tie groups of t³ − t) is the same for every permutation of x, so callers pass it."""
    n, m = x.shape[-2], x.shape[-1]
    r = rankdata(x, axis=-2)
    rs = r.sum(axis=-1)
    s = ((rs - rs.mean(axis=-1, keepdims=True)) ** 2).sum(axis=-1)
    if ties is None:
        ties = sum(_tie_term(col) for col in x.reshape(-1, n, m)[0].T)
    denom = m**2 * (n**3 - n) - m * ties
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denom > 0, 12 * s / denom, np.nan)


def _tie_term(sorted_row: np.ndarray) -> float:
    _, counts = np.unique(sorted_row, return_counts=True)
    return float((counts**3 - counts).sum())


def spearman_mean(x: np.ndarray) -> float:
    """Mean Spearman ρ over rater pairs, each on the runs both rated (≥ 3); NaN when no pair has one.
    A pair with a constant rater (no ranking) is left out."""
    k = x.shape[1]
    vals = []
    for i in range(k):
        for j in range(i + 1, k):
            both = ~np.isnan(x[:, i]) & ~np.isnan(x[:, j])
            if both.sum() < 3:
                continue
            a, b = rankdata(x[both, i]), rankdata(x[both, j])
            if a.std() == 0 or b.std() == 0:
                continue
            vals.append(float(np.corrcoef(a, b)[0, 1]))
    return float(np.mean(vals)) if vals else math.nan


def spearman_mean_batch(x: np.ndarray) -> np.ndarray:
    """spearman_mean of many complete matrices (P, n, k) at once."""
    r = rankdata(x, axis=-2)
    r = r - r.mean(axis=-2, keepdims=True)
    sd = np.sqrt((r**2).sum(axis=-2))
    with np.errstate(divide="ignore", invalid="ignore"):
        corr = np.einsum("pni,pnj->pij", r, r) / (sd[:, :, None] * sd[:, None, :])
    iu = np.triu_indices(x.shape[-1], 1)
    pairs = corr[:, iu[0], iu[1]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.nanmean(pairs, axis=-1)


def _spearman_reason(x: np.ndarray) -> str:
    if x.shape[1] < 2:
        return f"{x.shape[1]} rater: agreement needs at least 2"
    vals = x[~np.isnan(x)]
    if vals.size and np.all(vals == vals[0]):
        return f"constant grades: every grade is {vals[0]:g}, no variance to agree on"
    return "no pair of raters has 3 common runs with varying grades (a constant rater has no ranking)"


def krippendorff_alpha(x: np.ndarray, domain: Sequence[int]) -> float:
    import krippendorff

    if x.shape[1] < 2 or (np.sum(~np.isnan(x), axis=1) >= 2).sum() < 1:
        return math.nan
    vals = x[~np.isnan(x)]
    if vals.size == 0 or np.all(vals == vals[0]):
        return math.nan
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore")
        return float(
            krippendorff.alpha(reliability_data=x.T, level_of_measurement="ordinal", value_domain=list(domain))
        )


def _alpha_reason(x: np.ndarray) -> str:
    if x.shape[1] < 2:
        return f"{x.shape[1]} rater: agreement needs at least 2"
    vals = x[~np.isnan(x)]
    if vals.size and np.all(vals == vals[0]):
        return f"constant grades: every grade is {vals[0]:g}, no variance to agree on"
    return "no run has two ratings"


# --------------------------------------------------------------------------- permutations


def permute_within_raters(x: np.ndarray, n_perm: int, rng: np.random.Generator) -> np.ndarray:
    """(n_perm, runs, raters): each rater's observed scores shuffled across the runs that rater rated."""
    out = np.repeat(x[None, :, :], n_perm, axis=0)
    for j in range(x.shape[1]):
        rows = np.flatnonzero(~np.isnan(x[:, j]))
        if rows.size < 2:
            continue
        keys = rng.random((n_perm, rows.size))
        order = np.argsort(keys, axis=1)
        out[:, rows, j] = x[rows, j][order]
    return out


def _p_value(observed: float, permuted: np.ndarray) -> tuple[float | None, int]:
    ok = permuted[np.isfinite(permuted)]
    if ok.size == 0:
        return None, 0
    return float((1 + np.sum(ok >= observed - 1e-12)) / (1 + ok.size)), int(ok.size)


def agreement(x: np.ndarray, domain: Sequence[int], n_perm: int = 1000, seed: int = 0) -> dict[str, Stat]:
    """All statistics of one runs × raters matrix, each with its permutation p-value."""
    x = np.asarray(x, dtype=float)
    rng = np.random.default_rng(seed)
    perms = permute_within_raters(x, n_perm, rng) if n_perm > 0 else np.empty((0, *x.shape))
    n_rated = int((np.sum(~np.isnan(x), axis=1) >= 1).sum())
    out: dict[str, Stat] = {}

    def put(name: str, value: float, permuted: Callable[[], np.ndarray], reason: str, n_runs: int) -> None:
        if not math.isfinite(value):
            out[name] = Stat(None, None, reason, n_runs, x.shape[1])
            return
        p, n_ok = _p_value(value, permuted()) if n_perm > 0 else (None, 0)
        out[name] = Stat(round(value, 6), p, None, n_runs, x.shape[1], n_ok)

    try:
        c = _check_crossed(x)
        obs = icc_pingouin(x)
        fast = icc_batch(c)
        obs = {k: (v if math.isfinite(float(fast[k])) else math.nan) for k, v in obs.items()}
        mask = ~np.isnan(x).any(axis=1)
        pc = perms[:, mask, :]
        batch = icc_batch(pc) if n_perm > 0 else {}
        for name in ICC_NAMES:
            put(
                name,
                obs[name],
                functools.partial(batch.__getitem__, name),
                "a zero denominator (no variance between runs)",
                c.shape[0],
            )
        ties = sum(_tie_term(col) for col in c.T)
        w = float(kendall_w_batch(c, ties))
        put("kendall_w", w, lambda: kendall_w_batch(pc, ties), "every rater gives one grade to all runs", c.shape[0])
    except Undefined as exc:
        for name in (*ICC_NAMES, "kendall_w"):
            out[name] = Stat(None, None, str(exc), int(_complete(x).shape[0]), x.shape[1])
        if x.shape[1] >= 2 and np.isnan(x).any():
            _one_way_incomplete(x, perms, put)
    rho = spearman_mean(x) if x.shape[1] >= 2 else math.nan
    if not np.isnan(x).any():

        def rho_perm() -> np.ndarray:
            return spearman_mean_batch(perms)
    else:

        def rho_perm() -> np.ndarray:
            return np.array([spearman_mean(p) for p in perms])

    put("spearman_mean", rho, rho_perm, _spearman_reason(x), n_rated)
    a = krippendorff_alpha(x, domain)
    put(
        "krippendorff_alpha",
        a,
        lambda: np.array([krippendorff_alpha(p, domain) for p in perms]),
        _alpha_reason(x),
        n_rated,
    )
    return {name: out[name] for name in STAT_NAMES}


def rater_slots(x: np.ndarray) -> np.ndarray:
    """Runs × k rating slots for a design where runs have different raters: each run's first k ratings
    (k: the fewest ratings of any run rated at least twice); runs rated once are left out. The one-way
    ICC treats raters as interchangeable, so it holds for this design (Shrout & Fleiss case 1)."""
    counts = np.sum(~np.isnan(x), axis=-1)
    if x.ndim == 2:
        keep = counts >= 2
        if keep.sum() == 0:
            return np.empty((0, 0))
        k = int(counts[keep].min())
        return np.array([row[~np.isnan(row)][:k] for row in x[keep]])
    return np.stack([rater_slots(p) for p in x])


def _one_way_incomplete(
    x: np.ndarray, perms: np.ndarray, put: Callable[[str, float, Callable[[], np.ndarray], str, int], None]
) -> None:
    """ICC(1,1) and ICC(1,k) of an incomplete design, on rater slots; the two-way ICCs stay undefined."""
    slots = rater_slots(x)
    if slots.shape[0] < 2 or np.all(slots == slots.flat[0]):
        return
    obs = icc_batch(slots)

    def permuted(name: str) -> np.ndarray:
        return icc_batch(rater_slots(perms))[name]

    for name in ("ICC(1,1)", "ICC(1,k)"):
        put(
            name,
            float(obs[name]),
            functools.partial(permuted, name),
            "a zero denominator (no variance between runs)",
            slots.shape[0],
        )


# --------------------------------------------------------------------------- consensus and deviation


def modal(values: Sequence[float]) -> float:
    """The most frequent grade; a tie goes to the lower grade (the conservative reading)."""
    vals, counts = np.unique(np.asarray(values, dtype=float), return_counts=True)
    return float(vals[counts == counts.max()].min())


def deviation_counts(x: np.ndarray, raters: Sequence[str]) -> dict[str, dict[str, int]]:
    """Per rater, how often its grade differs from the run's modal grade by d (d = rater − mode)."""
    out: dict[str, dict[str, int]] = {r: {} for r in raters}
    for row in x:
        seen = row[~np.isnan(row)]
        if seen.size == 0:
            continue
        m = modal(seen)
        for j, r in enumerate(raters):
            if not np.isnan(row[j]):
                d = f"{int(row[j] - m):+d}" if row[j] != m else "0"
                out[r][d] = out[r].get(d, 0) + 1
    return {r: dict(sorted(v.items(), key=lambda kv: int(kv[0]))) for r, v in out.items()}


@dataclass
class GroupReport:
    """Agreement of one group of runs (all, human, agent): per competency and overall."""

    n_runs: int
    competencies: dict[str, dict[str, Stat]] = field(default_factory=dict)
    overall: dict[str, Stat] = field(default_factory=dict)
    deviation: dict[str, dict[str, int]] = field(default_factory=dict)


def to_jsonable(obj: Any) -> Any:
    if isinstance(obj, (Stat, GroupReport)):
        return to_jsonable(asdict(obj))
    if isinstance(obj, dict):
        return {k: to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    return obj
