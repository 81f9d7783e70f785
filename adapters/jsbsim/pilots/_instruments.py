"""What a pilot reads off the cockpit screenshot: the digital readout strip, the radio displays,
the Kollsman window and which panel buttons are lit. Pixels in, numbers out; the positions come
from the cockpit's published layout (`layout`), never from the simulator."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simbridge.adapters.jsbsim.pilots._layout import L
from simbridge.adapters.jsbsim.pilots._glyphs import read_centred, read_text

WHITE, BLACK = (255, 255, 255), (0, 0, 0)
RADIO_FG, RADIO_BG = (255, 170, 40), (10, 10, 10)  # orange digits on the radio displays
LABEL_FG, BARO_BG = (230, 230, 230), (30, 30, 30)  # the Kollsman window
READOUT_SIZE, RADIO_SIZE, BARO_SIZE = 14, 22, 11


@dataclass(frozen=True)
class Readout:
    """One reading of the readout strip (None where a field could not be read)."""

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
    t: float | None

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


def _number(text: str) -> float | None:
    s = text.strip().replace(" ", "")
    try:
        return float(s)
    except ValueError:
        return None


def read_readout(img: np.ndarray) -> Readout:
    """Every value of the readout strip (READOUT_FORMAT, one template per character cell)."""
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
    a straight-line fit over the columns where the horizon is in view. Finer than the strip's
    whole degrees; None when too little horizon is visible."""
    x0, y0, w, h = L.VIEW
    step = 8
    view = img[y0 : y0 + h, x0 : x0 + w : step, ::-1].astype(np.int16)
    sky = np.abs(view - np.array(L.SKY, np.int16)).sum(axis=2) < 40
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
