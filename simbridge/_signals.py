"""Time series of canonical signals: one float64 column per signal on a shared time base `t`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from simbridge._errors import BundleError


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
                raise BundleError(
                    f"{source}: column 't' goes backwards at row {i + 1} ({t[i - 1]:g} -> {t[i]:g})"
                )
        cols: dict[str, np.ndarray] = {}
        for name, values in columns.items():
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
        """Linear interpolation onto a regular grid (used for tests of rate invariance)."""
        if self.t.size == 0:
            return self
        grid = np.arange(self.t[0], self.t[-1] + 1e-9, 1.0 / hz)
        cols = {}
        for k, v in self._cols.items():
            ok = np.isfinite(v)
            cols[k] = np.interp(grid, self.t[ok], v[ok]) if ok.any() else np.full_like(grid, np.nan)
        return Signals(grid, cols, source=self.source)

    @property
    def duration_s(self) -> float:
        return float(self.t[-1] - self.t[0]) if self.t.size else 0.0

    def to_columns(self) -> dict[str, np.ndarray]:
        return {"t": self.t, **self._cols}
