"""One policy for every importer (CARLA recorder, OpenBVE black box, Bridge Command NMEA, KSP saves).

- An existing bundle is never overwritten silently: `prepare_out` refuses unless `force`, and
  even with `force` it only replaces a directory that holds a bundle (an episode.json), never an
  unrelated directory given by mistake.
- What an importer had to leave out or tolerate is recorded in `EpisodeInfo.flags` (and so in
  the score): `truncated_import`, `lenient_parse: N lines skipped`, `out_of_range: N samples
  dropped (...)`, `invalid_fix: N fixes dropped (...)`. A reader of a score can then tell a
  clean import from a patched-up one.
- Physically impossible values (a track position of 1e300 m, a latitude of 99.98°) are bad
  samples: dropped and counted with `RangeCheck`, never scored as if the vehicle were there.
- A named vehicle (vessel, actor, train) that is not in the file is an error naming the known
  ones (`no_such_name`), not an all-NaN bundle that then scores "destroyed".
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simbridge._errors import BundleError

TRUNCATED_IMPORT = "truncated_import"
IMPORTED = "imported"


def check_out(out: str | Path, *, force: bool = False) -> Path:
    """Refuse (BundleError) when `out` exists and is not empty, unless `force` and it holds a
    bundle. Changes nothing: importers call this before parsing, `prepare_out` before writing."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise BundleError(f"{out}: exists and is not a directory; refusing to overwrite")
    if out.is_dir() and any(out.iterdir()):
        if not force:
            raise BundleError(f"{out}: exists and is not empty; refusing to overwrite (--force replaces a bundle)")
        if not (out / "episode.json").exists():
            raise BundleError(
                f"{out}: is not empty and holds no bundle (no episode.json); refusing to delete it even with --force"
            )
    return out


def prepare_out(out: str | Path, *, force: bool = False) -> Path:
    """`check_out`, then remove the old bundle (only with `force`) and create the directory.
    Called after the input parsed, so a failed import never destroys the bundle it would replace."""
    out = check_out(out, force=force)
    if out.is_dir() and any(out.iterdir()):
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    return out


def lenient_flag(n_skipped: int) -> str:
    return f"lenient_parse: {n_skipped} line{'s' if n_skipped != 1 else ''} skipped"


def no_such_name(kind: str, name: str, source: str, known: Iterable[str], hint: str = "") -> BundleError:
    """The error for a named vehicle/actor that is not in the input: names the ones there are."""
    names = sorted({k for k in known if k})
    listed = ", ".join(repr(n) for n in names[:20]) + (f", … {len(names) - 20} more" if len(names) > 20 else "")
    return BundleError(f"no {kind} named {name!r} in {source} ({kind}s: {listed or 'none'}){hint}")


@dataclass
class RangeCheck:
    """Physical limits per column: a sample with any value outside its limits (or not finite)
    is a bad sample. `keep(cols)` returns the rows to keep and records what was dropped."""

    limits: Mapping[str, tuple[float, float]]
    dropped: dict[str, int] = field(default_factory=dict)
    n_total: int = 0
    n_bad: int = 0

    def keep(self, cols: Mapping[str, np.ndarray]) -> np.ndarray:
        n = len(next(iter(cols.values()))) if cols else 0
        ok = np.ones(n, bool)
        for name, (lo, hi) in self.limits.items():
            if name not in cols:
                continue
            v = np.asarray(cols[name], dtype=float)
            with np.errstate(invalid="ignore"):
                bad = ~(np.isfinite(v) & (v >= lo) & (v <= hi))
            if bad.any():
                self.dropped[name] = self.dropped.get(name, 0) + int(bad.sum())
            ok &= ~bad
        self.n_total += n
        self.n_bad += int((~ok).sum())
        return ok

    def flag(self) -> str | None:
        """`out_of_range: 2 of 100 samples dropped (speed_kmh 1, track_position_m 2)`, or None."""
        if not self.n_bad:
            return None
        what = ", ".join(f"{k} {v}" for k, v in sorted(self.dropped.items()))
        return f"out_of_range: {self.n_bad} of {self.n_total} samples dropped ({what})"


@dataclass
class DropCounter:
    """Counts of input records dropped by kind, e.g. {'RMC status V': 3}; `flag(label)` renders one flag."""

    counts: dict[str, int] = field(default_factory=dict)

    def add(self, kind: str, n: int = 1) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + n

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def flag(self, label: str, noun: str) -> str | None:
        if not self.total:
            return None
        what = ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
        return f"{label}: {self.total} {noun} dropped ({what})"


def flags_of(*flags: str | None) -> list[str]:
    """The non-empty flags, in order, without duplicates."""
    out: list[str] = []
    for f in flags:
        if f and f not in out:
            out.append(f)
    return out
