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


def test_altimeter_has_three_hands_at_the_layout_angles(panel):
    p, surf = panel
    alt = 13450.0
    p.draw(surf, Readings(alt_ind_ft=alt), Controls())
    a100, a1000, a10000 = L.alt_angles(alt)
    assert (a100, a1000) == pytest.approx(((alt % 1000) * 0.36, (alt % 10000) * 0.036))
    assert rgb(surf, *L.needle_tip(L.ALT, a100, 0.75)) == L.NEEDLE  # the long needle
    assert rgb(surf, *L.needle_tip(L.ALT, a1000, 0.3)) == L.NEEDLE  # the short one
    assert rgb(surf, *L.needle_tip(L.ALT, a1000, 0.75)) != L.NEEDLE
    w_in, w_out, _ = L.ALT_WEDGE
    assert rgb(surf, *L.needle_tip(L.ALT, a10000, (w_in + w_out) / 2)) == L.NEEDLE  # the wedge
    assert rgb(surf, *L.needle_tip(L.ALT, a10000 + 20, (w_in + w_out) / 2)) != L.NEEDLE


READOUT_VALS = dict(ias=105, alt=3450, hdg=75, vs=-700, bank=30, pitch=5, rpm=2350, thr=78, mix=100, flaps=10, t=42.5)


def test_default_panel_prints_no_readout(panel):
    """Without `--assist readout` the panel's lower edge stays black: no digits of airspeed,
    attitude or time anywhere a C172 has none."""
    p, surf = panel
    surf.fill((255, 0, 255))  # whatever the last frame left there
    p.draw(surf, R, Controls())
    arr = pygame.surfarray.array3d(surf)
    x, y, w, h = L.READOUT
    assert arr[x : x + w, y : y + h].max() == 0
    # the same frame with the strip: the only difference is the strip's ink
    p.draw(surf, R, Controls(), readout=L.READOUT_FORMAT.format(**READOUT_VALS))
    diff = np.nonzero((pygame.surfarray.array3d(surf) != arr).any(axis=2))
    assert diff[1].min() >= y and diff[0].size > 500


def test_readout_fields_are_in_their_boxes(panel):
    p, surf = panel
    vals = READOUT_VALS
    line = L.READOUT_FORMAT.format(**vals)
    p.draw(surf, R, Controls(), readout=line)
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


def test_smoke_veils_the_lower_edge_too(panel):
    """The veil covers the whole window, the panel's black lower edge included (the POH pilots
    judge the smoke there), frame after frame without building up."""
    p, surf = panel
    for _ in range(3):
        p.draw(surf, Readings(smoke_density=0.5), Controls())
    x, y, w, h = L.READOUT
    grey = pygame.surfarray.array3d(surf)[x : x + w, y : y + h]
    want = L.SMOKE_GREY[0] * round(L.SMOKE_MAX_ALPHA * 0.5) / 255
    assert abs(float(grey.mean()) - want) < 2


def test_assist_is_a_repeatable_cockpit_argument():
    from simbridge.adapters.jsbsim.cockpit._app import ASSISTS, parse_args

    assert ASSISTS == ("readout",)
    assert parse_args([]).assist == []
    assert parse_args(["--assist", "readout", "--assist", "readout"]).assist == ["readout", "readout"]


def test_unknown_assist_is_a_usage_error(capsys):
    from simbridge.adapters.jsbsim.cockpit._app import parse_args

    with pytest.raises(SystemExit) as e:
        parse_args(["--assist", "autopilot-hud"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--assist" in err and "autopilot-hud" in err


@pytest.mark.parametrize("assist", [[], ["--assist", "readout"]])
def test_cockpit_program_draws_the_strip_only_when_assisted(monkeypatch, assist):
    """The cockpit program itself (headless, T09's initial state): the frame it draws has the
    strip only with `--assist readout`, says so in /sim/rendering/assists, and its needles read
    what the simulator indicates."""
    from simbridge.adapters.jsbsim.cockpit._app import Cockpit, parse_args
    from simbridge.adapters.jsbsim.pilots._instruments import read_instruments, read_strip

    for k, v in (("SDL_VIDEODRIVER", "dummy"), ("SDL_FRAMEBUFFER_ACCELERATION", "0"), ("SDL_VIDEO_WINDOW_POS", "0,0")):
        monkeypatch.setenv(k, v)  # the cockpit sets them for its own process: restored after
    cp = Cockpit(parse_args(["--headless", "--task", "T09", "--telnet-port", "0", "--paused", *assist]))
    try:
        cp._render()
        img = pygame.surfarray.array3d(cp.screen).transpose(1, 0, 2)[:, :, ::-1].copy()
        r = cp.readings()
        assert cp.tree.get("/sim/rendering/assists")[0] == ("readout" if assist else "")
    finally:
        cp.server.close()
    strip = read_strip(img)
    if assist:
        assert strip.complete and strip.ias == round(r.ias_kt) and strip.alt == round(r.alt_ind_ft)
    else:
        assert not strip.complete and strip.ias is None and strip.bank is None and strip.t is None
        x, y, w, h = L.READOUT
        assert img[y : y + h, x : x + w].max() == 0
    got = read_instruments(img)
    assert got.ias == pytest.approx(r.ias_kt, abs=1.0)
    assert got.alt == pytest.approx(r.alt_ind_ft, abs=10.0)
    assert got.bank == pytest.approx(r.bank_deg, abs=1.0)
