"""The rubrics as data: built-ins cover the tasks, bad YAML names file and field, the seed's rule."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from simbridge._review.rubric import RubricError, load_rubric, rubric_for_tags
from simbridge._task import load_all_tasks

FLIGHT = {
    "maneuver",
    "procedure",
    "avionics",
    "instrument",
    "emergency",
    "helicopter",
    "setup",
    "fmc",
    "weight-and-balance",
}


def test_seed_levels_and_every_flight_and_driving_task_gets_competencies() -> None:
    for name in ("flight", "driving"):
        rb = load_rubric(name)
        assert [lv.label for lv in rb.levels] == [
            "Fully Achieved",
            "Mostly Achieved",
            "Partly Achieved",
            "Not Achieved",
        ]
    covered = 0
    for task_id, spec in load_all_tasks().items():
        if not (set(spec.tags) & (FLIGHT | {"driving"})):
            continue  # rail, marine, spaceflight: no rubric yet
        rb = rubric_for_tags(spec.tags)
        assert rb.name == ("driving" if "driving" in spec.tags else "flight"), task_id
        comps = {c.id for c in rb.competencies_for(spec.tags)}
        assert len(comps) >= 3, task_id
        covered += 1
    assert covered >= 15


def test_competencies_follow_the_task_tags() -> None:
    rb = load_rubric("flight")
    steep_turn = {c.id for c in rb.competencies_for(["maneuver", "acs", "hand-flying", "real-time"])}
    assert "FPM" in steep_turn and "FPA" not in steep_turn and "COM" not in steep_turn
    radios = {c.id for c in rb.competencies_for(["avionics", "g1000", "radios", "knobs"])}
    assert {"FPA", "COM"} <= radios and "FPM" not in radios
    assert [s.reference for s in rb.standards_for(["acs"])][0].endswith("Steep Turns")


def test_satisfactory_rule() -> None:
    rb = load_rubric("flight")
    assert rb.satisfactory_of(["fully_achieved", "mostly_achieved", "fully_achieved"]) == "Satisfactory"
    assert rb.satisfactory_of(["fully_achieved", "partly_achieved", "mostly_achieved"]) == "Satisfactory"
    assert rb.satisfactory_of(["partly_achieved", "partly_achieved", "fully_achieved"]) == "Unsatisfactory"
    assert rb.satisfactory_of(["fully_achieved", "not_achieved", "fully_achieved"]) == "Unsatisfactory"
    assert rb.overall({"PRO": ["fully_achieved"], "FPM": ["not_achieved"]}) == "Unsatisfactory"
    assert rb.overall({"PRO": ["fully_achieved"], "FPM": ["mostly_achieved"]}) == "Satisfactory"


def test_level_lookup() -> None:
    rb = load_rubric("driving")
    assert rb.level("Mostly Achieved").value == rb.level("mostly_achieved").value == rb.level(3).value == 3
    with pytest.raises(RubricError, match="level 'Great' is not on the scale"):
        rb.level("Great")


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda d: d["competencies"][0].pop("applies_to_tags"), "competencies.0.applies_to_tags"),
        (lambda d: d["levels"][0].update(value="high"), "levels.0.value"),
        (lambda d: d["satisfactory"].update(concern_level="meh"), "unknown level 'meh'"),
        (lambda d: d.update(colour="red"), "colour"),
    ],
)
def test_bad_rubric_names_file_and_field(tmp_path: Path, mutate, field: str) -> None:  # type: ignore[no-untyped-def]
    data = yaml.safe_load(Path(__file__).parents[2].joinpath("simbridge/_review/rubrics/flight.yaml").read_text())
    mutate(data)
    f = tmp_path / "r.yaml"
    f.write_text(yaml.safe_dump(data))
    with pytest.raises(RubricError) as exc:
        load_rubric(f)
    msg = str(exc.value)
    assert msg.startswith(f"{f}: ") and field in msg and "\n" not in msg


def test_rubric_that_is_not_yaml(tmp_path: Path) -> None:
    f = tmp_path / "r.yaml"
    f.write_text("name: [unclosed\n")
    with pytest.raises(RubricError, match=r"r.yaml: line \d+: not valid YAML"):
        load_rubric(f)
