"""`simbridge import-log ksp|openbve|nmea FILE... --out DIR [--task TNN]`: turn a simulator's
own output (KSP save, OpenBVE black box, Bridge Command NMEA capture) into an episode bundle.

(`simbridge import carla` is a separate command for CARLA recordings.) Every importer follows
simbridge._import_policy: no overwrite without --force; skipped lines, invalid fixes and
out-of-range samples are dropped, counted and flagged in episode.json (and so in the score);
a --vessel that is in none of the saves is an error naming the vessels there are.
"""

from __future__ import annotations

import argparse
from pathlib import Path

_DEFAULT_TASK = {"ksp": "T19", "openbve": "T14", "nmea": "T17"}


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("import-log", help="import a KSP save, an OpenBVE logs.bin or a Bridge Command NMEA capture")
    fsub = p.add_subparsers(dest="log_format", metavar="FORMAT")
    fsub.required = True
    k = fsub.add_parser("ksp", help="persistent.sfs save file(s) of one flight, in any order")
    k.add_argument("files", nargs="+", type=Path)
    k.add_argument("--vessel", help="vessel name (default: the task's vessel id for ksp, else the active vessel)")
    o = fsub.add_parser("openbve", help="OpenBVE black-box file logs.bin")
    o.add_argument("files", nargs=1, type=Path)
    n = fsub.add_parser("nmea", help="capture of Bridge Command's NMEA 0183 output (one sentence per line)")
    n.add_argument("files", nargs=1, type=Path)
    n.add_argument("--lenient", action="store_true", help="skip bad sentences (listed in snapshots) instead of failing")
    for q in (k, o, n):
        q.add_argument("--out", required=True, type=Path, help="bundle directory to create")
        q.add_argument("--task", help="task id written to episode.json (default: T19 / T14 / T17)")
        q.add_argument("--force", action="store_true", help="replace the bundle already in --out")
        q.set_defaults(func=_import)


def _import(args: argparse.Namespace) -> int:
    from simbridge._bundle import read_bundle
    from simbridge._import_policy import check_out

    out: Path = check_out(args.out, force=args.force)
    task = args.task or _DEFAULT_TASK[args.log_format]
    if args.log_format == "ksp":
        from simbridge.adapters.ksp import import_saves

        vessel = args.vessel
        if vessel is None:
            try:
                from simbridge._task import load_task

                vessel = load_task(task).vehicle.ids.get("ksp")
            except Exception:  # an unknown task id only loses the default vessel name
                vessel = None
        path = import_saves(args.files, out, task_id=task, vessel=vessel, force=args.force)
    elif args.log_format == "openbve":
        from simbridge.adapters.openbve import import_logs

        path = import_logs(args.files[0], out, task_id=task, force=args.force)
    else:
        from simbridge.adapters.bridgecommand import import_nmea

        path = import_nmea(args.files[0], out, task_id=task, strict=not args.lenient, force=args.force)
    flags = read_bundle(path).episode.flags
    print(f"wrote {path} (task {task}){'; flags: ' + '; '.join(flags) if flags else ''}; "
          f"score it with: simbridge verify {path}")
    return 0
