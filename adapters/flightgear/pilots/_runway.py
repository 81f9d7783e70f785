"""The runway ahead, read from FlightGear's cockpit window (the c172p's default view at
1280x800): how far the eye is to the right of the runway's centreline, from the runway's edges
alone.

On the ground plane a line `e` metres to the side of the eye, `h` below it, images as a line
through the runway's vanishing point whose run per row is `e / h` (times the cosine of the
camera's pitch, for any yaw: the pinhole camera's plane through the eye and the line). The two
edges of a runway `W` wide are `e - W/2` and `e + W/2` to the side: the centre's run over the
edges' spread is `e / W`. So the offset comes from the edges' slopes and the runway's width
only: no horizon, no height, no camera pitch. The image is levelled first by the bank the
attitude indicator shows.

The asphalt is FlightGear's runway texture: grey with no colour (the grass is green, the sea
teal, the sky blue, the glareshield black). The runway is the grey region in the column band
where the reckoning puts it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

#: the window above the glareshield, in screen pixels (x0, y0, x1, y1)
WINDOW = (0, 150, 1280, 380)
#: the view's optical centre and focal length in pixels (c172p-views.xml: 73.6° across 1280 px)
CENTRE_PX = (640.0, 400.0)
FOCAL_PX = 640.0 / math.tan(math.radians(73.6 / 2.0))
#: asphalt: the channels within this much of each other, the mean within this range
GREY_CHROMA, GREY_RANGE = 12, (38.0, 72.0)
#: rows of the runway at least this wide (px) count toward its edges
MIN_ROW_PX = 4
MIN_ROWS = 6
#: a fitted edge keeps the rows within this many pixels of its first line
EDGE_TOL_PX = 3.0


@dataclass(frozen=True)
class RunwaySight:
    """What the window shows of the runway: the eye's offset right of its centreline, the
    height the edges' spread implies (a check against the altimeter) and the rows used."""

    right_m: float
    height_m: float
    rows: int


def asphalt_mask(rgb: np.ndarray) -> np.ndarray:
    """Grey pixels of the runway's texture."""
    px = rgb.astype(np.int16)
    chroma = px.max(axis=2) - px.min(axis=2)
    mean = px.mean(axis=2)
    return (chroma < GREY_CHROMA) & (mean > GREY_RANGE[0]) & (mean < GREY_RANGE[1])


def _fit(v: np.ndarray, u: np.ndarray) -> tuple[float, float, int] | None:
    """u = a + b v through the most rows (within EDGE_TOL_PX of a line through two of them),
    refitted on those by least squares: rows where a taxiway joins or a marking breaks the edge
    fall out."""
    n = len(v)
    if n < MIN_ROWS:
        return None
    best: np.ndarray | None = None
    for i in range(n):
        for j in range(i + 1, n):
            if abs(v[j] - v[i]) < 3.0:
                continue
            b = (u[j] - u[i]) / (v[j] - v[i])
            keep = np.abs(u - (u[i] + b * (v - v[i]))) <= EDGE_TOL_PX
            if best is None or keep.sum() > best.sum():
                best = keep
    if best is None or best.sum() < MIN_ROWS:
        return None
    b, a = np.polyfit(v[best], u[best], 1)
    return float(a), float(b), int(best.sum())


def _runs(row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The runs of True in `row`: (first columns, one past the last columns)."""
    edges = np.flatnonzero(np.diff(np.concatenate(([0], row.astype(np.int8), [0]))))
    return edges[0::2], edges[1::2]


def _tracked_runs(region: np.ndarray, u_start: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The runway's run in each row of `region` (a mask), followed up from its nearest (lowest)
    row: there the run nearest `u_start`, above it the run overlapping the row below most. A
    crossing runway or a taxiway that joins widens a few rows; the edge fit drops them.
    Returns (rows, first column, one past the last), rows at least MIN_ROW_PX wide."""
    rows, lefts, rights = [], [], []
    prev: tuple[int, int] | None = None
    for y in np.nonzero(region.any(axis=1))[0][::-1]:
        starts, ends = _runs(region[y])
        if prev is None:
            wide = ends - starts >= MIN_ROW_PX
            if not wide.any():
                continue
            centre = (starts + ends) / 2.0
            k = int(np.argmin(np.where(wide, np.abs(centre - u_start), np.inf)))
        else:
            overlap = np.minimum(ends, prev[1]) - np.maximum(starts, prev[0])
            k = int(np.argmax(overlap))
            if overlap[k] <= 0:
                break
        prev = (int(starts[k]), int(ends[k]))
        if prev[1] - prev[0] >= MIN_ROW_PX:
            rows.append(y)
            lefts.append(prev[0])
            rights.append(prev[1])
    return np.asarray(rows, dtype=float), np.asarray(lefts, dtype=float), np.asarray(rights, dtype=float)


def see_runway(
    window: np.ndarray, bank_deg: float, bearing_deg: float, width_m: float, band_deg: float = 8.0
) -> RunwaySight | None:
    """The runway `width_m` wide that bears `bearing_deg` right of the nose, in `window` (the
    screen's WINDOW region, RGB or BGR), the aircraft banked `bank_deg` (right wing down
    positive); None if no grey region there has two straight edges."""
    x0, y0 = WINDOW[0], WINDOW[1]
    # opened: one-pixel links to the grey clutter along the horizon broken
    opened = cv2.morphologyEx(asphalt_mask(window).astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels = cv2.connectedComponents(opened, connectivity=8)
    if n <= 1:
        return None
    u_pred = CENTRE_PX[0] + FOCAL_PX * math.tan(math.radians(bearing_deg)) - x0
    half = FOCAL_PX * math.tan(math.radians(band_deg))
    lo, hi = int(max(0, u_pred - half)), int(min(opened.shape[1], u_pred + half))
    if hi <= lo:
        return None
    # the region in the band whose run, followed up from its nearest row there, is longest
    best: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    for label in np.unique(labels[:, lo:hi]):
        if label == 0:
            continue
        region = labels == label
        runs = _tracked_runs(region, u_pred)
        if (
            len(runs[0])
            and lo <= (runs[1][0] + runs[2][0]) / 2.0 <= hi
            and (best is None or len(runs[0]) > len(best[0]))
        ):
            best = runs
    if best is None or len(best[0]) < MIN_ROWS:
        return None
    ys, left, right = best
    # levelled: the edge points turned about the optical centre by the bank
    v = ys + y0 - CENTRE_PX[1]
    ul = left + x0 - CENTRE_PX[0]
    ur = right + x0 - CENTRE_PX[0]
    c, s = math.cos(math.radians(bank_deg)), math.sin(math.radians(bank_deg))

    def level(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return u * s + v * c, u * c - v * s

    fl = _fit(*level(ul))
    fr = _fit(*level(ur))
    if fl is None or fr is None:
        return None
    spread = fr[1] - fl[1]  # the edges' run per row apart: positive, the runway widening downward
    if spread <= 0.05:
        return None
    centre = (fl[1] + fr[1]) / 2.0
    return RunwaySight(
        right_m=-width_m * centre / spread,
        height_m=width_m / spread,
        rows=min(fl[2], fr[2]),
    )
