"""Edge cases of the verifier primitives: wrap, gaps, NaN, empty input, windows at the ends."""

import math

import numpy as np
import pytest

from simbridge import primitives as P


def t_(n, hz=10.0):
    return np.arange(n) / hz


# ---------------------------------------------------------------- longest_window / runs


def test_longest_window_basic_and_ends():
    t = t_(10)
    c = np.array([1, 1, 0, 1, 1, 1, 0, 0, 1, 1], bool)
    w = P.longest_window(t, c)
    assert (w.i0, w.i1) == (3, 5) and w.duration_s == pytest.approx(0.2)
    # windows touching both ends are found
    runs = P.runs(t, c)
    assert [(r.i0, r.i1) for r in runs] == [(0, 1), (3, 5), (8, 9)]
    all_true = P.longest_window(t, np.ones(10, bool))
    assert (all_true.i0, all_true.i1) == (0, 9) and all_true.duration_s == pytest.approx(0.9)


def test_longest_window_empty_and_none():
    assert P.longest_window(np.array([]), np.array([], bool)) is None
    assert P.longest_window(t_(5), np.zeros(5, bool)) is None
    assert P.runs(np.array([]), np.array([], bool)) == []


def test_longest_window_single_sample():
    w = P.longest_window(np.array([3.0]), np.array([True]))
    assert w.duration_s == 0 and w.t0 == 3.0


def test_gap_breaks_window():
    t = np.array([0, 1, 2, 3, 10, 11, 12], float)  # 7 s gap between 3 and 10
    c = np.ones(7, bool)
    assert P.longest_window(t, c).duration_s == 12
    w = P.longest_window(t, c, max_gap_s=1.5)
    assert (w.t0, w.t1) == (0.0, 3.0)
    assert [(r.t0, r.t1) for r in P.runs(t, c, max_gap_s=1.5)] == [(0, 3), (10, 12)]


def test_nan_never_satisfies():
    t = t_(6)
    x = np.array([1, 1, np.nan, 1, 1, 1], float)
    with np.errstate(invalid="ignore"):
        w = P.longest_window(t, x > 0.5)
    assert (w.i0, w.i1) == (3, 5)
    # a float condition with NaN is read as false
    w2 = P.longest_window(t, x)
    assert (w2.i0, w2.i1) == (3, 5)


def test_shape_mismatch_is_an_error():
    with pytest.raises(ValueError, match="shape"):
        P.longest_window(t_(4), np.ones(5, bool))


# ---------------------------------------------------------------- fractions


def test_fraction_in_band_time_weighted_and_rate_invariant():
    for hz in (10, 20, 100):
        t = np.arange(0, 10 + 1e-9, 1 / hz)
        x = np.where(t < 8, 45.0, 30.0)
        # 8 of 10 seconds in band; the sample at the edge stands for half an interval
        assert P.fraction_in_band(t, x, 40, 50) == pytest.approx(0.8, abs=1.0 / hz)


def test_fraction_segment_and_nan_and_empty():
    t = t_(11, 1.0)  # 0..10 s
    x = np.array([0, 0, 5, 5, 5, np.nan, 5, 5, 0, 0, 0], float)
    # inside [2, 7]: samples 2,3,4,6,7 in band, 5 NaN -> outside; weights 0.5,1,1,1,1,0.5 -> 4/5 ... worked:
    # weights on [2..7]: [0.5,1,1,1,1,0.5]; in band: 0.5+1+1+1+0.5 = 4.0 of 5.0
    assert P.fraction_in_band(t, x, 4, 6, t0=2, t1=7) == pytest.approx(0.8)
    assert math.isnan(P.fraction_in_band(t, x, 4, 6, t0=20, t1=30))


def test_fraction_ignores_time_across_gaps():
    t = np.array([0, 1, 2, 100, 101], float)
    c = np.array([1, 1, 1, 0, 0], bool)
    # without gap handling the 98 s interval would count half for each side
    assert P.fraction_true(t, c, max_gap_s=5) == pytest.approx(2 / 3)


# ---------------------------------------------------------------- credit


@pytest.mark.parametrize(
    "value,zero,full,expected",
    [
        (30, 0, 60, 0.5),
        (60, 0, 60, 1.0),
        (90, 0, 60, 1.0),
        (-5, 0, 60, 0.0),
        (0.65, 1.0, 0.3, 0.5),
        (0.2, 1.0, 0.3, 1.0),
        (1.5, 1.0, 0.3, 0.0),
        (float("nan"), 0, 60, 0.0),
    ],
)
def test_linear_credit(value, zero, full, expected):
    assert P.linear_credit(value, zero, full) == pytest.approx(expected)


# ---------------------------------------------------------------- headings


def test_heading_wrap_359_to_1():
    assert P.angle_diff(1, 359) == pytest.approx(2)
    assert P.angle_diff(359, 1) == pytest.approx(-2)
    assert P.heading_change(np.array([355, 358, 1, 4])) == pytest.approx(9)
    assert P.heading_change(np.array([4, 1, 358, 355])) == pytest.approx(-9)


def test_full_circle_unwrapped():
    h = np.mod(np.linspace(10, 10 - 360, 721), 360)  # a left 360
    assert P.heading_change(h) == pytest.approx(-360, abs=1e-6)


def test_heading_change_nan_and_short():
    assert P.heading_change(np.array([350, np.nan, 10])) == pytest.approx(20)
    assert P.heading_change(np.array([])) == 0.0
    assert P.heading_change(np.array([42.0])) == 0.0


# ---------------------------------------------------------------- phases


def _flight(hz=10):
    t = np.arange(0, 120, 1 / hz)
    on_ground = ((t < 20) | (t >= 90)).astype(float)
    gs = np.interp(t, [0, 5, 20, 90, 100, 110], [0, 0, 55, 60, 10, 0])
    alt = np.interp(t, [0, 20, 50, 80, 90, 120], [0, 0, 1000, 1000, 0, 0])
    vs = np.gradient(alt, t) * 60
    return t, on_ground, gs, alt, vs


def test_phases():
    t, g, gs, alt, vs = _flight()
    ph = P.detect_phases(t, g, gs, alt, vs, cruise_alt_ft=1000, level_tol_ft=50)
    assert ph.liftoff_t == pytest.approx(20)
    assert ph.takeoff_roll_t == pytest.approx(5 + 15 * 5 / 55, abs=0.1)  # gs passes 5 kt
    assert ph.climb_t == pytest.approx(20, abs=0.2)
    assert 48 <= ph.level_off_t <= 50
    assert len(ph.touchdowns) == 1 and ph.touchdowns[0].t == pytest.approx(90)
    assert ph.touchdowns[0].vs_fpm == pytest.approx(-6000, rel=0.05)
    assert ph.stop_t is not None and 100 <= ph.stop_t <= 110


def test_touchdown_bounce_counts_twice_and_dropout_is_not_liftoff():
    t = t_(100)
    g = np.zeros(100)
    g[30:40] = 1
    g[45:] = 1
    vs = np.full(100, -200.0)
    assert len(P.touchdowns(t, g, vs)) == 2
    g2 = np.ones(100)
    g2[50] = np.nan  # dropout, not a liftoff
    assert P.liftoffs(t, g2) == []


def test_stop_time_at_end_of_recording():
    t = t_(50)
    s = np.linspace(20, 0, 50)
    st = P.stop_time(t, s, threshold=1.0, hold_s=10)
    assert st is not None and st > 4.5


# ---------------------------------------------------------------- geometry


def test_point_in_polygon_inside_outside_edge_nan():
    sq = [(0, 0), (10, 0), (10, 10), (0, 10)]
    r = P.points_in_polygon([5, 15, 10, 0, np.nan, 5], [5, 5, 5, 0, 5, -0.001], sq)
    assert r.tolist() == [True, False, True, True, False, False]


def test_point_in_concave_polygon():
    u = [(0, 0), (30, 0), (30, 30), (20, 30), (20, 10), (10, 10), (10, 30), (0, 30)]
    r = P.points_in_polygon([5, 15, 25, 15], [20, 20, 20, 5], u)
    assert r.tolist() == [True, False, True, True]


def test_runway_polygon_and_local_metres():
    # a north-south runway 1 km long, 30 m wide at the equator
    poly = P.runway_polygon_m(0.0, 0.0, 1000 / 111195.0, 0.0, 30.0, 0.0, 0.0)
    x, y = P.latlon_to_local_m(np.array([0.0045, 0.0045]), np.array([0.0, 0.0003]), 0.0, 0.0)
    inside = P.points_in_polygon(x, y, poly)
    assert inside.tolist() == [True, False]  # 0.0003° lon ≈ 33 m east: off the 15 m half-width


def test_leg_cross_and_along_track():
    lp = P.leg_position([5, 5, -1], [1, -1, 0], 0, 0, 10, 0)  # leg along +x (east)
    assert lp.cross_track.tolist() == [-1, 1, 0]  # north of an eastbound leg is left (negative)
    assert lp.along_track.tolist() == [5, 5, -1]
    with pytest.raises(ValueError):
        P.leg_position([0], [0], 1, 1, 1, 1)


def test_cross_track_nm_great_circle():
    # on the equator leg west->east, a point 1 nm north is 1 nm left (negative)
    xt = P.cross_track_nm(np.array([1 / 60.0]), np.array([0.5]), (0.0, 0.0), (0.0, 1.0))
    assert xt[0] == pytest.approx(-1.0, rel=1e-3)


def test_haversine():
    assert P.haversine_m(0, 0, 0, 1) == pytest.approx(111195, rel=1e-4)


# ---------------------------------------------------------------- events


class E:
    def __init__(self, t, kind):
        self.t, self.kind = t, kind


def test_count_and_merge_events():
    ev = [E(1, "collision"), E(2, "lane_invasion"), E(3, "collision"), E(30, "collision")]
    assert P.count_events(ev, "collision") == 3
    assert P.count_events(ev, "collision", t0=2, t1=10) == 1
    assert P.count_events([], "collision") == 0
    kept = P.merge_events([1.0, 2.0, 3.0, 30.0], [(0, 0), (1, 0), (20, 0), (0, 0)], window_s=5, radius_m=5)
    assert kept == [0, 2, 3]


def test_no_per_sample_python_loop_on_long_input():
    """An hour at 100 Hz must be handled in vectorised time (the benchmark measures the speed)."""
    t = np.arange(0, 3600, 0.01)
    c = np.sin(t / 7) > 0
    ws = P.runs(t, c)
    assert len(ws) == pytest.approx(3600 / (2 * np.pi * 7), abs=2)


def test_heading_within_matches_angle_diff_across_north():
    h = np.array([0.0, 5.0, 355.0, 349.9, 10.0, 10.1, np.nan, 359.999, 180.0])
    expected = np.abs(P.angle_diff(h[:6], 0.0)) <= 10
    got = P.heading_within(h, 0.0, 10.0)
    assert got[:6].tolist() == expected.tolist() == [True, True, True, False, True, False]
    assert got[6:].tolist() == [False, True, False]
    rng = np.random.default_rng(1)
    hs = rng.uniform(0, 360, 10000)
    for target, tol in ((340, 10), (5, 30), (180, 0.5)):
        assert (P.heading_within(hs, target, tol) == (np.abs(P.angle_diff(hs, target)) <= tol)).all()


def test_heading_within_outside_0_360_and_wide_tolerance():
    h = np.array([-10.0, 370.0, 720.0, 185.0])
    assert P.heading_within(h, 0.0, 15.0).tolist() == [True, True, True, False]
    assert P.heading_within(np.array([123.0, np.nan]), 0.0, 180.0).tolist() == [True, False]


def test_in_band():
    assert P.in_band(np.array([1.0, 2.0, 3.0, np.nan]), 2.0, 3.0).tolist() == [False, True, True, False]


# --------------------------------------------------------------------------- glitch bridging (segmentation only)


def test_bridge_glitches_one_and_two_samples_at_10_hz():
    t = np.arange(20) * 0.1
    c = np.ones(20, dtype=bool)
    c[[0, 5]] = False  # leading: no true sample before it, never bridged
    c[10:12] = False  # two samples standing for 0.2 s: bridged
    c[15:18] = False  # three samples: a real excursion
    got = P.bridge_glitches(t, c)
    assert got.tolist() == [False] + [True] * 14 + [False] * 3 + [True] * 2
    assert c[5] == False  # noqa: E712  (the input is not modified)


def test_bridge_glitches_is_rate_aware():
    # one false sample at 1 Hz stands for 1 s: not a glitch; at 4 Hz it stands for 0.25 s: a glitch
    c = np.array([True, True, False, True, True])
    assert P.bridge_glitches(np.arange(5) * 1.0, c).tolist() == c.tolist()
    assert P.bridge_glitches(np.arange(5) * 0.25, c).all()


def test_segments_bridge_but_runs_and_tolerance_checks_do_not():
    t = np.arange(100) * 0.1
    x = np.full(100, 45.0)
    x[50] = np.nan  # NaN is false like any other bad sample
    w = P.longest_segment(t, x > 30)
    assert (w.i0, w.i1) == (0, 99)
    assert P.longest_window(t, x > 30).duration_s == pytest.approx(4.9)
    assert len(P.segments(t, x > 30)) == 1 and len(P.runs(t, x > 30)) == 2
    assert P.fraction_true(t, x > 30) < 1.0 and P.held_throughout(t, x > 30) == (False, 5.0)


def test_segments_still_break_at_telemetry_gaps():
    t = np.concatenate((np.arange(10) * 0.1, 3.0 + np.arange(10) * 0.1))
    assert len(P.segments(t, np.ones(20, dtype=bool), max_gap_s=0.5)) == 2


def test_stop_time_not_split_by_a_speed_glitch():
    t = np.arange(100) * 0.1
    v = np.where(t < 3.0, 20.0, 0.0)
    v[50] = 5.0  # one noisy sample while standing
    assert P.stop_time(t, v, hold_s=6.0) == pytest.approx(3.0)
