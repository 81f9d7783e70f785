"""Task loading: the YAMLs in `tasks/` (variants merged over their base, shape limits, one-line
errors naming file and field) checked against their verifier. The models live in
`simbridge._taskspec` and are re-exported here.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from simbridge._errors import TaskSpecError, error_loc
from simbridge._taskspec import (
    BlockedPort,
    CanonicalSignal,
    CircleSpec,
    CloudLayer,
    CreditItem,
    FailureSpec,
    FailureTrigger,
    GeometrySpec,
    InitialState,
    InputFile,
    LatLon,
    LockdownSpec,
    PolygonSpec,
    RunwaySpec,
    SafetyItem,
    TASK_ID_PATTERN,
    SimName,
    SimulatorSpec,
    TaskSpec,
    TimeSpec,
    VehicleSpec,
    VerifierSpec,
    WeatherSpec,
)
from simbridge import verifier as verifiers
from simbridge.registry import registry

__all__ = [
    "BlockedPort",
    "CanonicalSignal",
    "CircleSpec",
    "CloudLayer",
    "CreditItem",
    "FailureSpec",
    "FailureTrigger",
    "GeometrySpec",
    "InitialState",
    "InputFile",
    "LatLon",
    "LockdownSpec",
    "PolygonSpec",
    "RunwaySpec",
    "SafetyItem",
    "SimName",
    "SimulatorSpec",
    "TaskSpec",
    "TimeSpec",
    "VehicleSpec",
    "VerifierSpec",
    "WeatherSpec",
    "load_all_tasks",
    "load_task",
    "load_task_file",
    "task_dirs",
    "task_files",
    "tasks_dir",
    "input_source",
]


# --------------------------------------------------------------------------- loading


def tasks_dir() -> Path:
    """The folder of simbridge's own task YAMLs (registered as tasks `simbridge`)."""
    return task_dirs()["simbridge"]


def task_dirs() -> dict[str, Path]:
    """Every registered folder of task YAMLs (simbridge.registry, kind `tasks`) by name."""
    reg = registry()
    return {name: reg.tasks(name) for name in reg.names("tasks")}


def _dir_of(task_id: str) -> Path | None:
    for d in task_dirs().values():
        if (d / f"{task_id}.yaml").exists():
            return d
    return None


def _deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _deep_merge(out[k], v)
        else:
            out[k] = v
    return out


def _format_loc(loc: tuple[Any, ...]) -> str:
    return error_loc(loc, top="(top level)", indexed=True)


#: deeper than this, a task YAML is not a task (and recursive code on it would overflow the stack)
MAX_DEPTH = 32
#: more nodes than this (counting every use of a YAML alias) is an alias bomb, not a task
MAX_NODES = 200_000
_TASK_ID = re.compile(TASK_ID_PATTERN)


def _check_shape(path: Path, data: Any) -> None:
    """Refuse nesting deeper than MAX_DEPTH (also catches a self-referencing YAML anchor) and more
    than MAX_NODES nodes (an alias bomb), naming where, before anything recursive walks the data."""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    nodes = 0
    while stack:
        obj, loc = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise TaskSpecError(f"{path}: more than {MAX_NODES} values (YAML aliases expanded): not a task spec")
        if isinstance(obj, dict):
            children = list(obj.items())
        elif isinstance(obj, list):
            children = list(enumerate(obj))
        else:
            continue
        if len(loc) >= MAX_DEPTH and children:
            raise TaskSpecError(f"{path}: field '{_format_loc(loc[:4])}...': nested more than {MAX_DEPTH} levels deep")
        stack.extend((v, (*loc, k)) for k, v in children)


def _one_line(msg: str) -> str:
    return re.sub(r"\s*\n\s*", " ", msg).strip()


#: the largest task YAML read (a /dev/zero or a runaway file is refused, not read)
MAX_TASK_FILE_BYTES = 4 << 20


def _read_text(path: Path, limit: int = MAX_TASK_FILE_BYTES) -> str:
    """The task file's text, a bounded read of a regular file (TaskSpecError otherwise)."""
    from simbridge._bundle import read_bounded
    from simbridge._errors import BundleError

    if not isinstance(path, Path):  # a packaged resource
        return path.read_text(encoding="utf-8")
    try:
        return read_bounded(path, "a task file", limit).decode("utf-8")
    except BundleError as exc:
        raise TaskSpecError(str(exc)) from None
    except UnicodeDecodeError as exc:
        raise TaskSpecError(f"{path}: not UTF-8 text: {exc.reason}") from None


def _read_yaml(path: Path) -> dict[str, Any]:
    data = _parse_yaml(path)
    if not isinstance(data, dict):
        raise TaskSpecError(f"{path}: expected a mapping of task fields at the top level")
    return data


def _parse_yaml(path: Path, limit: int = MAX_TASK_FILE_BYTES) -> Any:
    """The YAML document in `path`, its shape checked (TaskSpecError of one line otherwise)."""
    from simbridge._inputs import load_yaml

    try:
        data = load_yaml(_read_text(path, limit), str(path), TaskSpecError)
    except RecursionError:
        raise TaskSpecError(f"{path}: not valid YAML for a task: nested too deeply to parse") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TaskSpecError(f"{path}: cannot read: {exc}") from None
    _check_shape(path, data)
    return data


def _resolve_base(path: Path, data: dict[str, Any], search_dir: Path | None) -> dict[str, Any]:
    """Merge a site variant over its base task. Variants of variants are refused, not chained: a
    variant names the one catalog task it relocates, so a chain would only hide which one that is."""
    base_id = data.get("base")
    if base_id is None:
        return data
    if not isinstance(base_id, str) or not _TASK_ID.fullmatch(base_id):
        raise TaskSpecError(f"{path}: field 'base': {base_id!r} is not a task id such as 'T01'")
    if base_id == path.stem:
        raise TaskSpecError(f"{path}: field 'base': a task cannot be its own base")
    base_path = (search_dir or path.parent) / f"{base_id}.yaml"
    if not base_path.exists():
        raise TaskSpecError(f"{path}: field 'base': no task file {base_path.name} next to it")
    base_data = _read_yaml(base_path)
    if "@" in base_id or base_data.get("base") is not None:
        of = base_data.get("base")
        what = f"is itself a variant of {of}" if isinstance(of, str) else "is a variant (its id has '@')"
        raise TaskSpecError(f"{path}: field 'base': {base_id} {what}; a variant's base must be a base task")
    family = path.stem.split("@")[0]
    if "@" in path.stem and base_id != family:
        raise TaskSpecError(f"{path}: field 'base': variant {path.stem} must extend {family}, not {base_id}")
    inherited = base_data.get("instructions_by_sim")
    if "instruction" in data and isinstance(inherited, dict):
        own = data.get("instructions_by_sim")
        stale = sorted(set(inherited) - set(own if isinstance(own, dict) else {}), key=str)
        if stale:
            raise TaskSpecError(
                f"{path}: field 'instructions_by_sim': the variant rewrites `instruction` but would inherit "
                f"{base_id}'s text for {', '.join(map(str, stale))}; give its own"
            )
    return _deep_merge(base_data, data)


#: the folder, next to a folder's task YAMLs, of its shared variant sets (`variants: [{use: NAME}]`)
VARIANT_SETS_DIR = "variants"
_SET_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
#: the largest variant set file read (a set is a few variants: a steady wind is 1 KB)
MAX_VARIANT_SET_BYTES = 256 << 10


def _expand_variant_sets(
    path: Path, data: dict[str, Any], search_dir: Path | None
) -> tuple[dict[str, Any], dict[int, str]]:
    """Put each `{use: NAME}` entry of `variants` in place of the list in `variants/NAME.yaml`
    beside the task files, so a draw many tasks share (a steady wind) is written once. Also
    returns, for each spliced variant's index, where it came from (for error messages)."""
    items = data.get("variants")
    if not isinstance(items, list) or not any(isinstance(v, dict) and "use" in v for v in items):
        return data, {}
    from simbridge._taskspec import MAX_VARIANTS

    out: list[Any] = []
    origin: dict[int, str] = {}
    parsed: dict[Path, Any] = {}  # each set file is read and parsed once, however often it is used
    for i, item in enumerate(items):
        if not (isinstance(item, dict) and "use" in item):
            out.append(item)
            continue
        where = f"{path}: field 'variants[{i}].use'"
        name = item["use"]
        if set(item) != {"use"}:
            raise TaskSpecError(f"{where}: an entry naming a variant set has no other keys (got {sorted(item)})")
        if not isinstance(name, str) or not _SET_NAME.fullmatch(name):
            raise TaskSpecError(f"{where}: {name!r} is not a variant set name (lower case, digits, '_')")
        set_path = (search_dir or path.parent) / VARIANT_SETS_DIR / f"{name}.yaml"
        if not set_path.is_file():
            raise TaskSpecError(f"{where}: no variant set {name!r} ({VARIANT_SETS_DIR}/{name}.yaml next to the task)")
        if set_path not in parsed:
            try:
                parsed[set_path] = _parse_yaml(set_path, MAX_VARIANT_SET_BYTES)
            except TaskSpecError as exc:
                raise TaskSpecError(f"{where}: {exc}") from None
        loaded = parsed[set_path]
        if not isinstance(loaded, list) or not all(isinstance(v, dict) and "use" not in v for v in loaded):
            raise TaskSpecError(f"{where}: {set_path}: a variant set is a list of variants (mappings, none a `use`)")
        if len(out) + len(loaded) > MAX_VARIANTS:
            raise TaskSpecError(f"{where}: more than {MAX_VARIANTS} variants once the sets are spliced in")
        for j, v in enumerate(loaded):
            origin[len(out)] = f"variants[{i}].use ({VARIANT_SETS_DIR}/{name}.yaml item {j})"
            out.append(copy.deepcopy(v))
    return {**data, "variants": out}, origin


def load_task_file(path: Path, *, search_dir: Path | None = None) -> TaskSpec:
    """Load one task YAML; a variant (`base: T01`) is merged over its base task. Any problem is a
    TaskSpecError of one line naming the file and the field."""
    try:
        return _load_task_file(Path(path), search_dir)
    except TaskSpecError as exc:
        raise TaskSpecError(_one_line(str(exc))) from None


def _load_task_file(path: Path, search_dir: Path | None) -> TaskSpec:
    own = _read_yaml(path)
    data, spliced = _expand_variant_sets(path, _resolve_base(path, own, search_dir), search_dir)
    try:
        spec = TaskSpec.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        inherited = ""
        if own.get("base") is not None and err["loc"] and err["loc"][0] not in own:
            inherited = f" (inherited from {data['base']}.yaml)"
        loc = err["loc"]
        where = "variants" if err["type"] == "variant_draw" and not loc else _format_loc(loc)
        if len(loc) >= 2 and loc[0] == "variants" and loc[1] in spliced:
            where = spliced[loc[1]] + (f": {_format_loc(loc[2:])}" if len(loc) > 2 else "")
        raise TaskSpecError(f"{path}: field '{where}': {err['msg']}{more}{inherited}") from None
    if spec.id.split("@")[0] != path.stem.split("@")[0] or (("@" in spec.id) != ("@" in path.stem)):
        raise TaskSpecError(f"{path}: field 'id': {spec.id!r} does not match the file name {path.name!r}")
    _check_verifier(path, spec)
    spec._folder = path.parent.resolve()
    return spec


def input_source(task: TaskSpec, source: str) -> Path:
    """The file an input's `source` names: under the folder the task was loaded from (a
    plug-in's tasks carry their own documents), else under simbridge's own task folder."""
    return (task.folder or tasks_dir()) / source


def _check_verifier(path: Path, spec: TaskSpec) -> None:
    try:
        verifiers.check_spec(spec)
    except (KeyError, ValueError) as exc:
        msg = exc.args[0] if exc.args else str(exc)
        raise TaskSpecError(f"{path}: field 'verifier': {msg}") from None


def task_files(directory: Path | None = None) -> list[Path]:
    d = directory or tasks_dir()
    return sorted(d.glob("*.yaml"))


def load_all_tasks(directory: Path | None = None) -> dict[str, TaskSpec]:
    """The tasks of one folder, or (no folder) of every registered one; an id twice is an error."""
    out: dict[str, TaskSpec] = {}
    for d in [directory] if directory is not None else task_dirs().values():
        for p in task_files(d):
            spec = load_task_file(p, search_dir=d)
            if spec.id in out:
                raise TaskSpecError(f"{p}: task id {spec.id!r} is defined twice (another task folder has it)")
            out[spec.id] = spec
    return out


def load_task(task_id: str, directory: Path | None = None) -> TaskSpec:
    """The task with this id (e.g. 'T02' or 'T01@PHJR'), from `directory` or any registered folder."""
    d = directory if directory is not None else _dir_of(task_id)
    path = d / f"{task_id}.yaml" if d is not None else None
    if path is None or not path.exists():
        dirs = [directory] if directory is not None else list(task_dirs().values())
        known = ", ".join(sorted(p.stem for x in dirs for p in task_files(x)))
        raise TaskSpecError(f"unknown task id {task_id!r} (known: {known})")
    return load_task_file(path, search_dir=d)
