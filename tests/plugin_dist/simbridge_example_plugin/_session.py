"""The simulator `example`: a point mass that climbs on a throttle, in a window of its own.

`ClimbSession` (the host side, a `SimSession`) starts `_world.py` inside the sandbox on its
display and reads the state the program prints on stdout, one JSON line per frame. The program
is the simulator: the agent reaches it only through the screen and the keyboard (Up/Down move
the throttle a notch), never through this session.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from simbridge.sim import HarnessError, Sandbox, SimEvent, SimSession, StateSample

WORLD = Path(__file__).resolve().parent / "_world.py"

SIGNALS = ("alt_agl_ft", "alt_msl_ft", "vs_fpm", "throttle", "on_ground", "crashed")


class ClimbSession(SimSession):
    """A one-dimensional climb: altitude, vertical speed and a ten-notch throttle."""

    sim_name = "example"
    signals = SIGNALS
    controls = (("Up / Down", "throttle one notch up / down (10 notches; 5 holds a steady altitude)"),)
    has_consoles = False

    def __init__(self) -> None:
        self._samples: list[StateSample] = []
        self._events: list[SimEvent] = []
        self._lock = threading.Lock()
        self._t = 0.0
        self._ready = threading.Event()
        self._crashed = False

    def start(self, task: Any, sandbox: Sandbox, *, seed: int | None = None) -> None:
        if sandbox.spawn is None:
            raise HarnessError("the example simulator needs a sandbox that can start a process")
        init = task.initial_state
        args = {"alt_ft": init.alt_agl_ft or 0.0, "elev_ft": (init.alt_msl_ft or 0.0) - (init.alt_agl_ft or 0.0)}
        self.proc = sandbox.spawn(
            [sandbox.python, str(WORLD), json.dumps(args)],
            name="example_world",
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=open(os.path.join(sandbox.workdir, "example_world.err"), "wb"),
        )
        threading.Thread(target=self._read, name="example-reader", daemon=True).start()
        if not self._ready.wait(20 * sandbox.timeout_scale):
            self.stop()
            raise HarnessError("the example simulator did not start within 20 s")

    def _read(self) -> None:
        out = getattr(self.proc, "stdout", None)
        if out is None:
            return
        for line in out:
            try:
                msg = json.loads(line)
                t = float(msg.pop("t"))
            except (ValueError, KeyError, TypeError):
                continue
            with self._lock:
                self._t = t
                self._samples.append(StateSample(t, msg))
                if msg.get("crashed") and not self._crashed:
                    self._crashed = True
                    self._events.append(SimEvent(t, "crash", {"cause": "hit the ground too fast"}))
            self._ready.set()

    def poll(self) -> list[StateSample]:
        with self._lock:
            out, self._samples = self._samples, []
        return out

    def events(self) -> list[SimEvent]:
        with self._lock:
            out, self._events = self._events, []
        return out

    def sim_time(self) -> float:
        with self._lock:
            return self._t

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def set_paused(self, paused: bool) -> None:
        stdin = getattr(self.proc, "stdin", None)
        if not self.alive() or stdin is None:
            return
        try:
            stdin.write(b"pause\n" if paused else b"resume\n")
            stdin.flush()
        except OSError:
            return
        if paused:  # paused means the clock stands still: wait until it does
            deadline, last = time.monotonic() + 1.0, self.sim_time()
            while time.monotonic() < deadline:
                time.sleep(0.05)
                if self.sim_time() == last:
                    return
                last = self.sim_time()

    def info(self) -> dict[str, Any]:
        return {"sim_version": "example-climb 0.1"}

    def stop(self) -> None:
        p, self.proc = self.proc, None
        if p is not None and p.poll() is None:
            p.terminate()
            try:
                p.wait(3)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(3)
