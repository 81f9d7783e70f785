"""`simbridge eval` scaling: one batch of episodes (a scripted agent on the embedded JSBSim
cockpit that says done after SIM_S simulator seconds, frames off) run

1. sequentially: `simbridge run T09 --sim jsbsim --agent scripted:… --trials N`;
2. with the local executor (`simbridge eval`, admission by measured cost);
3. on a local Ray cluster (ray.cluster_utils.Cluster) of 1, 2 and 4 worker nodes, each
   advertising `sim:jsbsim: 2` (a head with no simulator resources);
4. on a 1-node cluster with `sim:jsbsim: 1` (one episode at a time) for Ray's overhead per
   episode: time of the batch outside the episodes themselves ÷ N (target < 1 s).

    python benchmarks/eval_scaling.py [--episodes 8] [--sim-s 10]

Prints wall seconds, episodes/hour and the ratio to sequential for each. The episodes are
real-time (JSBSim runs at 1× simulator speed), so on few cores the local executor should reach
≥ 2.5× sequential; Ray's nodes all share this machine's cores, so adding nodes stops helping
where the CPU saturates.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _suite(tmp: Path, n: int, sim_s: float) -> tuple[Path, Path]:
    script = tmp / "done.yaml"
    script.write_text(f"actions:\n  - {{at: {sim_s:g}, done: benchmark}}\n")
    suite = tmp / "bench.yaml"
    suite.write_text(
        f"name: bench\ntrials: {n}\nframe_hz: 0\nretries: 0\nmax_time_limit_s: {sim_s + 30:g}\n"
        "matrix:\n  - {tasks: [T09], sims: [jsbsim], agents: ['scripted:done.yaml']}\n"
    )
    return suite, script


def sequential(tmp: Path, n: int, script: Path) -> float:
    t0 = time.monotonic()
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "simbridge._cli",
            "run",
            "T09",
            "--sim",
            "jsbsim",
            "--agent",
            f"scripted:{script}",
            "--trials",
            str(n),
            "--frame-hz",
            "0",
            "--out",
            str(tmp / "seq"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if r.returncode not in (0, 3):
        raise SystemExit(f"sequential run failed ({r.returncode}): {r.stderr[-400:]}")
    return time.monotonic() - t0


def local(tmp: Path, suite: Path) -> tuple[float, list[dict]]:
    from simbridge._eval import run_eval

    t0 = time.monotonic()
    res = run_eval(suite, tmp / "local", live=False, progress_stream=open(os.devnull, "w"), say=lambda s: None)
    return time.monotonic() - t0, res.rows


def on_ray(tmp: Path, suite: Path, nodes: int, per_node: int, tag: str) -> tuple[float, list[dict]]:
    from ray.cluster_utils import Cluster

    from simbridge._eval import run_eval

    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        for _ in range(nodes):
            c.add_node(num_cpus=2, resources={"sim:jsbsim": per_node})
        c.wait_for_nodes()
        t0 = time.monotonic()
        res = run_eval(
            suite,
            tmp / tag,
            ray_address=c.address,
            live=False,
            progress_stream=open(os.devnull, "w"),
            say=lambda s: None,
        )
        return time.monotonic() - t0, res.rows
    finally:
        c.shutdown()


def _outside_episodes_s(rows: list[dict]) -> float:
    """Per episode: the batch's span (first submit → last result) minus the episodes' own wall time."""
    span = max(r["end_wall"] for r in rows) - min(r["submit_wall"] for r in rows)
    return (span - sum(r["wall_s"] for r in rows)) / len(rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=8)
    ap.add_argument("--sim-s", type=float, default=10.0, help="simulator seconds each episode lasts")
    ap.add_argument("--no-ray", action="store_true", help="only sequential and the local executor")
    args = ap.parse_args()
    n = args.episodes
    results: list[tuple[str, float, str]] = []
    with tempfile.TemporaryDirectory(prefix="eval-scaling-") as d:
        tmp = Path(d)
        suite, script = _suite(tmp, n, args.sim_s)
        seq = sequential(tmp, n, script)
        results.append(("sequential (simbridge run --trials)", seq, ""))
        wall, rows = local(tmp, suite)
        results.append(("local executor", wall, f"mean episode wall {sum(r['wall_s'] for r in rows) / n:.1f} s"))
        for k in () if args.no_ray else (1, 2, 4):
            wall, rows = on_ray(tmp, suite, k, 2, f"ray{k}")
            hosts = len({r["node_id"] for r in rows})
            results.append((f"ray, {k} worker node(s) × 2 slots", wall, f"{hosts} nodes used"))
        if not args.no_ray:
            wall, rows = on_ray(tmp, suite, 1, 1, "ray-serial")
            overhead = _outside_episodes_s(rows)
            results.append(("ray, 1 node × 1 slot (serial)", wall, f"outside episodes {overhead:.2f} s/episode"))
    print(
        f"\n{n} episodes of {args.sim_s:g} simulator seconds (T09, scripted, jsbsim), {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f} at the end"
    )
    print(f"{'mode':<38}{'wall s':>8}{'episodes/h':>12}{'× seq':>7}  note")
    for name, wall, note in results:
        print(f"{name:<38}{wall:>8.1f}{n * 3600 / wall:>12.0f}{seq / wall:>7.2f}  {note}")
    seq_per = seq / n
    if args.no_ray:
        return 0
    print(
        f"\nsequential: {seq_per:.1f} s per episode; Ray serial: {results[-1][1] / n:.1f} s per episode; "
        f"Ray's overhead per episode (serial span minus episode time) {overhead:.2f} s (target < 1 s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
