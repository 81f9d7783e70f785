"""Which SimSession implements each simulator name. Imported lazily: an adapter's own
dependencies (pygame, carla, ...) load only when that simulator is used."""

from __future__ import annotations

import importlib

from simbridge._adapter import SimSession
from simbridge._errors import SimbridgeError

#: sim name -> "module:ClassName" of its SimSession (host side)
SESSIONS: dict[str, str] = {
    "jsbsim": "simbridge.adapters.jsbsim:JSBSimSession",
    "flightgear": "simbridge.adapters.flightgear:FlightGearSession",
    "xplane": "simbridge.adapters.xplane:XPlaneSession",
    "carla": "simbridge.adapters.carla:CarlaSession",
}


def session_class(sim: str) -> type[SimSession]:
    try:
        target = SESSIONS[sim]
    except KeyError:
        raise SimbridgeError(f"unknown simulator {sim!r} (known: {', '.join(sorted(SESSIONS))})") from None
    module, _, name = target.partition(":")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise SimbridgeError(f"simulator {sim!r}: adapter {target} not available: {exc}") from None
