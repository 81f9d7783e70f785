"""FlightGear 2020.3 adapter: launcher in the task's state, lockdown, host-side logging over
the generic protocol (UDP) and telnet, and the c172p property → canonical mapping.

- `FlightGearSession`: the `SimSession` the runner uses (`simbridge._sims`: `flightgear`).
- `FlightGearProcess` / `LaunchSpec`: start fgfs and wait until it is ready or clearly broken.
- `RAW_CHUNKS` / `CanonicalMapper`: what is streamed and how it maps to canonical signals.
- `render_lockdown` / `KEY_WHITELIST`: the escape hatches closed at launch.
- `TelnetRecorder`: records an already running FlightGear by telnet polling (`simbridge record`).
"""

from __future__ import annotations

import importlib
from typing import Any

# loaded on first use, so the reference pilots in pilots/ import no host-side module
_LAZY = {
    "FlightGearProcess": "_launch",
    "LaunchSpec": "_launch",
    "KEY_WHITELIST": "_lockdown",
    "TELNET_BINDS_ALL_INTERFACES": "_lockdown",
    "render_lockdown": "_lockdown",
    "RAW_CHUNKS": "_mapping",
    "SIGNALS": "_mapping",
    "SNAPSHOT_NODES": "_mapping",
    "CanonicalMapper": "_mapping",
    "TelnetRecorder": "_record",
    "FlightGearSession": "_session",
    "launch_spec": "_session",
}

__all__ = [
    "CanonicalMapper",
    "FlightGearProcess",
    "FlightGearSession",
    "KEY_WHITELIST",
    "LaunchSpec",
    "RAW_CHUNKS",
    "SIGNALS",
    "SNAPSHOT_NODES",
    "TELNET_BINDS_ALL_INTERFACES",
    "TelnetRecorder",
    "launch_spec",
    "render_lockdown",
]


def __getattr__(name: str) -> Any:
    try:
        module = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
