"""Rubrics as data: competencies, the four-level scale and the Satisfactory rule, validated by pydantic.

The scale and the rule follow the seed paper (NATS Basic course); competencies are the ICAO/EASA
pilot core competencies (flight) or the driving test's marking areas (driving)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from simbridge._errors import SimbridgeError, first_error


class RubricError(SimbridgeError):
    """A rubric YAML is malformed: names the file and the field."""


class Level(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    label: str
    value: int = Field(ge=1, description="ordinal value; higher is better")
    description: str = ""


class Competency(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1)
    name: str
    description: str = ""
    #: task tags the competency is graded for; "*" for every task of the rubric
    applies_to_tags: list[str] = Field(min_length=1)

    def applies_to(self, tags: Iterable[str]) -> bool:
        return "*" in self.applies_to_tags or bool(set(self.applies_to_tags) & set(tags))


class Standard(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tag: str
    reference: str
    criteria: list[str] = Field(default_factory=list)


class SatisfactoryRule(BaseModel):
    """Any run at a fail level, or `repeat_count` runs at or below `concern_level`, is Unsatisfactory."""

    model_config = ConfigDict(extra="forbid")
    fail_levels: list[str]
    concern_level: str
    repeat_count: int = Field(ge=1)


class Rubric(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    description: str = ""
    applies_to_tags: list[str] = Field(min_length=1)
    levels: list[Level] = Field(min_length=2)
    satisfactory: SatisfactoryRule
    competencies: list[Competency] = Field(min_length=1)
    standards: list[Standard] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> Rubric:
        level_ids = [lv.id for lv in self.levels]
        values = [lv.value for lv in self.levels]
        if len(set(level_ids)) != len(level_ids) or len(set(values)) != len(values):
            raise ValueError("levels: ids and values must be unique")
        comp_ids = [c.id for c in self.competencies]
        if len(set(comp_ids)) != len(comp_ids):
            raise ValueError(f"competencies: duplicate id in {comp_ids}")
        for lid in [*self.satisfactory.fail_levels, self.satisfactory.concern_level]:
            if lid not in level_ids:
                raise ValueError(f"satisfactory: unknown level {lid!r} (levels: {', '.join(level_ids)})")
        return self

    # ----------------------------------------------------------------- lookups
    def level(self, text: str | int) -> Level:
        """The level named by id, label or value (case-insensitive); RubricError when outside the scale."""
        key = str(text).strip().lower()
        for lv in self.levels:
            if key in (lv.id.lower(), lv.label.lower(), str(lv.value)):
                return lv
        raise RubricError(f"level {text!r} is not on the scale ({', '.join(lv.label for lv in self.levels)})")

    def level_by_value(self, value: int) -> Level:
        return next(lv for lv in self.levels if lv.value == value)

    def competencies_for(self, tags: Iterable[str]) -> list[Competency]:
        tags = list(tags)
        return [c for c in self.competencies if c.applies_to(tags)]

    def standards_for(self, tags: Iterable[str]) -> list[Standard]:
        tags = set(tags)
        return [s for s in self.standards if s.tag in tags]

    def covers(self, tags: Iterable[str]) -> bool:
        return bool(set(self.applies_to_tags) & set(tags))

    def satisfactory_of(self, level_ids: Sequence[str]) -> Literal["Satisfactory", "Unsatisfactory"]:
        """One competency over a candidate's runs, by the seed's rule: repeated or major errors fail."""
        rule = self.satisfactory
        concern = self.level(rule.concern_level).value
        if any(lid in rule.fail_levels for lid in level_ids):
            return "Unsatisfactory"
        if sum(self.level(lid).value <= concern for lid in level_ids) >= rule.repeat_count:
            return "Unsatisfactory"
        return "Satisfactory"

    def overall(self, per_competency: dict[str, Sequence[str]]) -> Literal["Satisfactory", "Unsatisfactory"]:
        """Pass only with Satisfactory in every competency graded (the seed's rule)."""
        ok = all(self.satisfactory_of(v) == "Satisfactory" for v in per_competency.values() if v)
        return "Satisfactory" if ok else "Unsatisfactory"


BUILTIN = ("flight", "driving")


def load_rubric(name_or_path: str | Path) -> Rubric:
    """A built-in rubric by name (flight, driving) or a YAML file; RubricError naming file and field."""
    if str(name_or_path) in BUILTIN:
        ref = resources.files("simbridge._review") / "rubrics" / f"{name_or_path}.yaml"
        where, text = f"simbridge/_review/rubrics/{name_or_path}.yaml", ref.read_text(encoding="utf-8")
    else:
        from simbridge._inputs import read_input_text

        path = Path(name_or_path)
        where = str(path)
        text = read_input_text(path, "the rubric", error=RubricError)  # a regular file, bounded
    from simbridge._inputs import load_yaml

    data = load_yaml(text, where, RubricError)
    if not isinstance(data, dict):
        raise RubricError(f"{where}: expected a mapping at the top level, got {type(data).__name__}")
    try:
        return Rubric.model_validate(data)
    except ValidationError as exc:
        raise RubricError(first_error(exc, where, top="(top level)")) from None


def rubric_for_tags(tags: Iterable[str]) -> Rubric:
    """The built-in rubric whose tags a task carries: driving for driving tasks, else flight."""
    tags = list(tags)
    driving = load_rubric("driving")
    return driving if driving.covers(tags) else load_rubric("flight")
