"""Seeded task variants (TaskSpec.drawn), the configuration model and the POH task set."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from simbridge._eval._suite import load_suite
from simbridge._task import load_all_tasks, load_task
from simbridge._taskspec import ConfigurationSpec, VariantSpec

ROOT = Path(__file__).resolve().parents[2]
POH = sorted(t for t in load_all_tasks() if t.startswith("P"))


def test_at_least_twenty_poh_tasks_beside_the_catalog():
    tasks = load_all_tasks()
    assert len(POH) >= 20
    assert len([t for t in tasks if t.startswith("T") and "@" not in t]) == 20
    assert len(tasks) >= 40


@pytest.mark.parametrize("tid", POH)
def test_every_poh_task_cites_its_procedure_and_draws_variants(tid):
    t = load_task(tid)
    assert t.reference and "POH" in t.reference
    assert t.variants, "every POH task draws something per trial"
    assert "poh" in t.tags and t.simulator.name == "jsbsim"
    assert any(c.primary for c in t.partial_credit)
    for seed in range(12):
        d = t.drawn(seed)
        assert d.variant == {"seed": seed, "values": d.variant["values"]}
        assert set(d.variant["values"]) == {v.name for v in t.variants}
        assert "{" not in d.instruction, d.instruction  # every {name} filled in


def test_drawn_is_reproducible_and_differs_between_seeds():
    t = load_task("P13")
    a, b = t.drawn(5), t.drawn(5)
    assert a.variant == b.variant and a.spec_hash == b.spec_hash
    draws = {t.drawn(s).variant["values"]["alt_msl_ft"] for s in range(20)}
    assert len(draws) > 5  # not a replay
    assert all(3500 <= x <= 5500 and x % 100 == 0 for x in draws)


def test_drawn_values_are_written_where_they_go():
    d = load_task("P13").drawn(2)
    v = d.variant["values"]
    assert d.initial_state.alt_msl_ft == v["alt_msl_ft"]
    assert d.initial_state.heading_deg == v["heading_deg"]
    assert f"heading {v['new_heading_deg']}°" in d.instruction
    p01 = load_task("P01").drawn(4)
    dev = p01.variant["values"]["deviation"]
    assert p01.initial_state.configuration is not None
    assert p01.initial_state.configuration.keys() == dev


def test_a_task_without_variants_keeps_its_hash():
    t = load_task("T11")
    assert not t.variants
    assert t.drawn(3).spec_hash == t.spec_hash and t.drawn(3).variant == {"seed": 3, "values": {}}


def test_catalog_steep_turn_draws_its_entry_heading():
    t = load_task("T09")
    headings = {t.drawn(s).initial_state.heading_deg for s in range(10)}
    assert len(headings) > 3 and all(h is not None and 0 <= h <= 359 for h in headings)


def test_uniform_draw_is_in_range_and_rounded():
    v = VariantSpec(name="h", uniform=(1000.0, 1100.0), step=25)
    xs = {v.draw("P99", s) for s in range(30)}
    assert xs <= {1000.0, 1025.0, 1050.0, 1075.0, 1100.0} and len(xs) > 1


@pytest.mark.parametrize(
    "bad",
    [
        {"name": "x", "uniform": [1, 2], "choice": [1]},
        {"name": "x"},
        {"name": "x", "uniform": [3, 2]},
        {"name": "X", "choice": [1]},
    ],
)
def test_bad_variants_are_refused(bad):
    with pytest.raises(ValidationError):
        VariantSpec.model_validate(bad)


def test_configuration_keys_are_typed():
    assert ConfigurationSpec(fuel_selector="left", mixture=0.5).keys() == {"fuel_selector": "left", "mixture": 0.5}
    for bad in ({"fuel_selector": "center"}, {"mixture": 1.5}, {"flaps_deg": 15}, {"fuel_pump": True}):
        with pytest.raises(ValidationError):
            ConfigurationSpec.model_validate(bad)


def test_poh_suite_has_seeds_and_picks_the_poh_tasks():
    s = load_suite(ROOT / "suites" / "poh.yaml")
    assert s.seed == 1 and s.trials >= 5
    assert s.matrix[0].tasks == ["tag:poh"]
