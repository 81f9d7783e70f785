"""How much faster than real time the Gymnasium env steps the embedded JSBSim cockpit (issue 33).

Measured in one run, on the same machine under the same load:
  baseline     the cockpit in real time (the runner's normal mode) for `--baseline-s` wall
               seconds: simulator seconds per wall second (1.0 at best, less on a loaded machine)
  noop         `simbridge/T09-jsbsim-v0`, `--steps` no-op steps of 0.1 s (each with its 200x320
               observation grabbed from the screen)
  full-size    the same with full-size observations (obs_scale=1: the whole 800x1280 screen every
               step, as raw pixels from the agent port's grabber: how the env observes, no PNG)
  screenshot   the 200x320 steps plus a full-size PNG screenshot through the agent port every step
               (an agent that also asks the port for an encoded screen)
  reference    (`--reference`) one lockstep T02 episode of the reference pilot through the
               runner: its simulated length against its wall time
Each line prints simulator seconds per wall second and the ratio to the baseline. Targets:
no-op >= 10x on an idle 2-core machine (>= 5x loaded), a screenshot every step (full-size
observation; the PNG line for comparison) >= 5x, reference >= 5x.
`--burn N` adds N busy processes for the run (a loaded machine).

    python benchmarks/gym_speed.py [--steps 300] [--burn 2] [--reference]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from jsbsim_realtime import start_xvfb  # noqa: E402

TARGETS = {"noop": 10.0, "screenshot": 5.0, "reference": 5.0}
#: the PNG line is printed against the screenshot target, but only the full-size observation
#: (how the env hands over every step's screen) decides the exit status
INFORMATIONAL = {"png"}


def _burn() -> None:
    while True:
        pass


def baseline(seconds: float) -> float:
    """Simulator seconds per wall second of the cockpit running in real time."""
    from simbridge._adapter import Sandbox
    from simbridge._task import load_task
    from simbridge.adapters.jsbsim import JSBSimSession

    xvfb, display = start_xvfb()
    work = tempfile.mkdtemp(prefix="gym-speed-")
    s = JSBSimSession()
    try:
        s.start(load_task("T09"), Sandbox(display=display, env={}, workdir=work))
        samples = []
        while not samples:
            samples += s.poll()
            time.sleep(0.01)
        t0, w0 = samples[-1].t_sim, time.monotonic()
        while time.monotonic() - w0 < seconds:
            time.sleep(0.05)
            s.poll()
        return (s.sim_time() - t0) / (time.monotonic() - w0)
    finally:
        s.stop()
        xvfb.terminate()
        xvfb.wait()
        shutil.rmtree(work, ignore_errors=True)


def gym_rate(steps: int, screenshot: bool, out: Path, obs_scale: float = 0.25) -> tuple[float, float]:
    """(simulator seconds per wall second, wall ms per step) of no-op steps."""
    import gymnasium as gym

    import simbridge.integrations.gymnasium  # noqa: F401  (registers the ids)

    env = gym.make("simbridge/T09-jsbsim-v0", time_limit_s=steps * 0.1 + 10, out=str(out), obs_scale=obs_scale)
    noop = {"kind": 0, "key": 0, "point": np.array([0.5, 0.5], np.float32), "wheel": 0}
    try:
        _, info = env.reset(seed=1)
        ep = env.unwrapped._ep  # the env's Episode: its clock, and its agent port's client for the PNG
        t0, w0 = ep.clock(), time.monotonic()
        for _ in range(steps):
            _, _, term, trunc, info = env.step(noop)
            if term or trunc:
                raise SystemExit(f"the episode ended early: {info.get('status')} {info.get('detail')}")
            if screenshot:
                ep.client.screenshot("png").data  # the PNG bytes an agent receives
        wall = time.monotonic() - w0
        return (info["t"] - t0) / wall, wall / steps * 1000
    finally:
        env.close()


def reference_rate(out: Path) -> tuple[float, float, float, str]:
    """(simulated seconds per wall second, simulated s, wall s, outcome) of one lockstep T02."""
    from simbridge.episode import RunConfig, run

    w0 = time.monotonic()
    (r,) = run(
        RunConfig(task="T02", sim="jsbsim", agent="reference", out=out, lockstep=True, frame_hz=0.0, say=lambda s: None)
    )
    wall = time.monotonic() - w0
    sc = r.score.score if r.score is not None and r.score.status == "scored" else None
    return r.sim_s / wall, r.sim_s, wall, f"{r.status} score {sc if sc is None else round(sc, 3)}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=300, help="Gymnasium steps of 0.1 s per mode")
    ap.add_argument("--baseline-s", type=float, default=10.0, help="wall seconds of the real-time baseline")
    ap.add_argument("--burn", type=int, default=0, help="busy processes loading the machine meanwhile")
    ap.add_argument("--reference", action="store_true", help="also time a lockstep T02 reference-pilot episode")
    args = ap.parse_args(argv)
    burners = [mp.Process(target=_burn, daemon=True) for _ in range(args.burn)]
    for p in burners:
        p.start()
    out = Path(tempfile.mkdtemp(prefix="gym-speed-"))
    try:
        base = baseline(args.baseline_s)
        rows = [("baseline (real time)", base, None)]
        print(f"baseline: the cockpit in real time runs {base:.3f} simulator s per wall s", flush=True)
        # the process's first episode runs ~1.5-2x slower than later ones (first imports, caches):
        # a short one first, not counted, so no mode is charged for it
        gym_rate(min(50, args.steps), False, out)
        rate, ms = gym_rate(args.steps, False, out)
        rows.append((f"gym no-op ({ms:.1f} ms/step)", rate, "noop"))
        rate, ms = gym_rate(args.steps, False, out, obs_scale=1.0)
        rows.append((f"gym no-op, full-size observation ({ms:.1f} ms/step)", rate, "screenshot"))
        rate, ms = gym_rate(args.steps, True, out)
        rows.append((f"gym no-op + PNG screenshot ({ms:.1f} ms/step)", rate, "png"))
        if args.reference:
            rate, sim_s, wall, outcome = reference_rate(out)
            rows.append(
                (f"T02 reference lockstep ({sim_s:.0f} sim s in {wall:.0f} wall s, {outcome})", rate, "reference")
            )
    finally:
        for p in burners:
            p.terminate()
        shutil.rmtree(out, ignore_errors=True)
    print(f"\nT09 on jsbsim, {args.steps} steps of 0.1 s, {args.burn} busy processes, {mp.cpu_count()} cores")
    ok = True
    for name, rate, target in rows:
        ratio = rate / base
        verdict = ""
        if target is not None:
            goal = TARGETS["screenshot" if target in INFORMATIONAL else target]
            met = ratio >= goal
            ok &= met or target in INFORMATIONAL
            verdict = f"target >= {goal:g}x: {'MET' if met else 'MISSED'}" + (
                " (information)" if target in INFORMATIONAL else ""
            )
        print(f"  {name:<62} {rate:7.2f} sim s/wall s  {ratio:6.2f}x real time  {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
