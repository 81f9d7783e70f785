"""T01 engine start: full, partial and failing fixtures with hand-worked scores.

Weights: switch_states 0.40, priming_mixture 0.20, engine_at_rpm 0.40; all judged on the last
5 s of the recording (priming: strokes before cranking).
"""

import pytest

from simbridge._task import load_task
from synth import assert_rate_invariant, score_task, with_gap, without_signal
from synth import component as comp
from synth_flight_a import engine_start

TASK = load_task("T01")


def score(tmp_path, cols, **kw):
    return score_task(tmp_path, TASK, cols, **kw)


def test_clean_start_full_credit(tmp_path):
    s = score(tmp_path, engine_start())
    assert s.status == "scored" and s.score == pytest.approx(1.0) and s.success is True
    assert comp(s, "priming_mixture").measured == 3  # 3 strokes, all before cranking at 40 s
    assert comp(s, "engine_at_rpm").measured == pytest.approx(1000)


def test_no_priming_loses_priming_item(tmp_path):
    # engine still catches in the trace; priming 0 strokes -> lose 0.20 -> 0.40 + 0.40 = 0.80
    s = score(tmp_path, engine_start(primer=0))
    assert s.score == pytest.approx(0.80) and s.success is False


def test_priming_after_cranking_does_not_count(tmp_path):
    # strokes at 50-52 s, crank at 40 s: count at cranking is 0 -> 0.80
    s = score(tmp_path, engine_start(prime_t=50))
    assert comp(s, "priming_mixture").earned == 0 and s.score == pytest.approx(0.80)


def test_one_stroke_is_not_enough(tmp_path):
    # POH minimum is 2 strokes: 1 stroke -> lose 0.20 -> 0.80
    s = score(tmp_path, engine_start(primer=1))
    assert s.score == pytest.approx(0.80)


def test_rpm_high_and_key_left_at_start(tmp_path):
    # 1,300 rpm is outside 900-1,100 (lose 0.40); key left at START (4) is not BOTH (lose 0.40)
    # -> only priming/mixture: 0.20
    s = score(tmp_path, engine_start(rpm=1300, mags_end=4))
    assert s.score == pytest.approx(0.20)
    assert "magnetos BOTH" in comp(s, "switch_states").explanation


def test_rpm_leaving_band_in_last_five_seconds_fails(tmp_path):
    # on target until 3 s before the end, then 1,250 rpm: the final 5 s window fails -> 0.60
    s = score(tmp_path, engine_start(rpm_late=1250))
    assert comp(s, "engine_at_rpm").earned == 0 and s.score == pytest.approx(0.60)


def test_avionics_off_and_lean_mixture(tmp_path):
    # avionics never on: switches fail (0.40); mixture 0.7 < 0.9: priming/mixture fails (0.20) -> 0.40
    s = score(tmp_path, engine_start(avionics=False, mixture=0.7))
    assert s.score == pytest.approx(0.40)


def test_cold_and_dark_scores_zero(tmp_path):
    s = score(tmp_path, engine_start(cold=True))
    assert s.status == "scored" and s.score == 0.0 and s.success is False


def test_missing_primer_signal_is_unscored(tmp_path):
    s = score(tmp_path, without_signal(engine_start(), "primer_strokes"))
    assert s.status == "unscored" and "primer_strokes" in s.reason and s.score is None


def test_gap_in_final_window_is_unscored(tmp_path):
    s = score(tmp_path, with_gap(engine_start(duration_s=120), 116.0, 118.5))  # 2.6 s hole inside the last 5 s
    assert s.status == "unscored" and "gap" in s.reason


def test_gap_elsewhere_does_not_matter(tmp_path):
    s = score(tmp_path, with_gap(engine_start(), 60.0, 65.0))
    assert s.status == "scored" and s.score == pytest.approx(1.0)


def test_recording_shorter_than_final_window_is_unscored(tmp_path):
    cols = engine_start(duration_s=3)
    s = score(tmp_path, cols)
    assert s.status == "unscored" and "shorter" in s.reason


@pytest.mark.parametrize("kw", [{}, {"rpm": 1300}, {"primer": 0}])
def test_resampling_invariance(tmp_path, kw):
    base = engine_start(hz=100, **kw)
    assert_rate_invariant(tmp_path, TASK, base)


def test_checklist_document_matches_the_checked_items():
    from pathlib import Path

    pdf = (Path(__file__).parents[2] / "tasks" / "inputs" / "c172_startup_checklist.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-")
    for item in (
        b"Fuel selector valve",
        b"BOTH",
        b"RICH",
        b"Primer",
        b"3 STROKES",
        b"Beacon",
        b"START",
        b"Avionics master switch",
        b"1,000 RPM",
    ):
        assert item in pdf, item
    assert TASK.inputs[0].source == "inputs/c172_startup_checklist.pdf"
