"""Pass rates of the reference pilots (issue 3 targets), on the embedded JSBSim cockpit by default.

Runs `--trials` episodes (default 5) of T09 and T02 with `--agent reference` through the runner,
exactly as `simbridge run` does, and prints each trial's score and status, the pilot's own
report (screenshot loop latency), and how many trials met the target:

    T09 steep turn          score >= 0.9 in at least 4 of 5
    T02 take off and hold   score >= 0.8 in at least 4 of 5

    python benchmarks/reference_pilots.py [--trials 5] [--tasks T09 T02] [--lockstep] [--out DIR]
    python benchmarks/reference_pilots.py --sim flightgear --tasks T09@PHJR --time-limit 150

A site variant (`T09@PHJR`) has its base task's target. The tests run one trial each, so they
assert less than these targets (FlightGear's T09 test: at most one 0.2 item missed).

Exit status 0 when every task met its target, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from simbridge._runner import RunConfig, run

TARGETS = {"T09": (0.9, 4, 5), "T02": (0.8, 4, 5), "T01": (1.0, 5, 5), "T16": (1.0, 5, 5)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--sim", default="jsbsim", help="simulator (default: jsbsim)")
    ap.add_argument("--tasks", nargs="+", default=["T09", "T02"], help=f"tasks, of {', '.join(sorted(TARGETS))}")
    ap.add_argument("--time-limit", type=float, default=None, help="cut each episode at this simulator time (s)")
    ap.add_argument("--lockstep", action="store_true", help="pause the simulator while the pilot decides")
    ap.add_argument("--out", type=Path, default=None, help="keep the bundles here (default: a temporary directory)")
    args = ap.parse_args(argv)
    unknown = [t for t in args.tasks if t.split("@")[0] not in TARGETS]
    if unknown:
        ap.error(f"no target for task {unknown[0]} (known: {', '.join(sorted(TARGETS))})")
    out = args.out or Path(tempfile.mkdtemp(prefix="reference-pilots-"))
    quiet = lambda s: None
    all_met = True
    lines = []
    for task in args.tasks:
        min_score, need, of = TARGETS[task.split("@")[0]]
        need_n = -(-need * args.trials // of)  # the same fraction of the trials run
        w0 = time.monotonic()
        results = run(
            RunConfig(
                task=task,
                sim=args.sim,
                agent="reference",
                trials=args.trials,
                out=out,
                lockstep=args.lockstep,
                frame_hz=0.0,
                time_limit_s=args.time_limit,
                say=quiet,
            )
        )
        print(f"\n{task} on {args.sim}  (target: score >= {min_score:g} in at least {need_n} of {args.trials})")
        passes = 0
        for r in results:
            s = r.score
            sc = s.score if s is not None and s.status == "scored" else None
            ok = sc is not None and sc >= min_score - 1e-9
            passes += ok
            print(
                f"  trial {r.trial}: score {'—' if sc is None else f'{sc:.3f}'}  {'pass' if ok else 'FAIL'}  "
                f"{r.status:<11} sim {r.sim_s:6.1f} s  {r.detail}"
            )
        met = passes >= need_n
        all_met &= met
        lines.append(
            f"{task}: {passes}/{args.trials} trials >= {min_score:g} "
            f"(target {need_n}/{args.trials}) {'MET' if met else 'NOT MET'}  [{time.monotonic() - w0:.0f} s wall]"
        )
    print("\n" + "\n".join(lines))
    print(f"bundles: {out}")
    return 0 if all_met else 1


if __name__ == "__main__":
    sys.exit(main())
