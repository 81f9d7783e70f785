"""What a driver reads off the driving simulator's screenshot: the speed on the HUD, the lane
markings in the driver's view, the traffic-light lamps ahead, a vehicle in the lane ahead, and
the route on the heading-up minimap. Pixels in, numbers out.

Everything positional comes from the window's published layout (`adapters.drive.layout`: the
camera model, the flat scene colours, the HUD rows and font, the minimap's scale and ego
pixel); nothing from the simulator's state. Screenshots are BGR arrays (OpenCV's layout, as
`Screenshot.to_array()` returns them).
"""

from __future__ import annotations

import math
import os
import threading
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from simbridge.adapters.drive import layout as L
from simbridge.adapters.kit.pixels import colour_mask

#: per-channel tolerance of a "flat" scene colour (the scene is drawn without lighting or fog)
COLOUR_TOL = 6
#: the HUD panel's darkening of whatever lies under it (black at HUD_ALPHA)
HUD_KEEP = 1.0 - L.HUD_ALPHA / 255.0
_font_lock = threading.Lock()


def rgb_of(img_bgr: np.ndarray) -> np.ndarray:
    """int16 RGB view of a BGR screenshot (differences stay signed)."""
    return img_bgr[..., ::-1].astype(np.int16)


# --------------------------------------------------------------------------- speed and heading
class RowReader:
    """A HUD row's value by template matching: every text the row can show is rendered once in
    the HUD's font, right-aligned as the HUD draws it, and a screenshot's row is matched to the
    nearest (ink coverage against a fitted background)."""

    def __init__(self, row: str, texts: list[str], values: list[float]) -> None:
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        import pygame

        with _font_lock:
            if not pygame.font.get_init():
                pygame.font.init()
            font = pygame.font.Font(str(L.hud_font_path()), L.HUD_FONT_PX)
            surfs = [font.render(text, True, (255, 255, 255)) for text in texts]
            self.height = max(s.get_height() for s in surfs)
            self.width = max(s.get_width() for s in surfs) + 2
            self.templates = np.zeros((len(surfs), self.height, self.width), np.float32)
            for i, s in enumerate(surfs):
                a = pygame.surfarray.array_alpha(s).T.astype(np.float32) / 255.0
                h, w = a.shape
                self.templates[i, :h, self.width - w :] = a
        self.values = values
        self.x1 = L.HUD_VALUE_RIGHT_X_PX
        self.x0 = self.x1 - self.width
        self.y0 = L.HUD_ROW_Y_PX[row]
        self._t = self.templates.reshape(len(surfs), -1)
        self._one_minus = 1.0 - self._t

    def read(self, img_bgr: np.ndarray) -> float | None:
        """The row's value, or None when the row matches no text well."""
        region = img_bgr[self.y0 : self.y0 + self.height, self.x0 : self.x1]
        if region.shape[:2] != (self.height, self.width):
            return None
        obs = region.min(axis=-1).astype(np.float32).reshape(-1)  # white text: all channels high
        # per candidate: obs ~ 255 c + b (1 - c) with the background level b fitted
        resid_lin = obs[None, :] - 255.0 * self._t
        b = (resid_lin * self._one_minus).sum(axis=1) / np.maximum((self._one_minus**2).sum(axis=1), 1e-6)
        err = ((resid_lin - b[:, None] * self._one_minus) ** 2).mean(axis=1)
        k = int(np.argmin(err))
        if err[k] > 900.0:  # rms above 30 grey levels: not the row's text
            return None
        return self.values[k]


class SpeedReader(RowReader):
    """The HUD's speed, "%.0f km/h" from 0 to `max_kmh`."""

    def __init__(self, max_kmh: int = 250) -> None:
        fmt = L.HUD_FORMATS["speed"][1]
        super().__init__("speed", [fmt % v for v in range(max_kmh + 1)], [float(v) for v in range(max_kmh + 1)])


class HeadingReader(RowReader):
    """The HUD's compass heading (degrees, 0 = north, clockwise): "%.0f\N{DEGREE SIGN} %s" with
    manual_control's letters, every whole degree with each letter set it can show."""

    def __init__(self) -> None:
        fmt = L.HUD_FORMATS["heading"][1]
        texts: list[str] = []
        values: list[float] = []
        for deg in range(0, 361):
            for letters in sorted({L.compass_letters((deg + d) % 360.0) for d in (-0.45, -0.2, 0.0, 0.2, 0.45)}):
                text = fmt % (deg, letters)
                if text not in texts:
                    texts.append(text)
                    values.append(float(deg % 360))
        super().__init__("heading", texts, values)


@lru_cache(maxsize=1)
def speed_reader() -> SpeedReader:
    return SpeedReader()


def read_speed_kmh(img_bgr: np.ndarray) -> float | None:
    return speed_reader().read(img_bgr)


@lru_cache(maxsize=1)
def heading_reader() -> HeadingReader:
    return HeadingReader()


def read_heading_deg(img_bgr: np.ndarray) -> float | None:
    """The compass heading on the HUD (whole degrees), or None."""
    return heading_reader().read(img_bgr)


# ------------------------------------------------------------------------------- lane markings
@dataclass(frozen=True)
class LaneFit:
    """The ego's lane as seen in the view, in the eye's ground frame (metres).

    The lane centre's lateral position ahead is `centre_right_m(fwd) = a + b fwd + c fwd^2`
    (right of the eye, positive to the right)."""

    a_m: float
    b: float
    c_per_m: float
    width_m: float
    #: how many marking points support the left and the right boundary
    n_left: int
    n_right: int
    #: the farthest supporting marking point ahead (m): a fit of near points only (markings that
    #: end at a junction) says little about the curvature
    far_m: float = 0.0

    @property
    def offset_m(self) -> float:
        """The eye's (= the vehicle's) position right of the lane centre (negative: left of it)."""
        return -self.a_m

    @property
    def heading_deg(self) -> float:
        """The lane's direction relative to the vehicle heading (positive: the lane bears right)."""
        return math.degrees(math.atan(self.b))

    def centre_right_m(self, fwd_m: float) -> float:
        return self.a_m + self.b * fwd_m + self.c_per_m * fwd_m * fwd_m


#: marking colours in the view, and the same darkened where the HUD panel lies over the scene
_MARKS = (L.MARK_WHITE, L.MARK_YELLOW)


def _dimmed(c: tuple[int, int, int]) -> tuple[int, int, int]:
    return int(round(c[0] * HUD_KEEP)), int(round(c[1] * HUD_KEEP)), int(round(c[2] * HUD_KEEP))


_MARKS_UNDER_HUD = tuple(_dimmed(c) for c in _MARKS)


def marking_points(img_bgr: np.ndarray, near_m: float = 3.5, far_m: float = 40.0, step_px: int = 2) -> np.ndarray:
    """(n, 2) ground points (fwd_m, right_m) of lane-marking pixel runs on rows from `near_m`
    to `far_m` ahead: one point per run (its centre), runs wider than 0.6 m on the ground
    (stop lines, painted areas seen edge-on) dropped."""
    v_top = int(math.ceil(L.ground_row(far_m)))
    v_bot = int(math.floor(L.ground_row(near_m)))
    rows = np.arange(v_top, min(v_bot, L.HEIGHT - 1) + 1, step_px)
    sub = np.ascontiguousarray(img_bgr[rows])
    n_rows, n_cols = int(sub.shape[0]), int(sub.shape[1])
    mask = np.zeros((n_rows, n_cols), bool)
    for c in _MARKS:
        mask |= colour_mask(sub, c, COLOUR_TOL) > 0
    hx0, hy0, hw, hh = L.HUD_RECT
    under = (rows >= hy0) & (rows < hy0 + hh)
    if under.any():
        part = np.ascontiguousarray(sub[under, hx0 : hx0 + hw])
        m2 = np.zeros((int(part.shape[0]), int(part.shape[1])), bool)
        for dim in _MARKS_UNDER_HUD:
            m2 |= colour_mask(part, dim, COLOUR_TOL + 2) > 0
        mask[under, hx0 : hx0 + hw] = m2
    pts = []
    padded = np.zeros((n_rows, n_cols + 2), np.int8)
    padded[:, 1:-1] = mask
    edges = np.diff(padded, axis=1)
    for i, v in enumerate(rows):
        starts = np.flatnonzero(edges[i] == 1)
        ends = np.flatnonzero(edges[i] == -1)
        if len(starts) == 0:
            continue
        vc = v + 0.5
        dist = L.ground_distance_m(vc)
        if not math.isfinite(dist):
            continue
        px_per_m = L.FOCAL_PX / max(dist, 0.1)
        for s, e in zip(starts, ends):
            if (e - s) > 0.6 * px_per_m + 2:
                continue
            fwd, right = L.ground_point((s + e) / 2.0, vc)
            pts.append((fwd, right))
    return np.array(pts, np.float64).reshape(-1, 2)


_BIN_M = 0.1
#: a boundary needs this many marking points (rows) to count: a junction, where the view
#: paints no markings, leaves only a few stray ones
MIN_LINE_POINTS = 6


def _concentrate(f: np.ndarray, r: np.ndarray, bs: np.ndarray, cs: np.ndarray) -> tuple[float, float, float]:
    """(score, b, c) of the grid point whose residuals r - b f - c f^2 fall into the fewest
    _BIN_M bins (score: sum of squared bin counts)."""
    best = (-1.0, 0.0, 0.0)
    for c in cs:
        res = (r - c * f * f)[None, :] - bs[:, None] * f[None, :]  # (nb, n)
        idx = np.floor(res / _BIN_M).astype(np.int64)
        idx -= idx.min(axis=1, keepdims=True)
        span = int(idx.max()) + 1
        counts = np.bincount((idx + np.arange(len(bs))[:, None] * span).ravel(), minlength=len(bs) * span)
        scores = (counts.reshape(len(bs), span).astype(np.float64) ** 2).sum(axis=1)
        bi = int(np.argmax(scores))
        if scores[bi] > best[0]:
            best = (float(scores[bi]), float(bs[bi]), float(c))
    return best


def fit_lane(pts: np.ndarray, nominal_width_m: float = 3.5) -> LaneFit | None:
    """The ego's lane from marking points: the lines are parallel, so the common shape
    (slope b, curvature c) is the one under which the points' lateral residuals concentrate in
    the fewest 10 cm bins (a coarse grid, then a fine one round its best); the lane's
    boundaries are then the lines nearest either side of the eye, refined by least squares
    (shared b, c; one intercept per boundary)."""
    if len(pts) < 6:
        return None
    f, r = pts[:, 0], pts[:, 1]
    _, b0, c0 = _concentrate(f, r, np.linspace(-0.3, 0.3, 31), np.linspace(-1 / 100.0, 1 / 100.0, 21))
    best = _concentrate(f, r, b0 + np.linspace(-0.02, 0.02, 21), c0 + np.linspace(-1e-3, 1e-3, 11))
    _, b, c = best
    res = r - b * f - c * f * f
    # lines: peaks of the residual histogram (points within 0.25 m of a peak belong to it)
    order = np.sort(res)
    lines: list[float] = []
    start = 0
    for i in range(1, len(order) + 1):
        if i == len(order) or order[i] - order[i - 1] > 0.25:
            group = order[start:i]
            if len(group) >= 3:
                lines.append(float(np.median(group)))
            start = i
    left = [x for x in lines if x < 0 and (np.abs(res - x) < 0.25).sum() >= MIN_LINE_POINTS]
    right = [x for x in lines if x >= 0 and (np.abs(res - x) < 0.25).sum() >= MIN_LINE_POINTS]
    if not left and not right:
        return None
    a_l = max(left) if left else None
    a_r = min(right) if right else None
    # refine: shared (b, c), an intercept per boundary
    rows, ys, n_l, n_r = [], [], 0, 0
    far = {0: 0.0, 1: 0.0}
    for a0, col in ((a_l, 0), (a_r, 1)):
        if a0 is None:
            continue
        sel = np.abs(res - a0) < 0.25
        n = int(sel.sum())
        far[col] = float(f[sel].max())
        if col == 0:
            n_l = n
        else:
            n_r = n
        for fi, ri in zip(f[sel], r[sel]):
            rows.append([1.0 if col == 0 else 0.0, 1.0 if col == 1 else 0.0, fi, fi * fi])
            ys.append(ri)
    A, y = np.array(rows), np.array(ys)
    keep = [i for i, n in enumerate((n_l, n_r)) if n > 0]
    A = A[:, keep + [2, 3]]
    sol, *_ = np.linalg.lstsq(A, y, rcond=None)
    inter = dict(zip(keep, sol[: len(keep)]))
    b, c = float(sol[-2]), float(sol[-1])
    if 0 in inter and 1 in inter:
        width = float(inter[1] - inter[0])
        if not 2.2 < width < 5.0:  # two lines that are not one lane's boundaries: trust the nearer
            near = 0 if abs(inter[0]) < abs(inter[1]) else 1
            inter = {near: inter[near]}
            n_l, n_r = (n_l, 0) if near == 0 else (0, n_r)
            width = nominal_width_m
    else:
        width = nominal_width_m
    if 0 in inter and 1 in inter:
        a = 0.5 * (inter[0] + inter[1])
    elif 0 in inter:
        a = inter[0] + width / 2.0
    else:
        a = inter[1] - width / 2.0
    return LaneFit(float(a), b, c, width, n_l, n_r, max(far[k] for k in inter))


def fit_lane_near(
    pts: np.ndarray,
    a_m: float,
    b: float,
    c_per_m: float,
    width_m: float,
    tol_m: float = 0.3,
    tol_per_m: float = 0.01,
) -> LaneFit | None:
    """The lane predicted as `a_m + b fwd + c fwd^2` (its centre, right of the eye) and `width_m`
    wide, refitted to the marking points near its two predicted boundaries (within `tol_m` plus
    `tol_per_m` per metre ahead): a tracking fit, which the other lines of a junction (a ramp's
    diverging markings, the next lane's) do not pull away. None when neither boundary has
    MIN_LINE_POINTS points near it."""
    if len(pts) == 0:
        return None
    f, r = pts[:, 0], pts[:, 1]
    res = r - (a_m + b * f + c_per_m * f * f)
    tol = tol_m + tol_per_m * f
    sels = [np.abs(res + width_m / 2.0) < tol, np.abs(res - width_m / 2.0) < tol]
    counts = [int(sel.sum()) for sel in sels]
    keep = [k for k in (0, 1) if counts[k] >= MIN_LINE_POINTS]
    if not keep:
        return None
    rows: list[list[float]] = []
    ys: list[float] = []
    for k in keep:
        for fi, ri in zip(f[sels[k]], r[sels[k]]):
            rows.append([1.0 if k == kk else 0.0 for kk in keep] + [fi, fi * fi])
            ys.append(ri)
    sol, *_ = np.linalg.lstsq(np.array(rows), np.array(ys), rcond=None)
    inter = dict(zip(keep, sol[: len(keep)]))
    nb, nc = float(sol[-2]), float(sol[-1])
    if len(keep) == 2:
        width = float(inter[1] - inter[0])
        a = 0.5 * (inter[0] + inter[1])
    else:
        width = width_m
        a = inter[0] + width_m / 2.0 if 0 in inter else inter[1] - width_m / 2.0
    far = max(float(f[sels[k]].max()) for k in keep)
    n_l, n_r = (counts[0] if 0 in keep else 0), (counts[1] if 1 in keep else 0)
    return LaneFit(float(a), nb, nc, width, n_l, n_r, far)


def read_lane(img_bgr: np.ndarray, nominal_width_m: float = 3.5) -> LaneFit | None:
    return fit_lane(marking_points(img_bgr), nominal_width_m)


# ------------------------------------------------------------------------------- traffic lights
@dataclass(frozen=True)
class Lamp:
    """A lit lamp in the view: colour, pixel centre and radius, and its ground position from
    the row of its pole's foot (NaN when the foot is not found)."""

    colour: str
    u: float
    v: float
    radius_px: float
    fwd_m: float
    right_m: float


def _pole_foot_row(img_bgr: np.ndarray, u: float, v: float, r: float) -> int | None:
    """Lowest row of the dark housing-and-pole column under a lamp (pole and housing are
    drawn in near-black shades), walking down from the lamp with gaps of 2 rows at most."""
    half = max(2, int(math.ceil(r)))
    x0, x1 = max(0, int(u) - half), min(img_bgr.shape[1], int(u) + half + 1)
    dark = (img_bgr[:, x0:x1].max(axis=-1) <= 50).any(axis=1)
    row, gap, last = int(v + r) + 1, 0, None
    while row < img_bgr.shape[0]:
        if dark[row]:
            last, gap = row, 0
        elif last is not None or row > v + 4 * r + 6:
            gap += 1
            if gap > 2:
                break
        row += 1
    return last


def read_lamps(img_bgr: np.ndarray) -> list[Lamp]:
    """Every lit lamp above the horizon, nearest first (NaN distances last)."""
    import cv2

    v_max = int(L.HORIZON_ROW_PX) + 1
    sky = img_bgr[:v_max]
    out: list[Lamp] = []
    for name, colour in L.LAMP_COLOURS.items():
        mask = colour_mask(sky, colour, 12)
        mx, my, mw, mh = L.MINIMAP_RECT
        mask[my : my + mh, mx : mx + mw] = 0  # the minimap's own colours are not lamps
        if not mask.any():
            continue
        n, _, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
        for k in range(1, n):
            area = float(stats[k, cv2.CC_STAT_AREA])
            if area < 5:
                continue
            u, v = float(cents[k][0]) + 0.5, float(cents[k][1]) + 0.5
            r = math.sqrt(area / math.pi)
            foot = _pole_foot_row(img_bgr, u, v, r)
            fwd = right = float("nan")
            if foot is not None and foot + 1 > L.HORIZON_ROW_PX + 0.5:
                try:
                    fwd, _ = L.ground_point(u, foot + 1.0)
                    right = (u - L.CX_PX) / L.FOCAL_PX * fwd
                except ValueError:
                    pass
            out.append(Lamp(name, u, v, r, fwd, right))
    out.sort(key=lambda lp: (not math.isfinite(lp.fwd_m), lp.fwd_m if math.isfinite(lp.fwd_m) else 0.0))
    return out


# --------------------------------------------------------------------------------- vehicle ahead
_ROAD_LIKE = (L.ASPHALT, L.MARK_WHITE, L.MARK_YELLOW, L.STOP_LINE, L.ROAD_MARK, L.KERB, L.SIDEWALK, L.TERRAIN)


def obstacle_distance_m(img_bgr: np.ndarray, half_width_m: float = 1.3, far_m: float = 30.0) -> float | None:
    """Distance ahead of the nearest thing standing in the corridor straight ahead (anything that
    is not road surface, marking, kerb, sidewalk or terrain), or None when it is clear to `far_m`.

    Every other row from the nearest (3 m) out is one corridor's width at its distance; a row
    more than 30 % not road-like stands in it. The band of rows is classed at once (cv2.inRange
    per road colour) and each row's share counted from running sums: this runs on every frame."""
    rows = _corridor_rows(half_width_m, far_m, img_bgr.shape[1])
    if rows is None:
        return None
    vs, dists, x0s, x1s = rows
    v_lo, v_hi, c_lo, c_hi = int(vs[-1]), int(vs[0]), int(x0s.min()), int(x1s.max())
    band = np.ascontiguousarray(img_bgr[v_lo : v_hi + 1, c_lo:c_hi])
    road = np.zeros(band.shape[:2], np.uint8)
    for c in _ROAD_LIKE:
        road |= colour_mask(band, c, COLOUR_TOL)
    other = np.cumsum(road == 0, axis=1)  # non-road pixels up to and including each column
    r = vs - v_lo
    before = np.where(x0s > c_lo, other[r, np.maximum(x0s - 1 - c_lo, 0)], 0)
    blocked = np.nonzero((other[r, x1s - 1 - c_lo] - before) / (x1s - x0s) > 0.3)[0]
    return float(dists[blocked[0]]) if len(blocked) else None


@lru_cache(maxsize=16)
def _corridor_rows(half_width_m: float, far_m: float, width: int):
    """The rows `obstacle_distance_m` reads, nearest first: (rows, their ground distances, their
    corridors' first and end columns), or None when none is in view."""
    v_top = int(math.ceil(L.ground_row(far_m)))
    v_bot = min(L.HEIGHT - 41, int(L.ground_row(3.0)))  # above the notice strip
    rows = []
    for v in range(v_bot, v_top - 1, -2):
        dist = L.ground_distance_m(v + 0.5)
        half_px = half_width_m * L.FOCAL_PX / dist
        x0, x1 = int(L.CX_PX - half_px), min(width, int(L.CX_PX + half_px) + 1)
        x0 = max(x0, L.HUD_RECT[0] + L.HUD_RECT[2])
        if x1 > x0:
            rows.append((v, dist, x0, x1))
    if not rows:
        return None
    vs, dists, x0s, x1s = (np.array(col) for col in zip(*rows))
    for a in (vs, dists, x0s, x1s):
        a.flags.writeable = False
    return vs, dists, x0s, x1s


# ---------------------------------------------------------------------------------------- route
@dataclass(frozen=True)
class RoutePoint:
    """A point of the route drawn on the minimap, in the ego's frame (metres)."""

    fwd_m: float
    right_m: float

    @property
    def bearing_deg(self) -> float:
        return math.degrees(math.atan2(self.right_m, self.fwd_m))


def route_mask(img_bgr: np.ndarray) -> np.ndarray:
    """The route's pixels inside the minimap rectangle (window coordinates)."""
    x, y, w, h = L.MINIMAP_RECT
    out = np.zeros(img_bgr.shape[:2], bool)
    out[y : y + h, x : x + w] = colour_mask(np.ascontiguousarray(img_bgr[y : y + h, x : x + w]), L.ROUTE_RGB, 30) > 0
    return out


class RouteView:
    """The route's pixels on one minimap, queried by distance round the ego."""

    def __init__(self, mask: np.ndarray) -> None:
        ys, xs = np.nonzero(mask)
        ex, ey = L.MINIMAP_EGO_PX
        self.fwd_m = (ey - (ys + 0.5)) * L.MINIMAP_M_PER_PX
        self.right_m = (xs + 0.5 - ex) * L.MINIMAP_M_PER_PX
        self.dist_m = np.hypot(self.fwd_m, self.right_m)
        self.bearing_deg = np.degrees(np.arctan2(self.right_m, self.fwd_m))

    @classmethod
    def of(cls, img_bgr: np.ndarray) -> "RouteView":
        return cls(route_mask(img_bgr))

    @property
    def empty(self) -> bool:
        return len(self.dist_m) == 0

    def ahead(self, radius_m: float, max_bearing_deg: float = 120.0) -> RoutePoint | None:
        """Where the route crosses the circle of `radius_m` round the ego, taking the crossing
        most nearly straight ahead (the route behind the ego crosses the circle too), or None."""
        sel = np.abs(self.dist_m - radius_m) <= 1.5 * L.MINIMAP_M_PER_PX
        if not sel.any():
            return None
        fwd, right, bearing = self.fwd_m[sel], self.right_m[sel], self.bearing_deg[sel]
        # group the crossing pixels into arcs by bearing and take the arc nearest ahead
        order = np.argsort(bearing)
        groups: list[list[int]] = [[int(order[0])]]
        for i0, i1 in zip(order[:-1], order[1:]):
            if bearing[i1] - bearing[i0] > 8.0:
                groups.append([])
            groups[-1].append(int(i1))
        best = min(groups, key=lambda g: abs(float(np.mean(bearing[g]))))
        if abs(float(np.mean(bearing[best]))) > max_bearing_deg:
            return None
        return RoutePoint(float(np.mean(fwd[best])), float(np.mean(right[best])))

    def reach_m(self, max_m: float = 40.0, step_m: float = 1.0, min_m: float = 5.0) -> float:
        """How far the route goes on ahead of the ego, up to `max_m`: the largest circle the
        route still crosses ahead (the ego's own triangle hides the route within ~4 m); 0 when
        it does not cross even the smallest."""
        reach = 0.0
        r = min_m
        while r <= max_m + 1e-9:
            if self.ahead(r, max_bearing_deg=100.0) is None:
                break
            reach = r
            r += step_m
        return reach


# ------------------------------------------------------------------------------------- location
def _hblur(a: np.ndarray) -> np.ndarray:
    """A row image blurred along its rows ([1, 2, 1] / 4, twice)."""
    out = a.astype(np.float32)
    for _ in range(2):
        p = np.pad(out, ((0, 0), (1, 1)), mode="edge")
        out = 0.25 * p[:, :-2] + 0.5 * p[:, 1:-1] + 0.25 * p[:, 2:]
    return out


class LocationReader:
    """The HUD's location line, "(%.1f, %.1f)" (CARLA x, y in metres, 0.1 m steps).

    Too many texts to render them all, so a reading is a search over the line's characters,
    scored on the whole text (the line always starts with "(": rendering a candidate whole and
    right-aligning it, as the HUD blits it, reproduces the glyphs' places, kerning and trimmed
    bearings included). From the previous reading (the car moves a few centimetres a frame) the
    digits are re-chosen one at a time, right to left, twice over; without one, or when that
    does not fit, every layout of the two numbers (1-3 integer digits, with or without a sign)
    is tried, its digits chosen the same way."""

    #: mean squared error (grey levels^2) of a reading that fits (an exact match is ~0.1)
    MAX_ERR = 60.0
    #: how far each number may have moved since the previous reading (m)
    TRACK_M = 0.8

    def __init__(self) -> None:
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        import pygame

        with _font_lock:
            if not pygame.font.get_init():
                pygame.font.init()
            self._font = pygame.font.Font(str(L.hud_font_path()), L.HUD_FONT_PX)
        self._pg = pygame
        self.height = self._font.get_height()
        self._cache: dict[str, np.ndarray] = {}
        self.y0 = L.HUD_ROW_Y_PX["location"]
        self.x1 = L.HUD_VALUE_RIGHT_X_PX
        self.last: str | None = None

    def _alpha(self, text: str) -> np.ndarray:
        a = self._cache.get(text)
        if a is None:
            if len(self._cache) > 4096:
                self._cache.clear()
            with _font_lock:
                s = self._font.render(text, True, (255, 255, 255))
                a0 = self._pg.surfarray.array_alpha(s).T.astype(np.float32) / 255.0
            a = np.zeros((self.height, a0.shape[1]), np.float32)
            h = min(self.height, a0.shape[0])
            a[:h] = a0[:h]
            self._cache[text] = a
        return a

    def _err(self, row: np.ndarray, text: str) -> float:
        a = self._alpha(text)
        w = a.shape[1]
        if w > self.x1:
            return math.inf
        return float(((row[:, self.x1 - w : self.x1] - 255.0 * a) ** 2).mean())

    def _row(self, img_bgr: np.ndarray) -> np.ndarray:
        row = img_bgr[self.y0 : self.y0 + self.height, : self.x1].min(axis=-1).astype(np.float32)
        bg = float(np.median(row[:, self.x1 - 110 : self.x1]))  # the panel's dark background
        return np.clip(row - bg, 0.0, None) * (255.0 / max(255.0 - bg, 1.0))

    def _suffix_err(self, row: np.ndarray, suffix: str) -> float:
        """Squared error over the columns of `suffix` at the line's right end, rendered after a
        "(" (the line's own first glyph: the first glyph of a rendering loses its bearing)."""
        a = self._alpha("(" + suffix)
        k = a.shape[1] - self._alpha("(").shape[1] - 1
        if k <= 1 or k + 1 > self.x1:
            return math.inf
        # glyph places are rounded from fractional pen positions that depend on the whole line
        # (a glyph may sit a pixel off its place in a shorter text): compared blurred
        obs = _hblur(row[:, self.x1 - k : self.x1])
        best = float(((obs - 255.0 * _hblur(a[:, -k:])) ** 2).sum())
        return best

    def _beam(self, row: np.ndarray, width: int = 5) -> list[str]:
        """Right to left, the `width` best partial texts the format allows, each scored on its
        blurred rendering after a "(" (`_suffix_err`); the complete texts found, best first."""
        digits = list("0123456789")
        # a number right to left: d "." d then 1-3 more digits (or a sign) before its end
        states: list[tuple[float, str, int, int]] = [(0.0, ")", 0, 0)]  # err, suffix, number, step
        done: list[tuple[float, str]] = []
        for _ in range(16):
            nxt: list[tuple[float, str, int, int]] = []
            for _e, suf, num, stp in states:
                ends = [", ", "-, "] if num == 0 else ["(", "(-"]
                if stp == 0 or stp == 2:
                    opts = digits
                elif stp == 1:
                    opts = ["."]
                elif stp < 6:
                    opts = digits + ends
                else:
                    opts = ends
                for c in opts:
                    t = c + suf
                    e = self._suffix_err(row, t)
                    if c in ends:
                        if num == 1:
                            done.append((e, t))
                        else:
                            nxt.append((e, t, 1, 0))
                    else:
                        nxt.append((e, t, num, stp + 1))
            if not nxt:
                break
            nxt.sort(key=lambda st: st[0])
            states = nxt[:width]
        done.sort()
        return [t for _, t in done[:width]]

    def _descend(self, row: np.ndarray, text: str, passes: int = 2) -> tuple[float, str]:
        """Each digit re-chosen in turn, right to left, on the whole line's error."""
        best = (self._err(row, text), text)
        for _ in range(passes):
            for i in range(len(text) - 1, -1, -1):
                if not best[1][i].isdigit():
                    continue
                for d in "0123456789":
                    cand = best[1][:i] + d + best[1][i + 1 :]
                    e = self._err(row, cand)
                    if e < best[0]:
                        best = (e, cand)
            if best[0] <= self.MAX_ERR:
                break
        return best

    def _track(self, row: np.ndarray, last: str) -> str | None:
        """The text among the previous reading's neighbours (each number within TRACK_M of
        it, 0.1 m steps) that fits, or None."""
        x0, y0 = (float(v) for v in last[1:-1].split(", "))
        n = int(round(self.TRACK_M / 0.1))
        best = (math.inf, "")
        for dy in sorted(range(-n, n + 1), key=abs):
            for dx in sorted(range(-n, n + 1), key=abs):
                t = f"({x0 + dx * 0.1:.1f}, {y0 + dy * 0.1:.1f})".replace("-0.0", "0.0")
                e = self._err(row, t)
                if e < best[0]:
                    best = (e, t)
                    if e <= self.MAX_ERR:
                        return t
        return None

    def read_text(self, img_bgr: np.ndarray) -> str | None:
        """The location line's text, or None when no text of its format fits."""
        if img_bgr.shape[0] < self.y0 + self.height or img_bgr.shape[1] < self.x1:
            return None
        row = self._row(img_bgr)
        if self.last is not None:
            t = self._track(row, self.last)
            if t is not None:
                self.last = t
                return t
        t = None
        cands = self._beam(row)
        # a minus sign, blurred, is near a "1": each candidate with its numbers' leading 1s signed too
        for base in list(cands):
            for a, b in (("(1", "(-"), (", 1", ", -")):
                if a in base:
                    cands.append(base.replace(a, b, 1))
            if "(1" in base and ", 1" in base:
                cands.append(base.replace("(1", "(-", 1).replace(", 1", ", -", 1))
        for cand in cands:
            e, cand = self._descend(row, cand, passes=1)
            if e <= self.MAX_ERR:
                t = cand
                break
        if t is None:
            self.last = None
            return None
        self.last = t
        return t

    def read(self, img_bgr: np.ndarray) -> tuple[float, float] | None:
        """(x_m, y_m) in CARLA's world frame as the HUD prints it, or None."""
        text = self.read_text(img_bgr)
        if text is None:
            return None
        xs, ys = text[1:-1].split(", ")
        return float(xs), float(ys)


# ------------------------------------------------------------------------------- painted areas
def road_mark_points(img_bgr: np.ndarray, near_m: float = 1.8, far_m: float = 40.0) -> np.ndarray:
    """(n, 2) ground points (fwd_m, right_m) of the pixels painted in ROAD_MARK (a task area
    outlined on the road, e.g. T07's parking bay) from `near_m` to `far_m` ahead, outside the
    HUD, the minimap and the notice strip."""
    v_top = int(math.ceil(L.ground_row(far_m)))
    v_bot = min(L.NOTICE_RECT[1] - 1, int(L.ground_row(near_m)))
    sub = np.ascontiguousarray(img_bgr[v_top : v_bot + 1])
    mask = colour_mask(sub, L.ROAD_MARK, 3) > 0
    hx0, _, hw, _ = L.HUD_RECT
    mask[:, hx0 : hx0 + hw] = False
    mx, my, mw, mh = L.MINIMAP_RECT
    mask[max(0, my - v_top) : max(0, my + mh - v_top), mx : mx + mw] = False
    rows, cols = np.nonzero(mask)
    if len(rows) == 0:
        return np.zeros((0, 2))
    v = rows + v_top + 0.5
    u = cols + 0.5
    pitch = math.radians(L.PITCH_DOWN_DEG)
    x, y = (u - L.CX_PX) / L.FOCAL_PX, -(v - L.CY_PX) / L.FOCAL_PX
    fwd = math.cos(pitch) + y * math.sin(pitch)
    up = -math.sin(pitch) + y * math.cos(pitch)
    ok = up < -1e-6
    t = L.EYE_HEIGHT_M / -up[ok]
    return np.column_stack([fwd[ok] * t, x[ok] * t])


@lru_cache(maxsize=1)
def location_reader() -> LocationReader:
    return LocationReader()


# ------------------------------------------------------------------------------------ walkers
@dataclass(frozen=True)
class Walker:
    """A pedestrian in the view: its head's pixel and its feet's ground position (metres from
    the eye; NaN when the feet are not found)."""

    u: float
    v: float
    fwd_m: float
    right_m: float


def read_walkers(img_bgr: np.ndarray) -> list[Walker]:
    """Every pedestrian whose head (a WALKER_HEAD disc) shows in the view, nearest first. The
    feet are the lowest row of the body under the head (walking down its column until the
    road, kerb, sidewalk or terrain shows); their ground point comes from the camera model."""
    import cv2

    mask = colour_mask(img_bgr, L.WALKER_HEAD, 4)
    hx, hy, hw, hh = L.HUD_RECT
    mask[hy : hy + hh, hx : hx + hw] = 0
    mx, my, mw, mh = L.MINIMAP_RECT
    mask[my : my + mh, mx : mx + mw] = 0
    mask[L.NOTICE_RECT[1] :] = 0
    if not mask.any():
        return []
    n, _, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    out: list[Walker] = []
    ground = np.array(_ROAD_LIKE, np.int16)
    for k in range(1, n):
        u, v = float(cents[k][0]) + 0.5, float(cents[k][1]) + 0.5
        bottom = int(stats[k, cv2.CC_STAT_TOP] + stats[k, cv2.CC_STAT_HEIGHT])
        col = int(u)
        fwd = right = float("nan")
        row, last = bottom, None
        while row < L.NOTICE_RECT[1]:
            px = rgb_of(img_bgr[row : row + 1, col : col + 1])[0, 0]
            if (np.abs(ground - px) <= COLOUR_TOL).all(axis=-1).any():
                break
            last = row
            row += 1
        if last is not None and last + 1 > L.HORIZON_ROW_PX + 0.5:
            try:
                fwd, right = L.ground_point(u, last + 1.0)
            except ValueError:
                pass
        out.append(Walker(u, v, fwd, right))
    out.sort(key=lambda w: (not math.isfinite(w.fwd_m), w.fwd_m if math.isfinite(w.fwd_m) else 0.0))
    return out
