"""Synthetic flight traces for verifier tests: simple kinematics, not a flight model.

Each builder returns a dict of columns (with 't') that tests turn into bundles. The numbers a
test expects are worked out by hand from the builder's arguments, not from the verifier.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from simbridge import Component, EpisodeInfo, Score, TaskSpec, load_task, read_bundle, write_bundle
from simbridge import score_bundle


def make_bundle(
    tmp: Path, task_id: str, cols: dict[str, Any], *, events=(), snapshots=None, fmt="csv", **episode: Any
) -> Path:
    """Write a bundle directory for `task_id` with these signal columns."""
    return write_bundle(tmp, EpisodeInfo(task_id=task_id, **episode), cols, events=events, snapshots=snapshots, fmt=fmt)


def score_task(tmp: Path, task: str | TaskSpec, cols: dict[str, Any], **kw: Any) -> Score:
    """Write these columns as a bundle for `task` and score it, as the CLI would read it back.

    `task` is a task id or an already loaded spec (tests load theirs once and pass it); `kw` goes
    to make_bundle (events, snapshots, episode fields)."""
    spec = load_task(task) if isinstance(task, str) else task
    return score_bundle(read_bundle(make_bundle(tmp, spec.id, cols, **kw)), spec)


def component(score: Score, name: str) -> Component:
    """The partial-credit item called `name`; StopIteration if the verifier did not report it."""
    return next(c for c in score.components if c.name == name)


def assert_rate_invariant(
    tmp: Path,
    task: str | TaskSpec,
    cols: dict[str, np.ndarray],
    rates: tuple[float, ...] = (10, 20, 100),
    tol: float = 0.02,
    *,
    also: tuple[float, ...] = (),
    **kw: Any,
) -> list[float]:
    """Resample `cols` (best recorded at 100 Hz) to each rate, score each and require the scores
    to spread by at most `tol`: a verifier must judge the flying, not the recorder's sample rate.

    `also` adds scores of the same run obtained another way (e.g. the imported original) to the
    spread; `kw` goes to make_bundle. Returns the per-rate scores, then `also`, for further checks."""
    scores = [score_task(tmp / str(hz), task, resample_cols(cols, hz), **kw).score for hz in rates]
    scores.extend(also)
    assert max(scores) - min(scores) <= tol, scores
    return scores


def steep_turn(
    hz: float = 20.0,
    *,
    bank_deg: float = 45.0,
    direction: str = "left",
    turn_deg: float = 360.0,
    alt_ft: float = 3500.0,
    alt_wobble_ft: float = 0.0,
    ias_kt: float = 100.0,
    ias_wobble_kt: float = 0.0,
    entry_hdg: float = 5.0,
    roll_rate_dps: float = 10.0,
    lead_s: float = 10.0,
    tail_s: float = 10.0,
    bank_wobble_deg: float = 0.0,
    autopilot: float = 0.0,
) -> dict[str, np.ndarray]:
    """Straight and level, roll in at `roll_rate_dps`, hold `bank_deg` until `turn_deg` is turned
    (counting the roll-in/out), roll out, straight and level. Heading rate = g·tan(bank)/V."""
    dt = 1.0 / hz
    g = 9.80665
    v = ias_kt * 0.514444
    sign = -1.0 if direction == "left" else 1.0
    roll_s = bank_deg / roll_rate_dps if bank_deg > 0 else 0.0
    # heading turned during roll-in + roll-out (bank ramps linearly): integral of tan(bank) rate
    ramp = np.linspace(0, bank_deg, 200)
    ramp_turn = math.degrees(np.trapezoid(g * np.tan(np.radians(ramp)) / v, dx=roll_s / 199)) * 2 if roll_s else 0.0
    rate = math.degrees(g * math.tan(math.radians(bank_deg)) / v)
    hold_s = max(0.0, (turn_deg - ramp_turn) / rate) if rate > 0 else 60.0
    total = lead_s + roll_s + hold_s + roll_s + tail_s
    t = np.arange(0.0, total + dt / 2, dt)
    bank = np.zeros_like(t)
    a = t - lead_s
    bank = np.where((a >= 0) & (a < roll_s), a * roll_rate_dps, bank)
    bank = np.where(
        (a >= roll_s) & (a < roll_s + hold_s), bank_deg + bank_wobble_deg * np.sin(2 * np.pi * a / 7.0), bank
    )
    b = a - roll_s - hold_s
    bank = np.where((b >= 0) & (b < roll_s), bank_deg - b * roll_rate_dps, bank)
    hdg_rate = np.degrees(g * np.tan(np.radians(bank)) / v)
    hdg = entry_hdg + sign * np.concatenate(([0.0], np.cumsum((hdg_rate[1:] + hdg_rate[:-1]) / 2 * dt)))
    in_turn = (a >= 0) & (b < roll_s)
    alt = alt_ft + alt_wobble_ft * np.sin(np.pi * np.clip(a, 0, None) / max(1e-9, 2 * roll_s + hold_s)) * in_turn
    ias = ias_kt + ias_wobble_kt * np.sin(np.pi * np.clip(a, 0, None) / max(1e-9, 2 * roll_s + hold_s)) * in_turn
    return {
        "t": t,
        "bank_deg": sign * bank,
        "heading_mag_deg": np.mod(hdg, 360.0),
        "alt_msl_ft": alt,
        "ias_kt": ias,
        "autopilot_on": np.full_like(t, autopilot),
        "vs_fpm": np.zeros_like(t),
        "on_ground": np.zeros_like(t),
        "crashed": np.zeros_like(t),
    }


def without_signal(cols: dict[str, Any], *names: str) -> dict[str, Any]:
    """The trace with these signals not recorded at all: a verifier must say which one it lacks."""
    return {k: v for k, v in cols.items() if k not in names}


def with_gap(cols: dict[str, Any], t0: float, t1: float) -> dict[str, Any]:
    """The trace with every sample from t0 to t1 (inclusive) removed, a telemetry gap: only the
    samples with t < t0 or t > t1 are kept."""
    t = np.asarray(cols["t"])
    keep = (t < t0) | (t > t1)
    return {k: v[keep] for k, v in cols.items()}


def resample_cols(cols: dict[str, np.ndarray], hz: float) -> dict[str, np.ndarray]:
    """Linear resampling (headings unwrapped first) to test sample-rate invariance."""
    t = cols["t"]
    grid = np.arange(t[0], t[-1] + 1e-9, 1.0 / hz)
    out = {"t": grid}
    for k, v in cols.items():
        if k == "t":
            continue
        if "heading" in k or k.endswith("yaw_deg"):
            out[k] = np.mod(np.interp(grid, t, np.degrees(np.unwrap(np.radians(v)))), 360.0)
        else:
            out[k] = np.interp(grid, t, v)
    return out
