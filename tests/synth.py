"""Synthetic flight traces for verifier tests: simple kinematics, not a flight model.

The generic kit (bundles, scoring, gaps, missing signals, rate invariance) is the installed
`simbridge.testing`; this module adds the suite's own trace builders.

Each builder returns a dict of columns (with 't') that tests turn into bundles. The numbers a
test expects are worked out by hand from the builder's arguments, not from the verifier.
"""

from __future__ import annotations

import math

import numpy as np

from simbridge.testing import (  # noqa: F401 - the kit, re-exported for the suite's tests
    assert_rate_invariant,
    component,
    make_bundle,
    resample_cols,
    score_task,
    with_gap,
    without_signal,
)


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
