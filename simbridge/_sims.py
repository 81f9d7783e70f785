"""Which SimSession implements each simulator name, read from the adapter registry
(simbridge._adapters_registry). Imported lazily: an adapter's own dependencies (pygame,
carla, ...) load only when that simulator is used."""

from __future__ import annotations

from simbridge._adapter import SimSession
from simbridge._adapters_registry import ADAPTERS, resolve
from simbridge._errors import SimbridgeError

#: sim name -> "module:ClassName" of its SimSession (host side), for the adapters that have one
SESSIONS: dict[str, str] = {a.name: a.session for a in ADAPTERS if a.session}


def session_class(sim: str) -> type[SimSession]:
    """The live session class of a registered simulator; an unknown or broken one is one line."""
    try:
        target = SESSIONS[sim]
    except KeyError:
        known = next((a for a in ADAPTERS if a.name == sim), None)
        if known is not None:  # a registered simulator whose runs can only be imported
            raise SimbridgeError(
                f"simulator {sim!r} has no live session (known: {', '.join(sorted(SESSIONS))}); "
                f"convert its own output with `simbridge import`"
            ) from None
        raise SimbridgeError(f"unknown simulator {sim!r} (known: {', '.join(sorted(SESSIONS))})") from None
    return resolve(target, f"simulator {sim!r}")
