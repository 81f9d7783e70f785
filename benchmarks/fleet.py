"""N sandboxed (netns) jsbsim episodes started at the same moment on one node, against the same N
one at a time: how many harness faults, whether every audit passed and every episode had its own
display, and the wall time of the batch against the sequential baseline measured in the same run.

    sudo .venv/bin/python benchmarks/fleet.py                      # 3 noop episodes of 10 s
    sudo .venv/bin/python benchmarks/fleet.py --n 4 --task T16 --agent reference --lockstep
    sudo .venv/bin/python benchmarks/fleet.py --ray --rounds 2      # the same N as a suite on a
                                                                    # local Ray cluster, one node

`--ray` runs the N episodes as a suite (`simbridge eval`) on a local Ray cluster whose one
worker node advertises `sim:jsbsim` and `provider:netns` N times, so Ray starts them together,
`--rounds` times, and reports the same figures per round. Needs root (network namespaces).
Prints the measured values and the ratio to the sequential baseline; asserts nothing.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FAULTS = ("harness_error", "sim_crashed")


def _episode_facts(bundle: Path) -> dict:
    ep = json.loads((bundle / "episode.json").read_text())
    iso = ep.get("isolation") or {}
    score = {}
    if (bundle / "score.json").exists():
        score = json.loads((bundle / "score.json").read_text())
    return {
        "status": ep.get("status"),
        "detail": ep.get("status_detail"),
        "audit_ok": bool((iso.get("audit") or {}).get("ok")),
        "netns": iso.get("netns"),
        "display": ((ep.get("sandbox") or {}).get("display")) or iso.get("display"),
        "version": ep.get("simbridge_version"),
        "score": score.get("score"),
        "limits": (iso.get("limits") or {}).get("applied"),
        "limits_why": (iso.get("limits") or {}).get("why"),
    }


def _run_cmd(args: argparse.Namespace, out: Path) -> list[str]:
    cmd = [sys.executable, "-m", "simbridge._cli", "run", args.task, "--sim", "jsbsim", "--provider", "netns"]
    cmd += ["--agent", args.agent, "--frame-hz", "0", "--out", str(out), "--no-report"]
    if args.time_limit:
        cmd += ["--time-limit", str(args.time_limit)]
    if args.lockstep:
        cmd.append("--lockstep")
    return cmd


def _batch(args: argparse.Namespace, root: Path, at_once: bool) -> tuple[float, list[dict]]:
    outs = [root / f"ep{i}" for i in range(args.n)]
    t0 = time.monotonic()
    if at_once:
        procs = [
            subprocess.Popen(_run_cmd(args, o), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for o in outs
        ]
        for p in procs:
            p.wait()
    else:
        for o in outs:
            subprocess.run(_run_cmd(args, o), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    facts = []
    for o in outs:
        bundles = sorted(o.glob("*/trial-1"))
        facts.append(_episode_facts(bundles[-1]) if bundles else {"status": "no bundle", "audit_ok": False})
    return wall, facts


def _summary(label: str, wall: float, facts: list[dict], baseline: float | None) -> None:
    faults = [f for f in facts if f["status"] in FAULTS or f["status"] == "no bundle"]
    displays = {f.get("display") for f in facts if f.get("display")}
    ratio = f"  ({wall / baseline:.2f}× the sequential wall time)" if baseline else ""
    print(f"{label}: {len(facts)} episodes in {wall:.1f} s wall{ratio}")
    print(
        f"  harness faults {len(faults)}; audits passed {sum(bool(f['audit_ok']) for f in facts)}/{len(facts)}; "
        f"distinct displays {len(displays)}; statuses {sorted({str(f['status']) for f in facts})}; "
        f"scores {[f.get('score') for f in facts]}; version recorded "
        f"{sum(bool(f.get('version')) for f in facts)}/{len(facts)}; cgroup limits "
        f"{sum(bool(f.get('limits')) for f in facts)}/{len(facts)}"
    )
    for f in faults:
        print(f"    fault: {f.get('status')}: {f.get('detail')}")
    for f in facts:
        if f.get("limits_why"):
            print(f"    no cgroup limits: {f['limits_why']}")


def _ray_rounds(args: argparse.Namespace, root: Path, baseline: float) -> None:
    from ray.cluster_utils import Cluster

    from simbridge._eval import run_eval

    suite = root / "fleet.yaml"
    suite.write_text(
        f"name: fleet\nprovider: netns\nframe_hz: 0\nretries: 0\ntrials: {args.n}\n"
        + (f"max_time_limit_s: {args.time_limit}\n" if args.time_limit else "")
        + ("lockstep: true\n" if args.lockstep else "")
        + f"matrix:\n  - {{tasks: [{args.task}], sims: [jsbsim], agents: [{args.agent}]}}\n"
    )
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    try:
        c.add_node(num_cpus=args.n, resources={"sim:jsbsim": args.n, "provider:netns": args.n})
        c.wait_for_nodes()
        for r in range(1, args.rounds + 1):
            out = root / f"ray-round-{r}"
            t0 = time.monotonic()
            res = run_eval(
                suite, out, ray_address=c.address, live=False, say=lambda line: None, progress_stream=io.StringIO()
            )
            wall = time.monotonic() - t0
            facts = [_episode_facts(b) for b in sorted(out.glob("**/attempt-*")) if (b / "episode.json").exists()]
            _summary(f"ray round {r} (exit {int(res.exit_code)})", wall, facts, baseline)
    finally:
        c.shutdown()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=3, help="episodes at once (default 3)")
    ap.add_argument("--task", default="T09", help="task (default T09)")
    ap.add_argument("--agent", default="noop", help="agent (default noop)")
    ap.add_argument("--time-limit", type=float, default=10.0, help="simulator seconds (default 10; 0: the task's)")
    ap.add_argument("--lockstep", action="store_true", help="run the episodes in lockstep")
    ap.add_argument("--ray", action="store_true", help="also run them as a suite on a local Ray cluster")
    ap.add_argument("--rounds", type=int, default=2, help="Ray rounds (default 2)")
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("fleet.py: netns episodes need root", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="simbridge-fleet-") as tmp:
        root = Path(tmp)
        os.chmod(root, 0o755)
        print(f"{args.n} × {args.task} {args.agent} on jsbsim, provider netns, {os.cpu_count()} cores")
        seq_wall, seq = _batch(args, root / "sequential", at_once=False)
        _summary("one at a time (baseline)", seq_wall, seq, None)
        par_wall, par = _batch(args, root / "at-once", at_once=True)
        _summary("all at once", par_wall, par, seq_wall)
        if args.ray:
            _ray_rounds(args, root, seq_wall)
    return 0


if __name__ == "__main__":
    sys.exit(main())
