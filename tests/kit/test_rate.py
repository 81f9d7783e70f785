"""The kit's RateThinner: a due-time schedule keeps the asked rate on average."""

from __future__ import annotations

import random

import numpy as np
import pytest

from simbridge.adapters.kit import RateThinner


def _kept(times, hz):
    th = RateThinner(hz)
    return [t for t in times if th.keep(t)]


def _rate(kept):
    return (len(kept) - 1) / (kept[-1] - kept[0])


@pytest.mark.parametrize("src_hz", [60.0, 100.0, 120.0, 50.0, 144.0])
def test_fifty_hz_from_a_faster_source_is_fifty_on_average(src_hz):
    times = [round(n / src_hz, 6) for n in range(int(10 * src_hz) + 1)]  # 10 s, clocks printed to the µs
    kept = _kept(times, 50)
    assert _rate(kept) == pytest.approx(50.0, abs=1.0)
    gaps = np.diff(kept)
    assert gaps.max() <= 0.02 + 1 / src_hz + 2e-6  # never more than one source frame late
    assert gaps.min() >= 1 / src_hz - 2e-6  # clocks rounded to the µs


def test_sixty_to_fifty_keeps_five_frames_in_six():
    kept = _kept([n / 60 for n in range(600)], 50)
    assert len(kept) == 500


def test_the_old_rule_would_have_given_thirty():
    # what "at least 1/hz since the last kept frame" keeps from 60 Hz: every second frame
    last, n = -1.0, 0
    for t in (k / 60 for k in range(600)):
        if t - last >= 1 / 50 - 1e-6:
            last, n = t, n + 1
    assert n == 300 and len(_kept([k / 60 for k in range(600)], 50)) == 500


def test_jittery_source_still_averages_the_asked_rate():
    rng = random.Random(7)
    t, times = 0.0, []
    while t < 20:
        times.append(t)
        t += rng.uniform(0.005, 0.0283)  # ~60 Hz with heavy jitter
    kept = _kept(times, 50)
    assert _rate(kept) == pytest.approx(50.0, abs=1.0)


def test_slower_source_keeps_every_frame_without_bursts():
    times = [n / 30 for n in range(300)]
    th = RateThinner(50)
    assert all(th.keep(t) for t in times)


def test_pause_reanchors_instead_of_bursting():
    th = RateThinner(50)
    times = [n / 60 for n in range(120)] + [5 + n / 60 for n in range(120)]  # a 3 s pause
    kept = [t for t in times if th.keep(t)]
    after = [t for t in kept if t >= 5]
    assert th.reanchors == 1
    assert np.diff(after).min() >= 1 / 60 - 1e-9 and _rate(after) == pytest.approx(50.0, abs=1.0)


def test_clock_stepping_back_restarts_the_schedule():
    th = RateThinner(50)
    assert [th.keep(t) for t in (0.0, 0.01, 0.02, 0.001, 0.011, 0.021)] == [True, False, True, True, False, True]


def test_no_rate_keeps_everything_and_bad_rate_is_refused():
    th = RateThinner(None)
    assert all(th.keep(t) for t in (0.0, 0.0, 0.001))
    assert all(RateThinner(0).keep(t) for t in (0.0, 0.001))
    with pytest.raises(ValueError, match="not a finite number"):
        RateThinner(float("nan"))
