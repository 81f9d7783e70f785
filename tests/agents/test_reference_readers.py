"""The pixel readers: the instrument reader on panels the cockpit's own drawing code renders
(headless SDL) at states across the flight envelope, within what the pilots need of each
instrument; the printed-digit readers on text blitted as the cockpit blits it; the view's
horizon on a drawn one."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame
import cv2

from simbridge.adapters.jsbsim.pilots._glyphs import MONO  # noqa: E402
from simbridge.adapters.jsbsim.cockpit._controls import Controls  # noqa: E402
from simbridge.adapters.jsbsim.cockpit._panel import Panel, Readings  # noqa: E402
from simbridge.adapters.jsbsim.pilots._instruments import (  # noqa: E402
    RADIO_BG,
    RADIO_FG,
    VACUUM,
    read_frequency,
    read_instruments,
    read_squawk,
    read_strip,
    small_gauge,
    view_horizon,
)
from simbridge.adapters.jsbsim.pilots._layout import L  # noqa: E402

pytestmark = pytest.mark.skipif(not MONO.exists(), reason="DejaVu Sans Mono not installed")


def _blit(img: np.ndarray, text: str, size: int, fg, bg, x: int, y: int, centred: bool = False) -> None:
    pygame.font.init()
    surf = pygame.font.Font(str(MONO), size).render(text, True, fg, bg)
    arr = pygame.surfarray.array3d(surf).transpose(1, 0, 2)[:, :, ::-1]  # RGB → BGR, rows first
    if centred:
        x, y = x - arr.shape[1] // 2, y - arr.shape[0] // 2
    img[y : y + arr.shape[0], x : x + arr.shape[1]] = arr


@pytest.mark.parametrize(
    "vals",
    [
        dict(ias=100, alt=3502, hdg=297, vs=61, bank=-45, pitch=3, rpm=2437, thr=78, mix=100, flaps=0, t=4.0),
        dict(ias=0, alt=-12, hdg=5, vs=-1875, bank=7, pitch=-11, rpm=958, thr=11, mix=90, flaps=30, t=312.7),
    ],
)
def test_readout_strip_reads_back_every_field(vals):
    img = np.zeros((L.HEIGHT, L.WIDTH, 3), np.uint8)
    _blit(img, L.READOUT_FORMAT.format(**vals), 14, (255, 255, 255), (0, 0, 0), L.READOUT_X0, L.READOUT_Y0)
    r = read_strip(img)
    for k, v in vals.items():
        assert getattr(r, k) == pytest.approx(v), k
    assert r.complete


def test_blank_strip_is_incomplete():
    r = read_strip(np.zeros((L.HEIGHT, L.WIDTH, 3), np.uint8))
    assert not r.complete and r.ias is None


# ---------------------------------------------------------------------- the instrument reader
#: the most a reading may be off, per field: a fraction of what the pilots hold (the POH
#: pilots' +-4 kt airspeed and +-50 ft altitude bands, T09's 45+-5 deg bank, T01's +-50 rpm,
#: P07's 110 rpm drop, throttle read back in 1 % taps); the benchmark's p95 is well inside
#: (`benchmarks/instrument_reader.py`)
TOLERANCE = {
    "ias": 1.0,
    "alt": 12.0,
    "hdg": 1.5,
    "vs": 25.0,
    "bank": 1.0,
    "pitch": 1.2,
    "rpm": 20.0,
    "thr": 1.0,
    "mix": 1.0,
    "flaps": 0.0,
    "turn": 0.25,
    "slip": 0.015,
}


@pytest.fixture(scope="module")
def panel():
    pygame.display.init()
    pygame.font.init()
    return Panel(has_autopilot=True), pygame.Surface((L.WIDTH, L.HEIGHT))


def _state(rng: np.random.Generator, smoke: float = 0.0) -> tuple[Readings, Controls]:
    r = Readings(
        ias_kt=float(rng.uniform(0, 190)),
        pitch_deg=float(rng.uniform(-20, 20)),
        bank_deg=float(rng.uniform(-70, 70)),
        alt_ind_ft=float(rng.uniform(-100, 14000)),
        turn_rate_dps=float(rng.uniform(-6, 6)),
        slip_g=float(rng.uniform(-0.12, 0.12)),
        heading_mag_deg=float(rng.uniform(0, 360)),
        vs_fpm=float(rng.uniform(-2000, 2000)),
        rpm=float(rng.uniform(0, 2800)),
        fuel_l_gal=float(rng.uniform(0, 26)),
        smoke_density=smoke,
    )
    c = Controls()
    c.throttle, c.mixture = float(rng.uniform(0, 1)), float(rng.uniform(0, 1))
    c.flaps_index = int(rng.integers(0, 4))
    c.ap_hdg_bug_deg = float(rng.uniform(0, 360))
    return r, c


def _truth(r: Readings, c: Controls) -> dict[str, float]:
    return dict(
        ias=r.ias_kt,
        alt=r.alt_ind_ft,
        hdg=r.heading_mag_deg,
        vs=r.vs_fpm,
        bank=r.bank_deg,
        pitch=r.pitch_deg,
        rpm=r.rpm,
        thr=100 * c.throttle,
        mix=100 * c.mixture,
        flaps=L.FLAP_DETENTS_DEG[c.flaps_index],
        turn=r.turn_rate_dps,
        slip=r.slip_g,
    )


def _frame(panel, r: Readings, c: Controls) -> np.ndarray:
    p, surf = panel
    p.draw(surf, r, c)
    return pygame.surfarray.array3d(surf).transpose(1, 0, 2)[:, :, ::-1].copy()  # BGR, as a screenshot


def _errors(got, truth: dict[str, float]) -> dict[str, float]:
    out = {}
    for k, v in truth.items():
        g = getattr(got, k)
        assert g is not None, k
        e = abs(g - v)
        out[k] = min(e, 360 - e) if k == "hdg" else e
    return out


@pytest.mark.parametrize("seed", range(4))
def test_instrument_reader_reads_every_needle_within_what_the_pilots_need(panel, seed):
    rng = np.random.default_rng(seed)
    for _ in range(25):
        r, c = _state(rng)
        errs = _errors(read_instruments(_frame(panel, r, c)), _truth(r, c))
        for k, e in errs.items():
            assert e <= TOLERANCE[k], (k, e, r, c)


def test_instrument_reader_sees_through_the_smoke_veil(panel):
    rng = np.random.default_rng(7)
    for smoke in (0.2, 0.5, 0.8, 1.0):
        r, c = _state(rng, smoke)
        errs = _errors(read_instruments(_frame(panel, r, c)), _truth(r, c))
        for k, e in errs.items():
            assert e <= 2 * TOLERANCE[k], (k, e, smoke)


@pytest.mark.parametrize("alt", [-60.0, 0.0, 999.0, 1001.0, 4999.0, 9990.0, 10004.0, 10998.0, 11111.0, 13999.0])
def test_altimeter_hands_at_the_wrap_points(panel, alt):
    """Where a hand hides another or a thousand turns over, the three hands still agree."""
    got = read_instruments(_frame(panel, Readings(alt_ind_ft=alt), Controls()))
    assert got.alt == pytest.approx(alt, abs=TOLERANCE["alt"])


@pytest.mark.parametrize("bank", [-175.0, -120.0, -89.0, -45.0, 0.0, 30.0, 91.0, 150.0])
def test_attitude_indicator_bank_all_round(panel, bank):
    got = read_instruments(_frame(panel, Readings(bank_deg=bank, pitch_deg=3.0), Controls()))
    assert got.bank is not None
    assert abs((got.bank - bank + 180) % 360 - 180) <= TOLERANCE["bank"]


def test_pitch_beyond_the_window_reads_at_the_limit(panel):
    up = read_instruments(_frame(panel, Readings(pitch_deg=40.0), Controls()))
    down = read_instruments(_frame(panel, Readings(pitch_deg=-40.0), Controls()))
    assert up.pitch is not None and down.pitch is not None
    assert up.pitch > 25 and down.pitch < -25


def test_partial_panel_reads_only_the_instruments_that_work(panel):
    r, c = _state(np.random.default_rng(3))
    got = read_instruments(_frame(panel, r, c), VACUUM)
    assert got.bank is None and got.pitch is None and got.hdg is None and not got.complete
    truth = _truth(r, c)
    for k in ("ias", "alt", "vs", "rpm", "turn"):
        assert abs(getattr(got, k) - truth[k]) <= TOLERANCE[k], k
    with pytest.raises(ValueError, match="unknown instrument.*'compass'"):
        read_instruments(_frame(panel, r, c), {"compass"})


def test_a_panel_without_needles_reads_none():
    blank = np.full((L.HEIGHT, L.WIDTH, 3), 40, np.uint8)
    got = read_instruments(blank)
    assert got.ias is None and got.alt is None and got.bank is None and got.rpm is None and got.thr is None


def test_small_gauges_read_their_needles(panel):
    r, c = _state(np.random.default_rng(11))
    got = small_gauge(_frame(panel, r, c), L.FUEL_L)
    assert got == pytest.approx(r.fuel_l_gal, abs=0.5)


def test_radio_displays_and_squawk():
    img = np.full((L.HEIGHT, L.WIDTH, 3), 40, np.uint8)
    for rect, text in (
        (L.COM_ACTIVE, "125.000"),
        (L.COM_STBY, "118.625"),
        (L.NAV_ACTIVE, "114.10"),
        (L.NAV_STBY, "108.05"),
    ):
        x, y, w, h = rect
        img[y : y + h, x : x + w] = RADIO_BG[::-1]
        _blit(img, text, 22, RADIO_FG, RADIO_BG, x + w // 2, y + h // 2, centred=True)
    for (x, y, w, h), d in zip(L.XPDR_DIGITS, "4521"):
        img[y : y + h, x : x + w] = RADIO_BG[::-1]
        _blit(img, d, 22, RADIO_FG, RADIO_BG, x + w // 2, y + h // 2, centred=True)
    assert read_frequency(img, "com1:active") == pytest.approx(125.0)
    assert read_frequency(img, "com1:stby") == pytest.approx(118.625)
    assert read_frequency(img, "nav1:active") == pytest.approx(114.1)
    assert read_frequency(img, "nav1:stby") == pytest.approx(108.05)
    assert read_squawk(img) == [4, 5, 2, 1]


@pytest.mark.parametrize("bank,pitch", [(0.0, 0.0), (-20.0, 2.0), (15.0, -3.0)])
def test_view_horizon_bank_and_pitch(bank, pitch):
    img = np.zeros((L.HEIGHT, L.WIDTH, 3), np.uint8)
    x0, y0, w, h = L.VIEW
    img[y0 : y0 + h, x0 : x0 + w] = L.SKY[::-1]
    cx, cy = L.VIEW_CENTRE
    yc = cy + L.FOCAL_PX * math.tan(math.radians(pitch)) / math.cos(math.radians(bank))
    slope = -math.tan(math.radians(bank))  # right bank: the horizon's right end is higher on screen
    pts = np.array([[0, yc - slope * cx], [w, yc + slope * (w - cx)], [w, 2000], [0, 2000]], np.int32)
    view = img[y0 : y0 + h, x0 : x0 + w].copy()
    cv2.fillPoly(view, [pts], L.GROUND[::-1])
    img[y0 : y0 + h, x0 : x0 + w] = view
    got = view_horizon(img)
    assert got is not None
    assert got[0] == pytest.approx(bank, abs=0.5)
    assert got[1] == pytest.approx(pitch, abs=0.5)


def test_runway_pixels_are_the_colour_distance_rule():
    """The runway mask (read with cv2.inRange, then the grey's summed difference) is exactly its
    rule: within 18 of the surface grey (channels' absolute differences summed) or within 10 of
    the marking white in every channel, on pictures crowded around both thresholds."""
    from simbridge.adapters.jsbsim.pilots._runway_view import MARKING_WHITE, RUNWAY_GREY, runway_mask

    rng = np.random.default_rng(3)
    x0, y0, w, h = L.VIEW
    for i in range(12):
        img = rng.integers(0, 256, (y0 + h + 4, x0 + w + 4, 3), dtype=np.uint8)
        base = np.array((RUNWAY_GREY if i % 2 == 0 else MARKING_WHITE)[::-1])
        n = img.shape[0] * img.shape[1] // 2
        ys, xs = rng.integers(0, img.shape[0], n), rng.integers(0, img.shape[1], n)
        img[ys, xs] = np.clip(base + rng.integers(-20, 21, (n, 3)), 0, 255)
        for step in (1, 3):
            rgb = img[y0 : y0 + h : step, x0 : x0 + w : step, ::-1].astype(np.int16)
            grey = np.abs(rgb - np.array(RUNWAY_GREY, np.int16)).sum(axis=2) < 18
            white = np.abs(rgb - np.array(MARKING_WHITE, np.int16)).max(axis=2) < 10
            mask = runway_mask(img, step)
            assert mask.dtype == bool and np.array_equal(mask, grey | white), (i, step)
            assert grey.sum() > 100 or white.sum() > 100


def test_needle_white_is_every_channel_at_the_unveiled_threshold():
    """`Seen` marks needle white (read with cv2.inRange at the threshold's ceiling) exactly where
    every channel is at least the threshold, clear air or under a smoke veil of any grey."""
    from simbridge.adapters.jsbsim.pilots._instruments import _NEEDLE_COLS, _NEEDLE_ROWS, _VEIL_GREY, NEEDLE_MIN, Seen

    rng = np.random.default_rng(4)
    levels = []
    for i in range(10):
        img = rng.integers(200, 256, (L.HEIGHT, L.WIDTH, 3))
        if i % 2:  # clear air: black faces with bright specks
            img = np.where(rng.random((L.HEIGHT, L.WIDTH, 1)) < 0.3, img, 0)
        else:  # under a veil: everything lifted towards its grey
            img = np.clip(img - rng.integers(0, 120), 0, 255)
        seen = Seen(img.astype(np.uint8))
        a = min(0.9, seen.level / _VEIL_GREY) if seen.level >= 1.0 else 0.0
        part = img[_NEEDLE_ROWS, _NEEDLE_COLS]
        thr = seen.level + NEEDLE_MIN * (1.0 - a) if a else float(NEEDLE_MIN)
        want = np.zeros(img.shape[:2], bool)
        want[_NEEDLE_ROWS, _NEEDLE_COLS] = (part >= thr).all(axis=2)
        assert np.array_equal(seen.white, want), (i, seen.level, thr)
        levels.append(seen.level)
    assert want.any() and min(levels) < 1.0 < max(levels)  # both branches of the threshold
