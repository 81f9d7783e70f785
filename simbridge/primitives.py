"""Shared verifier primitives. Vectorised with numpy; no per-sample Python loops.

Conventions: `t` is simulator seconds (non-decreasing), conditions are boolean arrays aligned
with `t`, NaN never satisfies a condition, and every window is gap-aware: consecutive samples
further apart than `max_gap_s` break a window (the stretch in between is unknown, not "held").

Glitches and segmentation: a recorder can glitch for a sample (bank reads 0 for one frame in
the middle of a 45° turn). Finding a phase or segment ("the turn", the level-off, the stop)
must not be split by that, so the segmentation functions (`longest_segment`, `segments`,
`level_off`, `stop_time`) bridge a false excursion of at most GLITCH_MAX_SAMPLES samples that
stands for at most GLITCH_MAX_S seconds (`bridge_glitches`). Tolerance checks and safety
constraints (`fraction_true`, `fraction_in_band`, `held_throughout`, `runs`, `longest_window`)
never bridge: every sample counts there.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, overload

import numpy as np

EARTH_RADIUS_M = 6_371_008.8
M_PER_NM = 1852.0
FT_PER_M = 1.0 / 0.3048


# --------------------------------------------------------------------------- windows


@dataclass(frozen=True)
class Window:
    """A run of samples [i0, i1] (inclusive) spanning sim times [t0, t1]."""

    i0: int
    i1: int
    t0: float
    t1: float

    @property
    def duration_s(self) -> float:
        return self.t1 - self.t0

    def as_tuple(self) -> tuple[float, float]:
        return (self.t0, self.t1)


def _as_bool(cond: Any, n: int) -> np.ndarray:
    c = np.asarray(cond)
    if c.dtype != bool:
        c = np.where(np.isnan(c.astype(float)), False, c.astype(float) != 0)
    if c.shape != (n,):
        raise ValueError(f"condition has shape {c.shape}, time has ({n},)")
    return c


#: a false excursion of at most this many samples ...
GLITCH_MAX_SAMPLES = 2
#: ... standing for at most this long (sample weights: half the interval to each neighbour) is a glitch
GLITCH_MAX_S = 0.25


def bridge_glitches(
    t: np.ndarray, cond: Any, max_samples: int = GLITCH_MAX_SAMPLES, max_s: float = GLITCH_MAX_S
) -> np.ndarray:
    """`cond` with short false excursions inside a true stretch set true, FOR SEGMENTATION ONLY.

    An excursion is bridged when it has true samples on both sides, at most `max_samples`
    samples, and stands for at most `max_s` seconds: (t[l+1] + t[l] - t[f] - t[f-1]) / 2 for
    false samples f..l, the time `sample_weights` gives them. Rate-aware: one sample at 10 Hz
    (0.1 s) is a glitch, one sample at 1 Hz (1 s) is not.
    """
    t = np.asarray(t, dtype=float)
    n = t.size
    c = _as_bool(cond, n).copy()
    if n < 3 or max_samples < 1:
        return c
    falls = np.flatnonzero(c[:-1] & ~c[1:]) + 1  # first false sample of an excursion after a true one
    rises = np.flatnonzero(~c[:-1] & c[1:])  # last false sample before a true one
    if falls.size == 0 or rises.size == 0:
        return c
    # pair each fall with the first rise at or after it
    j = np.searchsorted(rises, falls)
    ok = j < rises.size
    f, l_ = falls[ok], rises[j[ok]]
    k = l_ - f + 1
    dur = (t[l_ + 1] + t[l_] - t[f] - t[f - 1]) / 2.0
    for a, b in zip(f[(k <= max_samples) & (dur <= max_s + 1e-12)], l_[(k <= max_samples) & (dur <= max_s + 1e-12)]):
        c[a : b + 1] = True  # one iteration per glitch, not per sample
    return c


def segments(t: np.ndarray, cond: Any, max_gap_s: float = math.inf) -> list[Window]:
    """`runs` for finding a phase or segment: single-sample glitches bridged (`bridge_glitches`)."""
    return runs(t, bridge_glitches(t, cond), max_gap_s)


def longest_segment(t: np.ndarray, cond: Any, max_gap_s: float = math.inf) -> Window | None:
    """`longest_window` for finding a phase or segment ("the turn"): glitches bridged. Never
    use it for a tolerance check: there every sample counts."""
    return longest_window(t, bridge_glitches(t, cond), max_gap_s)


def runs(t: np.ndarray, cond: Any, max_gap_s: float = math.inf) -> list[Window]:
    """All maximal windows where `cond` holds, split at telemetry gaps larger than max_gap_s."""
    t = np.asarray(t, dtype=float)
    n = t.size
    if n == 0:
        return []
    c = _as_bool(cond, n)
    brk = np.zeros(n, dtype=bool)  # brk[i]: a gap lies between sample i-1 and i
    if n > 1:
        brk[1:] = np.diff(t) > max_gap_s
    prev = np.concatenate(([False], c[:-1])) & ~brk
    nxt = np.concatenate((c[1:] & ~brk[1:], [False]))
    starts = np.flatnonzero(c & ~prev)
    ends = np.flatnonzero(c & ~nxt)
    return [Window(int(a), int(b), float(t[a]), float(t[b])) for a, b in zip(starts, ends)]


def longest_window(t: np.ndarray, cond: Any, max_gap_s: float = math.inf) -> Window | None:
    """The longest continuous window where `cond` holds (by duration), or None."""
    t = np.asarray(t, dtype=float)
    n = t.size
    if n == 0:
        return None
    c = _as_bool(cond, n)
    if not c.any():
        return None
    brk = np.zeros(n, dtype=bool)
    if n > 1:
        brk[1:] = np.diff(t) > max_gap_s
    prev = np.concatenate(([False], c[:-1])) & ~brk
    nxt = np.concatenate((c[1:] & ~brk[1:], [False]))
    starts = np.flatnonzero(c & ~prev)
    ends = np.flatnonzero(c & ~nxt)
    k = int(np.argmax(t[ends] - t[starts]))
    a, b = int(starts[k]), int(ends[k])
    return Window(a, b, float(t[a]), float(t[b]))


def first_true(t: np.ndarray, cond: Any) -> float | None:
    """Time of the first sample where cond holds."""
    c = _as_bool(cond, np.asarray(t).size)
    idx = np.flatnonzero(c)
    return float(np.asarray(t)[idx[0]]) if idx.size else None


def held_throughout(t: np.ndarray, cond: Any) -> tuple[bool, float | None]:
    """(ok, first violation time) for a condition that must hold on every sample."""
    c = _as_bool(cond, np.asarray(t).size)
    bad = np.flatnonzero(~c)
    return (True, None) if bad.size == 0 else (False, float(np.asarray(t)[bad[0]]))


def sample_weights(t: np.ndarray, max_gap_s: float = math.inf) -> np.ndarray:
    """Time each sample stands for (half the interval to each neighbour), zero across gaps.

    Makes fractions of time independent of the sample rate.
    """
    t = np.asarray(t, dtype=float)
    n = t.size
    if n == 0:
        return np.zeros(0)
    if n == 1:
        return np.ones(1)
    dt = np.diff(t)
    dt = np.where(dt > max_gap_s, 0.0, dt)
    w = np.zeros(n)
    w[:-1] += dt / 2
    w[1:] += dt / 2
    return w


def fraction_true(
    t: np.ndarray, cond: Any, t0: float | None = None, t1: float | None = None, max_gap_s: float = math.inf
) -> float:
    """Fraction of time in [t0, t1] where cond holds (time-weighted). NaN if no time covered."""
    t = np.asarray(t, dtype=float)
    c = _as_bool(cond, t.size)
    m = np.ones(t.size, dtype=bool)
    if t0 is not None:
        m &= t >= t0
    if t1 is not None:
        m &= t <= t1
    tt, cc = t[m], c[m]
    if tt.size == 0:
        return math.nan
    if tt.size == 1:
        return float(cc[0])
    w = sample_weights(tt, max_gap_s)
    total = w.sum()
    return float(w[cc].sum() / total) if total > 0 else math.nan


def fraction_in_band(
    t: np.ndarray,
    x: np.ndarray,
    lo: float,
    hi: float,
    t0: float | None = None,
    t1: float | None = None,
    max_gap_s: float = math.inf,
) -> float:
    """Fraction of the segment [t0, t1] with lo <= x <= hi (NaN samples count as outside)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(invalid="ignore"):
        return fraction_true(t, (x >= lo) & (x <= hi), t0, t1, max_gap_s)


def linear_credit(value: float, zero_at: float, full_at: float) -> float:
    """Credit 0..1 rising linearly from `zero_at` to `full_at` (either direction), clipped.

    `linear_credit(rms, zero_at=1.0, full_at=0.3)` gives full credit at 0.3 m RMS or better.
    NaN → 0.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return 0.0
    if full_at == zero_at:
        return 1.0 if value == full_at else 0.0
    frac = (value - zero_at) / (full_at - zero_at)
    return float(min(1.0, max(0.0, frac)))


# --------------------------------------------------------------------------- angles


@overload
def wrap_180(deg: float) -> float: ...
@overload
def wrap_180(deg: Any) -> np.ndarray | float: ...
def wrap_180(deg: Any) -> np.ndarray | float:
    """Angle(s) wrapped into [-180, 180); a plain float for a scalar (0-d) input."""
    x = np.asarray(deg, dtype=float)
    out = x - 360.0 * np.floor((x + 180.0) / 360.0)  # floor is ~2x faster than float modulo
    return float(out) if np.ndim(out) == 0 else out


@overload
def angle_diff(a: float, b: float) -> float: ...
@overload
def angle_diff(a: Any, b: Any) -> np.ndarray | float: ...
def angle_diff(a: Any, b: Any) -> np.ndarray | float:
    """Signed shortest difference a - b in degrees, in [-180, 180); a plain float for scalars."""
    return wrap_180(np.asarray(a, dtype=float) - np.asarray(b, dtype=float))


def heading_within(heading_deg: Any, target_deg: float, tol_deg: float) -> np.ndarray:
    """|heading - target| <= tol on the circle; NaN is outside.

    Comparisons only (no float temporaries): on long traces this is several times faster than
    `abs(angle_diff(...)) <= tol`, whose large temporaries cost page faults.
    """
    h = np.asarray(heading_deg, dtype=float)
    if h.size and not (np.nanmin(h, initial=0.0) >= 0.0 and np.nanmax(h, initial=0.0) < 360.0):
        h = h - 360.0 * np.floor(h / 360.0)
    if tol_deg >= 180.0:
        return np.isfinite(h)
    lo = (target_deg - tol_deg) % 360.0
    hi = (target_deg + tol_deg) % 360.0
    if lo <= hi:
        return (h >= lo) & (h <= hi)
    return (h >= lo) | (h <= hi)


def in_band(x: Any, lo: float, hi: float) -> np.ndarray:
    """lo <= x <= hi elementwise, NaN outside; comparisons only, no float temporaries."""
    x = np.asarray(x, dtype=float)
    return (x >= lo) & (x <= hi)


def unwrap_heading(heading_deg: np.ndarray) -> np.ndarray:
    """Continuous heading (no jump at 359→0); NaN samples are carried through as NaN."""
    h = np.asarray(heading_deg, dtype=float)
    out = np.full_like(h, np.nan)
    ok = np.isfinite(h)
    if ok.any():
        out[ok] = np.degrees(np.unwrap(np.radians(h[ok])))
    return out


def heading_change(heading_deg: np.ndarray) -> float:
    """Signed total heading change in degrees (positive = right turn), ignoring NaN samples."""
    u = unwrap_heading(heading_deg)
    u = u[np.isfinite(u)]
    return float(u[-1] - u[0]) if u.size >= 2 else 0.0


# --------------------------------------------------------------------------- phases


@dataclass(frozen=True)
class Touchdown:
    t: float
    index: int
    vs_fpm: float
    lat_deg: float = math.nan
    lon_deg: float = math.nan


def _edges(cond: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indices where cond turns true (rising) and where it turns false (falling)."""
    c = cond.astype(np.int8)
    d = np.diff(c)
    return np.flatnonzero(d == 1) + 1, np.flatnonzero(d == -1) + 1


def _ground(on_ground: np.ndarray) -> np.ndarray:
    g = np.asarray(on_ground, dtype=float)
    # Missing samples inherit the last known value so a single dropout is no liftoff.
    if np.isnan(g).any():
        idx = np.where(np.isfinite(g), np.arange(g.size), 0)
        np.maximum.accumulate(idx, out=idx)
        g = g[idx]
    return g > 0.5


def liftoffs(t: np.ndarray, on_ground: np.ndarray, min_airborne_s: float = 3.0) -> list[float]:
    """Times the aircraft left the ground and stayed airborne at least `min_airborne_s`."""
    t = np.asarray(t, dtype=float)
    g = _ground(on_ground)
    if t.size < 2:
        return []
    air = runs(t, ~g)
    return [w.t0 for w in air if (w.i0 > 0 and g[w.i0 - 1]) and (w.duration_s >= min_airborne_s or w.i1 == t.size - 1)]


def touchdowns(
    t: np.ndarray,
    on_ground: np.ndarray,
    vs_fpm: np.ndarray,
    *,
    lat_deg: np.ndarray | None = None,
    lon_deg: np.ndarray | None = None,
    lookback_s: float = 0.5,
) -> list[Touchdown]:
    """Each air→ground transition with the sink rate at contact.

    The vertical speed is the most negative value in the `lookback_s` before contact: sampled
    logs often catch the first ground sample after the gear has already absorbed the sink.
    """
    t = np.asarray(t, dtype=float)
    g = _ground(on_ground)
    vs = np.asarray(vs_fpm, dtype=float)
    rise, _ = _edges(g)
    out = []
    for i in rise:  # one iteration per touchdown, not per sample
        m = (t >= t[i] - lookback_s) & (t <= t[i])
        seg = vs[m]
        seg = seg[np.isfinite(seg)]
        v = float(seg.min()) if seg.size else math.nan
        out.append(
            Touchdown(
                float(t[i]),
                int(i),
                v,
                float(lat_deg[i]) if lat_deg is not None else math.nan,
                float(lon_deg[i]) if lon_deg is not None else math.nan,
            )
        )
    return out


def takeoff_roll_start(
    t: np.ndarray, on_ground: np.ndarray, gs_kt: np.ndarray, liftoff_t: float, min_speed_kt: float = 5.0
) -> float | None:
    """Start of the ground run that ended in the liftoff at `liftoff_t`."""
    t = np.asarray(t, dtype=float)
    gs = np.asarray(gs_kt, dtype=float)
    slow = (t < liftoff_t) & ~(gs >= min_speed_kt)
    idx = np.flatnonzero(slow)
    if idx.size == 0:
        return float(t[0]) if t.size else None
    nxt = idx[-1] + 1
    return float(t[nxt]) if nxt < t.size else None


def level_off(
    t: np.ndarray,
    alt_ft: np.ndarray,
    target_ft: float,
    tol_ft: float,
    *,
    after_t: float = -math.inf,
    hold_s: float = 10.0,
    max_gap_s: float = math.inf,
) -> float | None:
    """First time after `after_t` the altitude enters target±tol and stays there `hold_s`."""
    t = np.asarray(t, dtype=float)
    a = np.asarray(alt_ft, dtype=float)
    with np.errstate(invalid="ignore"):
        cond = (np.abs(a - target_ft) <= tol_ft) & (t >= after_t)
    for w in segments(t, cond, max_gap_s):  # loop over windows, not samples
        if w.duration_s >= hold_s or w.i1 == t.size - 1:
            return w.t0
    return None


def first_reach(t: np.ndarray, x: np.ndarray, threshold: float, *, after_t: float = -math.inf) -> float | None:
    """First time x >= threshold after `after_t`."""
    t = np.asarray(t, dtype=float)
    x = np.asarray(x, dtype=float)
    with np.errstate(invalid="ignore"):
        return first_true(t, (x >= threshold) & (t >= after_t))


def stop_time(
    t: np.ndarray, speed: np.ndarray, *, after_t: float = -math.inf, threshold: float = 1.0, hold_s: float = 2.0
) -> float | None:
    """First time after `after_t` the speed falls below `threshold` and stays there `hold_s` (or to the end)."""
    t = np.asarray(t, dtype=float)
    s = np.asarray(speed, dtype=float)
    with np.errstate(invalid="ignore"):
        cond = (s < threshold) & (t >= after_t)
    for w in segments(t, cond):
        if w.duration_s >= hold_s or w.i1 == t.size - 1:
            return w.t0
    return None


@dataclass(frozen=True)
class Phases:
    takeoff_roll_t: float | None
    liftoff_t: float | None
    climb_t: float | None
    level_off_t: float | None
    touchdowns: list[Touchdown]
    stop_t: float | None


def detect_phases(
    t: np.ndarray,
    on_ground: np.ndarray,
    gs_kt: np.ndarray,
    alt_ft: np.ndarray,
    vs_fpm: np.ndarray,
    *,
    cruise_alt_ft: float | None = None,
    level_tol_ft: float = 100.0,
    climb_vs_fpm: float = 300.0,
) -> Phases:
    """Takeoff roll, liftoff, climb, level-off, touchdowns and final stop in one pass."""
    t = np.asarray(t, dtype=float)
    lifts = liftoffs(t, on_ground)
    lift = lifts[0] if lifts else None
    roll = takeoff_roll_start(t, on_ground, gs_kt, lift) if lift is not None else None
    climb = None
    if lift is not None:
        with np.errstate(invalid="ignore"):
            climb = first_true(t, (t >= lift) & (np.asarray(vs_fpm, dtype=float) >= climb_vs_fpm))
    lvl = None
    if cruise_alt_ft is not None and lift is not None:
        lvl = level_off(t, alt_ft, cruise_alt_ft, level_tol_ft, after_t=lift)
    tds = touchdowns(t, on_ground, vs_fpm)
    tds = [td for td in tds if lift is None or td.t > lift]
    stop = stop_time(t, gs_kt, after_t=tds[-1].t) if tds else None
    return Phases(roll, lift, climb, lvl, tds, stop)


# --------------------------------------------------------------------------- geometry


def latlon_to_local_m(lat_deg: Any, lon_deg: Any, lat0_deg: float, lon0_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """East/north metres from a reference point (equirectangular; < 0.1 % error within 50 km)."""
    lat = np.radians(np.asarray(lat_deg, dtype=float))
    lon = np.radians(np.asarray(lon_deg, dtype=float))
    lat0, lon0 = math.radians(lat0_deg), math.radians(lon0_deg)
    dlon = (lon - lon0 + np.pi) % (2 * np.pi) - np.pi
    east = EARTH_RADIUS_M * dlon * np.cos((lat + lat0) / 2)
    north = EARTH_RADIUS_M * (lat - lat0)
    return east, north


def haversine_m(lat1: Any, lon1: Any, lat2: Any, lon2: Any) -> np.ndarray | float:
    la1, lo1, la2, lo2 = (np.radians(np.asarray(v, dtype=float)) for v in (lat1, lon1, lat2, lon2))
    a = np.sin((la2 - la1) / 2) ** 2 + np.cos(la1) * np.cos(la2) * np.sin((lo2 - lo1) / 2) ** 2
    d = 2 * EARTH_RADIUS_M * np.arcsin(np.sqrt(np.clip(a, 0, 1)))
    return float(d) if np.ndim(d) == 0 else d


def initial_bearing_deg(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    la1, la2 = math.radians(lat1), math.radians(lat2)
    dlo = math.radians(lon2 - lon1)
    y = math.sin(dlo) * math.cos(la2)
    x = math.cos(la1) * math.sin(la2) - math.sin(la1) * math.cos(la2) * math.cos(dlo)
    return (math.degrees(math.atan2(y, x)) + 360.0) % 360.0


def points_in_polygon(x: Any, y: Any, polygon: Sequence[tuple[float, float]] | np.ndarray) -> np.ndarray:
    """Even-odd rule, vectorised over points (loop over polygon edges only). Edges count as inside."""
    px = np.atleast_1d(np.asarray(x, dtype=float))
    py = np.atleast_1d(np.asarray(y, dtype=float))
    poly = np.asarray(polygon, dtype=float)
    if poly.ndim != 2 or poly.shape[0] < 3 or poly.shape[1] != 2:
        raise ValueError("polygon must be a sequence of at least 3 (x, y) points")
    inside = np.zeros(px.shape, dtype=bool)
    on_edge = np.zeros(px.shape, dtype=bool)
    xj, yj = poly[-1]
    for xi, yi in poly:
        with np.errstate(invalid="ignore", divide="ignore"):
            crosses = ((yi > py) != (yj > py)) & (px < (xj - xi) * (py - yi) / (yj - yi) + xi)
        inside ^= crosses
        # on-segment test
        cross = (xj - xi) * (py - yi) - (yj - yi) * (px - xi)
        dot = (px - xi) * (px - xj) + (py - yi) * (py - yj)
        on_edge |= (np.abs(cross) <= 1e-9 * max(1.0, abs(xj - xi) + abs(yj - yi))) & (dot <= 1e-12)
        xj, yj = xi, yi
    res = (inside | on_edge) & np.isfinite(px) & np.isfinite(py)
    return res


def runway_polygon_m(
    thr_lat: float, thr_lon: float, end_lat: float, end_lon: float, width_m: float, lat0: float, lon0: float
) -> list[tuple[float, float]]:
    """Rectangle of a runway (threshold to opposite threshold, full width) in local metres."""
    (x1,), (y1,) = (np.atleast_1d(v) for v in latlon_to_local_m(thr_lat, thr_lon, lat0, lon0))
    (x2,), (y2,) = (np.atleast_1d(v) for v in latlon_to_local_m(end_lat, end_lon, lat0, lon0))
    dx, dy = x2 - x1, y2 - y1
    L = math.hypot(dx, dy)
    nx, ny = -dy / L * width_m / 2, dx / L * width_m / 2
    return [(x1 + nx, y1 + ny), (x2 + nx, y2 + ny), (x2 - nx, y2 - ny), (x1 - nx, y1 - ny)]


@dataclass(frozen=True)
class LegPosition:
    cross_track: np.ndarray  # signed, right of the leg positive
    along_track: np.ndarray  # from leg start, along the leg
    leg_length: float


def leg_position(x: Any, y: Any, ax: float, ay: float, bx: float, by: float) -> LegPosition:
    """Cross-track (right of A→B positive) and along-track distances of points to the leg A→B (planar)."""
    px = np.asarray(x, dtype=float)
    py = np.asarray(y, dtype=float)
    dx, dy = bx - ax, by - ay
    L = math.hypot(dx, dy)
    if L == 0:
        raise ValueError("leg has zero length")
    ux, uy = dx / L, dy / L
    rx, ry = px - ax, py - ay
    along = rx * ux + ry * uy
    cross = rx * uy - ry * ux  # positive to the right of the direction of travel (x east, y north)
    return LegPosition(cross, along, L)


def distance_to_point(x: Any, y: Any, cx: float, cy: float) -> np.ndarray:
    return np.hypot(np.asarray(x, dtype=float) - cx, np.asarray(y, dtype=float) - cy)


def cross_track_nm(lat: Any, lon: Any, a: tuple[float, float], b: tuple[float, float]) -> np.ndarray:
    """Great-circle cross-track distance (nm, right of A→B positive) of positions to the leg A→B."""
    lat = np.radians(np.asarray(lat, dtype=float))
    lon = np.radians(np.asarray(lon, dtype=float))
    la1, lo1 = map(math.radians, a)
    la2, lo2 = map(math.radians, b)
    d13 = 2 * np.arcsin(
        np.sqrt(np.sin((lat - la1) / 2) ** 2 + math.cos(la1) * np.cos(lat) * np.sin((lon - lo1) / 2) ** 2)
    )
    th13 = np.arctan2(
        np.sin(lon - lo1) * np.cos(lat), math.cos(la1) * np.sin(lat) - math.sin(la1) * np.cos(lat) * np.cos(lon - lo1)
    )
    th12 = math.atan2(
        math.sin(lo2 - lo1) * math.cos(la2),
        math.cos(la1) * math.sin(la2) - math.sin(la1) * math.cos(la2) * math.cos(lo2 - lo1),
    )
    xt = np.arcsin(np.sin(d13) * np.sin(th13 - th12))
    return xt * EARTH_RADIUS_M / M_PER_NM


# --------------------------------------------------------------------------- events


def count_events(
    events: Iterable[Any], kind: str, *, t0: float = -math.inf, t1: float = math.inf, where: Any = None
) -> int:
    """Number of events of `kind` in [t0, t1] (optionally filtered by a predicate on the event)."""
    n = 0
    for e in events:
        if e.kind == kind and t0 <= e.t <= t1 and (where is None or where(e)):
            n += 1
    return n


def merge_events(
    times: Sequence[float],
    positions: Sequence[tuple[float, float]] | None = None,
    *,
    window_s: float = 5.0,
    radius_m: float = 5.0,
) -> list[int]:
    """Indices of events kept after merging repeats within `window_s` and `radius_m` of the last kept
    one (ScenarioRunner's CollisionTest rule: one collision, not one per physics tick)."""
    kept: list[int] = []
    for i, ti in enumerate(times):
        if kept:
            j = kept[-1]
            near = True
            if positions is not None:
                near = math.dist(positions[i], positions[j]) <= radius_m
            if ti - times[j] <= window_s and near:
                continue
        kept.append(i)
    return kept
