"""`simbridge tasks list|show|validate`.

The tasks are those of every registered task folder (simbridge.registry, kind `tasks`):
simbridge's own and any installed plug-in's; `tasks list` names where each comes from.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from simbridge._errors import TaskSpecError
from simbridge._exit import Exit
from simbridge._task import load_all_tasks, load_task, load_task_file, task_dirs, task_files
from simbridge.registry import BUILTIN, registry


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tasks", help="list, show and validate task specs")
    tsub = p.add_subparsers(dest="tasks_command", metavar="ACTION")
    tsub.required = True
    ls = tsub.add_parser("list", help="one line per task, with the distribution it comes from")
    ls.add_argument("--json", action="store_true", help="print the list as JSON")
    ls.set_defaults(func=_list)
    show = tsub.add_parser("show", help="the whole spec of one task")
    show.add_argument("task_id", help="task id, e.g. T09")
    show.add_argument("--json", action="store_true", help="print the spec as JSON instead of YAML")
    show.set_defaults(func=_show)
    ins = tsub.add_parser("instruction", help="the instruction text an agent is given on a simulator")
    ins.add_argument("task_id", help="task id, e.g. T09")
    ins.add_argument("--sim", help="simulator the episode runs on (default: the task's own)")
    ins.set_defaults(func=_instruction)
    val = tsub.add_parser("validate", help="check task YAMLs (default: every registered task folder's)")
    val.add_argument("path", nargs="?", type=Path, help="a task YAML or a folder of them")
    val.set_defaults(func=_validate)


def _verified(tasks: list) -> dict[str, dict[str, str]]:
    """Task id -> {simulator: its reference status} (simbridge._verified), from each task's folder."""
    from simbridge._verified import pair_status, read_records

    by_folder: dict = {}
    out: dict[str, dict[str, str]] = {}
    for t in tasks:
        folder = t.folder
        if folder not in by_folder:
            by_folder[folder] = read_records(folder) if folder is not None else {}
        sims = [t.simulator.name, *t.simulator.alternatives]
        out[t.id] = {sim: pair_status(t.id, sim, by_folder[folder]) for sim in sims}
    return out


def _list(args: argparse.Namespace) -> int:
    origin = _origins()
    tasks = sorted(load_all_tasks().values(), key=lambda t: origin[t.id][0] != BUILTIN)  # simbridge's first
    try:
        verified = _verified(tasks)
    except ValueError as exc:
        raise TaskSpecError(str(exc)) from None
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "id": t.id,
                        "title": t.title,
                        "simulator": t.simulator.name,
                        "alternatives": t.simulator.alternatives,
                        "difficulty": t.difficulty,
                        "verifier": t.verifier.name,
                        "origin": origin[t.id][0],
                        "folder": origin[t.id][1],
                        "reference": t.reference,
                        "verified": verified[t.id],
                    }
                    for t in tasks
                ],
                indent=2,
            )
        )
        return Exit.OK
    w_id = max([4, *(len(t.id) for t in tasks)])
    w_sims = max([10, *(len("/".join([t.simulator.name, *t.simulator.alternatives])) for t in tasks)])
    w_ver = max([8, *(len(t.verifier.name) for t in tasks)])
    w_org = max([6, *(len(origin[t.id][0]) for t in tasks)])
    print(f"{'task':<{w_id}}  {'simulators':<{w_sims}}  d   {'verifier':<{w_ver}}  {'origin':<{w_org}}  title")
    for t in tasks:
        sims = "/".join([t.simulator.name, *t.simulator.alternatives])
        ref = f" [{t.reference}]" if t.reference else ""  # the published procedure a task grades (POH)
        print(
            f"{t.id:<{w_id}}  {sims:<{w_sims}}  d{t.difficulty}  {t.verifier.name:<{w_ver}}  "
            f"{origin[t.id][0]:<{w_org}}  {t.title}{ref}"
        )
        solved = [f"{sim} {st}" for sim, st in verified[t.id].items() if st != "—"]
        if solved:
            print(f"{'':<{w_id}}  reference: {'; '.join(solved)}")
    return Exit.OK


def _origins() -> dict[str, tuple[str, str]]:
    """Task id -> (the distribution that registered its folder, the folder's registered name)."""
    reg = registry()
    return {f.stem: (reg.entry("tasks", name).origin, name) for name, d in task_dirs().items() for f in task_files(d)}


def _show(args: argparse.Namespace) -> int:
    import yaml

    spec = load_task(args.task_id)
    data = spec.model_dump(mode="json", exclude_defaults=False)
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100))
    return Exit.OK


def _instruction(args: argparse.Namespace) -> int:
    spec = load_task(args.task_id)
    sims = [spec.simulator.name, *spec.simulator.alternatives]
    sim = args.sim or spec.simulator.name
    if sim not in sims:
        raise TaskSpecError(f"{spec.id} does not run on {sim!r} (its simulators: {', '.join(sims)})")
    print(spec.instruction_for(sim))
    return Exit.OK


def _validate(args: argparse.Namespace) -> int:
    path: Path | None = args.path
    if path is None:
        files = [(f, d) for d in task_dirs().values() for f in task_files(d)]
    elif path.is_dir():
        files = [(f, path) for f in task_files(path)]
    elif path.exists():
        files = [(path, path.parent)]
    else:
        raise TaskSpecError(f"{path}: no such file or folder")
    if not files:
        raise TaskSpecError(f"{path}: no task YAML files (T*.yaml)")
    bad = 0
    for f, search in files:
        try:
            load_task_file(f, search_dir=search)
        except TaskSpecError as exc:
            print(f"INVALID {exc}")
            bad += 1
    broken = registry().broken  # a plug-in whose register() failed: its tasks were not checked
    for point, reason in broken:
        print(f"BROKEN plug-in {point}: {reason}")
    print(f"{len(files) - bad} valid, {bad} invalid" + (f", {len(broken)} plug-in(s) not loaded" if broken else ""))
    return Exit.CHECK_FAILED if bad or broken else Exit.OK
