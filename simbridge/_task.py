"""Task specifications: the pydantic model of a task YAML and the loaders for `tasks/`.

A task carries everything the catalog says about it (instruction, simulator, initial state,
lockdown, verifier and tolerances, partial credit, hard safety constraints) so that the runner,
the provider and the verifier all read one source of truth.
"""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from simbridge._errors import TaskSpecError

SimName = Literal["xplane", "flightgear", "msfs", "carla", "openbve", "bridgecommand", "ksp", "jsbsim"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class SimulatorSpec(_Model):
    name: SimName
    version: str = Field(description="Simulator version the task was written for, e.g. '12', '0.9.15', '2020.3'")
    alternatives: list[SimName] = Field(
        default_factory=list, description="Other simulators that can run this task, e.g. jsbsim"
    )


class VehicleSpec(_Model):
    kind: Literal["aircraft", "helicopter", "car", "train", "ship", "rocket"]
    model: str = Field(description="Human name, e.g. 'Cessna 172 (G1000)'")
    ids: dict[str, str] = Field(default_factory=dict, description="Simulator-specific id per sim name")


class LatLon(_Model):
    lat_deg: float = Field(ge=-90, le=90)
    lon_deg: float = Field(ge=-180, le=180)


class CloudLayer(_Model):
    coverage: Literal["clear", "few", "scattered", "broken", "overcast"]
    base_agl_ft: float | None = None
    base_msl_ft: float | None = None


class WeatherSpec(_Model):
    preset: Literal["clear", "manual", "real", "any"] = "clear"
    wind_dir_deg: float | None = Field(default=None, ge=0, le=360)
    wind_kt: float | None = Field(default=None, ge=0)
    visibility_sm: float | None = Field(default=None, gt=0)
    clouds: list[CloudLayer] = Field(default_factory=list)


class TimeSpec(_Model):
    date: str | None = Field(default=None, description="YYYY-MM-DD")
    local_time: str | None = Field(default=None, description="HH:MM, local to the airport")


class FailureTrigger(_Model):
    agl_ft: float | None = None
    agl_ft_between: tuple[float, float] | None = Field(
        default=None, description="Random height drawn per trial, uniformly in [lo, hi]"
    )
    after_s: float | None = None


class FailureSpec(_Model):
    system: str = Field(description="e.g. engine, vacuum_pump")
    trigger: FailureTrigger
    injected_by: Literal["harness", "agent", "simulator"] = "harness"


class InitialState(_Model):
    """Where and how the episode starts. Fields a simulator cannot honour are reported, not ignored."""

    airport: str | None = None
    runway: str | None = None
    parking: str | None = None
    helipad: str | None = None
    position: LatLon | None = None
    alt_msl_ft: float | None = None
    alt_agl_ft: float | None = None
    ias_kt: float | None = None
    heading_deg: float | None = Field(default=None, ge=0, le=360)
    distance_nm: float | None = Field(default=None, description="Distance from the runway threshold on final")
    on_ground: bool | None = None
    engine: Literal["running", "cold_and_dark", "off", "any"] = "any"
    avionics_on: bool | None = None
    autopilot_on: bool | None = None
    weather: WeatherSpec = Field(default_factory=WeatherSpec)
    time: TimeSpec = Field(default_factory=TimeSpec)
    failures: list[FailureSpec] = Field(default_factory=list)
    scenario: dict[str, Any] = Field(
        default_factory=dict, description="Simulator-specific scene (spawn point, parked cars, route, save file)"
    )


class InputFile(_Model):
    path: str = Field(description="Path the agent sees, relative to its home, e.g. input/ofp.pdf")
    description: str
    source: str | None = Field(default=None, description="Where the harness gets it (file under tasks/inputs/)")


class BlockedPort(_Model):
    port: int = Field(ge=1, le=65535)
    proto: Literal["tcp", "udp"]
    service: str


class LockdownSpec(_Model):
    blocked_ports: list[BlockedPort] = Field(default_factory=list)
    disabled_consoles: list[str] = Field(default_factory=list)
    forbidden_plugins: list[str] = Field(default_factory=list)
    disabled_assists: list[str] = Field(default_factory=list)
    notes: str = ""


class VerifierSpec(_Model):
    name: str
    params: dict[str, Any] = Field(default_factory=dict)


class CreditItem(_Model):
    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    weight: float = Field(gt=0, le=1)
    description: str
    kind: Literal["binary", "linear"] = Field(
        description="linear = 'scaled by' in the catalog; binary = all-or-nothing"
    )
    primary: bool = Field(default=False, description="A primary goal that earns 0 zeroes the whole score")


class SafetyItem(_Model):
    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    description: str


class RunwaySpec(_Model):
    """A runway end: the threshold the aircraft lands at and the opposite threshold."""

    id: str = Field(description="e.g. '34R'")
    airport: str
    threshold: LatLon
    end: LatLon = Field(description="The opposite threshold")
    width_ft: float = Field(gt=0)
    length_ft: float = Field(gt=0)
    elevation_ft: float
    heading_true_deg: float | None = None


class CircleSpec(_Model):
    id: str
    centre: LatLon | None = None
    centre_xy_m: tuple[float, float] | None = None
    radius_m: float = Field(gt=0)
    elevation_ft: float | None = None


class PolygonSpec(_Model):
    id: str
    points: list[LatLon] | None = None
    points_xy_m: list[tuple[float, float]] | None = None
    heading_deg: float | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> "PolygonSpec":
        if (self.points is None) == (self.points_xy_m is None):
            raise ValueError("give exactly one of points (lat/lon) or points_xy_m")
        pts = self.points if self.points is not None else self.points_xy_m
        if len(pts) < 3:
            raise ValueError("a polygon needs at least 3 points")
        return self


class GeometrySpec(_Model):
    runways: list[RunwaySpec] = Field(default_factory=list)
    circles: list[CircleSpec] = Field(default_factory=list)
    polygons: list[PolygonSpec] = Field(default_factory=list)

    def runway(self, ident: str) -> RunwaySpec:
        for r in self.runways:
            if r.id == ident or f"{r.airport} {r.id}" == ident:
                return r
        raise KeyError(f"no runway {ident!r} in the task geometry")

    def circle(self, ident: str) -> CircleSpec:
        for c in self.circles:
            if c.id == ident:
                return c
        raise KeyError(f"no circle {ident!r} in the task geometry")

    def polygon(self, ident: str) -> PolygonSpec:
        for p in self.polygons:
            if p.id == ident:
                return p
        raise KeyError(f"no polygon {ident!r} in the task geometry")


class TaskSpec(_Model):
    id: str = Field(pattern=r"^T\d{2}(@[A-Za-z0-9_-]+)?$")
    title: str
    instruction: str = Field(min_length=10, description="The text shown to the agent, verbatim from the catalog")
    simulator: SimulatorSpec
    platforms: list[Literal["linux", "windows", "macos"]]
    vehicle: VehicleSpec
    initial_state: InitialState
    inputs: list[InputFile] = Field(default_factory=list)
    lockdown: LockdownSpec
    time_limit_s: float = Field(gt=0)
    max_sample_gap_s: float = Field(default=0.5, gt=0, description="Larger gaps in `t` are telemetry gaps")
    signals: list[str] = Field(description="Canonical signals the verifier needs")
    events: list[str] = Field(default_factory=list, description="Event kinds the verifier reads")
    snapshots: list[str] = Field(default_factory=list, description="Snapshot keys the verifier reads")
    verifier: VerifierSpec
    partial_credit: list[CreditItem] = Field(min_length=1)
    safety: list[SafetyItem] = Field(default_factory=list)
    geometry: GeometrySpec = Field(default_factory=GeometrySpec)
    difficulty: int = Field(ge=1, le=5)
    tags: list[str] = Field(default_factory=list)
    gui_need: str = ""
    interaction: list[str] = Field(default_factory=list)
    work_product: str = ""
    conditions: list[str] = Field(default_factory=list)
    catalog_verifier: str = Field(default="", description="The catalog's proposed verifier text, verbatim")
    catalog_partial_credit: str = Field(default="", description="The catalog's partial-credit text, verbatim")
    notes: str = Field(default="", description="How ambiguities in the catalog were resolved")
    base: str | None = Field(default=None, description="For site variants: the task this one extends")

    @field_validator("partial_credit")
    @classmethod
    def _weights_sum_to_one(cls, items: list[CreditItem]) -> list[CreditItem]:
        total = sum(i.weight for i in items)
        if abs(total - 1.0) > 1e-6:
            raise ValueError(f"weights add up to {total:g}, not 1")
        names = [i.name for i in items]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate credit item names: {names}")
        return items

    @property
    def spec_hash(self) -> str:
        blob = json.dumps(self.model_dump(mode="json"), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    def credit(self, name: str) -> CreditItem:
        for c in self.partial_credit:
            if c.name == name:
                return c
        raise KeyError(name)


# --------------------------------------------------------------------------- loading

def tasks_dir() -> Path:
    """The folder of the task YAMLs shipped with the package."""
    return Path(str(resources.files("simbridge.tasks")))


def _deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _deep_merge(out[k], v)
        else:
            out[k] = v
    return out


def _format_loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise TaskSpecError(f"{path}:{where}: not valid YAML: {problem}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TaskSpecError(f"{path}: cannot read: {exc}") from None
    if not isinstance(data, dict):
        raise TaskSpecError(f"{path}: expected a mapping of task fields at the top level")
    return data


def load_task_file(path: Path, *, search_dir: Path | None = None) -> TaskSpec:
    """Load one task YAML; a variant (`base: T01`) is merged over its base task."""
    path = Path(path)
    data = _read_yaml(path)
    base_id = data.get("base")
    if base_id:
        base_path = (search_dir or path.parent) / f"{base_id}.yaml"
        if not base_path.exists():
            raise TaskSpecError(f"{path}: field 'base': no task file {base_path.name} next to it")
        data = _deep_merge(_read_yaml(base_path), data)
    try:
        spec = TaskSpec.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise TaskSpecError(f"{path}: field '{_format_loc(err['loc'])}': {err['msg']}{more}") from None
    if spec.id.split("@")[0] != path.stem.split("@")[0] or (("@" in spec.id) != ("@" in path.stem)):
        raise TaskSpecError(f"{path}: field 'id': {spec.id!r} does not match the file name {path.name!r}")
    _check_verifier(path, spec)
    return spec


def _check_verifier(path: Path, spec: TaskSpec) -> None:
    from simbridge.verifiers import _registry as registry  # late: verifiers import this module

    try:
        registry.check_spec(spec)
    except (KeyError, ValueError) as exc:
        msg = exc.args[0] if exc.args else str(exc)
        raise TaskSpecError(f"{path}: field 'verifier': {msg}") from None


def task_files(directory: Path | None = None) -> list[Path]:
    d = directory or tasks_dir()
    return sorted(d.glob("T*.yaml"))


def load_all_tasks(directory: Path | None = None) -> dict[str, TaskSpec]:
    d = directory or tasks_dir()
    return {spec.id: spec for spec in (load_task_file(p, search_dir=d) for p in task_files(d))}


def load_task(task_id: str, directory: Path | None = None) -> TaskSpec:
    """The task with this id (e.g. 'T02' or 'T01@PHJR')."""
    d = directory or tasks_dir()
    path = d / f"{task_id}.yaml"
    if not path.exists():
        known = ", ".join(p.stem for p in task_files(d))
        raise TaskSpecError(f"unknown task id {task_id!r} (known: {known})")
    return load_task_file(path, search_dir=d)
