"""Time series of canonical signals: one float64 column per signal on a shared time base `t`.

The data-quality contract (applied once, by `check_quality`, before any verifier runs; see
docs/scoring-data-quality.md):

1. Time axis. `t` must be finite and never go backwards (else the bundle is unreadable:
   BundleError). A row identical to the row before it (same `t`, same values) is a recorder
   repeat and is dropped and counted. After that `t` must be strictly increasing: two different
   rows at the same `t` (e.g. every `t = 0`) is a broken time axis, and fewer than 2 distinct
   times is no recording to judge over time; both make the episode unscored (a single row
   still serves a verifier that reads only a final state, e.g. an imported save). A short
   recording with a valid axis (an agent that quit after 2 s) is scored. When episode.json gives `sim_end_s`, a
   recording that ends more than `max_sample_gap_s` before it lost its tail: unscored.
2. Range. A sample outside its canonical signal's physical range (simbridge._canonical.RANGES,
   or not one of the allowed values of a boolean/enumerated signal) is bad: it is treated as
   missing (NaN) and counted as out of range.
3. Missing samples. NaN is a gap in that signal, never a value:
   - a run of missing samples whose valid neighbours are at most `max_sample_gap_s` apart (at
     the ends of the recording: which lies within `max_sample_gap_s` of the first/last row) is
     treated like a short telemetry gap: it is bridged from its neighbours (linear interpolation
     on the time axis, on the circle for angles, the previous value for discrete signals). A
     bridged value lies between its neighbours, so it can never make a tolerance check pass that
     the valid samples fail, and a safety violation at a neighbour stays a violation; the run is
     counted and flagged.
   - a longer run stays NaN and is a gap of that signal (`Signals.value_gaps`): a criterion
     judged over it is unscored, and a safety constraint is never "held" across it.
4. Every problem is counted in a `DataQuality` record that the Score carries, with one flag line
   per problem: a score that rests on repaired data says so.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from simbridge._canonical import ALIASES, discrete_values, is_angle, physical_range
from simbridge._errors import BundleError
from simbridge._score import DataQuality, SignalQuality


def _wrap_like(angle_deg: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Wrap into [-180, 180) if `reference` has negative angles, else into [0, 360)."""
    if np.nanmin(reference, initial=0.0) < 0.0:
        return angle_deg - 360.0 * np.floor((angle_deg + 180.0) / 360.0)
    return angle_deg - 360.0 * np.floor(angle_deg / 360.0)


def interp_signal(name: str, x_new: np.ndarray, t: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Linear interpolation of the valid samples of signal `name` at times `x_new`; angles are
    interpolated on the unwrapped circle and wrapped back into the signal's own convention."""
    ok = np.isfinite(v)
    if not ok.any():
        return np.full(np.shape(x_new), np.nan)
    tv, vv = t[ok], v[ok]
    if is_angle(name):
        un = np.degrees(np.unwrap(np.radians(vv)))
        return _wrap_like(np.interp(x_new, tv, un), vv)
    return np.interp(x_new, tv, vv)


class Signals:
    """Columns of canonical signals sampled at times `t` (simulator seconds since episode start).

    Every column is float64; missing samples are NaN. Booleans are 0/1. `t` is validated to be
    present, finite and non-decreasing.
    """

    def __init__(self, t: np.ndarray, columns: Mapping[str, np.ndarray], *, source: str = "signals") -> None:
        t = np.asarray(t, dtype=np.float64)
        if t.ndim != 1:
            raise BundleError(f"{source}: column 't' must be one-dimensional")
        if t.size and not np.all(np.isfinite(t)):
            bad = int(np.flatnonzero(~np.isfinite(t))[0])
            raise BundleError(f"{source}: column 't' has a missing or non-finite value at row {bad + 1}")
        if t.size > 1:
            back = np.flatnonzero(np.diff(t) < 0)
            if back.size:
                i = int(back[0]) + 1
                raise BundleError(f"{source}: column 't' goes backwards at row {i + 1} ({t[i - 1]:g} -> {t[i]:g})")
        cols: dict[str, np.ndarray] = {}
        for name, values in columns.items():
            if name in ALIASES and ALIASES[name] not in columns:
                name = ALIASES[name]  # a bundle written before the rename
            arr = np.asarray(values, dtype=np.float64)
            if arr.shape != t.shape:
                raise BundleError(f"{source}: column {name!r} has {arr.size} rows, 't' has {t.size}")
            cols[name] = arr
        self.t = t
        self._cols = cols
        self.source = source

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping[str, float]], *, source: str = "signals") -> "Signals":
        """Build from dict rows (each with 't'); absent keys become NaN."""
        rows = list(rows)
        names: list[str] = []
        for row in rows:
            for k in row:
                if k != "t" and k not in names:
                    names.append(k)
        t = np.array([r["t"] for r in rows], dtype=np.float64)
        cols = {n: np.array([r.get(n, np.nan) for r in rows], dtype=np.float64) for n in names}
        return cls(t, cols, source=source)

    @property
    def names(self) -> list[str]:
        return list(self._cols)

    def __contains__(self, name: object) -> bool:
        return name in self._cols

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self._cols[name]
        except KeyError:
            raise KeyError(f"signal {name!r} not recorded (have: {', '.join(self._cols) or 'none'})") from None

    def __len__(self) -> int:
        return int(self.t.size)

    def get(self, name: str, default: float = np.nan) -> np.ndarray:
        """The column, or a column filled with `default` if it was not recorded."""
        if name in self._cols:
            return self._cols[name]
        return np.full_like(self.t, default)

    def missing(self, names: Iterable[str]) -> list[str]:
        """Names not recorded at all, or recorded with no valid sample."""
        out = []
        for n in names:
            col = self._cols.get(n)
            if col is None or (col.size and not np.any(np.isfinite(col))):
                out.append(n)
        return out

    def gaps(self, max_gap_s: float) -> list[tuple[float, float]]:
        """Stretches of `t` where consecutive samples are further apart than `max_gap_s`."""
        if self.t.size < 2:
            return []
        dt = np.diff(self.t)
        idx = np.flatnonzero(dt > max_gap_s)
        return [(float(self.t[i]), float(self.t[i + 1])) for i in idx]

    def slice_time(self, t0: float, t1: float) -> "Signals":
        """Samples with t0 <= t <= t1."""
        m = (self.t >= t0) & (self.t <= t1)
        return Signals(self.t[m], {k: v[m] for k, v in self._cols.items()}, source=self.source)

    def resample(self, hz: float) -> "Signals":
        """Linear interpolation onto a regular grid (tests of rate invariance). Angles are
        interpolated on the circle: 359.9 -> 0.1 passes through 0, not through 180."""
        if self.t.size == 0:
            return self
        grid = np.arange(self.t[0], self.t[-1] + 1e-9, 1.0 / hz)
        cols = {k: interp_signal(k, grid, self.t, v) for k, v in self._cols.items()}
        return Signals(grid, cols, source=self.source)

    def value_gaps(self, name: str, max_gap_s: float) -> list[tuple[float, float]]:
        """Stretches longer than `max_gap_s` where signal `name` has no valid sample: between two
        valid samples, or between the first/last row and the first/last valid sample. A signal
        with no valid sample at all is missing, not gapped: []."""
        col = self._cols.get(name)
        if col is None or self.t.size < 2:
            return []
        ok = np.flatnonzero(np.isfinite(col))
        if ok.size == 0:
            return []
        tv = self.t[ok]
        edges = np.concatenate(([self.t[0]], tv, [self.t[-1]]))
        d = np.diff(edges)
        idx = np.flatnonzero(d > max_gap_s)
        return [(float(edges[i]), float(edges[i + 1])) for i in idx]

    @property
    def duration_s(self) -> float:
        return float(self.t[-1] - self.t[0]) if self.t.size else 0.0

    def to_columns(self) -> dict[str, np.ndarray]:
        return {"t": self.t, **self._cols}


@dataclass
class Checked:
    """The result of `check_quality`: the signals a verifier may see, what was wrong with the
    raw ones, and, if the recording cannot be judged at all, why (`broken`)."""

    signals: Signals
    quality: DataQuality
    broken: str | None = None
    #: one sample only: enough for a verifier that judges a final state, too short for one that
    #: judges anything over time (VerifyContext.sig raises Unscorable with this reason)
    single: str | None = None


def _out_of_range(name: str, v: np.ndarray) -> tuple[np.ndarray, str]:
    """Mask of finite samples outside the signal's physical range, and the range as text."""
    allowed = discrete_values(name)
    if allowed is not None:
        vals = np.array(sorted(allowed))
        with np.errstate(invalid="ignore"):
            near = np.abs(v[:, None] - vals[None, :]).min(axis=1) <= 1e-6
        return np.isfinite(v) & ~near, "{" + ", ".join(f"{a:g}" for a in vals) + "}"
    rng = physical_range(name)
    if rng is None:
        return np.zeros(v.shape, dtype=bool), ""
    lo, hi = rng
    eps = 1e-9 * max(1.0, abs(lo), abs(hi))
    with np.errstate(invalid="ignore"):
        return np.isfinite(v) & ((v < lo - eps) | (v > hi + eps)), f"[{lo:g}, {hi:g}]"


def _bridge(name: str, t: np.ndarray, v: np.ndarray, max_gap_s: float) -> tuple[np.ndarray, int]:
    """Fill the runs of NaN that are no longer than a short telemetry gap (see the module
    docstring); longer runs stay NaN. Returns the filled column and how many samples were filled."""
    bad = ~np.isfinite(v)
    if not bad.any() or bad.all():
        return v, 0
    n = v.size
    idx = np.arange(n)
    prev = np.where(~bad, idx, -1)
    np.maximum.accumulate(prev, out=prev)
    nxt = np.where(~bad, idx, n)
    nxt = np.minimum.accumulate(nxt[::-1])[::-1]
    t_prev = np.where(prev >= 0, t[np.clip(prev, 0, n - 1)], t[0])
    t_next = np.where(nxt < n, t[np.clip(nxt, 0, n - 1)], t[-1])
    short = bad & (t_next - t_prev <= max_gap_s)
    if not short.any():
        return v, 0
    out = v.copy()
    if discrete_values(name) is not None:
        src = np.where(prev >= 0, prev, nxt)[short]  # previous value; the next one before the first
        out[short] = v[src]
    else:
        out[short] = interp_signal(name, t[short], t, v)  # np.interp holds the end values at the edges
    return out, int(short.sum())


def check_quality(signals: Signals, max_gap_s: float, *, sim_end_s: float | None = None) -> Checked:
    """Apply the data-quality contract of this module to a recording (once, before verifying)."""
    t = signals.t
    cols = {k: signals[k] for k in signals.names}
    n_raw = int(t.size)
    dq = DataQuality(samples_total=n_raw)
    if n_raw == 0:
        return Checked(signals, dq, "the recording has no samples")
    # 1. time axis: drop exact repeats of the previous row, then t must strictly increase
    rows = np.arange(n_raw)
    if n_raw > 1:
        same = t[1:] == t[:-1]
        for v in cols.values():
            same &= (v[1:] == v[:-1]) | (np.isnan(v[1:]) & np.isnan(v[:-1]))
        keep = np.concatenate(([True], ~same))
        if not keep.all():
            dq.duplicates_dropped = int((~keep).sum())
            t, rows = t[keep], rows[keep]
            cols = {k: v[keep] for k, v in cols.items()}
    n = int(t.size)
    dq.samples_total = n
    if n == 1:
        dq.time_gaps = []
        return Checked(
            Signals(t, cols, source=signals.source),
            dq,
            single=f"the recording is one sample at t={t[0]:g} s ({n_raw} row(s)): no time span to judge",
        )
    if np.unique(t).size < 2:
        return Checked(
            signals,
            dq,
            f"column 't' does not advance: all {n_raw} rows are at t={t[0]:g} s with "
            "different values, no time span to judge",
        )
    rep = np.flatnonzero(np.diff(t) == 0)
    if rep.size:
        i = int(rep[0]) + 1
        return Checked(
            signals,
            dq,
            f"column 't' is broken: {rep.size} row(s) repeat an earlier time with different "
            f"values (first at row {rows[i] + 1}, t={t[i]:g} s)",
        )
    if sim_end_s is not None and math.isfinite(sim_end_s) and t[-1] < sim_end_s - max_gap_s:
        return Checked(
            signals,
            dq,
            f"the recording ends at t={t[-1]:.2f} s but the episode ran to "
            f"{sim_end_s:.2f} s (episode.json sim_end_s): its tail is lost",
        )
    # 2. range, 3. missing samples
    out: dict[str, np.ndarray] = {}
    for name, v in cols.items():
        missing = ~np.isfinite(v)
        oor, _ = _out_of_range(name, v)
        if oor.any():
            v = np.where(oor, np.nan, v)
        filled, n_bridged = _bridge(name, t, v, max_gap_s)
        out[name] = filled
        if missing.any() or oor.any():
            dq.signals[name] = SignalQuality(missing=int(missing.sum()), out_of_range=int(oor.sum()), bridged=n_bridged)
    clean = Signals(t, out, source=signals.source)
    for name, q in dq.signals.items():
        q.gaps = clean.value_gaps(name, max_gap_s)
    dq.time_gaps = clean.gaps(max_gap_s)
    return Checked(clean, dq)


def range_text(name: str) -> str:
    """The physical range of a signal as text, '' if it has none (for messages)."""
    return _out_of_range(name, np.zeros(1))[1]
