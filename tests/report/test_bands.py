"""Band extraction from task params: what the report draws must be what the verifier judged.

Expected numbers are worked out from the synthetic builders' arguments and the task YAML."""

import numpy as np
import pytest

from simbridge._report._bands import Band, bands_for, families, value_at
from simbridge._score import Component, Score
from simbridge._signals import Signals
from simbridge._task import load_task
from synth import score_task, steep_turn
from synth_flight_a import ils_approach, takeoff_hold

T09, T02 = load_task("T09"), load_task("T02")


def _by_signal(bands: list[Band]) -> dict[str, Band]:
    return {b.signal: b for b in bands}


def test_steep_turn_bands_left_turn(tmp_path):
    cols = steep_turn(alt_ft=3000.0, ias_kt=95.0)
    s = score_task(tmp_path, T09, cols)
    b = _by_signal(bands_for(T09, s, Signals(cols["t"], {k: v for k, v in cols.items() if k != "t"})))
    # left turn: bank is negative, 45±5 → -50..-40, over the bank component's window
    assert (b["bank_deg"].lo, b["bank_deg"].hi) == (-50.0, -40.0)
    bank_win = next(c.window for c in s.components if c.name == "bank_maintained")
    assert (b["bank_deg"].t0, b["bank_deg"].t1) == bank_win
    # entry altitude 3000 ft ±100, entry airspeed 95 kt ±10, over the maneuver window
    assert b["alt_msl_ft"].lo == pytest.approx(2900.0) and b["alt_msl_ft"].hi == pytest.approx(3100.0)
    assert b["ias_kt"].lo == pytest.approx(85.0) and b["ias_kt"].hi == pytest.approx(105.0)
    alt_win = next(c.window for c in s.components if c.name == "altitude_held")
    assert (b["alt_msl_ft"].t0, b["alt_msl_ft"].t1) == alt_win
    assert alt_win[0] < bank_win[0] < bank_win[1] < alt_win[1]


def test_steep_turn_band_uses_value_at_window_start_not_nominal():
    # a hand-made score: the altitude window starts at t=2 where the aircraft is at 3520 ft
    sig = Signals(np.arange(5.0), {"alt_msl_ft": np.array([3500, 3510, 3520, 3530, 3540.0])})
    s = Score(task_id="T09", verifier="steep_turn", status="scored",
              components=[Component(name="altitude_held", weight=0.3, earned=1, window=(2.0, 4.0))])
    (b,) = bands_for(T09, s, sig)
    assert (b.signal, b.lo, b.hi, b.t0, b.t1) == ("alt_msl_ft", 3420.0, 3620.0, 2.0, 4.0)


def test_steep_turn_right_turn_band_is_positive(tmp_path):
    right = T09.model_copy(update={"verifier": T09.verifier.model_copy(
        update={"params": {**T09.verifier.params, "direction": "right"}})})
    cols = steep_turn(direction="right")
    s = score_task(tmp_path, right, cols)
    b = _by_signal(bands_for(right, s, Signals(cols["t"], {"bank_deg": cols["bank_deg"]})))
    assert (b["bank_deg"].lo, b["bank_deg"].hi) == (40.0, 50.0)


def test_steep_turn_without_a_turn_has_no_bands(tmp_path):
    cols = steep_turn(bank_deg=0.0)
    s = score_task(tmp_path, T09, cols)
    assert all(c.window is None for c in s.components)
    assert bands_for(T09, s, Signals(cols["t"], {})) == []


def test_takeoff_hold_bands_over_the_hold_window(tmp_path):
    cols = takeoff_hold(hold_s=30)
    s = score_task(tmp_path, T02, cols)
    b = _by_signal(bands_for(T02, s, Signals(cols["t"], {})))
    assert (b["heading_mag_deg"].lo, b["heading_mag_deg"].hi) == (330.0, 350.0)
    assert (b["alt_msl_ft"].lo, b["alt_msl_ft"].hi) == (2900.0, 3100.0)
    assert (b["ias_kt"].lo, b["ias_kt"].hi) == (85.0, 95.0)
    hold = next(c.window for c in s.components if c.name == "hold_window")
    t_hold = 30.0 + (3000 - 433) / 700 * 60  # the builder's hold start
    assert hold[0] == pytest.approx(t_hold, abs=0.11)
    assert all((x.t0, x.t1) == hold for x in b.values())


def test_takeoff_hold_without_hold_window_runs_from_liftoff(tmp_path):
    s = score_task(tmp_path, T02, takeoff_hold(hold_ias=97))  # never in tolerance: no hold window
    take = next(c.window for c in s.components if c.name == "takeoff")
    bands = bands_for(T02, s, Signals(np.arange(3.0), {}))
    assert bands and all(x.t0 == take[0] and x.t1 is None for x in bands)


def test_family_without_extractor_gets_no_bands():
    # hover's band is on skid height (AGL less the pad reading), not a recorded signal
    t12 = load_task("T12")
    assert t12.verifier.name not in families()
    assert bands_for(t12, Score(task_id="T12", verifier=t12.verifier.name, status="scored"), Signals(np.arange(2.0), {})) == []


def test_ils_bands_at_the_gate_and_the_disconnect(tmp_path):
    t10 = load_task("T10")
    s = score_task(tmp_path, t10, ils_approach(disconnect_agl=200.0))
    b = _by_signal(bands_for(t10, s, Signals(np.arange(2.0), {})))
    t_gate = 60.0 + (4000 - 500) / 700 * 60  # the builder's descent through 500 ft AGL
    t_disc = 60.0 + (4000 - 200) / 700 * 60
    for sig in ("loc_dev_dots", "gs_dev_dots"):
        assert (b[sig].lo, b[sig].hi) == (-1.0, 1.0)
        assert b[sig].t0 == b[sig].t1 == pytest.approx(t_gate, abs=0.11)
    assert (b["alt_agl_ft"].lo, b["alt_agl_ft"].hi) == (150.0, 250.0)
    assert b["alt_agl_ft"].t0 == pytest.approx(t_disc, abs=0.11)


def test_ils_never_disconnected_band_spans_the_episode(tmp_path):
    t10 = load_task("T10")
    s = score_task(tmp_path, t10, ils_approach(disconnect_agl=None))
    b = _by_signal(bands_for(t10, s, Signals(np.arange(2.0), {})))
    assert (b["alt_agl_ft"].t0, b["alt_agl_ft"].t1) == (None, None)


def test_engine_failure_glide_band_over_the_glide():
    t11 = load_task("T11")
    s = Score(task_id="T11", verifier="engine_failure", status="scored",
              components=[Component(name="best_glide", weight=0.3, earned=1, window=(120.0, 260.0))])
    (b,) = bands_for(t11, s, Signals(np.arange(2.0), {}))
    assert (b.signal, b.lo, b.hi, b.t0, b.t1) == ("ias_kt", 63.0, 73.0, 120.0, 260.0)
    assert bands_for(t11, Score(task_id="T11", verifier="engine_failure", status="scored",
                                components=[Component(name="best_glide", weight=0.3, earned=0)]),
                     Signals(np.arange(2.0), {})) == []


def test_value_at_skips_missing_samples():
    sig = Signals(np.arange(4.0), {"x": np.array([0.0, np.nan, 20.0, 30.0])})
    assert value_at(sig, "x", 1.0) == pytest.approx(10.0)
    assert value_at(sig, "y", 1.0) is None
    assert value_at(Signals(np.arange(2.0), {"x": np.array([np.nan, np.nan])}), "x", 0.5) is None
