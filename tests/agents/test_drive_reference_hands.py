"""The drive reference drivers' model of manual_control's keys agrees with the simulator's own
keyboard handling (`adapters.drive.world._keys.KeyboardControl`): a steering key held n frames applies
exactly the steer the drivers count on, and the curvature-to-steer map inverts the MKZ's geometry."""

from __future__ import annotations

import math

import pytest

import pygame

from simbridge.adapters.drive.world._dynamics import MAX_WHEEL_ANGLE_RAD, WHEELBASE_M
from simbridge.adapters.drive.world._keys import KeyboardControl
from simbridge.adapters.drive.pilots import _hands as hands


@pytest.mark.parametrize("frames", range(1, 16))
def test_a_hold_applies_the_quanta_the_driver_counts(frames):
    kc = KeyboardControl()
    applied = 0.0
    for _ in range(frames):
        applied += kc.update([], {pygame.K_d: True}, 50.0).steer
    after = kc.update([], {}, 50.0).steer  # released: back to 0 at once
    assert round(applied / hands.STEER_STEP) == hands.tap_quanta(frames)
    assert after == 0.0


def test_hold_lengths_cover_the_wanted_quanta():
    for q in range(1, 12):
        n = hands.hold_frames_for(q, 20)
        assert hands.tap_quanta(n) >= q and (n == 2 or hands.tap_quanta(n - 1) < q)
    assert hands.hold_frames_for(50, 7) == 7  # capped


def test_the_drivers_vehicle_geometry_is_the_simulators():
    assert hands.WHEELBASE_M == WHEELBASE_M and hands.WHEEL_LOCK_RAD == pytest.approx(MAX_WHEEL_ANGLE_RAD)
    kappa = 1.0 / 25.0
    steer = hands.steer_for_curvature(kappa)
    assert math.tan(steer * MAX_WHEEL_ANGLE_RAD) / WHEELBASE_M == pytest.approx(kappa)
