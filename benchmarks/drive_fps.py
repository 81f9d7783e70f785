"""Frames per second of the embedded driving simulator's window on ONE core.

    python benchmarks/drive_fps.py [--town Town03] [--frames 300] [--xvfb] [--world]

Pins itself to one CPU (os.sched_setaffinity) and measures, at 1280 x 800 with pygame's software
renderer:

* baseline: the bare loop (fill the window, flip) — what the display path alone costs;
* view: `DriverView.draw` + flip while the ego moves along the town's lanes, with 10 vehicles, a
  pedestrian and three traffic-light heads ahead of it (all in view), a route on the minimap;
* world (--world): the sandbox process's frame as `simbridge.adapters.drive.world.sim` runs it —
  keyboard, `World.step` (SUMO + ego dynamics), `World.frame`, draw, flip — on T06's scenario.

Prints fps, milliseconds per frame (p50/p95) and each loop's ratio to the 20 fps target and to
the baseline. By default SDL's dummy video driver (no display); --xvfb starts a private Xvfb and
flips to it (the copy to an X server included), killing it at the end; the window is presented
as the sandbox presents it (SDL_FRAMEBUFFER_ACCELERATION=0, MIT-SHM), or with --gl-present through
SDL's default OpenGL path on software Mesa (about 10 ms of CPU per flip more).
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_FPS = 20.0


def _pin_one_core() -> int:
    cpu = sorted(os.sched_getaffinity(0))[-1]
    os.sched_setaffinity(0, {cpu})
    return cpu


def _start_xvfb() -> tuple[subprocess.Popen[bytes], str]:
    exe = shutil.which("Xvfb")
    if exe is None:
        sys.exit("drive_fps: --xvfb needs Xvfb on PATH (apt-get install xvfb)")
    for n in range(180, 200):
        if not Path(f"/tmp/.X11-unix/X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists():
            proc = subprocess.Popen([exe, f":{n}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"])
            for _ in range(100):
                if Path(f"/tmp/.X11-unix/X{n}").exists():
                    return proc, f":{n}"
                time.sleep(0.05)
            proc.kill()
            proc.wait()
    sys.exit("drive_fps: could not start Xvfb")


class Timer:
    """Wall and CPU time of each frame: on a shared machine the CPU time is what one core costs."""

    def __init__(self) -> None:
        self.wall_s: list[float] = []
        self.cpu_s: list[float] = []

    def __enter__(self) -> Timer:
        self._w, self._c = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall_s.append(time.perf_counter() - self._w)
        self.cpu_s.append(time.process_time() - self._c)


def _report(name: str, t: Timer, baseline_fps: float | None) -> float:
    """Print wall fps (p50/p95 ms) and CPU fps (frames per CPU second); returns the CPU fps."""
    ms = sorted(x * 1000 for x in t.wall_s)
    wall_fps = len(ms) / sum(t.wall_s)
    cpu_fps = len(t.cpu_s) / max(sum(t.cpu_s), 1e-9)
    extra = f"  {cpu_fps / baseline_fps:.3f}x baseline" if baseline_fps else ""
    print(
        f"{name:<9} wall {wall_fps:7.1f} fps (p50 {ms[len(ms) // 2]:5.1f} ms, p95 {ms[int(len(ms) * 0.95)]:5.1f} ms)"
        f"  cpu {cpu_fps:7.1f} fps  {cpu_fps / TARGET_FPS:5.2f}x the {TARGET_FPS:.0f} fps target{extra}"
    )
    return cpu_fps


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--town", default="Town03", choices=["Town01", "Town03", "Town04"])
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--xvfb", action="store_true", help="flip to a private Xvfb instead of SDL's dummy driver")
    ap.add_argument("--world", action="store_true", help="also time the whole sandbox frame (SUMO + dynamics + view)")
    ap.add_argument(
        "--process",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="also run the sandbox process itself (python -m simbridge.adapters.drive.world.sim, T06) on the"
        " same core for SECONDS of wall time after the host's run command (needs --xvfb)",
    )
    ap.add_argument(
        "--gl-present",
        action="store_true",
        help="present through SDL's default OpenGL framebuffer (software Mesa) instead of the plain X11 one the sandbox uses",
    )
    args = ap.parse_args()
    if args.frames < 10:
        ap.error("--frames must be at least 10")
    if args.process and not args.xvfb:
        ap.error("--process needs --xvfb (the sandbox process opens its window on a display)")
    cpu = _pin_one_core()
    xvfb = None
    if args.xvfb:
        xvfb, display = _start_xvfb()
        os.environ["DISPLAY"] = display
        os.environ.pop("SDL_VIDEODRIVER", None)
        # as adapters/drive/world/sim.py: the plain X11 framebuffer (MIT-SHM), not software OpenGL
        os.environ["SDL_FRAMEBUFFER_ACCELERATION"] = "1" if args.gl_present else "0"
    else:
        os.environ["SDL_VIDEODRIVER"] = "dummy"
    os.environ["SDL_AUDIODRIVER"] = "dummy"
    os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"
    try:
        rc = _run(args, cpu)
        if args.process:
            _process(args, cpu)
        return rc
    finally:
        if xvfb is not None:
            xvfb.terminate()
            try:
                xvfb.wait(5)
            except subprocess.TimeoutExpired:
                xvfb.kill()
                xvfb.wait()


def _run(args: argparse.Namespace, cpu: int) -> int:
    import numpy as np
    import pygame

    from simbridge.adapters.drive.world import _net
    from simbridge.adapters.drive.world._roads import RoadGeometry
    from simbridge.adapters.drive.world._scene import Actor, EgoControls, Frame, LightHead
    from simbridge.adapters.drive.world._view import DriverView

    t0 = time.perf_counter()
    geo = RoadGeometry.from_net(_net.net_path(args.town), town=args.town)
    build_s = time.perf_counter() - t0
    pygame.init()
    screen = pygame.display.set_mode((1280, 800))
    view = DriverView(roads=geo)
    print(
        f"{args.town}: {len(geo.lanes)} lanes, {len(geo.polygons)} ground polygons, geometry {build_s:.2f} s;"
        f" pinned to cpu {cpu}; video driver {pygame.display.get_driver()}"
    )

    timer = Timer()
    for i in range(args.frames):
        with timer:
            pygame.event.pump()
            screen.fill((70 + i % 50, 110, 60))
            pygame.display.flip()
    base_fps = _report("baseline", timer, None)

    # ego poses along the longest lanes, 1 m apart
    poses = []
    for lane in sorted(geo.lanes, key=lambda ln: -float(np.hypot(*np.diff(ln.centre_xy_m, axis=0).T).sum()))[:12]:
        c = lane.centre_xy_m
        for a, b in zip(c[:-1], c[1:], strict=True):
            seg = float(np.hypot(*(b - a)))
            yaw = math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))
            for s in np.arange(0.0, seg, 1.0):
                p = a + (b - a) * (s / seg)
                poses.append((float(p[0]), float(p[1]), yaw))
    timer, polys = Timer(), []
    for i in range(args.frames):
        x, y, yaw = poses[i % len(poses)]
        hx, hy = math.cos(math.radians(yaw)), math.sin(math.radians(yaw))

        def at(fwd: float, right: float) -> tuple[float, float]:
            return x + hx * fwd - hy * right, y + hy * fwd + hx * right  # noqa: B023

        actors = tuple(
            Actor(f"v{k}", "vehicle", *at(10 + 7 * k, 3.5 * (k % 3 - 1)), yaw, 4.8, 2.0, 1.5, (150, 40 + 15 * k, 50))
            for k in range(10)
        ) + (Actor("w", "pedestrian", *at(14, 6), yaw + 90, 0.3, 0.5, 1.8, (60, 90, 140)),)
        lights = tuple(
            LightHead(f"l{k}", *at(25 + 18 * k, 5), yaw + 180, s) for k, s in enumerate(("red", "yellow", "green"))
        )
        route = tuple(at(d, 0) for d in range(0, 120, 10))
        frame = Frame(
            i * 0.05,
            args.town,
            x,
            y,
            yaw,
            50.0,
            EgoControls(throttle=0.4),
            actors,
            lights,
            route,
            collisions=((1.0, "vehicle"),),
        )
        with timer:
            pygame.event.pump()
            view.draw(screen, frame)
            pygame.display.flip()
        polys.append(view.polygons_drawn)
    _report("view", timer, base_fps)
    print(f"          {np.mean(polys):.0f} polygons per frame (max {max(polys)})")
    if args.world:
        _world(args, screen, view, base_fps)
    pygame.quit()
    return 0


def _world(args: argparse.Namespace, screen: object, view: object, base_fps: float) -> None:
    """The sandbox process's own frame, on T06's scenario (as `sim.main` runs it, without the socket)."""
    import pygame

    try:
        from simbridge._task import load_task
        from simbridge.adapters.drive import _scenario, _world
        from simbridge.adapters.drive.world._keys import KeyboardControl
        from simbridge.adapters.drive.world._roads import RoadGeometry
        from simbridge.adapters.drive.world._view import DriverView
    except ImportError as exc:
        print(f"world     not measured: {exc}")
        return
    try:
        scenario = _scenario.from_task(load_task("T06"), seed=0)
    except Exception as exc:
        print(f"world     not measured: cannot build T06's scenario ({type(exc).__name__}: {exc})")
        return
    world = _world.World(scenario)
    try:
        keys = KeyboardControl()
        view = DriverView(roads=RoadGeometry.from_net(world.net))
        timer = Timer()
        for _ in range(args.frames):
            with timer:
                controls = keys.update(pygame.event.get(), pygame.key.get_pressed(), 50.0)
                world.step(controls)  # a key-less agent: the ego stands, SUMO's traffic and lights run
                world.sample()
                view.draw(screen, world.frame())  # type: ignore[attr-defined]
                pygame.display.flip()
        _report("world", timer, base_fps)
    finally:
        world.close()


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process (from /proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _process(args: argparse.Namespace, cpu: int) -> None:
    """The sandbox process as the host runs it: real-time factor and CPU per simulated second."""
    import json
    import socket

    from simbridge._task import load_task
    from simbridge.adapters.drive import _scenario
    from simbridge.adapters.kit import free_port

    scenario = _scenario.from_task(load_task("T06"), seed=0).to_json()
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "simbridge.adapters.drive.world.sim", "--scenario-json", scenario, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=lambda: os.sched_setaffinity(0, {cpu}),
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=1)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    print(f"process   not measured: the sandbox process exited ({proc.returncode}) or never listened")
                    return
                time.sleep(0.2)
        reader = sock.makefile("rb")
        json.loads(reader.readline())  # hello
        sock.sendall(b'{"cmd": "run"}\n')
        cpu0, wall0 = _cpu_s(proc.pid), time.monotonic()
        t0 = t_last = None
        samples = 0
        sock.settimeout(2.0)
        while time.monotonic() - wall0 < args.process:
            line = reader.readline()
            if not line:
                break
            msg = json.loads(line)
            if "sample" in msg:
                samples += 1
                t_last = float(msg["sample"]["t"])
                t0 = t_last if t0 is None else t0
        wall = time.monotonic() - wall0
        cpu_used = _cpu_s(proc.pid) - cpu0
        sock.sendall(b'{"cmd": "exit"}\n')
        sock.close()
        sim = (t_last - t0) if t0 is not None and t_last is not None else 0.0
        print(
            f"process   {samples} steps, {sim:.1f} sim s in {wall:.1f} wall s = {sim / wall:.2f}x real time;"
            f" {cpu_used:.1f} CPU s ({cpu_used / max(sim, 1e-9):.2f} CPU s per sim s, one core = 1.00)"
        )
    finally:
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    sys.exit(main())
