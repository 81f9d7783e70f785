"""Synthetic driving traces for the CARLA verifier tests: kinematics along a polyline, not a
vehicle model. Tests work out the expected scores by hand from the builder's arguments."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def speed_profile(hz: float, legs: Sequence[tuple[float, float, float]]) -> tuple[np.ndarray, np.ndarray]:
    """(t, speed_kmh) for consecutive legs of (duration_s, v_start_kmh, v_end_kmh), linear in each."""
    dt = 1.0 / hz
    total = sum(d for d, _, _ in legs)
    t = np.arange(0.0, total + dt / 2, dt)
    knots_t = np.concatenate(([0.0], np.cumsum([d for d, _, _ in legs])))
    v = np.zeros_like(t)
    for (d, a, b), t0 in zip(legs, knots_t[:-1]):
        m = (t >= t0) & (t <= t0 + d)
        v[m] = a + (b - a) * (t[m] - t0) / d
    return t, v


def along_polyline(
    route_xy: Sequence[Sequence[float]], s_m: np.ndarray, lateral_m: np.ndarray | float = 0.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x, y, yaw at arc lengths `s_m` along the polyline (clipped to its ends), shifted `lateral_m`
    to the right of travel (CARLA: +y is right of +x)."""
    pts = np.asarray(route_xy, dtype=float)
    seg = np.diff(pts, axis=0)
    seg_len = np.hypot(seg[:, 0], seg[:, 1])
    cum = np.concatenate(([0.0], np.cumsum(seg_len)))
    s = np.clip(np.asarray(s_m, dtype=float), 0.0, cum[-1])
    i = np.clip(np.searchsorted(cum, s, side="right") - 1, 0, len(seg) - 1)
    f = (s - cum[i]) / seg_len[i]
    ux, uy = seg[i, 0] / seg_len[i], seg[i, 1] / seg_len[i]
    lat = np.broadcast_to(np.asarray(lateral_m, dtype=float), s.shape)
    x = pts[i, 0] + seg[i, 0] * f - uy * lat
    y = pts[i, 1] + seg[i, 1] * f + ux * lat
    return x, y, np.degrees(np.arctan2(uy, ux))


def drive(
    route_xy: Sequence[Sequence[float]], hz: float, legs: Sequence[tuple[float, float, float]], *, s0_m: float = 0.0
) -> dict[str, np.ndarray]:
    """Drive the polyline with the speed legs, starting `s0_m` along it."""
    t, v = speed_profile(hz, legs)
    ms = v / 3.6
    s = s0_m + np.concatenate(([0.0], np.cumsum((ms[1:] + ms[:-1]) / 2 * np.diff(t))))
    x, y, yaw = along_polyline(route_xy, s)
    return {"t": t, "x_m": x, "y_m": y, "yaw_deg": yaw, "speed_kmh": v}


def park(
    hz: float,
    start: tuple[float, float, float],
    final: tuple[float, float, float],
    *,
    move_s: float = 10.0,
    still_s: float = 3.0,
) -> dict[str, np.ndarray]:
    """Move linearly from the start pose (x, y, yaw) to the final pose, then stand still."""
    dt = 1.0 / hz
    t = np.arange(0.0, move_s + still_s + dt / 2, dt)
    f = np.clip(t / move_s, 0.0, 1.0)
    x = start[0] + (final[0] - start[0]) * f
    y = start[1] + (final[1] - start[1]) * f
    yaw = start[2] + (final[2] - start[2]) * f
    v = np.where(t < move_s, np.hypot(final[0] - start[0], final[1] - start[1]) / move_s * 3.6, 0.0)
    return {"t": t, "x_m": x, "y_m": y, "yaw_deg": yaw, "speed_kmh": v}


def highway(
    hz: float,
    *,
    accel_s: float = 20.0,
    hold_s: float = 130.0,
    speed_kmh: float = 90.0,
    offset_amp_m: float = 0.0,
    period_s: float = 10.0,
    lane_id: float = -2.0,
) -> dict[str, np.ndarray]:
    """Accelerate linearly from rest to `speed_kmh` over `accel_s`, hold it for `hold_s`; the lane
    offset is a sine of amplitude `offset_amp_m` and period `period_s` (RMS = amp/√2 over whole periods)."""
    t, v = speed_profile(hz, [(accel_s, 0.0, speed_kmh), (hold_s, speed_kmh, speed_kmh)])
    off = offset_amp_m * np.sin(2 * np.pi * t / period_s)
    return {"t": t, "speed_kmh": v, "lane_offset_m": off, "lane_id": np.full_like(t, lane_id)}
