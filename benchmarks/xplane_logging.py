"""Benchmark: 40 datarefs over RREF at 50 Hz for 60 s against the X-Plane protocol double.

The double (tests/doubles/xplane_double.py, not X-Plane) runs in a child process so its CPU and
the logger's are measured apart. Reports samples received/expected (target >= 99 %), arrival
jitter (host clock), simulator-time spacing and CPU.

    python benchmarks/xplane_logging.py [--seconds 60] [--hz 50] [--fps 100] [--loss 0] [--reorder 0]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import sys
sys.path.insert(0, {tests!r})
from doubles.xplane_double import XPlaneDouble
d = XPlaneDouble(web=False, fps={fps}, loss={loss}, reorder={reorder}, seed=1).start()
print(d.udp_port, flush=True)
sys.stdin.read()
d.stop()
"""


def _cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        f = fh.read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def _pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--hz", type=int, default=50)
    ap.add_argument("--datarefs", type=int, default=40)
    ap.add_argument("--fps", type=float, default=100.0, help="the double's frame rate (RREF is sent on frames)")
    ap.add_argument("--loss", type=float, default=0.0)
    ap.add_argument("--reorder", type=float, default=0.0)
    args = ap.parse_args(argv)

    from simbridge.adapters.xplane import RrefLogger, UdpClient
    from simbridge.adapters.xplane import _mapping

    rows = _mapping.select(None, twin=True)
    while len(_mapping.datarefs_for(rows)) > args.datarefs:
        rows.pop()
    n_refs = len(_mapping.datarefs_for(rows))

    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            CHILD.format(tests=str(ROOT / "tests"), fps=args.fps, loss=args.loss, reorder=args.reorder),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        port = int(child.stdout.readline())
        udp = UdpClient("127.0.0.1", port)
        logger = RrefLogger(udp, rows, hz=args.hz)
        cpu0, child_cpu0 = time.process_time(), _cpu_s(child.pid)
        w0 = time.monotonic()
        logger.start(ready_timeout_s=5.0)
        frames = []
        wall_cap = w0 + args.seconds * 2 + 10
        while time.monotonic() < wall_cap:
            frames += logger.frames()
            if frames and frames[-1].t_sim >= args.seconds:
                break
            time.sleep(0.05)
        frames += logger.stop()
        wall = time.monotonic() - w0
        cpu = time.process_time() - cpu0
        child_cpu = _cpu_s(child.pid) - child_cpu0
        udp.close()
    finally:
        child.stdin.close()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()

    # nominal instants 0, 1/hz, ... < seconds; half a period of slack for float32 clock rounding
    inside = [f for f in frames if f.t_sim < args.seconds - 0.5 / args.hz]
    expected = int(round(args.hz * args.seconds))
    received = len(inside)
    arrivals = [b.t_recv - a.t_recv for a, b in zip(inside, inside[1:])]
    spacing = [b.t_sim - a.t_sim for a, b in zip(inside, inside[1:])]
    nominal_ms = 1000 / args.hz
    jitter = [abs(x * 1000 - nominal_ms) for x in arrivals]
    print("X-Plane RREF logging benchmark (against the protocol double, not X-Plane)")
    print(
        f"  datarefs            {n_refs} at {args.hz} Hz for {args.seconds:g} s simulator time "
        f"(double at {args.fps:g} fps, loss {args.loss:g}, reorder {args.reorder:g})"
    )
    print(f"  samples             {received} / {expected} = {100 * received / expected:.2f} %  (target >= 99 %)")
    print(f"  dropped late/dup    {logger.assembler.dropped_late}; packets received {udp.packets_received}")
    print(
        f"  arrival interval    mean {1000 * statistics.fmean(arrivals):.2f} ms, sd {1000 * statistics.pstdev(arrivals):.2f} ms "
        f"(nominal {nominal_ms:.1f} ms)"
    )
    print(
        f"  jitter |dt-nominal| p50 {_pct(jitter, 0.5):.2f} ms, p99 {_pct(jitter, 0.99):.2f} ms, max {max(jitter):.2f} ms"
    )
    print(f"  sim-time spacing    min {1000 * min(spacing):.1f} ms, max {1000 * max(spacing):.1f} ms")
    print(f"  CPU logger          {cpu:.2f} s over {wall:.1f} s wall = {100 * cpu / wall:.1f} % of one core")
    print(f"  CPU double          {child_cpu:.2f} s = {100 * child_cpu / wall:.1f} % of one core")
    return 0 if received >= 0.99 * expected else 1


if __name__ == "__main__":
    sys.exit(main())
