"""Time series of canonical signals: one float64 column per signal on a shared time base `t`.

The data-quality contract (applied once, by `check_quality`: rule 1 before any verifier runs,
rules 2 and 3 to a column when it is first read, so only the signals a verifier reads are
checked and reported; see docs/scoring-data-quality.md):

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
from collections.abc import Callable, Iterable, Iterator, Mapping
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


class LazyColumns(Mapping[str, np.ndarray]):
    """Columns decoded from their file when first asked for (`load(stored_name)`), so a column
    nobody reads costs nothing: what a bundle's Parquet signals are read as. `names` maps each
    signal name to the name stored in the file (they differ for a column written under an old
    alias). `surely_valid(name)` is True when the file's statistics alone prove the column has a
    finite sample (False: it may have none, decoding decides)."""

    def __init__(
        self,
        names: Mapping[str, str],
        load: Callable[[str], np.ndarray],
        rows: int,
        *,
        finite_known: Iterable[str] = (),
        source: str = "signals",
    ) -> None:
        self._names = dict(names)
        self._load = load
        self._rows = rows
        self._finite_known = frozenset(finite_known)
        self._loaded: dict[str, np.ndarray] = {}
        self._source = source

    def __getitem__(self, name: str) -> np.ndarray:
        col = self._loaded.get(name)
        if col is None:
            stored = self._names[name]  # KeyError for a name not recorded, as a dict
            col = np.asarray(self._load(stored), dtype=np.float64)
            if col.shape != (self._rows,):
                raise BundleError(f"{self._source}: column {name!r} has {col.size} rows, 't' has {self._rows}")
            self._loaded[name] = col
        return col

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._names

    @property
    def loaded(self) -> list[str]:
        """The columns decoded so far, in recording order."""
        return [n for n in self._names if n in self._loaded]

    def surely_valid(self, name: str) -> bool:
        return self._names.get(name) in self._finite_known


class Signals:
    """Columns of canonical signals sampled at times `t` (simulator seconds since episode start).

    Every column is float64; missing samples are NaN. Booleans are 0/1. `t` is validated to be
    present, finite and non-decreasing.
    """

    _cols: Mapping[str, np.ndarray]

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
        if isinstance(columns, LazyColumns):  # validated as each column is decoded
            if columns._rows != t.size:
                raise BundleError(f"{source}: the columns have {columns._rows} rows, 't' has {t.size}")
            self.t, self._cols, self.source = t, columns, source
            return
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

    @property
    def names(self) -> list[str]:
        return list(self._cols)

    def __contains__(self, name: object) -> bool:
        return name in self._cols

    def _col(self, name: str) -> np.ndarray | None:
        """Column `name` as a reader sees it, None if not recorded (every read goes through here)."""
        return self._cols.get(name)

    def __getitem__(self, name: str) -> np.ndarray:
        col = self._col(name)
        if col is None:
            raise KeyError(f"signal {name!r} not recorded (have: {', '.join(self._cols) or 'none'})")
        return col

    def __len__(self) -> int:
        return int(self.t.size)

    def get(self, name: str, default: float = np.nan) -> np.ndarray:
        """The column, or a column filled with `default` if it was not recorded."""
        col = self._col(name)
        return np.full_like(self.t, default) if col is None else col

    def missing(self, names: Iterable[str]) -> list[str]:
        """Names not recorded at all, or recorded with no valid sample."""
        return [n for n in names if not self.valid(n)]

    def valid(self, name: str) -> bool:
        """True if `name` is recorded with at least one valid (finite) sample, or with no rows."""
        col = self._col(name)
        return col is not None and (not col.size or not _no_valid_sample(col))

    def gaps(self, max_gap_s: float) -> list[tuple[float, float]]:
        """Stretches of `t` where consecutive samples are further apart than `max_gap_s`."""
        if self.t.size < 2:
            return []
        dt = np.diff(self.t)
        idx = np.flatnonzero(dt > max_gap_s)
        return [(float(self.t[i]), float(self.t[i + 1])) for i in idx]

    def resample(self, hz: float) -> "Signals":
        """Linear interpolation onto a regular grid (tests of rate invariance). Angles are
        interpolated on the circle: 359.9 -> 0.1 passes through 0, not through 180."""
        if self.t.size == 0:
            return self
        grid = np.arange(self.t[0], self.t[-1] + 1e-9, 1.0 / hz)
        cols = {k: interp_signal(k, grid, self.t, self[k]) for k in self._cols}
        return Signals(grid, cols, source=self.source)

    def value_gaps(self, name: str, max_gap_s: float) -> list[tuple[float, float]]:
        """Stretches longer than `max_gap_s` where signal `name` has no valid sample: between two
        valid samples, or between the first/last row and the first/last valid sample. A signal
        with no valid sample at all is missing, not gapped: []."""
        col = self._col(name)
        if col is None:
            return []
        return _value_gaps(self.t, col, max_gap_s)

    @property
    def duration_s(self) -> float:
        return float(self.t[-1] - self.t[0]) if self.t.size else 0.0

    def to_columns(self) -> dict[str, np.ndarray]:
        return {"t": self.t, **{k: self[k] for k in self._cols}}


def _value_gaps(t: np.ndarray, col: np.ndarray, max_gap_s: float) -> list[tuple[float, float]]:
    """Stretches longer than `max_gap_s` without a valid sample of `col` (see Signals.value_gaps)."""
    if t.size < 2:
        return []
    ok = np.flatnonzero(np.isfinite(col))
    if ok.size == 0:
        return []
    edges = np.concatenate(([t[0]], t[ok], [t[-1]]))
    idx = np.flatnonzero(np.diff(edges) > max_gap_s)
    return [(float(edges[i]), float(edges[i + 1])) for i in idx]


class CheckedSignals(Signals):
    """Signals under the contract's range and missing-sample rules (2 and 3 of the module
    docstring), applied to a column when it is first read and recorded in `quality`: a column
    nobody reads costs nothing and is never reported on. Built by `check_quality` only."""

    def __init__(
        self, t: np.ndarray, raw: Mapping[str, np.ndarray], *, source: str, max_gap_s: float, quality: DataQuality
    ) -> None:
        # t and the columns were validated when the raw Signals were built
        self.t = t
        self._cols = raw
        self.source = source
        self._max_gap_s = max_gap_s
        self._quality = quality
        self._clean: dict[str, np.ndarray] = {}
        self._empty: set[str] | None = None

    def _col(self, name: str) -> np.ndarray | None:
        col = self._clean.get(name)
        if col is None:
            raw = self._cols.get(name)
            if raw is None:
                return None
            col = self._clean[name] = self._check(name, raw)
        return col

    def _check(self, name: str, v: np.ndarray) -> np.ndarray:
        if _plainly_clean(name, v):
            return v  # the common case, decided in a few passes: a clean column is used as recorded
        n_missing = v.size - int(np.count_nonzero(np.isfinite(v)))
        oor = _out_of_range(name, v)[0]
        n_oor = int(np.count_nonzero(oor))
        if not (n_missing or n_oor):
            return v
        if n_oor:
            v = np.where(oor, np.nan, v)
        filled, n_bridged = _bridge(name, self.t, v, self._max_gap_s)
        self._quality.signals[name] = SignalQuality(
            missing=n_missing,
            out_of_range=n_oor,
            bridged=n_bridged,
            gaps=_value_gaps(self.t, filled, self._max_gap_s),
        )
        return filled

    def gaps(self, max_gap_s: float) -> list[tuple[float, float]]:
        if max_gap_s == self._max_gap_s:  # found by check_quality from the time steps it took
            return list(self._quality.time_gaps)
        return super().gaps(max_gap_s)

    def value_gaps(self, name: str, max_gap_s: float) -> list[tuple[float, float]]:
        col = self._col(name)
        if col is None or max_gap_s != self._max_gap_s:
            return super().value_gaps(name, max_gap_s)
        q = self._quality.signals.get(name)  # found when the column was checked; a clean one has none
        return list(q.gaps) if q is not None else []

    def unread_empty(self) -> list[str]:
        """Columns nobody has read that have no valid sample (not recorded by this simulator)."""
        if self._empty is None:
            cols = self._cols
            # a column the file's statistics show a finite sample of is not decoded to know it
            sure = cols.surely_valid if isinstance(cols, LazyColumns) else lambda n: False
            self._empty = {n for n in cols if n not in self._clean and not sure(n) and _no_valid_sample(cols[n])}
        return [n for n in self._cols if n in self._empty and n not in self._clean]

    @property
    def read(self) -> list[str]:
        """The columns checked so far (read by someone), in recording order."""
        return [n for n in self._cols if n in self._clean]

    def check_all(self) -> None:
        for name in self._cols:
            self._col(name)


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

    def report(self, asked: Iterable[str]) -> DataQuality:
        """The data quality of the signals read: those in `asked` (the task's signals and every
        one its verifier asked for; checked now if nobody read them yet) and any other column
        read so far. A column with no valid sample that nobody asked for is listed as `absent`
        (not recorded by this simulator, not bad data); a column nobody read is not reported on."""
        asked = list(asked)
        s = self.signals
        if not isinstance(s, CheckedSignals):  # broken or single-sample: no column was checked
            return self.quality.unread_absent(asked)
        for name in asked:
            s._col(name)
        read = s.read
        unread_empty = s.unread_empty()
        q = self.quality
        dq = q.model_copy(
            update={
                "signals": {n: q.signals[n] for n in read if n in q.signals},
                "absent": sorted({*q.absent, *unread_empty}),
            }
        )
        return dq.unread_absent(asked)


def _plainly_clean(name: str, v: np.ndarray) -> bool:
    """True if column `name` has no missing and no out-of-range sample, found with a few
    whole-column reductions; False when the sample-by-sample check must decide."""
    if not v.size:
        return True
    allowed = discrete_values(name)
    if allowed is not None:  # recorded exactly as one of the allowed values (0/1 for booleans)
        exact = v == 0.0 if 0.0 in allowed else np.zeros(v.shape, dtype=bool)
        for a in allowed:
            if a != 0.0:
                exact |= v == a
        return bool(exact.all())
    lo_v, hi_v = float(v.min()), float(v.max())  # NaN propagates: a missing sample shows here
    if not (math.isfinite(lo_v) and math.isfinite(hi_v)):
        return False
    rng = physical_range(name)
    if rng is None:
        return True
    lo, hi = rng
    eps = 1e-9 * max(1.0, abs(lo), abs(hi))
    return lo - eps <= lo_v and hi_v <= hi + eps


def _no_valid_sample(v: np.ndarray) -> bool:
    """True if the column has no finite sample (its first sample decides most columns at once)."""
    return not (v.size and math.isfinite(v[0])) and not np.isfinite(v).any()


def _out_of_range(name: str, v: np.ndarray) -> tuple[np.ndarray, str]:
    """Mask of finite samples outside the signal's physical range, and the range as text."""
    allowed = discrete_values(name)
    if allowed is not None:
        vals = np.array(sorted(allowed))
        # distance to the nearest allowed value: the neighbours in the sorted list either side
        i = np.clip(np.searchsorted(vals, v), 1, max(1, vals.size - 1))
        with np.errstate(invalid="ignore"):
            near = np.abs(v - vals[i - 1]) <= 1e-6
            if vals.size > 1:
                near |= np.abs(v - vals[i]) <= 1e-6
        return np.isfinite(v) & ~near, "{" + ", ".join(f"{a:g}" for a in vals) + "}"
    rng = physical_range(name)
    if rng is None:
        return np.zeros(v.shape, dtype=bool), ""
    lo, hi = rng
    eps = 1e-9 * max(1.0, abs(lo), abs(hi))
    with np.errstate(invalid="ignore"):
        return (v < lo - eps) | (v > hi + eps), f"[{lo:g}, {hi:g}]"  # NaN compares false


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


def check_quality(
    signals: Signals, max_gap_s: float, *, sim_end_s: float | None = None, on_read: bool = False
) -> Checked:
    """Apply the data-quality contract of this module to a recording (once, before verifying).

    The time axis (rule 1) is always checked whole. With `on_read`, the range and missing-sample
    rules (2, 3) apply to a column when it is first read from `Checked.signals`, and only read
    columns enter the quality record (`Checked.report`): what scoring uses, so a column the
    verifier never reads is never a note and never costs time. Without it every column is
    checked at once."""
    t = signals.t
    cols: Mapping[str, np.ndarray] = signals._cols  # a lazily read column stays unread until asked for
    n_raw = int(t.size)
    dq = DataQuality(samples_total=n_raw)
    if n_raw == 0:
        return Checked(signals, dq, "the recording has no samples")
    # 1. time axis: drop exact repeats of the previous row, then t must strictly increase
    rows: np.ndarray | None = None  # the raw row numbers, when rows were dropped
    dt = np.diff(t)
    # only rows at the same t as the row before can repeat it: compare the columns there (t never
    # decreases, so the smallest step says at once whether there is any)
    cand = np.flatnonzero(dt == 0.0) if dt.size and dt.min() == 0.0 else np.zeros(0, dtype=np.intp)
    if cand.size:
        same = np.ones(cand.size, dtype=bool)
        for v in cols.values():
            a, b = v[cand + 1], v[cand]
            same &= (a == b) | (np.isnan(a) & np.isnan(b))
        drop = cand[same] + 1
        if drop.size:
            keep = np.ones(n_raw, dtype=bool)
            keep[drop] = False
            dq.duplicates_dropped = int(drop.size)
            t, rows = t[keep], np.flatnonzero(keep)
            cols = {k: v[keep] for k, v in cols.items()}
            dt = np.diff(t)
            cand = np.flatnonzero(dt == 0.0)
    n = int(t.size)
    dq.samples_total = n
    if n == 1:
        dq.time_gaps = []
        return Checked(
            Signals(t, cols, source=signals.source),
            dq,
            single=f"the recording is one sample at t={t[0]:g} s ({n_raw} row(s)): no time span to judge",
        )
    if t[-1] == t[0]:  # t never decreases (Signals checked it): this is "fewer than 2 distinct times"
        return Checked(
            signals,
            dq,
            f"column 't' does not advance: all {n_raw} rows are at t={t[0]:g} s with "
            "different values, no time span to judge",
        )
    rep = cand  # rows still at the time of the row before: not repeats, different values
    if rep.size:
        i = int(rep[0]) + 1
        return Checked(
            signals,
            dq,
            f"column 't' is broken: {rep.size} row(s) repeat an earlier time with different "
            f"values (first at row {(i if rows is None else rows[i]) + 1}, t={t[i]:g} s)",
        )
    if sim_end_s is not None and math.isfinite(sim_end_s) and t[-1] < sim_end_s - max_gap_s:
        return Checked(
            signals,
            dq,
            f"the recording ends at t={t[-1]:.2f} s but the episode ran to "
            f"{sim_end_s:.2f} s (episode.json sim_end_s): its tail is lost",
        )
    # 2. range, 3. missing samples: per column, when read
    clean = CheckedSignals(t, cols, source=signals.source, max_gap_s=max_gap_s, quality=dq)
    if dt.max() > max_gap_s:  # the same as clean.gaps(max_gap_s), from the steps already taken
        dq.time_gaps = [(float(t[i]), float(t[i + 1])) for i in np.flatnonzero(dt > max_gap_s)]
    if not on_read:
        clean.check_all()
    return Checked(clean, dq)
