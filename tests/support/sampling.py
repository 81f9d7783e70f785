"""`SessionSampler`: the runner's recording loop in miniature, for tests that drive a SimSession
themselves (the FlightGear integration tests, the red-team suite).

A thread polls the session every 20 ms, so its clock stays current (the session's `poll` is what
advances a recorder's view of the simulator), and keeps what came: every sample (tests cut
bundles from them) and the latest values.
"""

from __future__ import annotations

import threading
import time
from typing import Any


class SessionSampler:
    """Polls `session` on a daemon thread until `stop()`."""

    def __init__(self, session: Any, *, period_s: float = 0.02, keep: bool = True) -> None:
        self.session = session
        self.period_s = period_s
        #: keep every sample (False: only the latest values, for long runs that need no more)
        self.keep = keep
        #: every sample polled so far (the session's `Sample`s, in order)
        self.samples: list[Any] = []
        #: the latest sample's values (the canonical signals the session streams)
        self.last: dict[str, Any] = {}
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            got = self.session.poll()
            if got:
                with self._lock:
                    if self.keep:
                        self.samples.extend(got)
                    self.last = dict(got[-1].values)
            self._stop.wait(self.period_s)

    def upto(self, t_end: float | None = None) -> list[Any]:
        """The samples up to simulator time `t_end` (all of them for None)."""
        with self._lock:
            return [s for s in self.samples if t_end is None or s.t_sim <= t_end]

    def wait_sim(self, t_sim: float, timeout_s: float = 240.0) -> float:
        """Until the sampled stream reaches simulator time `t_sim` (polling, never a fixed sleep);
        returns the simulator time reached."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            got = self.upto()
            if got and got[-1].t_sim >= t_sim:
                return float(got[-1].t_sim)
            time.sleep(0.2)
        raise AssertionError(f"simulator time did not reach {t_sim:g} s in {timeout_s:g} s wall")

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
