"""A verifier author's test kit: synthetic bundles scored the way `simbridge verify` scores them.

Build a trace as a dict of columns (`t` in simulator seconds plus canonical signals, see
`simbridge.canonical`), then: `score_task` writes it as a bundle for a task and scores it;
`without_signal` and `with_gap` make the two undecidable cases every verifier must report as
unscored (naming the signal or the stretch); `assert_rate_invariant` checks that the score
judges the flying, not the recorder's sample rate; `component` picks one partial-credit item.
Expected scores are worked out by hand from the trace's numbers, never copied from the verifier
(docs/adding-a-verifier.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

import numpy as np

from simbridge._bundle import EpisodeInfo, read_bundle, write_bundle
from simbridge._score import Component, Score
from simbridge._scoring import score_bundle
from simbridge._task import TaskSpec, load_task

__all__ = [
    "make_bundle",
    "score_task",
    "component",
    "assert_rate_invariant",
    "without_signal",
    "with_gap",
    "resample_cols",
]


def make_bundle(
    tmp: Path,
    task_id: str,
    cols: dict[str, Any],
    *,
    events: Iterable[Any] = (),
    snapshots: dict[str, Any] | None = None,
    fmt: Literal["csv", "parquet"] = "csv",
    **episode: Any,
) -> Path:
    """Write a bundle directory for `task_id` with these signal columns (`episode`: more
    episode.json fields, e.g. `sim`, `status`, `agent`)."""
    return write_bundle(
        tmp, EpisodeInfo(task_id=task_id, **episode), cols, events=list(events), snapshots=snapshots, fmt=fmt
    )


def score_task(tmp: Path, task: str | TaskSpec, cols: dict[str, Any], **kw: Any) -> Score:
    """Write these columns as a bundle for `task` and score it, as the CLI would read it back.

    `task` is a task id or an already loaded spec; `kw` goes to `make_bundle` (events,
    snapshots, episode fields)."""
    spec = load_task(task) if isinstance(task, str) else task
    return score_bundle(read_bundle(make_bundle(tmp, spec.id, cols, **kw)), spec)


def component(score: Score, name: str) -> Component:
    """The partial-credit item called `name`; a KeyError naming the items the score has if the
    verifier did not report it."""
    for c in score.components:
        if c.name == name:
            return c
    raise KeyError(f"no item {name!r} in the score (items: {', '.join(c.name for c in score.components)})")


def assert_rate_invariant(
    tmp: Path,
    task: str | TaskSpec,
    cols: dict[str, np.ndarray],
    rates: tuple[float, ...] = (10, 20, 100),
    tol: float = 0.02,
    *,
    also: tuple[float, ...] = (),
    **kw: Any,
) -> list[float]:
    """Resample `cols` (best recorded at 100 Hz) to each rate, score each and require the scores
    to spread by at most `tol` (AssertionError otherwise): a verifier must judge the flying, not
    the recorder's sample rate. `also` adds scores of the same run obtained another way (e.g. the
    imported original); `kw` goes to `make_bundle`. Returns the per-rate scores, then `also`."""
    scores: list[float] = []
    for hz in rates:
        got = score_task(tmp / str(hz), task, resample_cols(cols, hz), **kw)
        if got.score is None:
            raise AssertionError(f"unscored at {hz:g} Hz: {got.reason}")
        scores.append(got.score)
    scores.extend(also)
    if max(scores) - min(scores) > tol:
        raise AssertionError(f"scores differ by more than {tol} across rates {rates}: {scores}")
    return scores


def without_signal(cols: dict[str, Any], *names: str) -> dict[str, Any]:
    """The trace with these signals not recorded at all: a verifier must say which one it lacks."""
    return {k: v for k, v in cols.items() if k not in names}


def with_gap(cols: dict[str, Any], t0: float, t1: float) -> dict[str, Any]:
    """The trace with every sample from t0 to t1 (inclusive) removed, a telemetry gap: only the
    samples with t < t0 or t > t1 are kept."""
    t = np.asarray(cols["t"])
    keep = (t < t0) | (t > t1)
    return {k: np.asarray(v)[keep] for k, v in cols.items()}


def resample_cols(cols: dict[str, np.ndarray], hz: float) -> dict[str, np.ndarray]:
    """Linear resampling to `hz` (headings and yaw unwrapped first), for rate-invariance checks."""
    t = np.asarray(cols["t"], dtype=float)
    grid = np.arange(t[0], t[-1] + 1e-9, 1.0 / hz)
    out = {"t": grid}
    for k, v in cols.items():
        if k == "t":
            continue
        if "heading" in k or k.endswith("yaw_deg"):
            out[k] = np.mod(np.interp(grid, t, np.degrees(np.unwrap(np.radians(v)))), 360.0)
        else:
            out[k] = np.interp(grid, t, v)
    return out
