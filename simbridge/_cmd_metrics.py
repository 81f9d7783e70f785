"""`simbridge metrics DIR...`: SR, SGO, SCR and pass@k/pass^k over scored episodes."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path

from simbridge._errors import SimbridgeError
from simbridge._metrics import compute, load_scores


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("metrics", help="multi-trial metrics over score.json files under the given directories")
    p.add_argument("paths", nargs="+", type=Path)
    p.add_argument("-k", type=int, action="append", help="k for pass@k / pass^k (repeatable; default 1,3,5)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_metrics)


def _metrics(args: argparse.Namespace) -> int:
    for p in args.paths:
        if not p.exists():
            raise SimbridgeError(f"{p}: no such file or directory")
    scores = load_scores(args.paths)
    if not scores:
        raise SimbridgeError("no score.json found under " + ", ".join(map(str, args.paths)))
    m = compute(scores, ks=args.k or (1, 3, 5))
    print(json.dumps(asdict(m)) if args.json else m.table())
    return 0
