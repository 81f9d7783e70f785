"""The lane keeper's hands: `PulseSteering` turns a wanted average steer into A/D holds decided
once a frame, and the steer the simulator's own keyboard handling (`KeyboardControl`, CARLA
manual_control's ramp rounded to 0.1) applies frame by frame averages to the wanted one."""

from __future__ import annotations

import pygame
import pytest

from simbridge.adapters.drive.world._keys import KeyboardControl
from simbridge.adapters.drive.pilots import _hands as hands

KEYS = {"a": pygame.K_a, "d": pygame.K_d}


class LockstepKeys:
    """A port in lockstep as the driver sees it: every key_down/key_up runs one frame."""

    def __init__(self) -> None:
        self.kc = KeyboardControl()
        self.held: set[str] = set()
        self.t = 0.0
        self.applied: list[float] = []

    def frame(self) -> None:
        self.applied.append(self.kc.update([], {KEYS[k]: True for k in self.held}, 50.0).steer)
        self.t = round(self.t + hands.FRAME_S, 6)

    def key_down(self, key: str) -> None:
        self.held.add(key)
        self.frame()

    def key_up(self, key: str) -> None:
        self.held.discard(key)
        self.frame()


@pytest.mark.parametrize("want", [0.02, 0.056, 0.09, -0.04, -0.12])
def test_the_applied_steer_averages_to_the_wanted(want):
    port = LockstepKeys()
    steering = hands.PulseSteering(hands.Keys(port))  # type: ignore[arg-type]
    while port.t < 20.0:
        if not steering.update(want, port.t):
            port.frame()  # nothing sent: the driver waits a frame
    mean = sum(port.applied) / len(port.applied)
    assert mean == pytest.approx(want, abs=0.006)
    # a small wanted steer is pulses of small steps, never a swing the other way
    assert all(s * want >= 0 and abs(s) <= abs(want) + 0.2 + 1e-9 for s in port.applied)


def test_no_key_for_no_steer_and_release_on_the_way_out():
    port = LockstepKeys()
    keys = hands.Keys(port)  # type: ignore[arg-type]
    steering = hands.PulseSteering(keys)
    for _ in range(40):
        if not steering.update(0.0, port.t):
            port.frame()
    assert keys.sent == 0 and set(port.applied) == {0.0}
    steering.update(0.3, port.t)
    assert set(keys.down) == {"d"}
    steering.release()
    assert keys.down == {} and port.held == set()


@pytest.mark.parametrize("frames", range(1, 12))
def test_held_level_is_the_simulators_ramp(frames):
    kc = KeyboardControl()
    steer = 0.0
    for _ in range(frames):
        steer = kc.update([], {pygame.K_d: True}, 50.0).steer
    assert hands.held_level(frames) == steer
