"""Synthetic traces for T01-T05 and T10: simple kinematics along straight segments, not a
flight model. Positions are laid out in a runway frame (metres along the landing direction
from the landing threshold, metres to the left) and converted to lat/lon; every test works its
expected score out by hand from the builder's arguments.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

R_EARTH_M = 6_371_008.8
KT = 0.514444  # m/s per knot
M_PER_NM = 1852.0


# --------------------------------------------------------------------------- geometry


def local_to_latlon(east_m: Any, north_m: Any, lat0: float, lon0: float) -> tuple[np.ndarray, np.ndarray]:
    """Inverse of primitives.latlon_to_local_m (equirectangular about lat0/lon0)."""
    lat = lat0 + np.degrees(np.asarray(north_m, dtype=float) / R_EARTH_M)
    lon = lon0 + np.degrees(np.asarray(east_m, dtype=float) / (R_EARTH_M * np.cos(np.radians((lat + lat0) / 2))))
    return lat, lon


def _unit(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    """Unit east/north vector from a to b (lat, lon) in a local frame at a."""
    east = math.radians(b[1] - a[1]) * R_EARTH_M * math.cos(math.radians((a[0] + b[0]) / 2))
    north = math.radians(b[0] - a[0]) * R_EARTH_M
    n = math.hypot(east, north)
    return east / n, north / n


def frame_to_latlon(along_m: Any, left_m: Any, thr: tuple[float, float], end: tuple[float, float]):
    """Runway frame → lat/lon: `along_m` from `thr` towards `end`, `left_m` to the left."""
    ux, uy = _unit(thr, end)
    a, l_ = np.asarray(along_m, dtype=float), np.asarray(left_m, dtype=float)
    east = a * ux - l_ * uy
    north = a * uy + l_ * ux
    return local_to_latlon(east, north, thr[0], thr[1])


def polyline(t: np.ndarray, points: list[tuple[float, float]], speed_mps: float, t_start: float):
    """Position along a polyline of (x, y) points flown at constant speed from `t_start`
    (held at the first point before it and at the last point after the end)."""
    pts = np.asarray(points, dtype=float)
    seg = np.hypot(*np.diff(pts, axis=0).T)
    cum = np.concatenate(([0.0], np.cumsum(seg)))
    s = np.clip((t - t_start) * speed_mps, 0.0, cum[-1])
    return np.interp(s, cum, pts[:, 0]), np.interp(s, cum, pts[:, 1]), t_start + cum / speed_mps


def step(t: np.ndarray, changes: list[tuple[float, float]], initial: float = 0.0) -> np.ndarray:
    """A discrete signal: `initial`, then each (time, value) from that time on."""
    out = np.full(t.shape, float(initial))
    for t0, v in changes:  # a handful of switch changes, not samples
        out[t >= t0 - 1e-9] = v
    return out


def grid(duration_s: float, hz: float) -> np.ndarray:
    return np.round(np.arange(0.0, duration_s + 0.5 / hz, 1.0 / hz), 9)


# --------------------------------------------------------------------------- T01


def engine_start(
    hz: float = 10.0,
    *,
    duration_s: float = 120.0,
    cold: bool = False,
    primer: int = 3,
    prime_t: float = 20.0,
    crank_t: float = 40.0,
    starts: bool = True,
    rpm: float = 1000.0,
    rpm_late: float | None = None,
    mags_end: float = 3.0,
    avionics: bool = True,
    mixture: float = 1.0,
    fuel: float = 3.0,
) -> dict[str, np.ndarray]:
    """Cold-and-dark start: fuel 5 s, mixture 10 s, primer strokes one a second from `prime_t`,
    master 25 s, beacon 27 s, key BOTH at crank-5 s and START for 3 s from `crank_t`, engine
    catches at crank+2 s, settles at `rpm` from crank+10 s (`rpm_late` from 3 s before the end),
    avionics at crank+15 s. `cold=True` leaves everything off."""
    t = grid(duration_s, hz)
    z = np.zeros_like(t)
    if cold:
        return {
            "t": t,
            "engine_running": z,
            "engine_rpm": z,
            "magnetos": z,
            "mixture": z,
            "master_bat": z,
            "beacon": z,
            "avionics": z,
            "fuel_selector": z,
            "primer_strokes": z,
            "crashed": z,
        }
    strokes = np.clip(np.floor(t - prime_t) + 1, 0, primer) if primer else z
    running = step(t, [(crank_t + 2, 1.0)]) if starts else z
    rpm_sig = np.where(t < crank_t, 0.0, np.where(t < crank_t + 2, 200.0, 0.0))
    if starts:
        settle = np.interp(t, [crank_t + 2, crank_t + 4, crank_t + 10], [800, 1400, rpm])
        rpm_sig = np.where(t >= crank_t + 2, settle, rpm_sig)
        if rpm_late is not None:
            rpm_sig = np.where(t >= duration_s - 3.0, rpm_late, rpm_sig)
    return {
        "t": t,
        "fuel_selector": step(t, [(5, fuel)], 3.0 if fuel == 3.0 else 0.0),
        "mixture": step(t, [(10, mixture)]),
        "primer_strokes": strokes,
        "master_bat": step(t, [(25, 1)]),
        "beacon": step(t, [(27, 1)]),
        "magnetos": step(t, [(crank_t - 5, 3), (crank_t, 4), (crank_t + 3, mags_end)]),
        "engine_running": running,
        "engine_rpm": rpm_sig,
        "avionics": step(t, [(crank_t + 15, 1)]) if avionics else z,
        "crashed": z,
    }


# --------------------------------------------------------------------------- T02


def takeoff_hold(
    hz: float = 10.0,
    *,
    runway=((47.43117533, -122.30804122), (47.46379733, -122.30775222)),
    roll_s: float = 30.0,
    liftoff_left_m: float = 0.0,
    top_ft: float = 3000.0,
    hold_s: float = 80.0,
    hold_hdg: float = 340.0,
    hold_ias: float = 90.0,
    after_s: float = 60.0,
    autopilot_at: float | None = None,
    takes_off: bool = True,
) -> dict[str, np.ndarray]:
    """Roll `roll_s` accelerating to 60 kt along the runway centreline (offset `liftoff_left_m`),
    lift off, climb at 700 fpm and 75 KIAS on runway heading (344° mag) from 433 ft to `top_ft`;
    then exactly `hold_s` s at `top_ft`, `hold_hdg`, `hold_ias`; then `after_s` s 300 ft higher.
    The hold starts at t_hold = roll_s + (top_ft - 433) / 700 * 60."""
    climb_s = (top_ft - 433.0) / 700.0 * 60.0
    t_hold = roll_s + climb_s
    t = grid(t_hold + hold_s + after_s, hz)
    acc = 60 * KT / roll_s
    along = np.where(t < roll_s, 0.5 * acc * t**2, 0.5 * acc * roll_s**2 + 60 * KT * (t - roll_s))
    lat, lon = frame_to_latlon(along, np.full_like(t, liftoff_left_m), *runway)
    hold = (t >= t_hold) & (t <= t_hold + hold_s + 1e-9)
    after = (t > t_hold + hold_s + 1e-9) & (after_s > 0)
    alt = np.where(t < roll_s, 433.0, np.minimum(433.0 + (t - roll_s) * 700 / 60, top_ft))
    alt = np.where(after, top_ft + 300.0, alt)
    ias = np.where(t < roll_s, acc * t / KT, np.where(hold | after, hold_ias, 75.0))
    hdg = np.where(hold | after, hold_hdg, 344.0)
    ground = (t < roll_s) if takes_off else np.ones_like(t, dtype=bool)
    if not takes_off:
        alt = np.full_like(t, 433.0)
    ap = np.zeros_like(t) if autopilot_at is None else (t >= autopilot_at).astype(float)
    return {
        "t": t,
        "lat_deg": lat,
        "lon_deg": lon,
        "on_ground": ground.astype(float),
        "alt_msl_ft": alt,
        "ias_kt": ias,
        "heading_mag_deg": hdg,
        "autopilot_on": ap,
        "vs_fpm": np.gradient(alt, t) * 60,
        "crashed": np.zeros_like(t),
    }


# --------------------------------------------------------------------------- T03 / landing


def _landing_tail(t: np.ndarray, t_td: float, v_td: float, td_along: float, stop_along: float):
    """Along-track position and speed on the rollout: uniform deceleration from `v_td` at
    `td_along` to a stop at `stop_along`."""
    d = stop_along - td_along
    dec = v_td**2 / (2 * d)
    t_stop = t_td + v_td / dec
    tau = np.clip(t - t_td, 0.0, t_stop - t_td)
    return td_along + v_td * tau - 0.5 * dec * tau**2, np.where(t >= t_stop, 0.0, v_td - dec * tau), t_stop


def final_approach(
    hz: float = 10.0,
    *,
    runway=((37.4584849, -122.1124398), (37.4637520, -122.1176605)),
    start_nm: float = 5.0,
    v_kt: float = 70.0,
    td_along_m: float = 150.0,
    td_left_m: float = 1.0,
    sink_fpm: float = 200.0,
    stop_along_m: float = 500.0,
    excursion_left_m: float = 0.0,
    bounce_sink_fpm: float | None = None,
    crash_at: float | None = None,
    tail_s: float = 10.0,
    cut_at: float | None = None,
) -> dict[str, np.ndarray]:
    """Straight-in from `start_nm` at `v_kt`, converging on `td_left_m` over the last 20 s,
    touching down at `td_along_m` with `sink_fpm` (held for the last 8 s), rolling out to a stop
    at `stop_along_m` (bulging `excursion_left_m` to the left mid-rollout), then `tail_s` stopped.
    `bounce_sink_fpm`: airborne again 1.0-2.5 s after contact, second contact with that sink."""
    v = v_kt * KT
    start = -start_nm * M_PER_NM
    t_td = (td_along_m - start) / v
    _, _, t_stop = _landing_tail(np.array([0.0]), t_td, v, td_along_m, stop_along_m)
    t = grid(t_stop + tail_s, hz)
    roll_along, roll_v, _ = _landing_tail(t, t_td, v, td_along_m, stop_along_m)
    along = np.where(t < t_td, start + v * t, roll_along)
    speed = np.where(t < t_td, v, roll_v)
    left = np.interp(t, [0, t_td - 20, t_td], [0.0, 0.0, td_left_m])
    if excursion_left_m:
        mid = (t_td + t_stop) / 2
        left = left + excursion_left_m * np.clip(1 - np.abs(t - mid) / (0.25 * (t_stop - t_td)), 0, 1)
    lat, lon = frame_to_latlon(along, left, *runway)
    agl = np.interp(t, [0.0, t_td - 8, t_td], [1500.0, sink_fpm / 60 * 8, 0.0])
    agl = np.where(t >= t_td, 0.0, agl)
    vs = np.where(t < t_td - 8, -(1500.0 - sink_fpm / 60 * 8) / (t_td - 8) * 60, -sink_fpm)
    vs = np.where(t >= t_td, 0.0, vs)
    ground = t >= t_td
    if bounce_sink_fpm is not None:
        air = (t >= t_td + 1.0) & (t < t_td + 2.5)
        ground = ground & ~air
        vs = np.where(air, -bounce_sink_fpm, vs)
    cols = {
        "t": t,
        "lat_deg": lat,
        "lon_deg": lon,
        "alt_msl_ft": agl + 7.0,
        "alt_agl_ft": agl,
        "on_ground": ground.astype(float),
        "vs_fpm": vs,
        "gs_kt": speed / KT,
        "crashed": np.zeros_like(t) if crash_at is None else (t >= crash_at).astype(float),
    }
    if cut_at is not None:
        keep = t <= cut_at
        cols = {k: c[keep] for k, c in cols.items()}
    return cols


# --------------------------------------------------------------------------- T05


def traffic_pattern(
    hz: float = 10.0,
    *,
    runway=((37.4584849, -122.1124398), (37.4637520, -122.1176605)),
    side: str = "left",
    offset_m: float = 1200.0,
    downwind_agl_ft: float = 1000.0,
    td_along_m: float = 150.0,
    sink_fpm: float = 300.0,
    stop_along_m: float = 500.0,
    crosswind_at_m: float = 1345.0,
    base_at_m: float = -1500.0,
    v_kt: float = 70.0,
    cut_before_td_s: float | None = None,
) -> dict[str, np.ndarray]:
    """Ground roll from 50 m before the landing threshold, liftoff after 10 s at 300 m along,
    upwind to `crosswind_at_m`, crosswind `offset_m` to the pattern side, downwind to
    `base_at_m`, base back to the centreline, final to `td_along_m`, rollout to `stop_along_m`.
    Altitudes (above the 7 ft field): 700 ft at the crosswind turn, `downwind_agl_ft` on the
    whole downwind, 400 ft at the final turn, flare at `sink_fpm` for the last 8 s."""
    s = 1.0 if side == "left" else -1.0
    v = v_kt * KT
    roll_s, lift_along = 10.0, 300.0
    acc = 2 * (lift_along + 50.0) / roll_s**2
    pts = [
        (lift_along, 0.0),
        (crosswind_at_m, 0.0),
        (crosswind_at_m, s * offset_m),
        (base_at_m, s * offset_m),
        (base_at_m, 0.0),
        (td_along_m, 0.0),
    ]
    seg = np.hypot(*np.diff(np.asarray(pts), axis=0).T)
    corners = roll_s + np.concatenate(([0.0], np.cumsum(seg))) / v
    t_td = float(corners[-1])
    _, _, t_stop = _landing_tail(np.array([0.0]), t_td, v, td_along_m, stop_along_m)
    t = grid(t_stop + 10.0, hz)
    x, y, _ = polyline(t, pts, v, roll_s)
    roll_x, roll_v, _ = _landing_tail(t, t_td, v, td_along_m, stop_along_m)
    along = np.where(t < roll_s, -50.0 + 0.5 * acc * t**2, np.where(t < t_td, x, roll_x))
    left = np.where(t < roll_s, 0.0, np.where(t < t_td, y, 0.0))
    speed = np.where(t < roll_s, acc * t, np.where(t < t_td, v, roll_v))
    lat, lon = frame_to_latlon(along, left, *runway)
    flare_ft = sink_fpm / 60 * 8
    agl = np.interp(
        t,
        [0, roll_s, corners[1], corners[2], corners[3], corners[4], t_td - 8, t_td],
        [0, 0, 700, downwind_agl_ft, downwind_agl_ft, 400, flare_ft, 0],
    )
    vs = np.gradient(agl, t) * 60
    vs = np.where((t >= t_td - 8) & (t < t_td), -sink_fpm, vs)
    vs = np.where(t >= t_td, 0.0, vs)
    ground = (t < roll_s) | (t >= t_td)
    cols = {
        "t": t,
        "lat_deg": lat,
        "lon_deg": lon,
        "alt_msl_ft": agl + 7.0,
        "alt_agl_ft": agl,
        "on_ground": ground.astype(float),
        "vs_fpm": vs,
        "gs_kt": speed / KT,
        "crashed": np.zeros_like(t),
    }
    if cut_before_td_s is not None:
        keep = t <= t_td - cut_before_td_s
        cols = {k: c[keep] for k, c in cols.items()}
    return cols


# --------------------------------------------------------------------------- T04

KPAO = (37.461111, -122.115)
OSI = (37.3925, -122.28130556)
SNS = (36.66383333, -121.60319444)
KSBA = (34.426211, -119.840372)
PLAN = [
    {"id": n, "lat_deg": p[0], "lon_deg": p[1]} for n, p in (("KPAO", KPAO), ("OSI", OSI), ("SNS", SNS), ("KSBA", KSBA))
]


def fms_flight(
    hz: float = 5.0,
    *,
    air_s: float = 300.0,
    xtk_nm: float = 0.1,
    straight_past_osi: bool = False,
    ap_at: float | None = 60.0,
    alt_hold_at: float = 240.0,
    target_ft: float = 7500.0,
    v_kt: float = 100.0,
    cruise_ft: float = 7500.0,
) -> dict[str, np.ndarray]:
    """20 s on the ground at KPAO, then airborne `air_s` s at `v_kt` along KPAO→OSI offset
    `xtk_nm` to the right; past OSI (16.55 km, 322 s at 100 kt) either along OSI→SNS with the
    same offset or straight on. AP + NAV from `ap_at`, ALT active from `alt_hold_at`, target
    `target_ft` from 30 s; climbing steadily from the 7 ft field to `cruise_ft` MSL at `alt_hold_at`."""
    t = grid(20.0 + air_s, hz)
    v = v_kt * KT
    s = np.clip(t - 20.0, 0.0, None) * v
    off = xtk_nm * M_PER_NM
    # leg 1 in a local frame at KPAO (right of track = -left)
    lat1, lon1 = frame_to_latlon(s, -off, KPAO, OSI)
    e, n = (
        math.radians(OSI[1] - KPAO[1]) * R_EARTH_M * math.cos(math.radians((KPAO[0] + OSI[0]) / 2)),
        math.radians(OSI[0] - KPAO[0]) * R_EARTH_M,
    )
    leg1 = math.hypot(e, n)
    lat, lon = lat1, lon1
    if not straight_past_osi:
        lat2, lon2 = frame_to_latlon(s - leg1, -off, OSI, SNS)
        lat, lon = np.where(s > leg1, lat2, lat1), np.where(s > leg1, lon2, lon1)
    ap = np.zeros_like(t) if ap_at is None else step(t, [(ap_at, 1.0)])
    return {
        "t": t,
        "lat_deg": lat,
        "lon_deg": lon,
        "on_ground": (t < 20.0).astype(float),
        "autopilot_on": ap,
        "ap_nav": ap.copy(),
        "ap_alt": ap * step(t, [(alt_hold_at, 1.0)]),
        "ap_alt_target_ft": step(t, [(30.0, target_ft)], 0.0),
        "alt_msl_ft": np.interp(t, [0.0, 20.0, alt_hold_at], [7.0, 7.0, cruise_ft]),
        "crashed": np.zeros_like(t),
    }


# --------------------------------------------------------------------------- T10


def ils_approach(
    hz: float = 10.0,
    *,
    freq: float = 111.70,
    obs: float = 284.0,
    captures: bool = True,
    loc_dots: float = 0.2,
    gs_dots: float = -0.1,
    disconnect_agl: float | None = 200.0,
    early_disconnect_agl: float | None = None,
    end_agl: float = 50.0,
    engage: bool = True,
) -> dict[str, np.ndarray]:
    """Level at 4,000 ft AGL to 60 s, then descending at 700 fpm to `end_agl`. NAV1 tuned at 10 s,
    OBS at 15 s, AP on at 20 s, APR at 25 s, LOC captured at 40 s, GS at 60 s (if `captures`);
    deviations 2.5 dots until capture, then `loc_dots`/`gs_dots`. The AP goes off at
    `disconnect_agl` (and, with `early_disconnect_agl`, also off there and back on 10 s later)."""
    t_end = 60.0 + (4000.0 - end_agl) / 700.0 * 60.0
    t = grid(t_end, hz)
    agl = np.where(t < 60.0, 4000.0, 4000.0 - (t - 60.0) * 700.0 / 60.0)
    t_at = lambda h: 60.0 + (4000.0 - h) / 700.0 * 60.0  # noqa: E731
    ap_changes = [(20.0, 1.0)] if engage else []
    if early_disconnect_agl is not None:
        ap_changes += [(t_at(early_disconnect_agl), 0.0), (t_at(early_disconnect_agl) + 10.0, 1.0)]
    if disconnect_agl is not None:
        ap_changes += [(t_at(disconnect_agl), 0.0)]
    ap = step(t, ap_changes)
    apr = step(t, [(25.0, 1.0)]) if engage else np.zeros_like(t)
    loc_c = step(t, [(40.0, 1.0)]) if captures else np.zeros_like(t)
    gs_c = step(t, [(60.0, 1.0)]) if captures else np.zeros_like(t)
    return {
        "t": t,
        "alt_agl_ft": agl,
        "nav1_mhz": step(t, [(10.0, freq)], 110.50),
        "nav1_obs_deg": step(t, [(15.0, obs)], 0.0),
        "autopilot_on": ap,
        "ap_apr": apr * (ap > 0),
        "ap_loc_captured": loc_c * (ap > 0),
        "ap_gs_captured": gs_c * (ap > 0),
        "loc_dev_dots": np.where(t < 40.0, 2.5, loc_dots),
        "gs_dev_dots": np.where(t < 60.0, 2.5, gs_dots),
        "crashed": np.zeros_like(t),
    }
