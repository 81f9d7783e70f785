"""`simbridge metrics [LABEL=]DIR...`: SR, SGO, SCR and pass@k/pass^k over scored episodes."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from simbridge._cli._args import number
from simbridge._errors import SimbridgeError
from simbridge._exit import Exit
from simbridge._metrics import compute_groups, load_trials, records

_EPILOG = """\
Grouping: trials are grouped by agent (episode.json 'agent') and run label, never pooled across
either. The label of a path is given as LABEL=PATH (e.g. baseline=runs/a new=runs/b), else it is
the name of the directory given. Each episode counts once, however often it is found (same real
path, or same task/sim/agent/trial/start time in episode.json).

Every score.json is checked: not JSON, empty, not an object, a directory, or a score outside
[0, 1] or NaN is an error naming the file and field. An episode directory without score.json,
or still 'running', counts as unscored. Unless --trust-scores, each stored score is re-derived
from its bundle (manifest checked, verifier re-run); a stale score.json is reported on stderr and
the bundle's score is used.

pass@k / pass^k come with 95% bootstrap intervals (trials resampled within each task); a k above
the trials of some task in a cell is shown as n/a with the trial count, not dropped.

--json prints a flat list of records (agent, label, task_id, metric, k, value, lo, hi, n_trials,
n_tasks, n_unscored, note), each column of one type: it loads as an Arrow/Parquet table.
task_id is null for a cell's overall metrics; metric is sr, sgo, scr, pass_at_k or pass_hat_k.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "metrics",
        help="multi-trial metrics over score.json files under the given directories",
        description="Multi-trial metrics (SR, SGO, SCR, pass@k, pass^k) over episode bundles and score.json files.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "paths",
        nargs="+",
        metavar="[LABEL=]PATH",
        help="run or bundle directory, or a score.json; LABEL= names the run (default: its directory name)",
    )
    p.add_argument(
        "-k",
        type=number(int, lo=1),
        action="append",
        help="k for pass@k / pass^k, at least 1 (repeatable; default 1,3,5)",
    )
    p.add_argument(
        "--trust-scores",
        action="store_true",
        help="use stored score.json as is, without re-running the verifier on each bundle (faster)",
    )
    p.add_argument("--json", action="store_true", help="flat records, one per (agent, label, task, metric, k)")
    p.set_defaults(func=_metrics)


def parse_path_arg(arg: str) -> tuple[str, Path]:
    """'LABEL=PATH' → (LABEL, PATH); a plain PATH (even one containing '=') is labelled by its name."""
    if "=" in arg and not Path(arg).exists():
        label, _, rest = arg.partition("=")
        if label and rest and "/" not in label:
            return label, Path(rest)
    from simbridge._inputs import check_path

    p = check_path(arg, "a run or bundle directory")  # too long, or a loop of links: one line
    return (Path(os.path.abspath(p)).name or str(p)), p


def _metrics(args: argparse.Namespace) -> int:
    pairs = [parse_path_arg(a) for a in args.paths]
    for _label, p in pairs:
        if not p.exists():
            raise SimbridgeError(f"{p}: no such file or directory")
    loaded = load_trials(pairs, trust_scores=args.trust_scores)
    for note in loaded.notes:
        print(f"simbridge: note: {note}", file=sys.stderr)
    if not loaded.trials:
        raise SimbridgeError("no episode or score.json found under " + ", ".join(str(p) for _l, p in pairs))
    if loaded.n_reverified:
        print(
            f"simbridge: re-verified {loaded.n_reverified} episode(s) in {loaded.reverify_s:.2f} s "
            f"({1000 * loaded.reverify_s / loaded.n_reverified:.0f} ms each; --trust-scores skips this)",
            file=sys.stderr,
        )
    groups = compute_groups(loaded.trials, ks=args.k or (1, 3, 5))
    if args.json:
        print(json.dumps(records(groups)))
        return Exit.OK
    for (agent, label), m in groups.items():
        if len(groups) > 1 or agent:
            print(f"== agent {agent or '(not recorded)'}   run {label}")
        print(m.table())
        print()
    return Exit.OK
