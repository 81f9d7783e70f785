"""`simbridge run TASK --sim SIM --agent AGENT`: fly trials, write a bundle per trial, score them.

    simbridge run T09 --sim jsbsim --agent reference --out runs/demo
    simbridge run T09 --sim jsbsim --agent scripted:turn.yaml --trials 5 --lockstep
    simbridge run T09 --sim jsbsim --agent mcp        # prints the agent port URL, waits for a client
    simbridge run T09 --sim jsbsim --agent human      # prints a VNC address (needs x11vnc)
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run an agent on a task in a simulator and score each trial")
    p.add_argument("task", help="task id, e.g. T09")
    p.add_argument("--sim", required=True, help="simulator name (jsbsim, ...) or module:SessionClass")
    p.add_argument("--agent", required=True,
                   help="noop | scripted:FILE | mcp | human | reference | py:MODULE:FACTORY")
    p.add_argument("--trials", type=int, default=1, help="number of trials (default 1)")
    p.add_argument("--out", type=Path, default=None, help="parent directory of the run (default runs/)")
    p.add_argument("--lockstep", action="store_true",
                   help="pause the simulator while the agent decides; run a fixed slice after each input")
    p.add_argument("--slice", type=float, default=0.1, dest="slice_s",
                   help="lockstep slice in simulator seconds (default 0.1)")
    p.add_argument("--seed", type=int, default=None, help="seed of trial 1 (trial i uses seed+i-1)")
    p.add_argument("--provider", default="local", choices=["local", "netns", "vm"],
                   help="sandbox provider: local (dev, unisolated), netns (root), vm (default local)")
    p.add_argument("--unisolated", action="store_true",
                   help="run even if the isolation audit fails; every score is marked unisolated")
    p.add_argument("--snapshot-at", type=float, action="append", default=[], metavar="T",
                   help="save a PNG of the screen at simulator time T (repeatable)")
    p.add_argument("--frame-hz", type=float, default=1.0, help="screen frames per simulator second (0 = none)")
    p.add_argument("--time-limit", type=float, default=None,
                   help="end earlier than the task's limit (simulator seconds; flagged in episode.json)")
    p.add_argument("--json", action="store_true", help="print one JSON line per trial instead of tables")
    p.set_defaults(func=_run)


def _sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _run(args: argparse.Namespace) -> int:
    import json

    from simbridge._errors import SimbridgeError
    from simbridge._runner import RunConfig, run, summary_table

    if args.trials < 1:
        raise SimbridgeError("--trials must be at least 1")
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _sigterm)  # tear down like Ctrl-C
    say = (lambda s: print(s, file=sys.stderr, flush=True))
    cfg = RunConfig(task=args.task, sim=args.sim, agent=args.agent, trials=args.trials, out=args.out,
                    lockstep=args.lockstep, lockstep_slice_s=args.slice_s, seed=args.seed, provider=args.provider,
                    snapshot_at=args.snapshot_at, frame_hz=args.frame_hz, time_limit_s=args.time_limit,
                    unisolated=args.unisolated, say=say)
    results = run(cfg)
    if args.json:
        for r in results:
            print(json.dumps({"trial": r.trial, "bundle": str(r.path), "status": r.status, "detail": r.detail,
                              "score": r.score.model_dump(mode="json") if r.score else None,
                              "snapshots": [str(p) for p in r.snapshots]}))
        return 0
    for r in results:
        print(f"\n== trial {r.trial}: {r.status} ({r.detail})")
        if r.score is not None:
            print(r.score.table())
        for p in r.snapshots:
            print(f"screen snapshot: {p}")
    print()
    print(summary_table(results))
    try:
        from simbridge import _metrics
    except ImportError:
        _metrics = None  # type: ignore[assignment]
    if _metrics is not None and len(results) > 1:
        print()
        print(_metrics.compute([r.score for r in results if r.score is not None]).table())
    return 0
