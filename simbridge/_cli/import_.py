"""`simbridge import SIM FILE... --out DIR [--task TNN] [--force]`: a simulator's own output (a
CARLA recording, KSP saves, an OpenBVE black box, a Bridge Command NMEA capture) into an episode
bundle, so recorded runs can be scored like live ones.

The SIM choices and their options come from the importers in the registered simulators (simbridge.registry).
Every importer follows simbridge._import_policy: no overwrite without --force; truncation,
skipped lines, invalid fixes and out-of-range samples are dropped, counted and flagged in
episode.json (and so in the score).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from simbridge._adapters_registry import ImporterSpec, importers
from simbridge._exit import Exit
from simbridge.registry import load


def _add_importers(p: argparse.ArgumentParser) -> None:
    sims = p.add_subparsers(dest="sim", metavar="SIM")
    sims.required = True
    p.error = _one_line_error(p.prog)  # type: ignore[method-assign, assignment]
    for name, (_, spec) in importers().items():
        q = sims.add_parser(name, aliases=list(spec.aliases), help=spec.help, description=spec.help)
        q.add_argument("files", nargs="+" if spec.many_files else None, type=Path, metavar="FILE", help=spec.file_help)
        q.add_argument("--out", type=Path, required=True, help="bundle directory to create")
        q.add_argument("--task", help=f"task id written to episode.json (default {spec.default_task})")
        for opt in spec.options:
            q.add_argument(opt.flag, **opt.argparse_kwargs())
        q.add_argument("--force", action="store_true", help="replace the bundle already in --out")
        q.set_defaults(func=_import, importer=name)


def _one_line_error(prog: str) -> Callable[[str], NoReturn]:
    """argparse's complaint about SIM (unknown or missing), as one line naming the importers."""

    def error(message: str) -> NoReturn:
        names = [n for name, (_, spec) in importers().items() for n in (name, *spec.aliases)]
        what = (
            message.split(" (choose from")[0]
            .replace("argument SIM: ", "")
            .replace("invalid choice:", "no importer for simulator")
        )
        print(f"simbridge: error: {prog}: {what} (importers: {', '.join(names)})", file=sys.stderr)
        raise SystemExit(Exit.USAGE)

    return error


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "import",
        help="convert a simulator's own recording or log into an episode bundle",
        description=__doc__.split("\n\n")[0],
    )
    _add_importers(p)


def _vehicle_of_task(task_id: str, sim: str) -> str | None:
    """The task's vehicle id on this simulator; an unknown task id only loses that default."""
    from simbridge._errors import SimbridgeError
    from simbridge._task import load_task

    try:
        return load_task(task_id).vehicle.ids.get(sim)
    except SimbridgeError:
        return None


class _Missing(dict):
    def __missing__(self, key: str) -> str:
        return "?"


def summary(out: Path, task: str, spec: ImporterSpec) -> str:
    """One line about the bundle just written: samples, span, events, flags, how to score it."""
    from simbridge._bundle import read_bundle

    b = read_bundle(out)
    t = b.signals.t
    span = f"{t[-1] - t[0]:.2f} s" if t.size else "no samples"
    extra = f", {spec.summary.format_map(_Missing(b.snapshots.get('start') or {}))}" if spec.summary else ""
    kinds = Counter(e.kind for e in b.events)
    events = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) or "none"
    flags = f"; flags: {', '.join(b.episode.flags)}" if b.episode.flags else ""
    return (
        f"wrote {out} (task {task}): {t.size} samples over {span}{extra}; events: {events}{flags}; "
        f"score it with: simbridge verify {out}"
    )


def _import(args: argparse.Namespace) -> int:
    adapter, spec = importers()[args.importer]
    task = args.task or spec.default_task
    options = {opt.dest: getattr(args, opt.dest) for opt in spec.options}
    if spec.vehicle_option and options.get(spec.vehicle_option) is None:
        options[spec.vehicle_option] = _vehicle_of_task(task, adapter.name)
    _check_inputs(args.files)
    func = load(spec.target, f"import {args.sim}")
    out = func(args.files, args.out, task_id=task, force=args.force, **options)
    print(summary(Path(out), task, spec))
    return Exit.OK


def _check_inputs(files: Any) -> None:
    """Each input is a path that can be one and, when it exists, a regular file or a folder:
    a FIFO, a device (`/dev/zero`) or a socket is refused before any importer opens it."""
    import os
    import stat

    from simbridge._bundle import _file_kind
    from simbridge._errors import SimbridgeError
    from simbridge._inputs import check_path, short_path

    for f in files if isinstance(files, list) else [files]:
        check_path(f, "an input file")
        try:
            mode = os.stat(f).st_mode
        except OSError:
            continue  # missing: the importer's own message names what it looked for
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise SimbridgeError(f"{short_path(f)}: is {_file_kind(mode)}, not an input file of an importer")
