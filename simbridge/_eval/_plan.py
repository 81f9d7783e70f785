"""A suite expanded into episodes with stable ids, the run directory's layout, and what is on
disk of each episode already (for --resume).

Layout of an eval directory:

    DIR/plan.json                                   written first: the suite and every episode
    DIR/results.parquet                             one row per episode, rewritten as results arrive
    DIR/<task>/<sim>/<agent>/trial-<k>/attempt-<j>/ one bundle per attempt (j = 1, 2, …);
                                                    <sim> is `jsbsim+readout` with an assist
    DIR/<task>/<sim>/<agent>/trial-<k>/attempt-<j>.log   the runner's progress lines of that attempt

An episode's id is its trial directory relative to DIR (`T09/jsbsim/noop/trial-1`): the same
suite always gives the same ids. Every attempt is kept; the last one is the episode's result.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from simbridge._run_config import DEFAULT_LOCKSTEP_SLICE_S
from simbridge._errors import SimbridgeError
from simbridge._eval._suite import Suite, SuiteError
from simbridge._run_config import check_assists

PLAN_FILE = "plan.json"
PLAN_VERSION = 1


@dataclass(frozen=True)
class EpisodeSpec:
    """One planned episode: everything a node needs to run it (no path on the driver's disk)."""

    episode_id: str
    task_id: str
    sim: str
    #: the agent string as the suite gives it (a scripted FILE made absolute on the driver)
    agent: str
    agent_slug: str
    trial: int
    provider: str = "local"
    lockstep: bool = False
    lockstep_slice_s: float = DEFAULT_LOCKSTEP_SLICE_S
    time_limit_s: float | None = None
    frame_hz: float = 1.0
    seed: int | None = None
    unisolated: bool = False
    #: assists the simulator shows (`simbridge run --assist`); they name the episode's directory
    #: (`T09/jsbsim+readout/...`), so an assisted cell never shares one with an unassisted one
    assists: tuple[str, ...] = ()
    #: a scripted agent's YAML text and file name, shipped to the node
    script_text: str | None = None
    script_name: str | None = None
    #: Ray custom resources the episode asks for, e.g. {"sim:jsbsim": 1, "provider:vm": 1}
    resources: dict[str, float] = field(default_factory=dict)
    #: the outcome the suite expects (`expect:`; "a|b": either): another one makes `eval` exit 3
    expect: str = "completed"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "EpisodeSpec":
        return cls(**{**data, "assists": tuple(data.get("assists") or ())})


def slug(text: str) -> str:
    """A directory name for an agent or simulator string (`scripted:dir/turn.yaml` → `scripted-turn`)."""
    if text.startswith("scripted:"):
        text = "scripted-" + Path(text.split(":", 1)[1]).stem
    return re.sub(r"[^\w.-]+", "-", text).strip("-") or "agent"


def sim_resource(sim: str) -> str:
    """The Ray resource naming a simulator: `sim:jsbsim`; a module:Class sim by its sim_name."""
    if ":" in sim:
        from simbridge._run_config import resolve_session

        return f"sim:{resolve_session(sim).sim_name or slug(sim)}"
    return f"sim:{sim}"


def resources_for(sim: str, provider: str) -> dict[str, float]:
    res = {sim_resource(sim): 1.0}
    if provider != "local":
        res[f"provider:{provider}"] = 1.0
    return res


def _task_sims(task: Any) -> list[str]:
    return [task.simulator.name, *task.simulator.alternatives]


def expand(suite: Suite, suite_path: Path) -> tuple[list[EpisodeSpec], list[str]]:
    """Every episode of the suite, in order, and notes on cells left out (an agent with no
    pilot for a task picked by tag or all-runnable). Explicit ids that cannot run are errors."""
    from simbridge._errors import TaskSpecError
    from simbridge._inputs import read_input_text
    from simbridge._task import load_all_tasks, load_task

    episodes: list[EpisodeSpec] = []
    notes: list[str] = []
    seen: dict[str, str] = {}
    catalog: dict[str, Any] | None = None
    slugs: dict[str, str] = {}
    for i, entry in enumerate(suite.matrix):
        where = f"{suite_path}: field 'matrix[{i}]"
        picked: list[tuple[Any, bool]] = []  # (task, explicit)
        for ref in entry.tasks:
            if ref == "all-runnable" or ref.startswith("tag:"):
                catalog = catalog if catalog is not None else load_all_tasks()
                tag = ref[4:] if ref.startswith("tag:") else None
                hits = [
                    t
                    for t in catalog.values()
                    if (tag is None or tag in t.tags) and any(s in _task_sims(t) or ":" in s for s in entry.sims)
                ]
                if tag is not None and not hits:
                    raise SuiteError(f"{where}.tasks': no task with tag {tag!r} runs on {', '.join(entry.sims)}")
                picked += [(t, False) for t in hits]
            else:
                try:
                    picked.append((load_task(ref), True))
                except TaskSpecError as exc:
                    raise SuiteError(f"{where}.tasks': {exc}") from None
        agents: dict[str, tuple[str, str | None, str | None]] = {}
        expects: dict[str, str] = {}
        for a in entry.agents:
            text = name = None
            if a.startswith("scripted:"):
                f = Path(a.split(":", 1)[1])
                f = f if f.is_absolute() else (suite_path.parent / f)
                try:
                    text = read_input_text(f, "a script")
                except SimbridgeError as exc:
                    raise SuiteError(f"{where}.agents': {a}: {exc}") from None
                name, a_abs = f.name, f"scripted:{f.resolve()}"
            else:
                a_abs = a
            s = slug(a)
            if a.startswith("py:"):  # the agent's one name (declared, else its module), as metrics show it
                from simbridge.agents._registry import py_agent_name

                try:
                    s = slug(py_agent_name(a))
                except SimbridgeError as exc:
                    raise SuiteError(f"{where}.agents': {exc}") from None
            if slugs.setdefault(s, a_abs) != a_abs:
                raise SuiteError(
                    f"{where}.agents': {a!r} and {slugs[s]!r} would share the directory {s!r}; rename one script"
                )
            agents[a_abs] = (s, text, name)
            want = entry.expect.get(a, "completed")
            expects[a_abs] = want if isinstance(want, str) else "|".join(want)  # "timeout|completed"
        for task, explicit in picked:
            for sim in entry.sims:
                if ":" not in sim and sim not in _task_sims(task):
                    if explicit:
                        raise SuiteError(
                            f"{where}.sims': task {task.id} runs on {', '.join(_task_sims(task))}, not {sim!r}"
                        )
                    continue
                try:
                    res = resources_for(sim, suite.provider)
                except SimbridgeError as exc:
                    raise SuiteError(f"{where}.sims': {exc}") from None
                limit = suite.time_limit_s(task.time_limit_s, entry)
                try:
                    assists = check_assists(sim, entry.assists if entry.assists is not None else suite.assists)
                except SimbridgeError as exc:
                    field_ = "matrix[{i}].assists" if entry.assists is not None else "assists"
                    raise SuiteError(f"{suite_path}: field '{field_.format(i=i)}': {exc}") from None
                cell = slug(sim) + "".join(f"+{a}" for a in assists)
                for a_abs, (s, text, name) in agents.items():
                    try:
                        _check_agent(a_abs, task.id)
                    except SimbridgeError as exc:
                        if explicit:
                            raise SuiteError(f"{where}.agents': {exc}") from None
                        notes.append(f"left out {task.id} with {a_abs}: {exc}")
                        continue
                    for k in range(1, (entry.trials or suite.trials) + 1):
                        eid = f"{task.id}/{cell}/{s}/trial-{k}"
                        if eid in seen:
                            raise SuiteError(f"{where}': episode {eid} is already in {seen[eid]}")
                        seen[eid] = f"matrix[{i}]"
                        episodes.append(
                            EpisodeSpec(
                                episode_id=eid,
                                task_id=task.id,
                                sim=sim,
                                agent=a_abs,
                                agent_slug=s,
                                trial=k,
                                provider=suite.provider,
                                lockstep=suite.lockstep if entry.lockstep is None else entry.lockstep,
                                lockstep_slice_s=suite.lockstep_slice_s,
                                time_limit_s=limit,
                                frame_hz=suite.frame_hz,
                                seed=suite.seed,
                                unisolated=suite.unisolated,
                                script_text=text,
                                assists=assists,
                                script_name=name,
                                resources=res,
                                expect=expects[a_abs],
                            )
                        )
    if not episodes:
        raise SuiteError(f"{suite_path}: the suite has no episode to run" + (f" ({notes[0]})" if notes else ""))
    return episodes, notes


def write_json_atomic(path: Path, data: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2))
    os.replace(tmp, path)


def write_plan(out: Path, suite: Suite, suite_path: Path, episodes: list[EpisodeSpec], notes: list[str]) -> None:
    write_json_atomic(
        out / PLAN_FILE,
        {
            "version": PLAN_VERSION,
            "suite": suite.name,
            "suite_file": str(suite_path.resolve()),
            "created_wall": round(time.time(), 3),
            "retries": suite.retries,
            "notes": notes,
            "suite_config": suite.model_dump(mode="json", exclude={"tasks", "sims", "agents"}),
            "episodes": [e.to_json() for e in episodes],
        },
    )


def read_plan(out: Path) -> list[EpisodeSpec]:
    from simbridge._bundle import read_json_file

    path = out / PLAN_FILE
    try:
        data = read_json_file(path, "an eval plan")  # a regular file, bounded in size and depth
        return [EpisodeSpec.from_json(e) for e in data["episodes"]]
    except SimbridgeError as exc:
        raise SimbridgeError(f"{exc}; use a new --out") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SimbridgeError(f"{path}: not a readable plan ({type(exc).__name__}: {exc}); use a new --out") from None


def attempt_dirs(out: Path, episode_id: str) -> list[Path]:
    """The episode's attempt directories on disk, in order."""
    trial = out / episode_id
    found = [p for p in trial.glob("attempt-*") if p.is_dir() and p.name[8:].isdigit()]
    return sorted(found, key=lambda p: int(p.name[8:]))


def is_complete(bundle: Path) -> bool:
    """A bundle is complete once its manifest is written (the runner writes it last)."""
    return (bundle / "manifest.json").is_file()


def bundle_status(bundle: Path) -> str | None:
    """episode.json's status, None when there is none to read (a bounded read: never a FIFO)."""
    from simbridge._bundle import read_json_file

    try:
        data = read_json_file(bundle / "episode.json", "episode.json")
    except SimbridgeError:
        return None
    status = data.get("status") if isinstance(data, dict) else None
    return status if isinstance(status, str) else None


def _check_agent(spec: str, task_id: str) -> None:
    """Check that `spec` names an agent for `task_id` while planning, running none of the
    suite's code: a py:MODULE:FACTORY factory is looked up (it must exist and be callable) but
    not called (`py:os:system` would otherwise run a command while a suite is validated); the
    built-in agents are built (that runs nothing of the suite's)."""
    from simbridge.agents import make_agent

    if spec.startswith("py:"):
        from simbridge.agents._registry import _factory

        _, module, attr = (spec.split(":", 2) + ["", ""])[:3]
        if not module or not attr:
            raise SimbridgeError("plug-in agent: use py:MODULE:FACTORY")
        _factory(module, attr, f"agent {spec}")
        return
    make_agent(spec, task_id)
