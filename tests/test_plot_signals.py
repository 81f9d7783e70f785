"""A task's `plot_signals`: drawn by the report when recorded, never required for the score."""

from __future__ import annotations

from pathlib import Path

from simbridge import load_task, read_bundle
from simbridge._report._view import EpisodeView
from simbridge._report._plots import plotted_signals
from simbridge.testing import make_bundle, score_task
from synth import steep_turn

T09 = load_task("T09")


def test_a_plot_only_signal_is_drawn_when_recorded_and_never_required(tmp_path: Path) -> None:
    task = T09.model_copy(update={"plot_signals": ["vs_fpm", "rpm"]})  # the trace has vs_fpm, not rpm
    s = score_task(tmp_path / "a", task, steep_turn())
    assert s.status == "scored" and s.success, s.reason
    bundle = read_bundle(make_bundle(tmp_path / "b", "T09", steep_turn()))
    view = EpisodeView(bundle.path, bundle, task, s, "re-derived", task.instruction)
    drawn, missing = plotted_signals(view)
    assert "vs_fpm" in drawn and "rpm" not in drawn and missing == []
    assert [x for x in drawn if x in T09.signals] == [x for x in T09.signals if x in drawn]  # verifier's first


def test_a_verifier_signal_stays_required(tmp_path: Path) -> None:
    task = T09.model_copy(update={"plot_signals": ["vs_fpm"]})
    cols = {k: v for k, v in steep_turn().items() if k != "bank_deg"}
    s = score_task(tmp_path, task, cols)
    assert s.status == "unscored" and "bank_deg" in (s.reason or "")


def test_an_empty_plot_list_leaves_the_spec_hash_as_it_was() -> None:
    assert T09.plot_signals == [] and T09.spec_hash == T09.model_copy(update={"plot_signals": []}).spec_hash
    assert T09.model_copy(update={"plot_signals": ["vs_fpm"]}).spec_hash != T09.spec_hash
