"""Constrained number types shared by the verifiers' parameter models.

A tolerance of -100 ft, NaN or inf does not fail loudly inside a verifier: every comparison
against it is silently true or false, so the score changes while the task "validates". These
types make such a value a validation error when the task YAML is loaded, naming the field.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, ConfigDict, Field

from simbridge.verifier import Params

#: any finite number (no NaN, no ±inf)
FiniteFloat = Annotated[float, Field(allow_inf_nan=False)]
#: a finite number > 0: tolerances, limits, durations, sizes
PositiveFinite = Annotated[float, Field(gt=0, allow_inf_nan=False)]
#: a finite number ≥ 0: margins and offsets that may be zero
NonNegativeFinite = Annotated[float, Field(ge=0, allow_inf_nan=False)]
#: a fraction in [0, 1]
Fraction = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
#: a direction in [0, 360) degrees
HeadingDeg = Annotated[float, Field(ge=0, lt=360, allow_inf_nan=False)]
#: an angular tolerance in (0, 180] degrees (an angle difference can never exceed 180°)
AngleTolDeg = Annotated[float, Field(gt=0, le=180, allow_inf_nan=False)]
#: a bank or pitch angle in (0, 90) degrees
AttitudeDeg = Annotated[float, Field(gt=0, lt=90, allow_inf_nan=False)]
LatDeg = Annotated[float, Field(ge=-90, le=90, allow_inf_nan=False)]
LonDeg = Annotated[float, Field(ge=-180, le=180, allow_inf_nan=False)]
#: a VHF NAV receiver frequency (VOR/ILS band), MHz
NavMHz = Annotated[float, Field(ge=108.0, lt=118.0, allow_inf_nan=False)]
#: a VHF COM frequency, MHz
ComMHz = Annotated[float, Field(ge=118.0, lt=137.0, allow_inf_nan=False)]
#: an ICAO airport identifier as the verifiers compare it (upper case)
Icao = Annotated[str, Field(pattern=r"^[A-Z0-9]{3,4}$")]
Side = Literal["left", "right"]


def _ordered(pair: tuple[float, float]) -> tuple[float, float]:
    if not pair[0] < pair[1]:
        raise ValueError(f"range [{pair[0]:g}, {pair[1]:g}] must have low < high")
    return pair


#: a [low, high] range of finite numbers, low < high
Range = Annotated[tuple[FiniteFloat, FiniteFloat], AfterValidator(_ordered)]
#: a [low, high] range of finite numbers ≥ 0, low < high
NonNegativeRange = Annotated[tuple[NonNegativeFinite, NonNegativeFinite], AfterValidator(_ordered)]
XY = tuple[FiniteFloat, FiniteFloat]


def _regex(v: str) -> str:
    try:
        re.compile(v)
    except re.error as exc:
        raise ValueError(f"not a valid regular expression: {exc}") from None
    return v


Regex = Annotated[str, AfterValidator(_regex)]


def require_below(low_name: str, low: float, high_name: str, high: float) -> None:
    """Cross-field check: `low` < `high`, with an error naming both fields."""
    if not low < high:
        raise ValueError(f"{low_name} ({low:g}) must be below {high_name} ({high:g})")


class FiniteParams(Params):
    """Params whose numbers are all finite, including those inside lists, tuples and dicts."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
