"""`simbridge compare [LABEL=]DIR...`: agents (or runs) side by side, with paired differences."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from simbridge._cli._args import number
from simbridge._errors import SimbridgeError
from simbridge._exit import Exit

#: the most bootstrap resamples `--n-boot` takes: the resamples of one statistic are held in
#: memory at once (1e9 would ask for gigabytes); 100,000 already gives intervals stable to 1e-3
MAX_N_BOOT = 100_000

_EPILOG = """\
Arms: with two or more LABEL=PATH (or directories) the arms are the run labels, else the agents
of episode.json (--by chooses). The first arm is the reference; every other arm is compared with
it, pairing trials of the same task by trial index (episode.json 'trial'), else by 'seed'. A
trial index (or seed) that two trials of one side share pairs nothing, with a note.

Every score is re-derived from its bundle as `simbridge metrics` does (manifest checked, verifier
re-run; score.json is never trusted). Differences are arm - reference with 95% percentile
bootstrap intervals (scipy.stats.bootstrap) and a two-sided Wilcoxon signed-rank p. See
docs/compare.md.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare",
        help="agents or runs side by side: per task and item, paired differences, cost",
        description="Two or more agents (or runs, or labels) side by side over episode bundles.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="+", metavar="[LABEL=]PATH", help="run or bundle directory (LABEL= names it)")
    p.add_argument("--by", choices=("auto", "agent", "label"), default="auto", help="what an arm is (default auto)")
    p.add_argument("--json", action="store_true", help="the comparison as one JSON object")
    p.add_argument("--html", metavar="OUT", type=Path, help="also write a self-contained HTML page to OUT")
    p.add_argument(
        "--n-boot",
        type=number(int, lo=100, hi=MAX_N_BOOT),
        default=2000,
        help=f"bootstrap resamples, 100 to {MAX_N_BOOT} (default 2000)",
    )
    p.set_defaults(func=_compare)


def _compare(args: argparse.Namespace) -> int:
    from simbridge._cli.metrics import parse_path_arg
    from simbridge._compare import compare, load, render_terminal

    pairs = [parse_path_arg(a) for a in args.paths]
    for _label, p in pairs:
        if not p.exists():
            raise SimbridgeError(f"{p}: no such file or directory")
    if args.html is not None:
        from simbridge._inputs import check_output_file

        if args.html.is_dir():
            raise SimbridgeError(f"--html {args.html}: is a directory; --html names the HTML file to write")
        check_output_file(args.html, "--html")  # a FIFO would block the write forever
    loaded = load(pairs)
    if not loaded.trials:
        for note in loaded.notes:
            print(f"simbridge: note: {note}", file=sys.stderr)
        raise SimbridgeError("no episode or score.json found under " + ", ".join(str(p) for _l, p in pairs))
    data = compare(loaded, by=args.by, n_boot=args.n_boot)
    for note in data["notes"]:
        print(f"simbridge: note: {note}", file=sys.stderr)
    if len(data["arms"]) < 2:
        raise SimbridgeError(
            f"only one {data['by']} found ({', '.join(data['arms'])}): give two runs as A=DIR B=DIR, or --by agent"
        )
    if args.html:
        from simbridge._report._compare import write_compare_page

        write_compare_page(data, args.html)
        print(f"simbridge: wrote {args.html}", file=sys.stderr)
    if args.json:
        print(json.dumps(data))
    else:
        render_terminal(data)
    return Exit.OK
