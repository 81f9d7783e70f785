"""The pixel readers on images drawn like the cockpit draws them (DejaVu Sans Mono text blitted
at the layout's positions, a tilted horizon in the view)."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame
import cv2

from simbridge.adapters.jsbsim.pilots._glyphs import MONO  # noqa: E402
from simbridge.adapters.jsbsim.pilots._instruments import (  # noqa: E402
    RADIO_BG,
    RADIO_FG,
    read_frequency,
    read_readout,
    read_squawk,
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
    r = read_readout(img)
    for k, v in vals.items():
        assert getattr(r, k) == pytest.approx(v), k
    assert r.complete


def test_blank_strip_is_incomplete():
    r = read_readout(np.zeros((L.HEIGHT, L.WIDTH, 3), np.uint8))
    assert not r.complete and r.ias is None


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
