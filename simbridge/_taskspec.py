"""Task specifications: the pydantic model of a task YAML (no loading, no verifiers).

A task carries everything the catalog says about it (instruction, simulator, initial state,
lockdown, verifier and tolerances, partial credit, hard safety constraints) so that the runner,
the provider and the verifier all read one source of truth. Verifiers import these models;
`simbridge._task` loads the YAMLs and checks them against the verifiers, so neither imports
the other back.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import json
import math
import random
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from simbridge import _canonical
from simbridge._errors import error_loc


class _Model(BaseModel):
    # allow_inf_nan=False: every number in a task is a physical quantity, and NaN or inf in one
    # makes the comparisons it feeds silently true or false
    model_config = ConfigDict(extra="forbid", frozen=False, allow_inf_nan=False)


def _custom(kind: str, msg: str) -> PydanticCustomError:
    """A validation error whose message is shown as is (no 'Value error, ' prefix)."""
    return PydanticCustomError(kind, "{msg}", {"msg": msg})


def _canonical_signal(name: str) -> str:
    """A name from the canonical vocabulary: a misspelt one would make every bundle unscored."""
    if not _canonical.is_canonical(name):
        close = difflib.get_close_matches(name, list(_canonical.SIGNALS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise _custom("unknown_signal", f"unknown canonical signal {name!r}{hint}")
    return name


CanonicalSignal = Annotated[str, AfterValidator(_canonical_signal)]


def _registered_simulator(name: str) -> str:
    """A simulator some installed plug-in registers (simbridge.registry, kind `simulator`)."""
    from simbridge.registry import registry

    known = registry().names("simulator")
    if name not in known:
        close = difflib.get_close_matches(name, known, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(known)})"
        raise _custom("unknown_simulator", f"unknown simulator {name!r}{hint}")
    return name


#: a registered simulator's name ("jsbsim", "flightgear", a plug-in's own)
SimName = Annotated[str, AfterValidator(_registered_simulator)]


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
    date: str | None = Field(default=None, pattern=r"^\d{4}-\d{2}-\d{2}$", description="YYYY-MM-DD")
    local_time: str | None = Field(
        default=None, pattern=r"^([01]\d|2[0-3]):[0-5]\d$", description="HH:MM, local to the airport"
    )


class FailureTrigger(_Model):
    agl_ft: float | None = None
    agl_ft_between: tuple[float, float] | None = Field(
        default=None, description="Random height drawn per trial, uniformly in [lo, hi]"
    )
    after_s: float | None = Field(default=None, ge=0)
    after_s_between: tuple[float, float] | None = Field(
        default=None, description="Random trigger time (simulator s) drawn per trial, uniformly in [lo, hi]"
    )

    @field_validator("agl_ft_between", "after_s_between")
    @classmethod
    def _ordered(cls, v: tuple[float, float] | None) -> tuple[float, float] | None:
        if v is not None and not 0 <= v[0] <= v[1]:
            raise _custom("range_order", f"[{v[0]:g}, {v[1]:g}] must be 0 <= lo <= hi")
        return v


class FailureSpec(_Model):
    system: str = Field(description="e.g. engine, vacuum_pump")
    trigger: FailureTrigger
    injected_by: Literal["harness", "agent", "simulator"] = "harness"


class ConfigurationSpec(_Model):
    """Cockpit configuration at start (after the trim): the deviations a POH task injects (a
    fuel selector on one tank, one magneto, a lean mixture, ...). Only the keys given are set;
    a simulator reports the ones it cannot honour as unsupported."""

    fuel_selector: Literal["off", "left", "right", "both"] | None = None
    magnetos: Literal["off", "right", "left", "both"] | None = None
    mixture: float | None = Field(default=None, ge=0, le=1)
    throttle: float | None = Field(default=None, ge=0, le=1)
    carb_heat: bool | None = None
    pitot_heat: bool | None = None
    master_bat: bool | None = None
    master_alt: bool | None = None
    avionics: bool | None = None
    flaps_deg: Literal[0, 10, 20, 30] | None = None
    fuel_left_gal: float | None = Field(default=None, ge=0, le=30)
    fuel_right_gal: float | None = Field(default=None, ge=0, le=30)

    def keys(self) -> dict[str, Any]:
        """The keys the task sets, with their values."""
        return self.model_dump(exclude_none=True)


class InitialState(_Model):
    """Where and how the episode starts. Fields a simulator cannot honour are reported, not ignored."""

    airport: str | None = None
    runway: str | None = None
    parking: str | None = None
    helipad: str | None = None
    position: LatLon | None = None
    alt_msl_ft: float | None = None
    alt_agl_ft: float | None = Field(default=None, ge=0)
    ias_kt: float | None = Field(default=None, ge=0)
    heading_deg: float | None = Field(default=None, ge=0, le=360)
    distance_nm: float | None = Field(default=None, ge=0, description="Distance from the runway threshold on final")
    on_ground: bool | None = None
    engine: Literal["running", "cold_and_dark", "off", "any"] = "any"
    avionics_on: bool | None = None
    autopilot_on: bool | None = None
    weather: WeatherSpec = Field(default_factory=WeatherSpec)
    time: TimeSpec = Field(default_factory=TimeSpec)
    failures: list[FailureSpec] = Field(default_factory=list)
    configuration: ConfigurationSpec | None = Field(
        default=None, description="Cockpit switch and lever positions set at start (configuration deviations)"
    )
    scenario: dict[str, Any] = Field(
        default_factory=dict, description="Simulator-specific scene (spawn point, parked cars, route, save file)"
    )

    @field_validator("scenario")
    @classmethod
    def _scenario_finite(cls, scene: dict[str, Any]) -> dict[str, Any]:
        # free-form, so the model's allow_inf_nan does not reach inside: spawn points and routes
        # are positions all the same
        stack: list[tuple[Any, str]] = [(scene, "")]
        while stack:
            v, where = stack.pop()
            if isinstance(v, float) and not math.isfinite(v):
                raise _custom("finite_number", f"{where} is {v}, not a finite number")
            if isinstance(v, dict):
                stack.extend((x, f"{where}.{k}" if where else str(k)) for k, x in v.items())
            elif isinstance(v, list):
                stack.extend((x, f"{where}[{i}]") for i, x in enumerate(v))
        return scene


class InputFile(_Model):
    path: str = Field(description="Path the agent sees, relative to its home, e.g. input/ofp.pdf")
    description: str
    source: str | None = Field(
        default=None,
        description="Where the harness gets it: a file under the task's own folder, e.g. inputs/T15/load.json",
    )


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

    def ports(self, proto: Literal["tcp", "udp"]) -> list[int]:
        """The blocked (state API) ports of one protocol, sorted, each once: what an isolated
        provider opens to the host side only."""
        return sorted({b.port for b in self.blocked_ports if b.proto == proto})

    def probes(self) -> list[tuple[int, str, str]]:
        """(port, proto, service) of every blocked port: what the isolation audit probes."""
        return [(b.port, b.proto, b.service) for b in self.blocked_ports]


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
        if pts is None or len(pts) < 3:
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


#: a dotted path into a task, e.g. initial_state.heading_deg
_PATH = r"^[a-z_]+(\.[a-z_]+)*$"
#: bounds of a variant: values of one `choice`, variants of one task, and a uniform draw's step
#: (draws are rounded to 6 decimals; a step of 1e-300 overflowed the rounding at run time)
MAX_CHOICES = 256
MAX_VARIANTS = 64
MIN_STEP = 1e-6
MAX_STEPS = 1e9


class VariantSpec(_Model):
    """One value drawn per trial from the seed: uniform in a range (rounded to `step`) or one of
    `choice`. It is written to every dotted path of `set` (a mapping is merged into a mapping
    there) and recorded under `name` in the drawn task's `variant` (episode.json `variant`)."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    set: list[Annotated[str, Field(pattern=_PATH)]] = Field(
        default_factory=list, description="Dotted paths the value is written to (none: recorded only)"
    )
    uniform: tuple[float, float] | None = None
    step: float | None = Field(default=None, gt=0, description="Round a uniform draw to a multiple of this")
    choice: list[Any] | None = Field(default=None, min_length=1, max_length=MAX_CHOICES)
    description: str = ""

    @model_validator(mode="after")
    def _one_kind(self) -> "VariantSpec":
        if (self.uniform is None) == (self.choice is None):
            raise _custom("variant_kind", f"variant {self.name!r}: give exactly one of uniform or choice")
        if self.uniform is not None:
            lo, hi = self.uniform
            if not (math.isfinite(lo) and math.isfinite(hi)):
                raise _custom("range_finite", f"variant {self.name!r}: uniform [lo, hi] must be finite numbers")
            if not lo <= hi:
                raise _custom("range_order", f"variant {self.name!r}: uniform [lo, hi] needs lo <= hi")
            if self.step is not None and (
                not math.isfinite(self.step) or self.step < MIN_STEP or (hi - lo) / self.step > MAX_STEPS
            ):
                raise _custom(
                    "step_range",
                    f"variant {self.name!r}: step {self.step:g} must be at least {MIN_STEP:g} and divide "
                    f"[{lo:g}, {hi:g}] into at most {MAX_STEPS:g} steps (a draw is rounded to 6 decimals)",
                )
        return self

    def draw(self, task_id: str, seed: int | None) -> Any:
        """This trial's value: reproducible from (task, seed, name), a stream of its own."""
        rng = random.Random(f"{task_id}:{seed}:variant:{self.name}")
        if self.choice is not None:
            return copy.deepcopy(self.choice[rng.randrange(len(self.choice))])
        assert self.uniform is not None
        x = rng.uniform(*self.uniform)
        if self.step:
            x = round(round(x / self.step) * self.step, 6)
            x = min(max(x, self.uniform[0]), self.uniform[1])
        return x


def _put(data: dict[str, Any], path: str, value: Any) -> None:
    """Write `value` at the dotted `path` of a task's data (a mapping merges into a mapping)."""
    *head, last = path.split(".")
    node = data
    for key in head:
        nxt = node.get(key)
        if nxt is None:
            nxt = node[key] = {}
        if not isinstance(nxt, dict):
            raise _custom("variant_path", f"{path}: {key!r} is not a mapping")
        node = nxt
    if isinstance(value, dict) and isinstance(node.get(last), dict):
        node[last] = {**node[last], **copy.deepcopy(value)}
    else:
        node[last] = copy.deepcopy(value)


#: a task id: a letter, then letters, digits or '_' (simbridge's own are T01-T20 and P01-P22; a
#: plug-in's may be `climb_01`), and for a site variant `@` and the site (`T01@PHJR`)
_BASE_ID = r"[A-Za-z][A-Za-z0-9_]{0,31}"
TASK_ID = rf"{_BASE_ID}(@[A-Za-z0-9_-]+)?"  # unanchored, for patterns that embed it
BASE_ID_PATTERN = rf"^{_BASE_ID}$"
TASK_ID_PATTERN = rf"^{TASK_ID}$"


class TaskSpec(_Model):
    id: str = Field(pattern=TASK_ID_PATTERN)
    title: str
    instruction: str = Field(min_length=10, description="The text shown to the agent, verbatim from the catalog")
    simulator: SimulatorSpec
    instructions_by_sim: dict[SimName, Annotated[str, Field(min_length=10)]] = Field(
        default_factory=dict,
        description="The instruction as shown to the agent on that simulator, where the catalog's names another sim "
        "or panel (only the simulator, panel and aircraft names change; the numbers and the goal do not)",
    )
    platforms: list[Literal["linux", "windows", "macos"]]
    vehicle: VehicleSpec
    initial_state: InitialState
    inputs: list[InputFile] = Field(default_factory=list)
    lockdown: LockdownSpec
    time_limit_s: float = Field(gt=0, description="Wall-clock limit of an episode, seconds")
    max_sample_gap_s: float = Field(default=0.5, gt=0, description="Larger gaps in `t` are telemetry gaps")
    signals: list[CanonicalSignal] = Field(description="Canonical signals the verifier needs")
    plot_signals: list[CanonicalSignal] = Field(
        default_factory=list,
        description="Canonical signals the report also draws; never required (an episode without them is scored)",
    )
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
    base: str | None = Field(
        default=None,
        pattern=BASE_ID_PATTERN,
        description="For site variants: the base task this one extends (never another variant)",
    )
    reference: str | None = Field(
        default=None,
        description="The published procedure the task grades, e.g. 'C172S POH 3-6, Engine failure during flight'",
    )
    variants: list[VariantSpec] = Field(
        default_factory=list,
        max_length=MAX_VARIANTS,
        description="Values drawn per trial from the seed (TaskSpec.drawn)",
    )
    variant: dict[str, Any] | None = Field(
        default=None,
        description="Set by TaskSpec.drawn, never in a YAML: {'seed': int, 'values': {name: drawn value}}",
    )

    @field_validator("variants")
    @classmethod
    def _variant_names(cls, items: list[VariantSpec]) -> list[VariantSpec]:
        names = [v.name for v in items]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate variant names: {names}")
        return items

    def drawn(self, seed: int | None) -> "TaskSpec":
        """The concrete task of one trial: every `variants` value drawn from (id, seed) and written
        where it goes; `.variant` records the seed and the values (the runner writes it to
        episode.json). A task without variants is returned with an empty record."""
        data = self.model_dump(mode="json", exclude={"variant"})
        values: dict[str, Any] = {}
        for v in self.variants:
            values[v.name] = val = v.draw(self.id, seed)
            for path in v.set:
                _put(data, path, val)
        # the agent's instruction names drawn values as {name}: a new heading, a target height
        texts = {"instruction": data["instruction"], **{f"by:{k}": v for k, v in data["instructions_by_sim"].items()}}
        for key, text in texts.items():
            for name, val in values.items():
                shown = f"{val:.0f}" if isinstance(val, float) and val == round(val) else str(val)
                text = text.replace("{" + name + "}", shown)
            if key == "instruction":
                data["instruction"] = text
            else:
                data["instructions_by_sim"][key[3:]] = text
        data["variant"] = {"seed": seed, "values": values}
        out = type(self).model_validate(data, context={"drawing": True})
        out._folder = self._folder
        return out

    @model_validator(mode="after")
    def _every_draw_is_a_task(self, info: ValidationInfo) -> "TaskSpec":
        """What `tasks validate` checks so that `run` cannot fail drawing: each variant's extreme
        and listed values (uniform lo and hi, every `choice`), written where `set` says, give a
        valid task (a `set` of a field the task has not, a negative time_limit_s, are refused
        here, naming the variant). Draws are combined round-robin: at most MAX_CHOICES checks."""
        if not self.variants or (info.context or {}).get("drawing"):
            return self
        base = self.model_dump(mode="json", exclude={"variant"})
        cands = [list(v.choice) if v.choice is not None else list(v.uniform or ()) for v in self.variants]
        for k in range(max(len(c) for c in cands)):
            data = copy.deepcopy(base)
            for i, (v, c) in enumerate(zip(self.variants, cands)):
                for path in v.set:
                    try:
                        _put(data, path, c[k % len(c)])
                    except PydanticCustomError as exc:
                        raise _custom("variant_draw", f"variants[{i}] ({v.name}): set {exc.message()}") from None
            try:
                type(self).model_validate(data, context={"drawing": True})
            except ValidationError as exc:
                err = exc.errors()[0]
                loc = error_loc(err["loc"])
                who = [
                    f"variants[{i}] ({v.name}) sets {path} to {c[k % len(c)]!r}"
                    for i, (v, c) in enumerate(zip(self.variants, cands))
                    for path in v.set
                    if loc == path or loc.startswith(path + ".") or path.startswith(loc + ".")
                ]
                raise _custom(
                    "variant_draw",
                    f"{(who or ['a drawn value'])[0]}: the drawn task is invalid at {loc or 'the top'}: {err['msg']}",
                ) from None
        return self

    @property
    def folder(self) -> Path | None:
        """The folder the task's YAML was loaded from (None for a task built in memory): its
        input files' `source` paths are relative to it, whichever package registered it."""
        return self._folder

    _folder: Path | None = PrivateAttr(default=None)

    def variant_value(self, name: str, default: Any = None) -> Any:
        """A drawn value of this (drawn) task, or `default`."""
        return ((self.variant or {}).get("values") or {}).get(name, default)

    @field_validator("instructions_by_sim")
    @classmethod
    def _only_alternatives(cls, texts: dict[str, str], info: ValidationInfo) -> dict[str, str]:
        sim = info.data.get("simulator")
        if sim is None:
            return texts  # the simulator field's own error is reported
        for name in texts:
            if name == sim.name:
                raise _custom("home_sim", f"{name!r} is the task's own simulator: its text is `instruction`")
            if name not in sim.alternatives:
                raise _custom("not_alternative", f"{name!r} is not one of simulator.alternatives {sim.alternatives}")
        return texts

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
        # the drawn values are written into the task; the record of them is not hashed twice
        # (an empty `plot_signals` is left out, so adding the field changed no task's hash)
        exclude = {"variant"} | (set() if self.plot_signals else {"plot_signals"})
        blob = json.dumps(self.model_dump(mode="json", exclude=exclude), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    def instruction_for(self, sim: str) -> str:
        """The instruction for an episode on `sim`: its own text where the catalog's names another
        simulator or panel, else the catalog's verbatim text."""
        return self.instructions_by_sim.get(sim, self.instruction)

    def credit(self, name: str) -> CreditItem:
        for c in self.partial_credit:
            if c.name == name:
                return c
        raise KeyError(
            f"no partial-credit item {name!r} in task {self.id} "
            f"(declared: {', '.join(c.name for c in self.partial_credit) or 'none'})"
        )
