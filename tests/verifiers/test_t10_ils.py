"""T10 coupled ILS to KSFO 28R: full, partial and failing fixtures with hand-worked scores.

Weights: frequency_obs 0.25, loc_gs_captured 0.35, deviations 0.25, disconnect_at_dh 0.15.
Builder: descending at 700 fpm from 4,000 ft AGL at 60 s, so it passes 500 ft at
60 + 3500/700*60 = 360 s and 200 ft at 385.7 s.
"""

import pytest

from simbridge._task import load_task
from synth import assert_rate_invariant, score_task, with_gap, without_signal
from synth import component as comp
from synth_flight_a import ils_approach

TASK = load_task("T10")


def score(tmp_path, cols, **kw):
    return score_task(tmp_path, TASK, cols, **kw)


def test_full_credit(tmp_path):
    s = score(tmp_path, ils_approach())
    assert s.status == "scored" and s.score == pytest.approx(1.0) and s.success is True
    assert comp(s, "frequency_obs").window[0] == pytest.approx(360.0, abs=0.01)
    assert comp(s, "disconnect_at_dh").measured == pytest.approx(200, abs=2)
    assert comp(s, "deviations").measured == pytest.approx(0.2)


def test_runway_28l_frequency_loses_the_tuning_item(tmp_path):
    # 109.55 is I-SFO (28L): the capture and the needles are another runway's ILS, so only the
    # disconnect at 200 ft earns -> 0.15 (was 0.75: any capture counted)
    s = score(tmp_path, ils_approach(freq=109.55))
    assert comp(s, "frequency_obs").earned == 0 and s.score == pytest.approx(0.15)
    assert comp(s, "loc_gs_captured").earned == 0 and comp(s, "deviations").earned == 0


def test_obs_not_set(tmp_path):
    # OBS 290 is 6° off 284 (> 3°): lose 0.25 -> 0.75; 286 is within -> 1.0
    assert score(tmp_path, ils_approach(obs=290)).score == pytest.approx(0.75)
    (tmp_path / "b").mkdir()
    assert score(tmp_path / "b", ils_approach(obs=286)).score == pytest.approx(1.0)


def test_deviation_over_one_dot_at_the_gate(tmp_path):
    # glideslope 1.2 dots low at 500 ft: lose 0.25 -> 0.75
    s = score(tmp_path, ils_approach(gs_dots=-1.2))
    assert s.score == pytest.approx(0.75)


def test_late_and_early_disconnects(tmp_path):
    # disconnect at 100 ft (< 150): lose 0.15 -> 0.85
    assert score(tmp_path, ils_approach(disconnect_agl=100)).score == pytest.approx(0.85)
    # off at 400 ft, back on 10 s later, off at 200: the first disconnect counts -> 0.85
    (tmp_path / "b").mkdir()
    s = score(tmp_path / "b", ils_approach(early_disconnect_agl=400))
    assert comp(s, "disconnect_at_dh").measured == pytest.approx(400, abs=2) and s.score == pytest.approx(0.85)


def test_never_disconnecting(tmp_path):
    # flown down to 50 ft still coupled: lose 0.15 -> 0.85
    s = score(tmp_path, ils_approach(disconnect_agl=None))
    assert comp(s, "disconnect_at_dh").explanation == "never disconnected" and s.score == pytest.approx(0.85)


def test_no_capture(tmp_path):
    # LOC/GS never captured: lose 0.35; the disconnect is then the first 1→0 at 200 ft -> 0.65
    s = score(tmp_path, ils_approach(captures=False))
    assert s.score == pytest.approx(0.65)


def test_never_reaching_the_gate(tmp_path):
    # recording ends at 800 ft: tuning read at the end (0.25) + capture (0.35), no gate, no
    # disconnect; both worth the part of the approach flown, 4,000 -> 800 of 4,000 -> 250 ft
    # (3,200 / 3,750) -> 0.60 x 0.8533 = 0.512
    s = score(tmp_path, ils_approach(end_agl=800, disconnect_agl=None))
    assert s.score == pytest.approx(0.60 * 3200 / 3750, abs=2e-3)


def test_nothing_done_scores_zero(tmp_path):
    s = score(
        tmp_path,
        ils_approach(freq=110.50, obs=0, engage=False, captures=False, loc_dots=2.5, gs_dots=2.5, disconnect_agl=None),
    )
    assert s.status == "scored" and s.score == 0.0


def test_missing_signal_is_unscored(tmp_path):
    s = score(tmp_path, without_signal(ils_approach(), "ap_gs_captured"))
    assert s.status == "unscored" and "ap_gs_captured" in s.reason


def test_gap_across_the_gate_is_unscored(tmp_path):
    s = score(tmp_path, with_gap(ils_approach(), 359, 361))
    assert s.status == "unscored" and "gate" in s.reason


def test_gap_before_the_capture_is_fine(tmp_path):
    assert score(tmp_path, with_gap(ils_approach(), 30, 35)).score == pytest.approx(1.0)


def test_gap_between_capture_and_disconnect_is_unscored(tmp_path):
    # an earlier disconnect could hide in the 5 s hole: which disconnect came first is undecidable
    s = score(tmp_path, with_gap(ils_approach(), 200, 205))
    assert s.status == "unscored" and "disconnect" in s.reason


def test_input_document_carries_the_checked_frequency():
    from pathlib import Path

    pdf = (Path(__file__).parents[2] / "tasks" / "inputs" / "ksfo_ils28r.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-")
    assert b"111.70" in pdf and b"284" in pdf and b"I-GWQ" in pdf
    assert TASK.verifier.params["nav1_mhz"] == pytest.approx(111.70)


@pytest.mark.parametrize("kw", [{}, {"freq": 109.55, "disconnect_agl": 100}, {"early_disconnect_agl": 400}])
def test_resampling_invariance(tmp_path, kw):
    base = ils_approach(hz=100, **kw)
    assert_rate_invariant(tmp_path, TASK, base)
