"""What a simulator adapter declares: its live session (`simbridge run`), its record-only
recorder (`simbridge record`) and its importers (`simbridge import`), as one `AdapterSpec`
registered in the one registry (`simbridge.registry`, kind `simulator`) by its plug-in.

Every target is a "module:attribute" string resolved only when used, so listing simulators
(and building the CLI parser) never loads an adapter or its dependencies (pygame, jsbsim, carla).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from simbridge._errors import SimbridgeError
from simbridge.registry import load, registry


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
class EpisodeCost:
    """What one episode of a simulator holds on its host, for admission (`simbridge eval`'s local
    executor): CPU cores on average, memory (MB), X displays; `measured` says whether the figures
    were measured (docs of the adapter say how) or are an estimate."""

    cpu_cores: float
    mem_mb: float
    displays: int = 1
    measured: bool = False


#: a simulator that declares no cost: a full core and a gigabyte (an estimate)
DEFAULT_EPISODE_COST = EpisodeCost(cpu_cores=1.0, mem_mb=1000, displays=1, measured=False)


@dataclass(frozen=True)
class AdapterSpec:
    """One simulator. `session`: "module:Class" of its SimSession; `recorder`: "module:Class"
    constructed as `Class(host, port)` with `record(out, *, seconds, hz, task_id) -> Path`;
    `importers`: importer name (a `simbridge import` choice) -> spec; `lane_map`: "module:function"
    `(path, step_m) -> samples` reading the simulator's road-map file into lane-centre samples
    (arrays `x_m`, `y_m`, `yaw_deg`, `width_m`, `road`, `lane`), which the report draws under a
    driving track (None: the simulator has no lane maps); `assists`: the assists this simulator
    offers an episode beyond what the real vehicle shows (name -> what it shows, as the agent's
    brief says it), asked for with `simbridge run --assist NAME`, recorded and flagged
    (`assist:NAME`) and never pooled with unassisted episodes by `metrics` and `compare`;
    `title`: how the agent's brief names the simulator ("" : its name); `cost`: what one episode
    holds on its host (None: DEFAULT_EPISODE_COST); `conventions`: canonical signal (or topic)
    -> how this simulator defines it where a verifier author could guess wrong (true or magnetic,
    what "on the ground" means), shown by `simbridge signals --sim NAME`."""

    name: str
    session: str | None = None
    recorder: str | None = None
    importers: Mapping[str, ImporterSpec] = field(default_factory=dict)
    lane_map: str | None = None
    assists: Mapping[str, str] = field(default_factory=dict)
    title: str = ""
    cost: EpisodeCost | None = None
    conventions: Mapping[str, str] = field(default_factory=dict)


def adapters() -> dict[str, AdapterSpec]:
    """Simulator name -> its spec, sorted by name."""
    reg = registry()
    return {name: reg.simulator(name) for name in reg.names("simulator")}


def adapter(name: str) -> AdapterSpec:
    try:
        return adapters()[name]
    except KeyError:
        raise SimbridgeError(f"unknown simulator {name!r} (known: {', '.join(sorted(adapters()))})") from None


def importers() -> dict[str, tuple[AdapterSpec, ImporterSpec]]:
    """Importer name (not its aliases) -> (its adapter, its spec). Names are unique across adapters."""
    out: dict[str, tuple[AdapterSpec, ImporterSpec]] = {}
    for a in adapters().values():
        for name, spec in a.importers.items():
            if name in out:
                raise SimbridgeError(
                    f"importer {name!r} is declared by simulators {out[name][0].name!r} and {a.name!r}"
                )
            out[name] = (a, spec)
    return out


def simulator_trait(sim: str, name: str, default: Any) -> Any:
    """A registered simulator's AdapterSpec field `name`; a `module:Class` simulator (which has
    no AdapterSpec) declares it as a class attribute of its session; `default` otherwise (an
    unknown name included: callers that need the simulator to exist check that themselves)."""
    if ":" in sim:
        try:
            return getattr(load(sim, f"simulator {sim!r}"), name, None) or default
        except SimbridgeError:
            return default
    spec = registry().find("simulator", sim)
    if spec is None:
        return default
    return getattr(spec.value, name, None) or default
