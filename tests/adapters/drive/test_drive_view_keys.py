"""Keyboard driving: CARLA manual_control.py's `_parse_vehicle_keys` semantics and key toggles."""

from __future__ import annotations


import pygame
import pytest

from simbridge.adapters.drive.world import _keys
from simbridge.adapters.drive.world._keys import KeyboardControl
from simbridge.adapters.drive.world._scene import EgoControls

pytestmark = pytest.mark.usefixtures("sdl_offscreen")

FRAME_MS = 50.0


def up(key: int, mod: int = 0) -> pygame.event.Event:
    return pygame.event.Event(pygame.KEYUP, key=key, mod=mod)


def hold(kc: KeyboardControl, keys: set[int], frames: int) -> list[EgoControls]:
    return [kc.update([], keys, FRAME_MS) for _ in range(frames)]


@pytest.mark.parametrize("key", [pygame.K_w, pygame.K_UP])
def test_throttle_ramps_per_frame_and_drops_on_release(key: int) -> None:
    kc = KeyboardControl()
    seq = [c.throttle for c in hold(kc, {key}, 13)]
    assert seq[:10] == pytest.approx([0.1 * (i + 1) for i in range(10)])
    assert seq[10:] == [_keys.THROTTLE_MAX] * 3
    assert kc.update([], set(), FRAME_MS).throttle == 0.0


@pytest.mark.parametrize("key", [pygame.K_s, pygame.K_DOWN])
def test_brake_ramps_by_a_fifth_and_drops_on_release(key: int) -> None:
    kc = KeyboardControl()
    assert [c.brake for c in hold(kc, {key}, 6)] == pytest.approx([0.2, 0.4, 0.6, 0.8, 1.0, 1.0])
    assert kc.update([], set(), FRAME_MS).brake == 0.0


def test_steer_cache_grows_with_time_clamps_and_resets() -> None:
    kc = KeyboardControl()
    # 5e-4 per ms: 0.025 per 50 ms frame; the control is the cache rounded to 0.1
    right = [c.steer for c in hold(kc, {pygame.K_d}, 40)]
    assert (right[0], right[3], right[7], right[11]) == (0.0, 0.1, 0.2, 0.3)  # caches 0.025, 0.1, 0.2, 0.3
    assert max(right) == 0.7 and right[-1] == 0.7  # clamped at 0.7
    # pressing the other way first snaps the cache to 0, then grows left
    left = [c.steer for c in hold(kc, {pygame.K_LEFT}, 3)]
    assert left == [0.0, 0.0, -0.1]
    assert kc.update([], set(), FRAME_MS).steer == 0.0
    # a longer frame steers further per frame
    assert kc.update([], {pygame.K_a}, 400.0).steer == -0.2


def test_hand_brake_while_space_is_held() -> None:
    kc = KeyboardControl()
    assert kc.update([], {pygame.K_SPACE}, FRAME_MS).hand_brake is True
    assert kc.update([], set(), FRAME_MS).hand_brake is False


def test_q_toggles_reverse_on_release() -> None:
    kc = KeyboardControl()
    c = kc.update([up(pygame.K_q)], set(), FRAME_MS)
    assert (c.reverse, c.gear) == (True, -1)
    c = kc.update([], set(), FRAME_MS)
    assert c.reverse is True  # stays until the next toggle
    c = kc.update([up(pygame.K_q)], set(), FRAME_MS)
    assert (c.reverse, c.gear) == (False, 1)


def test_manual_gears_only_in_manual_mode() -> None:
    kc = KeyboardControl()
    assert kc.update([up(pygame.K_PERIOD)], set(), FRAME_MS).gear == 1  # automatic: ignored
    c = kc.update([up(pygame.K_m)], set(), FRAME_MS)
    assert c.manual_gear_shift is True and kc.pop_notice() == "Manual Transmission"
    assert kc.update([up(pygame.K_PERIOD), up(pygame.K_PERIOD)], set(), FRAME_MS).gear == 3
    c = kc.update([up(pygame.K_COMMA)] * 6, set(), FRAME_MS)
    assert (c.gear, c.reverse) == (-1, True)  # never below reverse


def test_autopilot_key_changes_nothing_and_leaves_a_notice() -> None:
    kc = KeyboardControl()
    before = hold(kc, {pygame.K_w, pygame.K_d}, 3)[-1]
    kc2 = KeyboardControl()
    hold(kc2, {pygame.K_w, pygame.K_d}, 2)
    after = kc2.update([up(pygame.K_p)], {pygame.K_w, pygame.K_d}, FRAME_MS)
    assert after == before
    assert kc2.pop_notice() == _keys.AUTOPILOT_NOTICE and kc2.pop_notice() is None
    assert kc2.quit_requested is False


@pytest.mark.parametrize(
    "event",
    [up(pygame.K_ESCAPE), up(pygame.K_q, pygame.KMOD_LCTRL), pygame.event.Event(pygame.QUIT)],
    ids=["esc", "ctrl-q", "window-close"],
)
def test_quit_keys(event: pygame.event.Event) -> None:
    kc = KeyboardControl()
    c = kc.update([event], set(), FRAME_MS)
    assert kc.quit_requested is True
    assert c.reverse is False  # Ctrl+Q quits, it does not toggle reverse


def test_pygame_pressed_state_is_accepted() -> None:
    pygame.init()
    try:
        kc = KeyboardControl()
        c = kc.update([], pygame.key.get_pressed(), FRAME_MS)
        assert c == EgoControls()
    finally:
        pygame.quit()


def test_a_paused_world_does_not_ramp_held_keys():
    """Lockstep: between the agent's actions the world is paused and its window keeps reading
    the keyboard (dt 0). However long the pause, a held W or D adds nothing until a frame runs,
    so the same actions give the same drive whatever the machine's speed."""
    kc = KeyboardControl()
    held = {pygame.K_w, pygame.K_d}
    for _ in range(7):
        paused = kc.update([], held, 0.0)
    assert (paused.throttle, paused.steer) == (0.0, 0.0)
    stepped = kc.update([], held, FRAME_MS)
    fresh = KeyboardControl().update([], held, FRAME_MS)
    assert stepped == fresh and stepped.throttle > 0.0
