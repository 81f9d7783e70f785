"""The ego car's dynamics (CommonRoad single-track, MKZ parameters) under manual-control pedals."""

from __future__ import annotations

import math

import pytest

import vehiclemodels  # noqa: F401

from simbridge.adapters.drive.world._dynamics import (  # noqa: E402
    MAX_WHEEL_ANGLE_RAD,
    WHEELBASE_M,
    EgoCar,
    longitudinal_accel_ms2,
)
from simbridge.adapters.drive.world._scene import EgoControls  # noqa: E402

DT_S = 0.05


def test_reaches_90_kmh_well_under_20_s_and_holds_it():
    car = EgoCar(0.0, 0.0, 0.0)
    t, t90 = 0.0, None
    while t < 20.0 and t90 is None:
        car.step(EgoControls(throttle=1.0), DT_S)
        t += DT_S
        if car.state.speed_kmh >= 90.0:
            t90 = t
    assert t90 is not None and t90 < 12.0
    # a simple speed-holding pedal (as a driver would) keeps it within 2 km/h for 30 s
    speeds = []
    for _ in range(600):
        v = car.state.speed_kmh
        car.step(EgoControls(throttle=min(1.0, max(0.0, 0.15 + 0.1 * (90.0 - v)))), DT_S)
        speeds.append(car.state.speed_kmh)
    assert max(abs(v - 90.0) for v in speeds[200:]) < 2.0
    assert abs(car.state.y_m) < 1e-6 and abs(car.state.yaw_deg) < 1e-6  # straight stays straight


def test_low_speed_turn_radius_is_the_kinematic_one():
    car = EgoCar(0.0, 0.0, 0.0)
    steer = 0.5
    for _ in range(400):  # ~10 km/h with the wheel held at half lock
        v = car.state.speed_kmh
        car.step(EgoControls(throttle=min(1.0, max(0.0, 0.05 + 0.1 * (10.0 - v))), steer=steer), DT_S)
    s = car.state
    assert 9.0 < s.speed_kmh < 11.0
    assert abs(s.yaw_rad) < 20 * math.pi  # bounded: the model stays stable at walking pace
    assert s.delta_rad == pytest.approx(steer * MAX_WHEEL_ANGLE_RAD, rel=1e-3)
    radius_m = s.v_ms / s.yaw_rate_rads
    assert radius_m == pytest.approx(WHEELBASE_M / math.tan(s.delta_rad), rel=0.05)
    assert s.yaw_rate_rads > 0  # steer > 0 turns right: CARLA's yaw grows clockwise


def test_full_brake_stops_and_does_not_reverse():
    car = EgoCar(0.0, 0.0, 0.0)
    while car.state.speed_kmh < 100.0:
        car.step(EgoControls(throttle=1.0), DT_S)
    x0 = car.state.x_m
    for _ in range(200):
        car.step(EgoControls(brake=1.0), DT_S)
    assert car.state.v_ms == 0.0
    assert 35.0 < car.state.x_m - x0 < 60.0  # 100 km/h -> 0 at ~8 m/s^2
    car.step(EgoControls(brake=1.0), DT_S)
    assert car.state.v_ms == 0.0


def test_reverse_gear_drives_backwards():
    car = EgoCar(0.0, 0.0, 0.0)
    for _ in range(100):
        car.step(EgoControls(throttle=0.5, reverse=True), DT_S)
    assert car.state.v_ms < -1.0 and car.state.x_m < -1.0
    assert longitudinal_accel_ms2(EgoControls(), 0.0) == 0.0  # no pedal at rest: it stays at rest


def test_reversing_with_the_wheel_at_lock_turns_on_the_kinematic_radius():
    """Backing at 6 km/h (above the 1.5 m/s where the dynamic model takes over going forward)
    with the keyboard's 0.7 steer: the car turns smoothly on the kinematic radius. The dynamic
    model, written for forward travel, spun the car 80 deg in 0.2 s here while parking (T07)."""
    car = EgoCar(0.0, 0.0, 0.0)
    steer = 0.7
    yaws = []
    for _ in range(160):
        v = car.state.speed_kmh
        car.step(
            EgoControls(throttle=min(1.0, max(0.0, 0.1 + 0.1 * (6.0 - v))), steer=steer, reverse=True, gear=-1), DT_S
        )
        yaws.append(car.state.yaw_deg)
    s = car.state
    assert s.v_ms < 0 and 5.0 < s.speed_kmh < 7.0
    assert max(abs(b - a) for a, b in zip(yaws, yaws[1:])) < 1.5  # no jump: < 30 deg/s
    radius_m = s.v_ms / s.yaw_rate_rads
    assert radius_m == pytest.approx(WHEELBASE_M / math.tan(s.delta_rad), rel=0.05)
    assert s.yaw_rate_rads < 0  # steer right while backing: the nose swings left
