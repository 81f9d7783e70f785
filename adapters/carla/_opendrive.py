"""CARLA's OpenDRIVE reader lives in the adapter kit (`simbridge.adapters.kit.opendrive`),
shared with the embedded drive simulator; these names stay importable from here."""

from simbridge.adapters.kit.opendrive import (
    TRAFFIC_LIGHT_TYPE,
    LaneSamples,
    OpenDriveError,
    OpenDriveMap,
    Road,
    Signal,
    _eval_geometry,
    _eval_plan_view,
    _Geometry,
    _Lane,
    _poly_at,
    _Section,
    _width_at,
    read_opendrive,
)

__all__ = [
    "TRAFFIC_LIGHT_TYPE",
    "LaneSamples",
    "OpenDriveError",
    "OpenDriveMap",
    "Road",
    "Signal",
    "_Geometry",
    "_Lane",
    "_Section",
    "_eval_geometry",
    "_eval_plan_view",
    "_poly_at",
    "_width_at",
    "read_opendrive",
]
