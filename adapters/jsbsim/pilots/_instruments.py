"""What a pilot reads off the cockpit screenshot: the needles of the six-pack and the
tachometer, the lever positions, the small engine gauges, the radio displays, the Kollsman
window and which panel buttons are lit. Pixels in, numbers out; the positions and scales come
from the cockpit's published layout (`layout`), never from the simulator.

`read_instruments` is the one instrument reader every JSBSim reference pilot flies by: the
panel as a C172 pilot sees it, no digits but the radios' and the Kollsman window's. Each needle
is found as the pure-white pixels in a ring of its gauge (the only pure white on a face: the
scale marks and numerals are a duller white) and its direction is the line through the gauge's
centre that fits those pixels best (`_axis`), turned into a value by the layout's scale. Under the
smoke veil the pixels are un-veiled first (the veil's grey is measured on the black gauge
faces). `failed` leaves out instruments a partial panel cannot trust (`VACUUM`: the attitude
and heading indicators after a vacuum failure), which then read None.

The digital readout strip is an assist (`--assist readout`) no C172 has; `read_strip` reads
it, for an assisted episode and as the accuracy benchmark's baseline
(`benchmarks/instrument_reader.py`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from simbridge.adapters.jsbsim.pilots._layout import L
from simbridge.adapters.jsbsim.pilots._glyphs import read_centred, read_text

WHITE, BLACK = (255, 255, 255), (0, 0, 0)
RADIO_FG, RADIO_BG = (255, 170, 40), (10, 10, 10)  # orange digits on the radio displays
LABEL_FG, BARO_BG = (230, 230, 230), (30, 30, 30)  # the Kollsman window
READOUT_SIZE, RADIO_SIZE, BARO_SIZE = 14, 22, 11

#: what `read_instruments` can read; `failed` names some of them
INSTRUMENTS = ("asi", "ai", "alt", "tc", "hi", "vsi", "tach", "levers")
#: the vacuum-driven gyros: unreliable after a vacuum failure (partial panel)
VACUUM = frozenset({"ai", "hi"})
#: a needle pixel: every channel at least this, after un-veiling (the marks are 230)
NEEDLE_MIN = 243
#: the smoke veil's grey (a black face under a veil of alpha a shows SMOKE_GREY * a)
_VEIL_GREY = float(L.SMOKE_GREY[0])
#: pitch the attitude indicator can show before its horizon line leaves the readable disc
AI_PITCH_LIMIT = 0.82 * L.AI.r / L.AI_PX_PER_DEG_PITCH


@dataclass(frozen=True)
class Readout:
    """One reading of the instruments (None where a value could not be read or its instrument
    was left out). Units as the strip printed them: kt, ft, deg, fpm, rpm, % of lever travel,
    flap degrees; `turn` deg/s and `slip` g from the turn coordinator. `t` is the strip's
    simulator clock, read only from the assisted strip (`read_strip`): the panel has no such
    clock, and a pilot keeps its time by the agent port's `elapsed`, its watch."""

    ias: float | None
    alt: float | None
    hdg: float | None
    vs: float | None
    bank: float | None
    pitch: float | None
    rpm: float | None
    thr: float | None
    mix: float | None
    flaps: float | None
    t: float | None = None
    turn: float | None = None
    slip: float | None = None

    @property
    def complete(self) -> bool:
        return self.core() is not None

    def core(self) -> tuple[float, float, float, float, float, float, float] | None:
        """(ias, alt, hdg, vs, bank, pitch, rpm) when all seven were read, else None; a typed
        form of `complete` so a caller gets floats without re-checking each field."""
        ias, alt, hdg, vs, bank, pitch, rpm = self.ias, self.alt, self.hdg, self.vs, self.bank, self.pitch, self.rpm
        if ias is None or alt is None or hdg is None or vs is None or bank is None or pitch is None or rpm is None:
            return None
        return ias, alt, hdg, vs, bank, pitch, rpm


# ---------------------------------------------------------------------- pixels of a gauge
@lru_cache(maxsize=None)
def _ring(g: L.Gauge, f0: float, f1: float) -> tuple[np.ndarray, np.ndarray]:
    """Pixel rows and columns of the ring f0 r <= distance < f1 r around a gauge's centre."""
    r1 = int(math.ceil(f1 * g.r))
    dy, dx = np.mgrid[-r1 : r1 + 1, -r1 : r1 + 1]
    d = np.hypot(dx, dy)
    keep = (d >= f0 * g.r) & (d < f1 * g.r)
    return (dy[keep] + g.cy).astype(np.intp), (dx[keep] + g.cx).astype(np.intp)


def veil_level(img: np.ndarray) -> float:
    """The smoke veil's grey over black (0 = clear air), measured on the black faces of the
    airspeed indicator, altimeter and tachometer (the median: a needle or a numeral is a few
    pixels of the ring)."""
    vals = []
    for g in (L.ASI, L.ALT, L.TACH):
        ys, xs = _ring(g, 0.4, 0.5)
        vals.append(img[ys, xs, 1])
    return float(np.median(np.concatenate(vals)))


def _unveil(px: np.ndarray, level: float) -> np.ndarray:
    """Pixel values as drawn under no veil (float, BGR kept)."""
    px = px.astype(np.float32)
    if level < 1.0:
        return px
    a = min(0.9, level / _VEIL_GREY)
    return (px - level) / (1.0 - a)


#: the part of the screen the flight instruments and the levers are on (rows, columns)
_NEEDLE_ROWS = slice(L.PANEL[1], L.HEIGHT)
_NEEDLE_COLS = slice(0, L.FLAPS[0] + L.FLAPS[2] + 1)


class Seen:
    """A screenshot as the reader sees it: the smoke veil measured once, and which pixels
    are needle white (every channel at NEEDLE_MIN or more once un-veiled) where the
    instruments and levers are."""

    def __init__(self, img: np.ndarray) -> None:
        self.img = img
        self.level = veil_level(img)
        a = min(0.9, self.level / _VEIL_GREY) if self.level >= 1.0 else 0.0
        thr = self.level + NEEDLE_MIN * (1.0 - a) if a else float(NEEDLE_MIN)
        self.white = np.zeros(img.shape[:2], bool)
        lo = math.ceil(thr)  # a pixel's integer channel is at least thr when it is at least its ceiling
        if lo <= 255:
            white = cv2.inRange(img[_NEEDLE_ROWS, _NEEDLE_COLS], (lo, lo, lo), (255, 255, 255))
            self.white[_NEEDLE_ROWS, _NEEDLE_COLS] = white != 0

    def whites(self, ys: np.ndarray, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        keep = self.white[ys, xs]
        return ys[keep], xs[keep]

    def ring(self, g: L.Gauge, f0: float, f1: float) -> tuple[np.ndarray, np.ndarray]:
        """The needle-white pixels in a ring of a gauge."""
        return self.whites(*_ring(g, f0, f1))


def _seen(img: np.ndarray | Seen) -> Seen:
    return img if isinstance(img, Seen) else Seen(img)


def _axis(g: L.Gauge, ys: np.ndarray, xs: np.ndarray, width: int = 4, min_px: int = 6) -> float | None:
    """Clock angle (degrees, clockwise from 12 o'clock, -180..180) of a needle `width` px wide
    from its pixels.

    The needle is the densest direction (a histogram of the pixels' angles, smoothed over
    +-3 deg); the pixels within width/2 + 2 px of that ray are its own (another hand's or a
    stray pixel is dropped). A line of even width is drawn half a pixel right of its axis
    (steep) or below it (shallow); that half pixel taken off, the angle is the line through the
    gauge's centre, where every needle is pinned, that fits those pixels best."""
    if len(xs) < min_px:
        return None
    x = xs.astype(np.float64) - g.cx
    y = g.cy - ys.astype(np.float64)  # up positive
    ang = np.degrees(np.arctan2(x, y))
    hist = np.bincount(np.floor(ang % 360.0).astype(np.intp), minlength=360).astype(np.float64)
    smooth = np.convolve(np.concatenate((hist[-3:], hist, hist[:3])), np.ones(7), "valid")
    peak = math.radians(float(np.argmax(smooth)) + 0.5)
    ux, uy = math.sin(peak), math.cos(peak)
    own = (np.abs(x * uy - y * ux) <= width / 2 + 2.0) & (x * ux + y * uy > 0)
    if own.sum() < min_px:
        return None
    x, y = x[own], y[own]
    if width % 2 == 0:
        a = _through_centre(x, y)
        steep = abs(math.cos(math.radians(a))) - abs(math.sin(math.radians(a)))
        k = 0.5 if steep > 0.03 else 0.0 if steep < -0.03 else 0.25  # within a degree of 45: both halves
        x, y = x - k, y + (0.5 - k)
    return _through_centre(x, y)


def _through_centre(x: np.ndarray, y: np.ndarray) -> float:
    """Clock angle of the line through the origin that fits the points best (least squares
    across it), pointed the way the points lie."""
    sxx, syy, sxy = float((x * x).sum()), float((y * y).sum()), float((x * y).sum())
    theta = 0.5 * math.atan2(2.0 * sxy, sxx - syy)  # from +x counter-clockwise
    ax, ay = math.cos(theta), math.sin(theta)
    if ax * float(x.sum()) + ay * float(y.sum()) < 0:
        ax, ay = -ax, -ay
    return math.degrees(math.atan2(ax, ay))


def _off_ray(g: L.Gauge, ys: np.ndarray, xs: np.ndarray, angle: float, half_px: float) -> np.ndarray:
    """Mask of the pixels farther than `half_px` from the ray at clock `angle` (a hand to drop)."""
    a = math.radians(angle)
    ux, uy = math.sin(a), math.cos(a)
    x, y = xs - g.cx, g.cy - ys
    along = x * ux + y * uy
    across = np.abs(x * uy - y * ux)
    return (across > half_px) | (along < 0)


def needle_angle(img: np.ndarray | Seen, g: L.Gauge, f0: float = 0.3, f1: float = 0.8, width: int = 4) -> float | None:
    """The clock angle of a gauge's white needle (`width` px), from its pixels between f0 r and f1 r."""
    return _axis(g, *_seen(img).ring(g, f0, f1), width=width)


def _wrap(a: float, lo: float) -> float:
    """An angle moved into lo..lo+360."""
    return (a - lo) % 360.0 + lo


def small_gauge(img: np.ndarray | Seen, g: L.Gauge) -> float | None:
    """A small engine gauge's value (fuel, oil, volts, ammeter, suction) from its needle."""
    a = needle_angle(img, g, 0.25, 0.7, width=3)  # the small gauges' needles are 3 px
    if a is None:
        return None
    lo, hi = L.SMALL_RANGES[g.name]
    return lo + (max(-120.0, min(120.0, _wrap(a, -180.0))) + 120.0) / 240.0 * (hi - lo)


# ---------------------------------------------------------------------- the instruments
def read_asi(img: np.ndarray | Seen) -> float | None:
    a = needle_angle(img, L.ASI)
    if a is None:
        return None
    a = _wrap(a, L.ASI_DEG_AT_0 - 10.0)  # 0 kt at 20 deg, 200 kt at 340 deg
    return max(0.0, min(200.0, (a - L.ASI_DEG_AT_0) / L.ASI_DEG_PER_KT))


def read_vsi(img: np.ndarray | Seen) -> float | None:
    a = needle_angle(img, L.VSI)
    if a is None:
        return None
    a = _wrap(a, 90.0)  # -2000 fpm at 100 deg, 0 at 270, +2000 at 440
    return max(-2000.0, min(2000.0, (a - 270.0) / L.VSI_DEG_PER_FPM))


def read_tach(img: np.ndarray | Seen) -> float | None:
    a = needle_angle(img, L.TACH)
    if a is None:
        return None
    return max(0.0, min(3500.0, (_wrap(a, -180.0) - L.TACH_DEG_AT_0) / L.TACH_DEG_PER_RPM))


def read_hi(img: np.ndarray | Seen) -> float | None:
    a = needle_angle(img, L.HI)
    return None if a is None else a % 360.0


def read_altimeter(img: np.ndarray | Seen) -> float | None:
    """The indicated altitude from the three hands: the hundreds needle gives the feet within
    the thousand, the thousands needle which thousand, the ten-thousands pointer's wedge (the
    only white beyond 0.86 r) which ten thousand. Each hand is read with the others' pixels
    dropped; the Kollsman window hides the hands' middle when they point down, so the thousands
    needle is read inside it (0.14..0.38 r) and the hundreds needle outside (0.63..0.83 r)."""
    g, seen = L.ALT, _seen(img)
    w_in, w_out, _ = L.ALT_WEDGE
    ys, xs = seen.ring(g, w_in - 0.01, w_out + 0.01)
    if len(xs) < 3:
        return None
    a10k = math.degrees(math.atan2(float((xs - g.cx).mean()), float((g.cy - ys).mean())))
    thin = L.ALT_HANDS[2][1] / 2 + 2.0  # the wedge's centroid is within a degree of the hand
    ys, xs = seen.ring(g, 0.63, 0.83)
    keep = _off_ray(g, ys, xs, a10k, thin)
    a100 = _axis(g, ys[keep], xs[keep]) if keep.sum() >= 6 else _axis(g, ys, xs)
    if a100 is None:
        return None
    ys, xs = seen.ring(g, 0.14, 0.38)
    keep = _off_ray(g, ys, xs, a100, L.ALT_HANDS[0][1] / 2 + 0.8) & _off_ray(g, ys, xs, a10k, thin)
    a1000 = _axis(g, ys[keep], xs[keep], width=L.ALT_HANDS[1][1], min_px=8)
    hundreds = (a100 % 360.0) / 0.36
    tens = (a10k % 360.0) / 0.0036
    # the thousands needle hidden under another hand: the ten-thousands pointer (within
    # ~150 ft) says which thousand
    thousands = (a1000 % 360.0) / 0.036 if a1000 is not None else tens % 10000.0
    alt = (1000.0 * round((thousands - hundreds) / 1000.0) + hundreds) % 10000.0
    alt = 10000.0 * round((tens - alt) / 10000.0) + alt
    return alt - 100000.0 if alt >= 90000.0 else alt


def _orange(px: np.ndarray) -> np.ndarray:
    b, gr, r = px[:, 0], px[:, 1], px[:, 2]
    return (r > 200) & (gr > 100) & (gr < 200) & (b < 80)


def read_attitude(img: np.ndarray | Seen) -> tuple[float, float] | None:
    """(bank, pitch) from the attitude indicator: the bank pointer (orange, near the rim) gives
    the bank, the white horizon line (the only white inside 0.84 r) refines it and gives the
    pitch where it crosses the vertical through the centre. With the line out of the window,
    the pitch reads at the limit on the side of the sky or ground the face shows."""
    g, seen = L.AI, _seen(img)
    p_in, p_out = L.AI_BANK_POINTER
    ys, xs = _ring(g, p_in - 0.03, p_out + 0.02)
    hit = _orange(_unveil(seen.img[ys, xs], seen.level))
    if hit.sum() < 3:
        return None
    ptr = -math.degrees(math.atan2(float((xs[hit] - g.cx).mean()), float((g.cy - ys[hit]).mean())))
    ys, xs = seen.ring(g, 0.0, 0.82)
    if len(xs) < 12:
        ys, xs = _ring(g, 0.0, 0.6)
        px = _unveil(seen.img[ys, xs], seen.level)
        sky = float((px[:, 0] > px[:, 2]).mean())
        return ptr, AI_PITCH_LIMIT if sky > 0.5 else -AI_PITCH_LIMIT
    x, y = xs.astype(np.float64), ys.astype(np.float64)
    mx, my = x.mean(), y.mean()
    cxx, cyy, cxy = ((x - mx) ** 2).mean(), ((y - my) ** 2).mean(), ((x - mx) * (y - my)).mean()
    theta = 0.5 * math.atan2(2.0 * cxy, cxx - cyy)  # screen axes: x right, y down
    if abs(math.cos(theta)) >= abs(math.sin(theta)):  # a 2 px line lies half a pixel below its axis
        my -= 0.5
    else:  # (right of it, when steep)
        mx -= 0.5
    line_bank = -math.degrees(theta)  # the right end higher = a right bank
    bank = min((line_bank + k for k in (-360.0, -180.0, 0.0, 180.0, 360.0)), key=lambda b: abs(b - ptr))
    dx, dy = math.cos(theta), math.sin(theta)
    if abs(dx) < 0.2:  # near 90 deg of bank: no crossing to measure
        return bank, 0.0
    yc = my + (g.cx - mx) * dy / dx
    return bank, (yc - g.cy) / L.AI_PX_PER_DEG_PITCH


def read_turn(img: np.ndarray | Seen) -> tuple[float, float | None] | None:
    """(turn rate deg/s, slip g) from the turn coordinator's wing bar and ball."""
    g, seen = L.TC, _seen(img)
    tx, ty, tw, th = L.TC_TUBE
    ys, xs = seen.ring(g, 0.2, 0.68)
    in_tube = (xs >= tx - 1) & (xs < tx + tw + 1) & (ys >= ty - 1) & (ys < ty + th + 1)
    ys_w, xs_w = ys[~in_tube], xs[~in_tube]
    if len(xs_w) < 8:
        return None
    x, y = xs_w.astype(np.float64) - g.cx, ys_w.astype(np.float64) - g.cy
    cxx, cyy, cxy = (x**2).mean(), (y**2).mean(), (x * y).mean()  # the bar passes through the centre
    tilt = math.degrees(0.5 * math.atan2(2.0 * cxy, cxx - cyy))  # right end down = a right turn
    tilt = max(-L.TC_MAX_TILT_DEG, min(L.TC_MAX_TILT_DEG, tilt))
    rate = tilt / L.TC_DEG_PER_DPS
    dy, dx = np.mgrid[ty : ty + th, tx : tx + tw]
    ys, xs = seen.whites(dy.ravel().astype(np.intp), dx.ravel().astype(np.intp))
    a = math.radians(tilt)
    across = np.abs((xs - g.cx) * math.sin(a) - (ys - g.cy) * math.cos(a))
    ball = xs[across > 3.5]
    slip = float(ball.mean() - g.cx) / L.TC_BALL_PX_PER_G if len(ball) >= 10 else None
    return rate, slip


def _knob_y(seen: Seen, rect: tuple[int, int, int, int]) -> float | None:
    """The centre row of a lever knob: the rows of its white border's top and bottom edges."""
    x, y, w, h = rect
    y0, y1 = y - L.LEVER_KNOB_H, y + h + L.LEVER_KNOB_H
    rows = seen.white[y0:y1, x : x + w].sum(axis=1)
    edge = np.nonzero(rows >= 0.6 * w)[0]
    if len(edge) < 2:
        return None
    return float(edge.mean()) + y0 + 0.5


def read_levers(img: np.ndarray | Seen) -> tuple[float | None, float | None, float | None]:
    """(throttle %, mixture %, flap detent degrees) from the lever knobs' positions."""
    seen = _seen(img)
    out: list[float | None] = []
    for rect in (L.THROTTLE, L.MIXTURE):
        ky = _knob_y(seen, rect)
        out.append(None if ky is None else 100.0 * max(0.0, min(1.0, (rect[1] + rect[3] - ky) / rect[3])))
    x, y, w, h = L.FLAPS
    px = _unveil(seen.img[y : y + h, x + 8 : x + w - 8], seen.level)
    tab = (np.abs(px - 235.0).max(axis=2) < 12).mean(axis=1) > 0.6
    rows = np.nonzero(tab)[0]
    flaps = None
    if len(rows):
        ky = float(rows.mean()) + y
        i = int(np.argmin([abs(ky - d) for d in L.FLAP_DETENT_Y]))
        flaps = L.FLAP_DETENTS_DEG[i]
    return out[0], out[1], flaps


def read_instruments(img: np.ndarray, failed: frozenset[str] | set[str] = frozenset()) -> Readout:
    """Every instrument a pilot flies by, read from its needles (the same fields the strip had;
    `turn` and `slip` from the turn coordinator besides). Instruments named in `failed` are not
    read (their fields are None): a partial panel after a vacuum failure passes `VACUUM`."""
    unknown = set(failed) - set(INSTRUMENTS)
    if unknown:
        raise ValueError(f"unknown instrument(s) {sorted(unknown)} (known: {', '.join(INSTRUMENTS)})")
    seen = Seen(img)
    ok = lambda name: name not in failed  # noqa: E731
    att = read_attitude(seen) if ok("ai") else None
    tc = read_turn(seen) if ok("tc") else None
    thr, mix, flaps = read_levers(seen) if ok("levers") else (None, None, None)
    return Readout(
        ias=read_asi(seen) if ok("asi") else None,
        alt=read_altimeter(seen) if ok("alt") else None,
        hdg=read_hi(seen) if ok("hi") else None,
        vs=read_vsi(seen) if ok("vsi") else None,
        bank=None if att is None else att[0],
        pitch=None if att is None else att[1],
        rpm=read_tach(seen) if ok("tach") else None,
        thr=thr,
        mix=mix,
        flaps=flaps,
        turn=None if tc is None else tc[0],
        slip=None if tc is None else tc[1],
    )


# ---------------------------------------------------------------------- printed digits
def _number(text: str) -> float | None:
    s = text.strip().replace(" ", "")
    try:
        return float(s)
    except ValueError:
        return None


def read_strip(img: np.ndarray) -> Readout:
    """Every value of the assisted readout strip (`--assist readout`; READOUT_FORMAT, one
    template per character cell). A default episode has no strip: this reads all None."""
    vals = {}
    for name, (x, y, w, h) in L.readout_boxes().items():
        vals[name] = _number(read_text(img, x, y, w // L.READOUT_CHAR_W, READOUT_SIZE, WHITE, BLACK))
    return Readout(**vals)


def read_frequency(img: np.ndarray, display: str) -> float | None:
    """A radio display (com1:active, com1:stby, nav1:active, nav1:stby) in MHz; None while dark."""
    rect = {"com1:active": L.COM_ACTIVE, "com1:stby": L.COM_STBY, "nav1:active": L.NAV_ACTIVE, "nav1:stby": L.NAV_STBY}[
        display
    ]
    x, y, w, h = rect
    n = 7 if display.startswith("com") else 6
    return _number(read_centred(img, x + w // 2, y + h // 2, n, RADIO_SIZE, RADIO_FG, RADIO_BG))


def read_squawk(img: np.ndarray) -> list[int] | None:
    """The four transponder digits, or None if any is unreadable."""
    out = []
    for x, y, w, h in L.XPDR_DIGITS:
        v = _number(read_centred(img, x + w // 2, y + h // 2, 1, RADIO_SIZE, RADIO_FG, RADIO_BG))
        if v is None:
            return None
        out.append(int(v))
    return out


def read_baro(img: np.ndarray) -> float | None:
    """The Kollsman setting printed under the altimeter centre (inHg)."""
    return _number(read_centred(img, L.ALT.cx, L.ALT.cy + 33, 5, BARO_SIZE, LABEL_FG, BARO_BG))


def lit(img: np.ndarray, hotspot: str, colour: tuple[int, int, int] = L.LIT) -> bool:
    """True when most of a hotspot's area shows `colour` (a switch on, a selector position)."""
    x, y, w, h = L.HOTSPOTS[hotspot]
    region = img[y : y + h, x : x + w, ::-1].astype(np.int16)
    close = (np.abs(region - np.array(colour, np.int16)).sum(axis=2) < 60).mean()
    return bool(close > 0.3)


def xpdr_mode(img: np.ndarray) -> int | None:
    """The transponder mode whose button has the yellow bar under it."""
    for i, (x, y, w, h) in enumerate(L.XPDR_MODE_BUTTONS):
        bar = img[y + h : y + h + 3, x + 4 : x + w - 4, ::-1].astype(np.int16)
        if (np.abs(bar - np.array(L.LIT, np.int16)).sum(axis=2) < 60).mean() > 0.5:
            return i
    return None


def view_horizon(img: np.ndarray) -> tuple[float, float] | None:
    """(bank_deg, pitch_deg) from the out-the-window horizon: per column the last sky pixel,
    a straight-line fit over the columns where the horizon is in view. None when too little
    horizon is visible."""
    x0, y0, w, h = L.VIEW
    step = 8
    view = img[y0 : y0 + h, x0 : x0 + w : step].astype(np.int16)
    sky_r, sky_g, sky_b = L.SKY
    # the channels' absolute differences summed one by one (BGR), a third of numpy's sum(axis=2)
    diff = np.abs(view[..., 0] - sky_b)
    diff += np.abs(view[..., 1] - sky_g)
    diff += np.abs(view[..., 2] - sky_r)
    sky = diff < 40
    # first non-sky row per column (the sky is above the horizon until past 90 degrees of bank)
    has_ground = ~sky.all(axis=0)
    first = np.argmax(~sky, axis=0)
    ok = has_ground & (first > 0) & sky[0]
    if ok.sum() < 6:
        return None
    xs = (np.arange(view.shape[1]) * step + x0)[ok].astype(np.float64)
    ys = first[ok].astype(np.float64) + y0
    slope, icpt = np.polyfit(xs, ys, 1)
    bank = -math.degrees(math.atan(slope))  # right bank: the world rolls left, the horizon's right end rises
    yc = slope * L.VIEW_CENTRE[0] + icpt
    pitch = math.degrees(math.atan((yc - L.VIEW_CENTRE[1]) / L.FOCAL_PX)) * math.cos(math.radians(bank))
    return bank, pitch
