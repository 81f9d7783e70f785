"""The canonical signal vocabulary, public: one name per quantity, its unit in the name.

Adapters map their simulator's native names onto these; verifiers are written against them
and so run unchanged on every simulator. `simbridge signals` prints the same table with each
name's physical range and, per simulator, the conventions its adapter follows.
"""

from simbridge._canonical import (
    AIRCRAFT_STATE,
    ALIASES,
    DISCRETE,
    DRIVING,
    FLIGHT,
    OTHER_VEHICLES,
    RANGES,
    SIGNALS,
    VALUE_NAMES,
    discrete_values,
    flight_signals,
    is_angle,
    is_canonical,
    physical_range,
    value_name,
)

__all__ = [
    "SIGNALS",
    "FLIGHT",
    "DRIVING",
    "OTHER_VEHICLES",
    "ALIASES",
    "RANGES",
    "DISCRETE",
    "VALUE_NAMES",
    "AIRCRAFT_STATE",
    "is_canonical",
    "is_angle",
    "physical_range",
    "discrete_values",
    "value_name",
    "flight_signals",
]
