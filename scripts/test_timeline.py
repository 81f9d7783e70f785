"""Where a test run's time went, from the file SIMBRIDGE_TEST_TIMELINE=FILE made (tests/timeline.py).

    SIMBRIDGE_TEST_TIMELINE=/tmp/tl.jsonl bash scripts/test.sh
    .venv/bin/python scripts/test_timeline.py /tmp/tl.jsonl [--top 40]

Prints each scheduling group's wall and CPU seconds (CPU / wall near 1: it keeps a core busy;
near 0: it waits — a simulator in real time, a timeout, a guest), the share of the run during
which each worker was busy, and minute by minute how many tests ran and the CPU they used.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("timeline", type=Path, help="the JSON-lines file of tests/timeline.py")
    ap.add_argument("--top", type=int, default=40, help="groups to list, longest first")
    args = ap.parse_args(argv)
    try:
        tl = pd.read_json(args.timeline, lines=True)
    except (OSError, ValueError) as e:
        print(f"{args.timeline}: not a timeline file ({e})", file=sys.stderr)
        return 2
    if tl.empty:
        print(f"{args.timeline}: no tests recorded", file=sys.stderr)
        return 2
    t0 = tl.start_s.min()
    tl["wall_s"] = tl.end_s - tl.start_s
    span_s = tl.end_s.max() - t0
    groups = (
        tl.groupby("group")
        .agg(
            worker=("worker", "first"),
            tests=("test", "size"),
            start_min=("start_s", "min"),
            wall_s=("wall_s", "sum"),
            cpu_s=("cpu_s", "sum"),
        )
        .sort_values("wall_s", ascending=False)
    )
    groups["start_min"] = (groups.start_min - t0) / 60
    groups["cpu_per_wall"] = groups.cpu_s / groups.wall_s.clip(lower=1e-3)
    pd.set_option("display.width", 160)
    pd.set_option("display.max_colwidth", 70)
    print(groups.head(args.top).round(2).to_string())
    print(
        f"\n{len(tl)} tests in {span_s / 60:.1f} min; wall {tl.wall_s.sum() / 60:.1f} min, CPU {tl.cpu_s.sum() / 60:.1f} min"
    )
    for worker, w in tl.groupby("worker"):
        print(
            f"{worker}: busy {w.wall_s.sum() / span_s:.0%} of the run, last test ends at {(w.end_s.max() - t0) / 60:.1f} min"
        )
    # minute by minute: tests running (time-weighted) and the CPU they used (cores)
    print("\nminute  tests  cores")
    for m in range(int(span_s // 60) + 1):
        lo, hi = t0 + 60 * m, t0 + 60 * (m + 1)
        overlap_s = (tl.end_s.clip(upper=hi) - tl.start_s.clip(lower=lo)).clip(lower=0)
        cores = (tl.cpu_s * overlap_s / tl.wall_s.clip(lower=1e-3)).sum() / 60
        print(f"{m:6d}  {overlap_s.sum() / 60:5.2f}  {cores:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
