"""The rendered panel honours the pixel contract in `_layout` (headless SDL surface)."""

import math

import numpy as np
import pygame
import pytest

from simbridge.adapters.jsbsim import _layout as L
from simbridge.adapters.jsbsim.cockpit._controls import Controls
from simbridge.adapters.jsbsim.cockpit._panel import Panel, Readings


@pytest.fixture(scope="module")
def panel():
    pygame.display.init()
    pygame.font.init()
    surf = pygame.Surface((L.WIDTH, L.HEIGHT))
    yield Panel(has_autopilot=True), surf
    pygame.quit()


def rgb(surf, x, y):
    return tuple(surf.get_at((x, y)))[:3]


R = Readings(
    ias_kt=105,
    pitch_deg=5,
    bank_deg=30,
    alt_ind_ft=3450,
    turn_rate_dps=3,
    heading_mag_deg=75,
    vs_fpm=-700,
    rpm=2350,
    fuel_l_gal=20,
    fuel_r_gal=10,
    oil_t_degf=180,
    oil_p_psi=60,
    volts=28,
    avionics_powered=True,
)


def test_needles_point_where_the_layout_formulas_say(panel):
    p, surf = panel
    p.draw(surf, R, Controls())
    cases = [
        (L.ASI, L.asi_angle(R.ias_kt)),
        (L.VSI, L.vsi_angle(R.vs_fpm)),
        (L.TACH, L.tach_angle(R.rpm)),
        (L.HI, R.heading_mag_deg),
        (L.ALT, (R.alt_ind_ft % 1000) * 0.36),
        (L.FUEL_L, L.small_angle("fuel_l", 20)),
        (L.OIL_P, L.small_angle("oil_p", 60)),
    ]
    for g, ang in cases:
        x, y = L.needle_tip(g, ang, 0.7)
        assert rgb(surf, x, y) == L.NEEDLE, g.name
        x, y = L.needle_tip(g, ang + 40, 0.7)
        assert rgb(surf, x, y) != L.NEEDLE, g.name


def test_attitude_indicator_horizon_encodes_bank_and_pitch(panel):
    p, surf = panel
    p.draw(surf, R, Controls())
    g = L.AI

    # find the sky/ground boundary in two columns left and right of the centre
    def boundary(x):
        for y in range(g.cy - g.r + 8, g.cy + g.r - 8):
            if rgb(surf, x, y) == L.GROUND:
                return y
        raise AssertionError("no ground in column")

    xl, xr = g.cx - 25, g.cx + 25
    yl, yr = boundary(xl), boundary(xr)
    bank = math.degrees(math.atan2(yl - yr, xr - xl))
    assert bank == pytest.approx(R.bank_deg, abs=3)
    mid = (yl + yr) / 2
    assert (mid - g.cy) / L.AI_PX_PER_DEG_PITCH == pytest.approx(R.pitch_deg, abs=1.5)


def test_readout_fields_are_in_their_boxes(panel):
    p, surf = panel
    vals = dict(ias=105, alt=3450, hdg=75, vs=-700, bank=30, pitch=5, rpm=2350, thr=78, mix=100, flaps=10, t=42.5)
    line = L.READOUT_FORMAT.format(**vals)
    p.draw_readout(surf, line)
    arr = pygame.surfarray.array3d(surf)
    for name, (x, y, w, h) in L.readout_boxes().items():
        spec = {
            "ias": "{:3.0f}",
            "alt": "{:5.0f}",
            "hdg": "{:03.0f}",
            "vs": "{:+5.0f}",
            "bank": "{:+4.0f}",
            "pitch": "{:+4.0f}",
            "rpm": "{:4.0f}",
            "thr": "{:3.0f}",
            "mix": "{:3.0f}",
            "flaps": "{:2.0f}",
            "t": "{:6.1f}",
        }[name]
        text = spec.format(vals[name])
        ref = pygame.Surface((w, h))
        ref.blit(p.f14.render(text, True, (230, 230, 230)), (0, 0))
        want = pygame.surfarray.array3d(ref)[..., 0] > 110
        got = arr[x : x + w, y : y + h, 0] > 110
        assert want.sum() > 10, name  # the value is drawn
        assert np.count_nonzero(got != want) <= 2, name
