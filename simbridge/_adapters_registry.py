"""What each simulator adapter can do, declared in one place: its live session (`simbridge run`),
its record-only recorder (`simbridge record`) and its importers (`simbridge import`).

A new simulator is its folder under adapters/ plus one `AdapterSpec(...)` entry in `ADAPTERS`.
Every target is a "module:attribute" string resolved only when used, so importing this module
(and building the CLI parser) never loads an adapter or its dependencies (pygame, jsbsim, carla).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simbridge._errors import SimbridgeError


@dataclass(frozen=True)
class Option:
    """One importer-specific command-line option, passed to the importer as keyword `dest`."""

    flag: str
    dest: str
    help: str
    type: Callable[[str], Any] | None = None
    action: str | None = None  # "store_true" / "store_false" for switches

    def argparse_kwargs(self) -> dict[str, Any]:
        kw: dict[str, Any] = {"dest": self.dest, "help": self.help}
        if self.action:
            kw["action"] = self.action
        else:
            kw["metavar"] = self.flag.lstrip("-").upper()
        if self.type is not None:
            kw["type"] = self.type
        return kw


@dataclass(frozen=True)
class ImporterSpec:
    """A converter from a simulator's own output files to an episode bundle.

    `target` is called as `target(source, out, *, task_id=..., force=..., **options)` where
    `source` is one Path (`many_files=False`) or a list of Paths, and returns the bundle path.
    It follows simbridge._import_policy (no overwrite without force; flags for what it dropped)."""

    target: str
    help: str
    file_help: str
    default_task: str
    many_files: bool = False
    options: tuple[Option, ...] = ()
    aliases: tuple[str, ...] = ()
    #: keyword filled with the task's vehicle id for this simulator when the option is not given
    vehicle_option: str | None = None
    #: extra words after the sample count, formatted from the bundle's `start` snapshot
    summary: str | None = None


@dataclass(frozen=True)
class AdapterSpec:
    """One simulator. `session`: "module:Class" of its SimSession; `recorder`: "module:Class"
    constructed as `Class(host, port)` with `record(out, *, seconds, hz, task_id) -> Path`;
    `importers`: importer name (a `simbridge import` choice) -> spec."""

    name: str
    session: str | None = None
    recorder: str | None = None
    importers: Mapping[str, ImporterSpec] = field(default_factory=dict)


_A = "simbridge.adapters"

ADAPTERS: tuple[AdapterSpec, ...] = (
    AdapterSpec("jsbsim", session=f"{_A}.jsbsim:JSBSimSession"),
    AdapterSpec("drive", session=f"{_A}.drive._session:DriveSession"),
    AdapterSpec("flightgear", session=f"{_A}.flightgear:FlightGearSession", recorder=f"{_A}.flightgear:TelnetRecorder"),
    AdapterSpec("xplane", session=f"{_A}.xplane:XPlaneSession", recorder=f"{_A}.xplane:XPlaneRecorder"),
    AdapterSpec("msfs", session=f"{_A}.msfs:MsfsSession", recorder=f"{_A}.msfs:MsfsRecorder"),
    AdapterSpec(
        "carla",
        session=f"{_A}.carla:CarlaSession",
        importers={
            "carla": ImporterSpec(
                f"{_A}.carla:import_recording",
                help="a CARLA recorder file (client.start_recorder)",
                file_help="recorder file (.log)",
                default_task="T18",
                summary="ego {ego_id} {ego_type_id} on {map}",
                options=(
                    Option(
                        "--map",
                        "map_path",
                        "the town's OpenDRIVE file (.xodr): adds lane_id, lane_offset_m, lane_invasion and red_light",
                        type=Path,
                    ),
                    Option(
                        "--ego", "ego", "actor id of the ego (default: the actor whose role_name is 'hero')", type=int
                    ),
                    Option(
                        "--allow-truncated",
                        "allow_truncated",
                        "keep the frames before a truncated end instead of failing (flagged 'truncated_import')",
                        action="store_true",
                    ),
                ),
            )
        },
    ),
    AdapterSpec(
        "ksp",
        importers={
            "ksp": ImporterSpec(
                f"{_A}.ksp:import_saves",
                help="persistent.sfs save file(s) of one flight, in any order",
                file_help="KSP save files (persistent.sfs, quicksaves) of one flight",
                default_task="T19",
                many_files=True,
                vehicle_option="vessel",
                options=(
                    Option(
                        "--vessel",
                        "vessel",
                        "vessel name (default: the task's vessel id for ksp, else the active vessel)",
                    ),
                ),
            )
        },
    ),
    AdapterSpec(
        "openbve",
        importers={
            "openbve": ImporterSpec(
                f"{_A}.openbve:import_logs",
                help="OpenBVE black-box file logs.bin",
                file_help="the black-box file (logs.bin)",
                default_task="T14",
            )
        },
    ),
    AdapterSpec(
        "bridgecommand",
        importers={
            "bridgecommand": ImporterSpec(
                f"{_A}.bridgecommand:import_nmea",
                help="capture of Bridge Command's NMEA 0183 output (one sentence per line)",
                file_help="NMEA capture, one sentence per line",
                default_task="T17",
                aliases=("nmea",),
                options=(
                    Option(
                        "--lenient",
                        "strict",
                        "skip bad sentences (listed in snapshots) instead of failing",
                        action="store_false",
                    ),
                ),
            )
        },
    ),
)


def adapters() -> dict[str, AdapterSpec]:
    """Simulator name -> its spec, in registration order."""
    return {a.name: a for a in ADAPTERS}


def adapter(name: str) -> AdapterSpec:
    try:
        return adapters()[name]
    except KeyError:
        raise SimbridgeError(f"unknown simulator {name!r} (known: {', '.join(sorted(adapters()))})") from None


def importers() -> dict[str, tuple[AdapterSpec, ImporterSpec]]:
    """Importer name (not its aliases) -> (its adapter, its spec). Names are unique across adapters."""
    out: dict[str, tuple[AdapterSpec, ImporterSpec]] = {}
    for a in ADAPTERS:
        for name, spec in a.importers.items():
            out[name] = (a, spec)
    return out


def resolve(target: str, what: str) -> Any:
    """The object named by "module:attribute"; a missing module or name is one SimbridgeError."""
    module, _, attr = target.partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise SimbridgeError(f"{what}: adapter {target} not available: {exc}") from None
