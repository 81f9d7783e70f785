"""FlightGear 2020.3 adapter: launcher in the task's state, lockdown, host-side logging over
the generic protocol (UDP) and telnet, and the c172p property → canonical mapping.

- `FlightGearSession`: the `SimSession` the runner uses (`simbridge._sims`: `flightgear`).
- `FlightGearProcess` / `LaunchSpec`: start fgfs and wait until it is ready or clearly broken.
- `RAW_CHUNKS` / `CanonicalMapper`: what is streamed and how it maps to canonical signals.
- `render_lockdown` / `KEY_WHITELIST`: the escape hatches closed at launch.
- `TelnetRecorder`: records an already running FlightGear by telnet polling (`simbridge record`).
"""

from simbridge.adapters.flightgear._launch import FlightGearProcess, LaunchSpec
from simbridge.adapters.flightgear._lockdown import KEY_WHITELIST, TELNET_BINDS_ALL_INTERFACES, render_lockdown
from simbridge.adapters.flightgear._mapping import RAW_CHUNKS, SIGNALS, SNAPSHOT_NODES, CanonicalMapper
from simbridge.adapters.flightgear._record import TelnetRecorder
from simbridge.adapters.flightgear._session import FlightGearSession, launch_spec

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
