"""The c172p's six-pack on FlightGear 2020.3, read from pixels of the default cockpit view at
1280x800 (Xvfb/Mesa): airspeed and altimeter needles, the attitude indicator's sky, the heading
indicator's card. Checked against the simulator's own values on real screenshots
(`tests/agents/test_fg_gauges.py`, crops in `tests/fixtures/flightgear_t09/`).

- Needles are white rays on a black face: the needle is the direction whose *darkest* pixel
  along a radial band is brightest (numbers and tick marks light only part of a ray).
- The attitude indicator's ground half is as dark as its case, so the sky (blue) alone is
  used: its centroid's direction from the centre gives the bank, its share of the window the
  pitch. FlightGear draws the sphere vertically stretched in this view (a horizon at 31° bank
  shows at about 44°), so the angle is mapped back with `AI_STRETCH`.
- The heading indicator's card turns under a fixed lubber line: the card's ring, unrolled in
  polar coordinates, is compared with the ring of an earlier frame by circular
  cross-correlation. That gives the heading change, which is all a 360° turn needs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

#: the region of the screen the pilot grabs (x0, y0, x1, y1): the six-pack only
REGION = (480, 390, 780, 600)
#: gauge centres in screen pixels (default c172p view, 1280x800)
CENTRES: dict[str, tuple[int, int]] = {
    "asi": (525, 437),
    "ai": (628, 435),
    "alt": (727, 437),
    "dg": (627, 553),
    "tach": (531, 657),
}
#: radial bands (px) where only the needle that matters crosses: the altimeter's long
#: (100 ft) needle reaches past the short one's tip
NEEDLE_BANDS: dict[str, tuple[float, float]] = {"alt": (12.0, 26.0), "asi": (8.0, 22.0), "tach": (10.0, 22.0)}
#: airspeed-indicator dial: kt at a needle angle (clockwise from 12 o'clock) and kt per degree,
#: fitted over 68-99 kt
ASI_REF_DEG, ASI_REF_KT, ASI_KT_PER_DEG = 112.0, 68.7, 0.361
#: FlightGear's vertical stretch of the attitude sphere in this view: tan(shown) = k tan(bank)
AI_STRETCH = 1.8
AI_RADIUS_PX = 25
DG_BAND_PX = (20.0, 31.0)


def _lum(bgr: np.ndarray) -> np.ndarray:
    return bgr.astype(np.float32).mean(axis=2)


def _local(origin: tuple[int, int], name: str) -> tuple[float, float]:
    cx, cy = CENTRES[name]
    return float(cx - origin[0]), float(cy - origin[1])


def _polar(lum: np.ndarray, centre: tuple[float, float], r0: float, r1: float, n: int, dr: float) -> np.ndarray:
    """Samples along n rays (clockwise from 12 o'clock) at radii r0..r1: an n x radii array."""
    th = np.arange(n) * 2 * np.pi / n
    rs = np.arange(r0, r1 + dr / 2, dr)
    xs = centre[0] + np.outer(np.sin(th), rs)
    ys = centre[1] - np.outer(np.cos(th), rs)
    return cv2.remap(lum, xs.astype(np.float32), ys.astype(np.float32), cv2.INTER_LINEAR)


def needle_deg(bgr: np.ndarray, name: str, origin: tuple[int, int] = (0, 0)) -> float:
    """The needle's angle (degrees clockwise from 12 o'clock) of gauge `name` ('alt', 'asi', 'tach')."""
    r0, r1 = NEEDLE_BANDS[name]
    lum = cv2.GaussianBlur(_lum(bgr), (3, 3), 0)
    rays = _polar(lum, _local(origin, name), r0, r1, 720, 1.0)
    return float(np.argmax(rays.min(axis=1))) * 0.5


def ias_kt(bgr: np.ndarray, origin: tuple[int, int] = (0, 0)) -> float:
    """Indicated airspeed off the airspeed indicator (about ±1 kt over 65-105 kt)."""
    return ASI_REF_KT + (needle_deg(bgr, "asi", origin) - ASI_REF_DEG) * ASI_KT_PER_DEG


def attitude(bgr: np.ndarray, origin: tuple[int, int] = (0, 0)) -> tuple[float, float] | None:
    """(bank_deg, sky_fraction) off the attitude indicator: bank positive right; the sky's
    share of the window grows with the pitch (0.5 about level). None if no sky shows."""
    cx, cy = (int(round(v)) for v in _local(origin, "ai"))
    r = AI_RADIUS_PX
    crop = bgr[cy - r : cy + r + 1, cx - r : cx + r + 1].astype(np.int32)
    if crop.shape[:2] != (2 * r + 1, 2 * r + 1):
        return None
    b, red = crop[..., 0], crop[..., 2]
    yy, xx = np.mgrid[-r : r + 1, -r : r + 1]
    disc = xx**2 + yy**2 <= r * r
    sky = disc & (b > 70) & (b - red > 35)
    n = int(sky.sum())
    if n < 20:
        return None
    dx, dy = float(xx[sky].mean()), float(yy[sky].mean())
    shown = math.atan2(dx, -dy)  # the sky's direction from "up"; a left bank turns it clockwise
    bank = -math.degrees(math.atan2(math.sin(shown), AI_STRETCH * math.cos(shown)))
    return bank, n / float(disc.sum())


def dg_ring(bgr: np.ndarray, origin: tuple[int, int] = (0, 0)) -> np.ndarray:
    """The heading card's ring unrolled (360 rays x radii), zero-mean and unit-norm."""
    ring = _polar(_lum(bgr), _local(origin, "dg"), DG_BAND_PX[0], DG_BAND_PX[1], 360, 0.5)
    ring = ring - ring.mean()
    return ring / (float(np.linalg.norm(ring)) + 1e-9)


def card_turn_deg(
    before: np.ndarray, after: np.ndarray, expect_deg: float | None = None, within_deg: float = 20.0
) -> float:
    """How far the card turned clockwise from `before` to `after` (-180..180 degrees); the card
    turns clockwise as the aircraft turns left, so this is minus the heading change. The card's
    ticks repeat every few degrees, so a turn of more than about 20° between two frames can
    match the wrong tick: with `expect_deg` (what the turn rate predicts) only shifts within
    `within_deg` of it are considered."""
    spec = np.fft.fft(before, axis=0).conj() * np.fft.fft(after, axis=0)
    corr = np.real(np.fft.ifft(spec.sum(axis=1)))
    n = corr.size
    if expect_deg is not None:
        shifts = (np.arange(n) * 360.0 / n + 180.0) % 360.0 - 180.0
        off = np.abs((shifts - expect_deg + 180.0) % 360.0 - 180.0)
        corr = np.where(off <= within_deg, corr, -np.inf)
    i = int(np.argmax(corr))
    y0, y1, y2 = corr[(i - 1) % n], corr[i], corr[(i + 1) % n]
    den = y0 - 2 * y1 + y2
    sub = 0.5 * (y0 - y2) / den if np.isfinite(den) and abs(den) > 1e-12 else 0.0
    return float(((i + sub) * 360.0 / n + 180.0) % 360.0 - 180.0)


def angle_step_deg(prev_deg: float, now_deg: float) -> float:
    """The signed change of an angle between two readings (-180..180)."""
    return (now_deg - prev_deg + 180.0) % 360.0 - 180.0


# -- the partial panel (P13/P14): turn coordinator, suction gauge, heading card against a reference
#: the turn coordinator's airplane: its pivot and the radial band its wings cross (the
#: inclinometer's white tube lies below the pivot, so both wings must be lit)
TC_CENTRE = (528.0, 547.0)
TC_BAND_PX = (9.0, 24.0)
#: degrees of heading a second per degree the airplane symbol turns: the c172p turns it 20° at
#: standard rate (3°/s, /instrumentation/turn-indicator/indicated-turn-rate x 20); measured
#: against the simulator's heading at 15-30° of bank, 0.151-0.159
TC_RATE_PER_DEG = 0.155
#: the turn rate (deg/s) the instrument reads under the simulator's: in level flight it read 0
#: through a right turn of 0.05-0.08°/s (0.3-0.8° of bank), and it read right turns 2% short
#: and left turns 2-4% long, the same 0.06°/s (P14@PHJR seeds 1-3, the reading's sum against
#: the simulator's heading over 26-256 s windows between roll-ins and roll-outs)
TC_ZERO_DEG_S = 0.06
#: the suction gauge (left of the panel): its needle leaves the green arc for 12 o'clock when
#: the vacuum fails; `suction_cue` grows by ~14 (6 -> 20) then
SUCTION_CENTRE = (390.0, 488.5)
#: the suction gauge face's brightness (`suction_cue`'s median ray) in the P13 crop after the
#: failure (`tests/fixtures/flightgear_p13/030.png`, the panel in the sun): the cue, a fraction
#: of the face's brightness, is scaled by it to read there as the plain difference did
SUCTION_FACE_REF = 31.0
#: the heading card's centre (the fixed airplane's), and the band of its numbers and ticks
DG_CARD_CENTRE = (627.0, 550.0)
DG_CARD_BAND_PX = (29.0, 36.0)


def turn_deg(bgr: np.ndarray, origin: tuple[int, int] = (0, 0)) -> float:
    """The turn coordinator's airplane symbol, degrees (positive: right wing down, a right turn).

    Both wings are sampled every 0.1° (bilinear); the reading is the centroid of the peak where
    both are lit, above half its height over the face. A wing moves a third of a pixel a degree,
    so the brightest ray alone (the reading before) stood still over ±1-2°: 0.3° of bank held a
    slow turn (0.06°/s) the instrument read as none, and the carried heading lost 16° in four
    minutes of level flight (P14@PHJR seed 2)."""
    c = (TC_CENTRE[0] - origin[0], TC_CENTRE[1] - origin[1])
    lum = cv2.GaussianBlur(_lum(bgr), (3, 3), 0)
    rays = _polar(lum, c, TC_BAND_PX[0], TC_BAND_PX[1], 3600, 1.0).min(axis=1)
    rho = np.arange(-70.0, 70.05, 0.1)
    right = rays[np.round((90.0 + rho) * 10).astype(int) % 3600]
    left = rays[np.round((270.0 + rho) * 10).astype(int) % 3600]
    score = np.minimum(right, left)
    i = int(np.argmax(score))
    half = 0.5 * (score[i] + float(np.median(score)))
    a, b = i, i
    while a > 0 and score[a - 1] >= half:
        a -= 1
    while b < len(score) - 1 and score[b + 1] >= half:
        b += 1
    w = score[a : b + 1] - half
    return float(np.sum(rho[a : b + 1] * w) / np.sum(w)) if w.sum() > 0 else float(rho[i])


def turn_rate_deg_s(bgr: np.ndarray, origin: tuple[int, int] = (0, 0)) -> float:
    """The turn rate the turn coordinator shows (degrees/s, positive right)."""
    return turn_deg(bgr, origin) * TC_RATE_PER_DEG + TC_ZERO_DEG_S


def suction_cue(bgr: np.ndarray, origin: tuple[int, int] = (0, 0)) -> float:
    """How lit the suction gauge's 12-o'clock sector is against the rest of its face, over the
    face's own brightness (x `SUCTION_FACE_REF`): ~6 in the green, ~20 once the vacuum has failed
    (compare with the reading at the start), whatever the light on the panel.

    The sun scales the gauge's whole image by one factor (the P13 crops: 1.30 between them, the
    ring round the needle fitted with no offset). At FlightGear's noon the panel is in the sun's
    shade from about 90° to 270° true, at about half the P13 crops' light (T09@PHJR's crops).
    The P13 crops dimmed to that light give a plain difference (sector less face) rising 6 at
    the failure, 4 from a reference read in the sun, under the pilot's 8: P14@PHJR seed 1 took
    its reference at 88° true and never saw its failure. Over the face's brightness the cue does
    not change with the light."""
    c = (SUCTION_CENTRE[0] - origin[0], SUCTION_CENTRE[1] - origin[1])
    lum = cv2.GaussianBlur(_lum(bgr), (3, 3), 0)
    rays = _polar(lum, c, 2.5, 6.5, 360, 1.0).min(axis=1)
    face = float(np.median(rays))
    return float(np.r_[rays[350:], rays[:40]].mean() - face) * SUCTION_FACE_REF / max(face, 1.0)


def _card_ring(lum: np.ndarray, centre: tuple[float, float]) -> np.ndarray:
    ring = _polar(lum, centre, DG_CARD_BAND_PX[0], DG_CARD_BAND_PX[1], 360, 0.5)
    ring = ring - ring.mean()
    return ring / (float(np.linalg.norm(ring)) + 1e-9)


_DG_REFERENCE: np.ndarray | None = None


def _dg_reference() -> np.ndarray:
    global _DG_REFERENCE
    if _DG_REFERENCE is None:
        import base64

        from simbridge.adapters.flightgear.pilots._dg_card_data import DG_CARD_PNG_B64

        png = np.frombuffer(base64.b64decode(DG_CARD_PNG_B64), np.uint8)
        decoded = cv2.imdecode(png, cv2.IMREAD_GRAYSCALE)
        assert decoded is not None, "the heading card's reference crop does not decode"
        grey = decoded.astype(np.float32)
        _DG_REFERENCE = _card_ring(grey, (40.0, 40.0))
    return _DG_REFERENCE


def dg_heading_deg(bgr: np.ndarray, origin: tuple[int, int] = (0, 0)) -> float:
    """The heading the heading indicator shows, modulo 90° (the card's numbers are too small to
    tell N from E at this size; the caller picks the quarter): the card's turn from the
    reference crop (`_dg_card_data`), to about 1°."""
    from simbridge.adapters.flightgear.pilots._dg_card_data import DG_CARD_HEADING_DEG

    c = (DG_CARD_CENTRE[0] - origin[0], DG_CARD_CENTRE[1] - origin[1])
    shift = card_turn_deg(_dg_reference(), _card_ring(_lum(bgr), c))
    return (DG_CARD_HEADING_DEG - shift) % 360.0


def nearest_quarter_deg(reading_deg: float, prior_deg: float) -> float:
    """`reading_deg` plus the multiple of 90° that brings it nearest `prior_deg` (0-360)."""
    k = round(angle_step_deg(prior_deg, reading_deg) / 90.0)
    return (reading_deg - 90.0 * k) % 360.0


def history_rate(history: Sequence[Any], attr: str, span_s: float = 1.5, *, angle: bool = False) -> float:
    """d(attr)/dt per second over the last `span_s` of `history` (readings with `t_s`), the
    least-squares slope; 0 with fewer than two readings 0.3 s apart. `angle`: unwrapped first."""
    h = [r for r in history if r.t_s >= history[-1].t_s - span_s]
    if len(h) < 2 or h[-1].t_s - h[0].t_s < 0.3:
        return 0.0
    t = np.array([r.t_s for r in h])
    v = np.array([getattr(r, attr) for r in h])
    if angle:
        v = np.degrees(np.unwrap(np.radians(v)))
    return float(np.polyfit(t - t[-1], v, 1)[0])
