"""The recorder (host side): drains a SimSession's samples and events into the bundle.

A thread polls `SimSession.poll()` / `events()` every `poll_interval_s` and appends what it gets
to the BundleWriter, which flushes to disk at least once a second (so a killed runner loses at
most a second). Samples are passed through at the adapter's rate (adapters publish ≥ 50 Hz);
samples whose time does not advance are dropped so `t` stays monotonic. The recorder measures
the achieved rate and sample-interval jitter for episode.json and the benchmark.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from simbridge._adapter import SimSession
from simbridge._bundle import BundleWriter


class Recorder:
    def __init__(self, session: SimSession, writer: BundleWriter, *, poll_interval_s: float = 0.005) -> None:
        self.session = session
        self.writer = writer
        self.poll_interval_s = poll_interval_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: BaseException | None = None
        self.n_samples = 0
        self.n_dropped = 0
        self.last_t: float | None = None
        self._times: list[float] = []
        #: first time a `crashed` signal went to 1 or a `crash` event arrived (sim seconds)
        self.crash_t: float | None = None
        self.crash_detail = ""
        self._lock = threading.Lock()

    def start(self) -> "Recorder":
        self._thread = threading.Thread(target=self._loop, name="recorder", daemon=True)
        self._thread.start()
        return self

    def _loop(self) -> None:
        try:
            while not self._stop.is_set():
                self.drain()
                self._stop.wait(self.poll_interval_s)
        except BaseException as exc:  # reported to the runner: a harness fault
            self.error = exc

    def drain(self) -> None:
        """Move everything the session has into the writer (also called once more at the end)."""
        with self._lock:
            for s in self.session.poll():
                if self.last_t is not None and s.t_sim <= self.last_t:
                    self.n_dropped += 1
                    continue
                self.writer.sample(s.t_sim, s.values)
                self.last_t = s.t_sim
                self.n_samples += 1
                self._times.append(s.t_sim)
                crashed = s.values.get("crashed")
                if self.crash_t is None and crashed is not None and float(crashed) >= 0.5:
                    self.crash_t = s.t_sim
                    self.crash_detail = "crashed signal set"
            for e in self.session.events():
                self.writer.event(e.t_sim, e.kind, e.data)
                if e.kind == "crash" and self.crash_t is None:
                    self.crash_t = e.t_sim
                    self.crash_detail = f"crash event {e.data}" if e.data else "crash event"

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        if self.error is None:
            try:
                self.drain()
            except Exception as exc:
                self.error = exc
        self.writer.flush()

    def stats(self) -> dict[str, Any]:
        """Achieved sample rate and interval statistics (simulator seconds)."""
        t = np.asarray(self._times)
        if t.size < 3:
            return {"samples": int(t.size)}
        dt = np.diff(t)
        return {
            "samples": int(t.size),
            "rate_hz": float((t.size - 1) / (t[-1] - t[0])),
            "dt_p50_ms": float(np.percentile(dt, 50) * 1e3),
            "dt_p95_ms": float(np.percentile(dt, 95) * 1e3),
            "dt_max_ms": float(dt.max() * 1e3),
            "dropped": self.n_dropped,
        }
