"""Key bindings, hotspots and the mouse yoke act on the control state (no window needed)."""

import pygame
import pytest

from simbridge.adapters.jsbsim import _layout as L
from simbridge.adapters.jsbsim.cockpit._controls import Controls
from simbridge.adapters.jsbsim.cockpit._input import InputHandler


@pytest.fixture
def h():
    return InputHandler(Controls(), has_autopilot=True)


def press(h, key, ch=""):
    h.key_down(key, ch, 0)
    h.key_up(key)


def test_hotspots_are_inside_the_panel_and_do_not_overlap():
    rects = {n: pygame.Rect(r) for n, r in L.HOTSPOTS.items()}
    panel = pygame.Rect(L.PANEL)
    for name, r in rects.items():
        assert panel.contains(r), name
    names = sorted(rects)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            assert not rects[a].colliderect(rects[b]), (a, b)
    for name in rects:
        assert L.hit(*L.centre(name)) == name


def test_gauges_do_not_overlap_each_other_or_the_controls():
    for i, g in enumerate(L.GAUGES):
        for g2 in L.GAUGES[i + 1 :]:
            assert (g.cx - g2.cx) ** 2 + (g.cy - g2.cy) ** 2 > (g.r + g2.r) ** 2
        box = pygame.Rect(g.cx - g.r, g.cy - g.r, 2 * g.r, 2 * g.r)
        assert not any(box.colliderect(pygame.Rect(r)) for r in L.HOTSPOTS.values()), g.name


def test_flightgear_flight_control_keys(h):
    c = h.c
    press(h, pygame.K_UP)  # FlightGear: "elevator down" (push, nose down) is positive
    assert c.elevator == pytest.approx(0.05)
    press(h, pygame.K_KP2)
    press(h, pygame.K_2, "2")
    assert c.elevator == pytest.approx(-0.05)
    press(h, pygame.K_RIGHT)
    assert c.aileron == pytest.approx(0.05)
    press(h, pygame.K_KP_ENTER)
    press(h, pygame.K_RETURN)
    press(h, pygame.K_INSERT)
    assert c.rudder == pytest.approx(0.05)
    press(h, pygame.K_KP5)
    assert (c.elevator, c.aileron, c.rudder) == (0, 0, 0)
    press(h, pygame.K_HOME)
    assert c.elevator_trim == pytest.approx(0.01)


def test_engine_keys(h):
    c = h.c
    for _ in range(10):
        press(h, pygame.K_PAGEUP)
    assert c.throttle == pytest.approx(0.10)
    press(h, pygame.K_PAGEDOWN)
    assert c.throttle == pytest.approx(0.09)
    for _ in range(25):
        press(h, pygame.K_m, "m")
    assert c.mixture == 1.0
    press(h, pygame.K_m, "M")
    assert c.mixture == pytest.approx(0.95)
    for _ in range(5):
        press(h, pygame.K_RIGHTBRACKET, "}")
    assert c.magnetos == 3
    press(h, pygame.K_LEFTBRACKET, "{")
    assert c.magnetos == 2
    h.key_down(pygame.K_s, "s", 0)
    assert c.magnetos_effective == 4
    h.key_up(pygame.K_s)
    assert (c.magnetos_effective, c.magnetos) == (3, 3)


def test_held_toggle_keys_do_not_repeat(h):
    c = h.c
    h.key_down(pygame.K_b, "B", pygame.KMOD_SHIFT)
    h.key_down(pygame.K_b, "B", pygame.KMOD_SHIFT)  # autorepeat
    h.key_up(pygame.K_b)
    assert c.parking_brake == 1
    h.key_down(pygame.K_b, "b", 0)
    assert c.brake_left == c.brake_right == 1.0
    h.key_up(pygame.K_b)
    assert c.brake_left == 0.0
    press(h, pygame.K_RIGHTBRACKET, "]")
    press(h, pygame.K_RIGHTBRACKET, "]")
    assert c.flaps_index == 2


def test_panel_clicks(h):
    c = h.c
    for name in ("switch:master_bat", "switch:avionics", "fuel:LEFT", "primer", "primer", "park_brake"):
        h.mouse_down(*L.centre(name), 1)
        h.mouse_up(*L.centre(name), 1)
    assert (c.master_bat, c.avionics, c.fuel_selector, c.primer_strokes, c.parking_brake) == (1, 1, 1, 2, 1)
    x, y = L.centre("mags:START")
    h.mouse_down(x, y, 1)
    assert c.magnetos == 4
    h.mouse_up(x, y, 1)
    assert c.magnetos == 3  # spring-loaded
    # throttle drag to the top
    tx, ty, tw, th = L.THROTTLE
    h.mouse_down(tx + tw // 2, ty + th - 2, 1)
    h.mouse_motion(tx + tw // 2, ty, (1, 0, 0))
    h.mouse_up(tx + tw // 2, ty, 1)
    assert c.throttle == pytest.approx(1.0)
    h.mouse_down(L.FLAPS[0] + 5, L.FLAP_DETENT_Y[3], 1)
    assert c.flaps_index == 3


def test_radio_clicks(h):
    c = h.c
    for name in ("com1:mhz+", "com1:mhz+", "com1:khz+", "com1:swap"):
        h.mouse_down(*L.centre(name), 1)
    assert c.com1_mhz == pytest.approx(123.525) and c.com1_stby_mhz == pytest.approx(118.0)
    x, y, w, hh = L.XPDR_DIGITS[0]
    for _ in range(3):
        h.mouse_down(x + w // 2, y + 5, 1)  # upper half: +1
    h.mouse_down(x + w // 2, y + hh - 5, 1)  # lower half: -1
    assert c.xpdr_code == 3200
    h.mouse_down(*L.centre("xpdr:mode3"), 1)
    assert c.xpdr_mode == 3
    for _ in range(3):
        h.mouse_down(*L.centre("baro-"), 1)
    assert c.baro_inhg == pytest.approx(29.89)
    h.mouse_down(*L.centre("ap:ap_hdg"), 1)
    assert c.ap_on == 1 and c.ap_hdg == 1


def test_mouse_yoke(h):
    c = h.c
    h.mouse_down(10, 10, 3)  # right click toggles
    assert c.mouse_yoke == 1
    h.mouse_motion(L.VIEW_CENTRE[0] + L.MOUSE_YOKE_RANGE_PX[0] // 2, L.VIEW_CENTRE[1] - L.MOUSE_YOKE_RANGE_PX[1], ())
    assert c.aileron == pytest.approx(0.5) and c.elevator == pytest.approx(1.0)  # pointer up: push
    h.mouse_down(*L.centre("switch:master_bat"), 1)
    assert c.master_bat == 0  # panel clicks are off while flying with the mouse
    h.key_down(pygame.K_TAB, "\t", 0)
    assert c.mouse_yoke == 0


def test_trim_wheel_click_drag_and_scroll_agree(h):
    c = h.c
    x, y, w, hh = L.TRIM
    h.mouse_down(x + w // 2, y + 5, 1)  # upper half: nose down
    h.mouse_up(x + w // 2, y + 5, 1)
    assert c.elevator_trim == pytest.approx(0.02)
    h.mouse_down(x + w // 2, y + hh // 2, 1)
    h.mouse_motion(x + w // 2, y, (1, 0, 0))  # dragged to the top: full nose down
    h.mouse_up(x + w // 2, y, 1)
    assert c.elevator_trim == pytest.approx(1.0)
    h.wheel(x + w // 2, y + hh // 2, -3)  # scroll down: nose up
    assert c.elevator_trim == pytest.approx(0.94)
    assert L.slider_y(L.TRIM, (1 + c.elevator_trim) / 2) < y + hh // 2  # the mark shows high
