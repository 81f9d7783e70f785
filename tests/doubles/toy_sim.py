"""A test double of a simulator, NOT a simulator: it lets the runner, recorder and agent port be
tested without the JSBSim cockpit.

`ToySimSession` implements `SimSession` by starting this file as a child process on the
sandbox display. The child opens a full-screen pygame window (so keyboard focus, which follows
the pointer on a bare X server, always lands on it) and runs toy kinematics, not a flight
model: holding Left/Right rolls the "bank" at 15°/s, heading turns at g·tan(bank)/V, altitude
and airspeed stay at their initial values. The screen shows the bank as a number and colours
the left half by bank (red = left, blue = right), and `x` toggles a white 200×200 square at the
top-left (a pixel change for key→visible latency). `a` toggles `autopilot_on`, `c` sets
`crashed`, Escape exits with code 3 (a simulator exit). State goes to the host on stdout as
JSON lines at 60 Hz; `pause`/`resume` arrive on stdin. `time_scale` runs simulator time faster
than the wall clock so a 60 s turn takes 15 s of a test.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import threading
import time
from typing import Any

from simbridge._adapter import Sandbox, SimEvent, SimSession, StateSample
from simbridge._adapters_registry import EpisodeCost
from simbridge._errors import HarnessError

SIGNALS = ("bank_deg", "heading_mag_deg", "alt_msl_ft", "ias_kt", "autopilot_on", "crashed", "on_ground")


class ToySimSession(SimSession):
    """Test double: a child pygame window with toy kinematics, publishing canonical signals."""

    sim_name = "toy"
    signals = SIGNALS
    #: what a `module:Class` simulator declares instead of an AdapterSpec's fields
    title = "the toy test double (one pygame window)"
    cost = EpisodeCost(cpu_cores=0.25, mem_mb=250)

    def __init__(self, time_scale: float | None = None, hz: float = 60.0) -> None:
        self.time_scale = float(os.environ.get("TOY_TIME_SCALE", time_scale or 1.0))
        self.hz = hz
        self.proc: subprocess.Popen | None = None
        self._samples: list[StateSample] = []
        self._events: list[SimEvent] = []
        self._lock = threading.Lock()
        self._t = 0.0
        self._ready = threading.Event()
        self._reader: threading.Thread | None = None
        self._crashed = False

    def start(self, task: Any, sandbox: Sandbox, *, seed: int | None = None) -> None:
        init = task.initial_state
        args = {
            "heading": init.heading_deg or 0.0,
            "alt": init.alt_msl_ft or 3500.0,
            "ias": init.ias_kt or 100.0,
            "scale": self.time_scale,
            "hz": self.hz,
        }
        cmd = [sys.executable, os.path.abspath(__file__), json.dumps(args)]
        self.proc = sandbox.spawn(
            cmd,
            name="toy_sim",
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=open(os.path.join(sandbox.workdir, "toy_sim.err"), "wb"),
        )
        self._reader = threading.Thread(target=self._read, name="toy-reader", daemon=True)
        self._reader.start()
        if not self._ready.wait(20):
            self.stop()
            raise HarnessError("toy sim did not start within 20 s")

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue
            t = float(msg.pop("t"))
            with self._lock:
                self._t = t
                self._samples.append(StateSample(t, msg))
                if msg.get("crashed") and not self._crashed:
                    self._crashed = True
                    self._events.append(SimEvent(t, "crash", {"cause": "toy crash key"}))
            self._ready.set()

    def poll(self) -> list[StateSample]:
        with self._lock:
            out, self._samples = self._samples, []
        return out

    def events(self) -> list[SimEvent]:
        with self._lock:
            out, self._events = self._events, []
        return out

    def snapshot(self) -> dict[str, Any]:
        return {"toy": True}

    def sim_time(self) -> float:
        with self._lock:
            return self._t

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def set_paused(self, paused: bool) -> None:
        if not self.alive():
            return
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(b"pause\n" if paused else b"resume\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return
        if not paused:
            return
        # paused means the clock no longer moves: wait for the child's acknowledgement
        deadline = time.monotonic() + 1.0
        last = self.sim_time()
        while time.monotonic() < deadline:
            time.sleep(2.5 / self.hz)
            now = self.sim_time()
            if now == last:
                return
            last = now

    def info(self) -> dict[str, Any]:
        return {"sim_version": "toy-double", "time_scale": self.time_scale, "test_double": True}

    def stop(self) -> None:
        p, self.proc = self.proc, None
        if p is not None and p.poll() is None:
            p.terminate()
            try:
                p.wait(3)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(3)


# ---------------------------------------------------------------------- the child process


def _child(args: dict[str, Any]) -> int:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import select

    import pygame

    pygame.display.init()
    pygame.font.init()
    screen = pygame.display.set_mode((1280, 800), pygame.NOFRAME)
    font = pygame.font.Font(None, 96)
    hz, scale = float(args["hz"]), float(args["scale"])
    bank, hdg, alt, ias = 0.0, float(args["heading"]), float(args["alt"]), float(args["ias"])
    ap, crashed, marker, paused = 0, 0, False, False
    t_sim = 0.0
    last = time.monotonic()
    frame = 0
    drawn = None
    pending = b""
    out = sys.stdout
    stdin_fd = sys.stdin.fileno()
    while True:
        # raw reads: a buffered readline() could swallow "pause\nresume\n" and leave "resume"
        # in Python's buffer where select() cannot see it
        while select.select([stdin_fd], [], [], 0)[0]:
            chunk = os.read(stdin_fd, 4096)
            if not chunk:
                return 0
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                paused = line.strip() == b"pause"
        for ev in pygame.event.get():
            if ev.type == pygame.QUIT:
                return 0
            if ev.type == pygame.KEYDOWN:
                if ev.key == pygame.K_ESCAPE:
                    return 3
                if ev.key == pygame.K_x:
                    marker = not marker
                if ev.key == pygame.K_a:
                    ap = 1 - ap
                if ev.key == pygame.K_c:
                    crashed = 1
        now = time.monotonic()
        dt = min((now - last) * scale, 0.1)  # a stalled frame slows the clock, as real sims do
        last = now
        if not paused:
            keys = pygame.key.get_pressed()
            roll = (keys[pygame.K_RIGHT] - keys[pygame.K_LEFT]) * 15.0
            bank = max(-80.0, min(80.0, bank + roll * dt))
            rate = math.degrees(9.80665 * math.tan(math.radians(bank)) / (ias * 0.514444))
            hdg = (hdg + rate * dt) % 360.0
            t_sim += dt
            out.write(
                json.dumps(
                    {
                        "t": round(t_sim, 4),
                        "bank_deg": round(bank, 4),
                        "heading_mag_deg": round(hdg, 4),
                        "alt_msl_ft": alt,
                        "ias_kt": ias,
                        "autopilot_on": ap,
                        "crashed": crashed,
                        "on_ground": 0,
                    }
                )
                + "\n"
            )
            out.flush()
        look = (round(bank, 1), marker)
        if look != drawn:  # redraw only what changed on screen, as a cheap stand-in for a renderer
            drawn = look
            shade = int(max(0, min(255, abs(bank) * 3)))
            screen.fill((30, 30, 30))
            screen.fill((shade, 0, 0) if bank < 0 else (0, 0, shade), pygame.Rect(0, 0, 640, 800))
            if marker:
                screen.fill((255, 255, 255), pygame.Rect(0, 0, 200, 200))
            screen.blit(font.render(f"BANK {bank:+06.1f}", True, (255, 255, 0)), (700, 350))
            pygame.display.flip()
        frame += 1
        time.sleep(max(0.0, 1.0 / hz - (time.monotonic() - now)))


if __name__ == "__main__":
    sys.exit(_child(json.loads(sys.argv[1])))
