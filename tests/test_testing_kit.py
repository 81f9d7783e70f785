"""`simbridge.testing`, the verifier author's kit, used as an outside plug-in would use it."""

from __future__ import annotations

from pathlib import Path

import pytest

from simbridge.testing import assert_rate_invariant, component, score_task, with_gap, without_signal
from synth import steep_turn


def test_a_full_trace_scores_and_its_items_are_reachable(tmp_path: Path) -> None:
    score = score_task(tmp_path, "T09", steep_turn(hz=20.0))
    assert score.status == "scored" and score.success and score.score == pytest.approx(1.0)
    with pytest.raises(KeyError, match=r"no item 'nonsense' in the score \(items: .+\)"):
        component(score, "nonsense")


def test_a_missing_signal_and_a_gap_are_unscored_naming_them(tmp_path: Path) -> None:
    cols = steep_turn(hz=20.0)
    missing = score_task(tmp_path / "a", "T09", without_signal(cols, "bank_deg"))
    assert missing.status == "unscored" and "bank_deg" in (missing.reason or ""), missing
    gap = score_task(tmp_path / "b", "T09", with_gap(cols, 25.0, 40.0))
    assert gap.status == "unscored", gap


def test_rate_invariance_is_checked_and_a_rate_dependent_score_is_caught(tmp_path: Path) -> None:
    scores = assert_rate_invariant(tmp_path / "ok", "T09", steep_turn(hz=100.0))
    assert len(scores) == 3 and min(scores) == pytest.approx(1.0)
    with pytest.raises(AssertionError, match="scores differ"):
        # the same trace against a score from elsewhere that differs: the spread is caught
        assert_rate_invariant(tmp_path / "bad", "T09", steep_turn(hz=100.0), also=(0.5,))
