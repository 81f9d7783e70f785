"""How many embedded-simulator episodes run in real time at once on this machine.

For each N (default 1, 2, 4) it starts N cockpits (T09 in the c172x, each on its own Xvfb
display, through `JSBSimSession` exactly as the runner does), lets them fly for `--seconds`,
and prints per instance: rendered fps, real-time factor (simulator seconds per wall second),
CPU % of one core (cockpit process and its Xvfb, from /proc), and the host-side sample rate.

    python benchmarks/jsbsim_realtime.py --n 1 2 4 --seconds 20
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from simbridge._adapter import Sandbox
from simbridge._task import load_task
from simbridge.adapters.jsbsim import JSBSimSession

CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime + stime


def free_display() -> int:
    for n in range(400, 700):
        if not Path(f"/tmp/.X11-unix/X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists():
            return n
    raise RuntimeError("no free display")


def start_xvfb() -> tuple[subprocess.Popen, str]:
    n = free_display()
    p = subprocess.Popen(
        ["Xvfb", f":{n}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    for _ in range(100):
        if Path(f"/tmp/.X11-unix/X{n}").exists():
            break
        time.sleep(0.05)
    return p, f":{n}"


def run(n: int, seconds: float, fps: float) -> list[dict]:
    xs, sessions = [], []
    work = tempfile.mkdtemp(prefix="jsbsim-bench-")
    task = load_task("T09")
    try:
        for i in range(n):
            xp, disp = start_xvfb()
            xs.append(xp)
            s = JSBSimSession(fps=fps)
            s.start(task, Sandbox(display=disp, env={}, workdir=os.path.join(work, str(i))))
            sessions.append(s)
        time.sleep(2.0)  # settle
        t0 = time.monotonic()
        start = []
        for s in sessions:
            s.poll()
            start.append((s.sim_time(), cpu_seconds(s.proc.pid), s._n_samples))
        xcpu0 = [cpu_seconds(p.pid) for p in xs]
        while time.monotonic() - t0 < seconds:
            for s in sessions:
                s.poll()
            time.sleep(0.05)
        wall = time.monotonic() - t0
        rows = []
        for s, (sim0, cpu0, n0), xp, x0 in zip(sessions, start, xs, xcpu0):
            s.poll()
            info = s.info()
            rows.append(
                {
                    "fps": info.get("frame_rate", float("nan")),
                    "rt": (s.sim_time() - sim0) / wall,
                    "cpu": 100.0 * (cpu_seconds(s.proc.pid) - cpu0) / wall,
                    "xcpu": 100.0 * (cpu_seconds(xp.pid) - x0) / wall,
                    "hz": (s._n_samples - n0) / wall,
                }
            )
        return rows
    finally:
        for s in sessions:
            s.stop()
        for p in xs:
            p.terminate()
            p.wait(timeout=5)
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--fps", type=float, default=25.0, help="cockpit render rate")
    a = ap.parse_args()
    if shutil.which("Xvfb") is None:
        print("Xvfb is not installed (apt-get install xvfb)", file=sys.stderr)
        return 2
    print(
        f"cores: {os.cpu_count()}  load: {os.getloadavg()[0]:.2f}  render target: {a.fps:g} fps  "
        f"window 1280x800  FDM 120 Hz  generic UDP 60 Hz"
    )
    print(f"{'N':>2} {'inst':>4} {'fps':>6} {'rt factor':>9} {'CPU %':>6} {'Xvfb %':>6} {'samples/s':>9}")
    for n in a.n:
        rows = run(n, a.seconds, a.fps)
        for i, r in enumerate(rows):
            print(f"{n:>2} {i:>4} {r['fps']:>6.1f} {r['rt']:>9.3f} {r['cpu']:>6.1f} {r['xcpu']:>6.1f} {r['hz']:>9.1f}")
        ok = all(r["rt"] >= 0.95 for r in rows)
        print(
            f"{n:>2}  all  {sum(r['fps'] for r in rows) / n:>6.1f} {min(r['rt'] for r in rows):>9.3f} "
            f"{sum(r['cpu'] for r in rows):>6.1f} {sum(r['xcpu'] for r in rows):>6.1f} "
            f"{min(r['hz'] for r in rows):>9.1f}  {'real time' if ok else 'BEHIND real time'} "
            "(mean fps, min rt, total CPU, min samples/s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
