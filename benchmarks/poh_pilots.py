"""Scores and speed of the POH reference pilots on the embedded JSBSim cockpit (issue 31).

Runs `--trials` seeded episodes (seeds `--seed`, `--seed`+1, ...) of each task with
`--agent reference` in exact lockstep through the runner, as `simbridge run TASK --sim jsbsim
--agent reference --lockstep --seed S` does, and prints per trial the score, the status, the
simulator seconds flown and the wall seconds of the trial; per task the pass count (score 1.0
and success) and the mean wall time. With `--noop` it runs the do-nothing agent instead (its
target: score 0 on every trial).

    python benchmarks/poh_pilots.py [--trials 3] [--seed 1] [--tasks P01 P11 ...] [--noop] [--out DIR]

Exit status 0 when every trial met its target, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from simbridge.episode import RunConfig, run

TASKS = ("P01", "P02", "P03", "P07", "P09", "P10", "P11", "P15", "P16", "P19", "P22")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1, help="seed of trial 1 (trial i uses seed+i-1)")
    ap.add_argument("--tasks", nargs="+", default=list(TASKS), choices=TASKS)
    ap.add_argument("--noop", action="store_true", help="the do-nothing agent (target: score 0)")
    ap.add_argument("--out", type=Path, default=None, help="keep the bundles here (default: a temporary directory)")
    args = ap.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="poh-pilots-"))
    agent = "noop" if args.noop else "reference"
    all_met = True
    lines = []
    for task in args.tasks:
        walls: list[float] = []
        passes = 0
        print(f"\n{task} ({agent}, seeds {args.seed}..{args.seed + args.trials - 1})")
        for i in range(args.trials):
            w0 = time.monotonic()
            [r] = run(
                RunConfig(
                    task=task,
                    sim="jsbsim",
                    agent=agent,
                    trials=1,
                    seed=args.seed + i,
                    out=out,
                    lockstep=True,
                    frame_hz=0.0,
                    say=lambda s: None,
                )
            )
            walls.append(time.monotonic() - w0)
            s = r.score
            sc = s.score if s is not None and s.status == "scored" else None
            ok = sc is not None and (sc == 0.0 if args.noop else sc == 1.0 and bool(s.success))
            passes += ok
            print(
                f"  seed {args.seed + i}: score {'—' if sc is None else f'{sc:.3f}'}  {'pass' if ok else 'FAIL'}  "
                f"{r.status:<11} sim {r.sim_s:6.1f} s  wall {walls[-1]:5.1f} s  {r.detail}"
            )
        all_met &= passes == args.trials
        lines.append(
            f"{task}: {passes}/{args.trials} {'score 0' if args.noop else 'full credit'}  "
            f"wall mean {sum(walls) / len(walls):.0f} s, max {max(walls):.0f} s"
        )
    print("\n" + "\n".join(lines))
    print(f"bundles: {out}")
    return 0 if all_met else 1


if __name__ == "__main__":
    sys.exit(main())
