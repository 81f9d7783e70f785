"""`simbridge import carla LOG --out DIR [--map TOWN.xodr] [--task T18] [--ego ID] [--force]`: a
simulator's own recording into an episode bundle, so recorded runs can be scored like live ones.

Importer policy (simbridge._import_policy, the same for `import-log`): an existing bundle is not
overwritten without --force; truncation is flagged in episode.json and carried into the score."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("import", help="convert a simulator recording into an episode bundle")
    sims = p.add_subparsers(dest="sim", metavar="SIM")
    sims.required = True
    c = sims.add_parser("carla", help="a CARLA recorder file (client.start_recorder)")
    c.add_argument("log", type=Path, help="recorder file (.log)")
    c.add_argument("--out", type=Path, required=True, help="bundle directory to write")
    c.add_argument("--map", type=Path, help="the town's OpenDRIVE file (.xodr): adds lane_id, lane_offset_m, "
                                            "lane_invasion and red_light")
    c.add_argument("--task", default="T18", help="task id written to episode.json (default T18)")
    c.add_argument("--ego", type=int, help="actor id of the ego (default: the actor whose role_name is 'hero')")
    c.add_argument("--allow-truncated", action="store_true",
                   help="keep the frames before a truncated end instead of failing (flagged 'truncated_import')")
    c.add_argument("--force", action="store_true", help="replace the bundle already in --out")
    c.set_defaults(func=_import_carla)


def _import_carla(args: argparse.Namespace) -> int:
    from simbridge.adapters.carla import import_recording

    from collections import Counter

    from simbridge._bundle import read_bundle

    out = import_recording(args.log, args.out, map_path=args.map, task_id=args.task, ego=args.ego,
                           allow_truncated=args.allow_truncated, force=args.force)
    b = read_bundle(out)
    start = b.snapshots.get("start", {})
    kinds = Counter(e.kind for e in b.events)
    t = b.signals.t
    span = f"{t[-1] - t[0]:.2f} s" if t.size else "no samples"
    events = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) or "none"
    print(f"wrote {out}: {t.size} samples over {span}, ego {start.get('ego_id')} {start.get('ego_type_id')} "
          f"on {start.get('map')}; events: {events}"
          + (f"; flags: {', '.join(b.episode.flags)}" if b.episode.flags else ""))
    return 0
