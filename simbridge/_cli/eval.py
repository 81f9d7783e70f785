"""`simbridge eval SUITE --out DIR`: every episode of a suite, in parallel here or on a Ray cluster.

    simbridge eval suites/smoke.yaml --out runs/smoke
    simbridge eval suites/catalog.yaml --out runs/cat --ray auto          # a running cluster
    simbridge eval suites/catalog.yaml --out runs/cat --ray 10.0.0.5:6379 --resume

Exit codes as `simbridge run`: 0 every episode scored and ended by the agent's done; 3 every
episode scored, some agent failure; 4 some episode unscored after its retries (harness fault);
2 bad suite file or usage (nothing ran); 130 interrupted (resume with --resume).
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from typing import Any

from simbridge._cli._args import number, writable_dir
from simbridge._exit import Exit

EPILOG = """DIR/plan.json is written first; each attempt's bundle goes to
DIR/<task>/<sim>/<agent>/trial-<k>/attempt-<j>/ and DIR/results.parquet (one row per episode) is
rewritten as results arrive. Harness faults are retried up to the suite's `retries`; an agent's
own failure never is. See docs/eval.md."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "eval",
        help="run a suite of episodes in parallel (here or on a Ray cluster)",
        description=(__doc__ or "").strip().splitlines()[0],
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("suite", type=Path, help="suite YAML (see suites/smoke.yaml), or a registered suite's name")
    p.add_argument("--out", type=Path, required=True, help="eval directory (plan, bundles, results.parquet)")
    p.add_argument(
        "--ray",
        default=None,
        metavar="ADDRESS",
        help="run on a Ray cluster: auto (the one `ray start` set up here) or HOST:PORT",
    )
    p.add_argument(
        "--max-parallel",
        type=number(int, lo=1),
        default=None,
        metavar="N",
        help="at most N episodes at once (default: the local CPU/display budget, or what the cluster's "
        "resources admit)",
    )
    p.add_argument(
        "--resume", action="store_true", help="continue the eval in DIR: keep finished episodes, rerun the rest"
    )
    p.add_argument(
        "--metrics-port",
        type=number(int, lo=1),
        default=None,
        metavar="PORT",
        help="serve progress and results as Prometheus text metrics at http://HOST:PORT/metrics while the eval runs",
    )
    p.add_argument(
        "--metrics-host",
        default="127.0.0.1",
        metavar="HOST",
        help="address the metrics server binds (default 127.0.0.1; a private interface for a scraper elsewhere)",
    )
    p.set_defaults(func=_eval)


def _sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _eval(args: argparse.Namespace) -> int:
    from simbridge._eval import run_eval

    writable_dir(args.out, "--out")
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _sigterm)
    import contextlib

    metrics: Any = contextlib.nullcontext()
    if args.metrics_port is not None:
        from simbridge._eval._exporter import MetricsExporter

        metrics = MetricsExporter(args.metrics_port, args.metrics_host)
    with metrics:
        from simbridge._eval._suite import suite_file

        res = run_eval(
            suite_file(args.suite),
            args.out,
            ray_address=args.ray,
            max_parallel=args.max_parallel,
            resume=args.resume,
            say=lambda s: print(s, file=sys.stderr, flush=True),
        )
    print()
    print(res.metrics_text)
    n_fault = sum(r.get("state") == "harness_fault" for r in res.rows)
    print(f"\n{len(res.rows)} episodes in {res.wall_s:.0f} s; results: {args.out / 'results.parquet'}")
    if res.exit_code:
        why = {
            Exit.AGENT_FAILED: "every episode scored; at least one did not end as expected (done, or the suite's expect:)",
            Exit.UNSCORED: f"{n_fault or 'some'} episode(s) unscored after their retries (harness fault)",
        }[Exit(res.exit_code)]
        print(f"exit code {res.exit_code}: {why}", file=sys.stderr)
    return res.exit_code
