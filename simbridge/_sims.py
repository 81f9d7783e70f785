"""Which SimSession implements each simulator name, from the registered simulators
(`simbridge.registry`, kind `simulator`). Imported lazily: an adapter's own dependencies
(pygame, carla, ...) load only when that simulator is used."""

from __future__ import annotations

from simbridge._adapter import SimSession
from simbridge._adapters_registry import adapters
from simbridge._errors import SimbridgeError
from simbridge.registry import load


def sessions() -> dict[str, str]:
    """Simulator name -> "module:ClassName" of its SimSession (host side), for those that have one."""
    return {name: a.session for name, a in adapters().items() if a.session}


def session_class(sim: str) -> type[SimSession]:
    """The live session class of a registered simulator; an unknown or broken one is one line."""
    live = sessions()
    try:
        target = live[sim]
    except KeyError:
        if sim in adapters():  # a registered simulator whose runs can only be imported
            raise SimbridgeError(
                f"simulator {sim!r} has no live session (known: {', '.join(sorted(live))}); "
                f"convert its own output with `simbridge import`"
            ) from None
        raise SimbridgeError(f"unknown simulator {sim!r} (known: {', '.join(sorted(live))})") from None
    return load(target, f"simulator {sim!r}")
