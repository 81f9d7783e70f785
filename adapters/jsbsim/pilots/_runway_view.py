"""The runway out of the window, as a pilot on final judges it: where the runway is relative
to the aircraft on the ground (how far left or right of its centreline, how far to its near
end, which way it points), read from the view's pixels through the cockpit's published view
geometry (`layout`: VIEW, VIEW_CENTRE, FOCAL_PX and the runway's grey and marking white).

Each runway pixel's line of sight is turned into the point of flat ground it sees, given the
attitude (bank and pitch, from the horizon) and the height above the field: ground metres
ahead (`x`, horizontally along the nose) and to the right (`y`). Every piece of a flat runway
seen in perspective is drawn with a pixel density that depends only on its distance ahead, so
the pixels' centroid lies on the runway's centreline; the cloud's long axis is the runway's
direction once the runway spans enough of the view.

An airport with more than one runway (PHJR: 04R, its parallel 04L 190 m to the left, and 11/29
crossing both) shows them all in the same grey. Only the pavement strip lined up with the runway
being flown counts (`runway_strip`): the runway pixels' distances across the direction the pilot
believes the runway points (the heading indicator's, searched a few degrees either side) pile
up in one narrow strip per runway of that direction, a crossing runway's spread wide; of the
strips the one the designator names is kept (04R: the rightmost of the parallels), else the
nearest to the aircraft (the one it is lined up with), with its own pixels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from simbridge.adapters.jsbsim.pilots._layout import L
from simbridge.adapters.kit.pixels import colour_mask

#: the pilot's eye above the altimeter's reading (ft)
EYE_ABOVE_FT = 1.5
#: the runway surface and its markings as the view draws them (RGB)
RUNWAY_GREY = (70, 70, 74)
MARKING_WHITE = (235, 235, 235)


@dataclass(frozen=True)
class RunwaySight:
    """The runway seen from the aircraft, in metres on the ground (x ahead along the nose,
    y to the right). `offset_m`: the aircraft's distance right of the centreline (negative:
    left of it), measured along `axis_deg` (the runway direction relative to the nose, + right)
    given by the caller or, with `axis_from_view`, from the runway's own shape. `near_m`: ground
    distance ahead to the nearest runway pixel (None when that pixel is at the view's lower
    edge: the near end is under the nose). `pixels`: how many runway pixels were seen."""

    offset_m: float
    axis_deg: float
    axis_from_view: float | None
    near_m: float | None
    far_m: float
    centroid: tuple[float, float]
    pixels: int
    #: the runway's width on the ground as seen (m; None when too few pixels across to say):
    #: the pixels spread evenly across it, so sqrt(12) standard deviations of their distance
    #: across the runway's direction; scales with the height given (too low a height, too narrow)
    width_m: float | None = None


def runway_mask(img: np.ndarray, step: int = 1) -> np.ndarray:
    """Runway pixels (surface grey or marking white) of the out-the-window view (BGR image),
    every `step`-th row and column: within 18 of the grey (the channels' absolute differences
    summed) or within 10 of the white in every channel."""
    return _runway_mask_u8(img, step) != 0


def _runway_mask_u8(img: np.ndarray, step: int) -> np.ndarray:
    """`runway_mask` as 255/0, read with cv2 as this runs on every frame of a final: the grey's
    box (17 either side in each channel) holds every pixel near it, and the few inside are
    held to the summed difference exactly."""
    x0, y0, w, h = L.VIEW
    view = img[y0 : y0 + h : step, x0 : x0 + w : step]
    if step != 1:
        view = np.ascontiguousarray(view)
    mask = colour_mask(view, MARKING_WHITE, 9)
    grey = colour_mask(view, RUNWAY_GREY, 17)
    rows, cols = _nonzero(grey)
    if len(rows):
        diff = np.abs(view[rows, cols].astype(np.int16) - np.array(RUNWAY_GREY[::-1], np.int16)).sum(axis=1)
        far = diff >= 18
        grey[rows[far], cols[far]] = 0
    return cv2.bitwise_or(mask, grey)


def _nonzero(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.nonzero of a 2-D uint8 mask (rows, columns, in row-major order), by cv2.findNonZero:
    a mask of a few runway pixels is scanned some 50 times faster."""
    pts = cv2.findNonZero(mask)
    if pts is None:
        return np.empty(0, np.intp), np.empty(0, np.intp)
    pts = pts.reshape(-1, 2).astype(np.intp)
    return pts[:, 1], pts[:, 0]


def ground_points(us: np.ndarray, vs: np.ndarray, bank_deg: float, pitch_deg: float, height_m: float):
    """Flat-ground (x ahead, y right) metres seen by screen pixels (u, v); rays at or above the
    horizon give NaN. The camera's rotation is the view's (yaw 0, pitch, bank)."""
    th, ph = math.radians(pitch_deg), math.radians(bank_deg)
    cth, sth, cph, sph = math.cos(th), math.sin(th), math.cos(ph), math.sin(ph)
    # body-from-level rotation (heading 0), rows: body x, y, z
    R = np.array(
        [
            [cth, 0.0, -sth],
            [sph * sth, cph, sph * cth],
            [cph * sth, -sph, cph * cth],
        ]
    )
    cx, cy = L.VIEW_CENTRE
    f = L.FOCAL_PX
    cam = np.stack([np.ones_like(us, dtype=np.float64), (us - cx) / f, (vs - cy) / f])
    w = R.T @ cam  # level frame: north = ahead, east = right, down
    with np.errstate(divide="ignore", invalid="ignore"):
        ok = w[2] > 1e-4
        x = np.where(ok, height_m * w[0] / w[2], np.nan)
        y = np.where(ok, height_m * w[1] / w[2], np.nan)
    return x, y


#: half the width (m, on the ground) of the strip kept around the runway's centreline: a runway's
#: half-width plus a margin for pixels at range, well inside the 190 m between parallel runways
STRIP_HALF_M = 50.0
#: the runway direction is searched this far (deg) either side of the believed one, in steps
AXIS_SEARCH_DEG, AXIS_STEP_DEG = 6.0, 0.5
#: a strip counts as a runway when it holds at least this share of the strongest strip's pixels
STRIP_SHARE = 0.5
_BIN_M = 10.0
_SPAN_M = 5000.0  # strips farther across than this are not looked for


def runway_strip(x: np.ndarray, y: np.ndarray, axis_deg: float, side: str = "") -> np.ndarray:
    """Which ground points (x ahead, y right, m) belong to the runway lined up with the
    direction `axis_deg` (relative to the nose, + right): the direction, within
    AXIS_SEARCH_DEG of it, along which the points pile up most in a strip STRIP_HALF_M either
    side of a line, and of that direction's strips (local maxima holding STRIP_SHARE of the
    largest) the one the runway's designator names among parallels (`side` "L" or "R": the
    leftmost or rightmost), else the one the aircraft is nearest to across the runway."""
    if len(x) < 3:
        return np.ones(len(x), dtype=bool)
    half_bins = int(round(STRIP_HALF_M / _BIN_M))
    kernel = np.ones(2 * half_bins + 1)
    best: tuple[float, np.ndarray, float] | None = None  # (peak count, smoothed histogram, angle)
    lo = 0
    # the believed direction first, then farther either side: another direction is taken only
    # when its strip holds clearly more (far out, where the runway is a few rows, they all tie)
    steps = np.arange(-AXIS_SEARCH_DEG, AXIS_SEARCH_DEG + 1e-9, AXIS_STEP_DEG)
    for d in sorted(steps, key=abs):
        phi = math.radians(axis_deg + float(d))
        c = x * math.sin(phi) - y * math.cos(phi)  # the aircraft's distance right of each point's line
        b = np.floor(np.clip(c, -_SPAN_M, _SPAN_M) / _BIN_M).astype(np.int64)
        b0 = int(b.min())
        hist = np.bincount(b - b0).astype(np.float64)
        counts = np.convolve(hist, kernel)[half_bins : half_bins + len(hist)]  # pixels within the strip
        peak = float(counts.max())
        if best is None or peak > 1.05 * best[0]:
            best, lo = (peak, counts, phi), b0
    assert best is not None
    peak, counts, phi = best
    left = np.concatenate([[-1.0], counts[:-1]])
    right = np.concatenate([counts[1:], [-1.0]])
    maxima = np.nonzero((counts >= left) & (counts > right) & (counts >= STRIP_SHARE * peak))[0]
    strips: list[float] = []  # one centre per runway, the strongest of maxima closer than a runway apart
    for i in sorted(maxima, key=lambda i: -counts[i]):
        centre = (i + lo + 0.5) * _BIN_M
        if all(abs(centre - o) > 2 * STRIP_HALF_M for o in strips):
            strips.append(centre)
    if side == "R":  # the rightmost: the aircraft farthest left of it
        c0 = min(strips)
    elif side == "L":
        c0 = max(strips)
    else:
        c0 = min(strips, key=abs)
    c = x * math.sin(phi) - y * math.cos(phi)
    near = np.abs(c - c0) <= STRIP_HALF_M
    c0 = float(c[near].mean())  # centred on the strip's own pixels (a flat maximum is wide)
    return np.abs(c - c0) <= STRIP_HALF_M


def see_runway(
    img: np.ndarray,
    bank_deg: float,
    pitch_deg: float,
    height_m: float,
    axis_deg: float,
    *,
    min_pixels: int = 2,
    side: str = "",
) -> RunwaySight | None:
    """The runway relative to the aircraft (see `RunwaySight`), or None when none is in view.
    `axis_deg` is the runway direction relative to the nose the caller believes (from the
    heading indicator); `axis_from_view` is the direction the runway's shape shows, when it is
    long enough on the ground seen to say (else None). `side`: "L" or "R" when the runway is
    the left or right one of parallels (its designator's letter; see `runway_strip`)."""
    step = 3  # a runway seen large is read on a coarse grid (its shape needs no more), a small one whole
    vs, us = _nonzero(_runway_mask_u8(img, step))
    if len(us) < 300:
        step = 1
        vs, us = _nonzero(_runway_mask_u8(img, 1))
    if len(us) < min_pixels:
        return None
    vs, us = vs * step, us * step
    x0, y0, _, h = L.VIEW
    x, y = ground_points(
        us.astype(np.float64) + x0 + 0.5, vs.astype(np.float64) + y0 + 0.5, bank_deg, pitch_deg, height_m
    )
    ok = np.isfinite(x) & (x > 0)
    if ok.sum() < min_pixels:
        return None
    x, y, vv = x[ok], y[ok], vs[ok]
    keep = runway_strip(x, y, axis_deg, side)  # the runway flown, not a parallel or crossing one
    if keep.sum() < min_pixels:
        return None
    x, y, vv = x[keep], y[keep], vv[keep]
    cx_, cy_ = float(x.mean()), float(y.mean())
    axis_view = None
    if len(x) >= 300:
        dx, dy = x - cx_, y - cy_
        sxx, syy, sxy = float((dx * dx).mean()), float((dy * dy).mean()), float((dx * dy).mean())
        lam1 = 0.5 * (sxx + syy) + math.sqrt(0.25 * (sxx - syy) ** 2 + sxy * sxy)
        lam2 = 0.5 * (sxx + syy) - math.sqrt(0.25 * (sxx - syy) ** 2 + sxy * sxy)
        if lam2 > 0 and lam1 / lam2 > 25.0:
            a = 0.5 * math.atan2(2.0 * sxy, sxx - syy)  # from +x towards +y
            axis_view = math.degrees(a)
    phi = math.radians(axis_deg if axis_view is None else axis_view)
    width = float(math.sqrt(12.0) * np.std(x * math.sin(phi) - y * math.cos(phi))) if len(x) >= 300 else None
    phi = math.radians(axis_deg)
    offset = cx_ * math.sin(phi) - cy_ * math.cos(phi)
    at_bottom = bool((vv >= h - 1 - step).any())
    return RunwaySight(
        offset_m=offset,
        axis_deg=axis_deg,
        axis_from_view=axis_view,
        near_m=None if at_bottom else float(x.min()),
        far_m=float(x.max()),
        centroid=(cx_, cy_),
        pixels=int(len(x)),
        width_m=width,
    )


#: the runway's picture is judged between these distances (m) to its near end on short final (its
#: width then reads within about 2 %); the chart's elevation is kept unless the picture says it
#: is more than ELEV_TRUST_FT off (the reading's own uncertainty there), from PICTURE_SAMPLES looks
PICTURE_NEAR_M = (100.0, 600.0)
ELEV_TRUST_FT = 5.0
PICTURE_SAMPLES = 5


class FieldPicture:
    """The field's elevation as the runway's picture shows it: a runway of the charted width
    seen narrower than it is on the ground at the height the altimeter gives (less the charted
    elevation) means the aircraft is lower than that (`see_runway`'s width scales with the
    height given). T03@PHJR's chart says 12 ft while the cockpit's ground there is at 20 ft
    (apt.dat's field elevation): on the chart's figure the landing pilot's flare came too late
    and its touchdown was never noticed."""

    def __init__(self, chart_elevation_ft: float, chart_width_m: float) -> None:
        self.chart_ft = self.elevation_ft = chart_elevation_ft
        self.width_m = chart_width_m
        self.seen: list[float] = []

    def look(self, alt_ft: float, eye_ft: float, sight: "RunwaySight | None") -> float:
        """One look at the runway (`eye_ft`: the eye's height the sight was computed with);
        returns the field elevation to fly by."""
        if sight is None or not sight.width_m or not self.width_m or sight.near_m is None:
            return self.elevation_ft
        if not PICTURE_NEAR_M[0] < sight.near_m < PICTURE_NEAR_M[1]:
            return self.elevation_ft
        self.seen.append(alt_ft + EYE_ABOVE_FT - eye_ft * self.width_m / sight.width_m)
        if len(self.seen) >= PICTURE_SAMPLES:
            est = float(sorted(self.seen)[len(self.seen) // 2])
            self.elevation_ft = est if abs(est - self.chart_ft) > ELEV_TRUST_FT else self.chart_ft
        return self.elevation_ft
