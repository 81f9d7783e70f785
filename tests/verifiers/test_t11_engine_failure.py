"""T11 engine failure after take-off: full, partial and failing fixtures with hand-worked scores."""

import numpy as np
import pytest

from simbridge._task import load_task
from synth import assert_rate_invariant, score_task, with_gap, without_signal
from synth import component as comp
from synth_flight_b import OCEAN, efato

TASK = load_task("T11")
RUNWAY_MID = (37.51343, -122.50116)  # middle of KHAF 12/30


def score(tmp_path, cols, events, **kw):
    return score_task(tmp_path, TASK, cols, events=events, **kw)


def test_glide_to_the_beach_full_credit(tmp_path):
    # failure at 1,000 ft, 68 KIAS glide straight to Montara State Beach, 250 fpm touchdown, stop:
    # 0.30 + 0.20 + 0.50 = 1.0
    cols, ev, _ = efato(fail_agl_ft=1000)
    s = score(tmp_path, cols, ev)
    assert s.status == "scored" and s.score == pytest.approx(1.0) and s.success is True
    assert "montara" in comp(s, "heading_landable").explanation
    assert comp(s, "survivable_landing").explanation == "touched down on: montara_state_beach"


def test_turn_back_to_the_runway_counts(tmp_path):
    # from 1,200 ft a turn back to the runway is flown toward a landable area too -> 1.0
    cols, ev, _ = efato(fail_agl_ft=1200, target=RUNWAY_MID)
    s = score(tmp_path, cols, ev)
    assert s.score == pytest.approx(1.0)
    assert "runway" in comp(s, "heading_landable").explanation


def test_fast_glide_loses_best_glide_only(tmp_path):
    # 80 KIAS is outside 63-73 for the whole glide: loses 0.30 -> 0.20 + 0.50 = 0.70
    cols, ev, _ = efato(glide_ias_kt=80)
    s = score(tmp_path, cols, ev)
    assert s.score == pytest.approx(0.70) and s.success is False
    assert comp(s, "best_glide").measured == pytest.approx(0.0, abs=0.02)


def test_hard_touchdown_is_not_survivable(tmp_path):
    # 900 fpm at contact (limit 700): the landing (primary) fails -> 0 (raw 0.30 + 0.20 = 0.50)
    cols, ev, _ = efato(td_vs_fpm=-900)
    s = score(tmp_path, cols, ev)
    assert s.score == 0.0 and s.raw_score == pytest.approx(0.50)
    assert "-900" in comp(s, "survivable_landing").measured


def test_unreachable_beach_does_not_count(tmp_path):
    # from 400 ft the beach 3 km away is beyond a 9:1 glide (1.1 km + 0.3 km) until late in the
    # glide, so the nose is 'toward a landable area' well under 70% of the time: loses 0.20 -> 0.80
    cols, ev, _ = efato(fail_agl_ft=400)
    s = score(tmp_path, cols, ev)
    assert s.score == pytest.approx(0.80)
    assert comp(s, "heading_landable").measured < 0.7


def test_ditching_fast_into_the_sea_earns_nothing(tmp_path):
    # 85 KIAS (0), toward the open sea west of the bluff (0), crash flag at contact (0) -> 0
    cols, ev, _ = efato(target=OCEAN, glide_ias_kt=85, crash=True)
    s = score(tmp_path, cols, ev)
    assert s.status == "scored" and s.score == 0.0
    assert "crash flag" in comp(s, "survivable_landing").measured


def test_overturned_after_stop_is_not_upright(tmp_path):
    # stopped inverted (bank 170°): occupants not safe, the landing (primary) fails -> 0
    cols, ev, _ = efato(final_bank_deg=170)
    s = score(tmp_path, cols, ev)
    assert s.score == 0.0 and s.raw_score == pytest.approx(0.50)


def test_missing_failure_event_when_climbed_is_a_harness_fault(tmp_path):
    cols, _, _ = efato(inject=False)
    s = score(tmp_path, cols, [], snapshots={"start": {"failure_agl_ft": 900}})
    assert s.status == "unscored" and "harness fault" in s.reason


def test_never_reaching_the_failure_height_earns_nothing(tmp_path):
    # the drawn height was 1,150 ft but the aircraft levelled at 1,000 ft: no failure, all items 0
    cols, _, _ = efato(inject=False)
    s = score(tmp_path, cols, [], snapshots={"start": {"failure_agl_ft": 1150}})
    assert s.status == "scored" and s.score == 0.0


def test_gap_in_the_glide_is_unscored(tmp_path):
    cols, ev, t_fail = efato()
    s = score(tmp_path, with_gap(cols, t_fail + 20, t_fail + 22), ev)
    assert s.status == "unscored" and "gap" in s.reason


def test_sink_rate_missing_at_touchdown_is_unscored(tmp_path):
    cols, ev, _ = efato()
    td = int(np.argmax((cols["t"] > 120) & (cols["on_ground"] > 0.5)))
    cols["vs_fpm"][td - 80 : td + 1] = np.nan
    s = score(tmp_path, cols, ev)
    assert s.status == "unscored" and "vertical speed" in s.reason


def test_missing_signal_is_unscored(tmp_path):
    cols, ev, _ = efato()
    s = score(tmp_path, without_signal(cols, "crashed"), ev)
    assert s.status == "unscored" and "crashed" in s.reason


@pytest.mark.parametrize("kw", [{}, {"glide_ias_kt": 80}, {"fail_agl_ft": 400}])
def test_resampling_invariance(tmp_path, kw):
    cols, ev, _ = efato(hz=100, **kw)
    assert_rate_invariant(tmp_path, TASK, cols, events=ev)
