"""What every generic-protocol receiver shares: decoded samples queued for the harness, the
first and latest sample, packet counts, rates and staleness.

A receiver's transport (UDP datagrams the simulator pushes, or lines over a TCP connection the
host opened) fills the queue (the adapter kit's `Drain`) from its own thread through `_accept`;
the harness drains it.
Malformed packets are counted, not raised: one corrupt packet must not end an episode, but a
stream that stops does — the caller watches `last_packet_age_s()` and `failed`.
"""

from __future__ import annotations

import threading
import time

from simbridge import HarnessError
from simbridge.adapters.fgproto._generic import GenericProtocol
from simbridge.adapters.kit import Drain


class SampleQueue:
    """Decoded `(t_sim, values)` samples, oldest first, with the receiver's statistics."""

    def __init__(self, protocol: GenericProtocol, *, max_queue: int = 100_000) -> None:
        self.protocol = protocol
        self._queue: Drain[tuple[float, dict[str, float]]] = Drain(max_queue)
        self._lock = threading.Lock()  # guards the statistics; the queue has its own
        self._stop = threading.Event()
        self.n_packets = 0
        self.n_bad = 0
        self.last_error = ""
        self._last_rx = 0.0
        self.latest: tuple[float, dict[str, float]] | None = None
        #: (monotonic wall time, t_sim) of the first good packet: rates since the stream began
        self.first: tuple[float, float] | None = None
        #: why the stream ended for good (connection closed, refused); None while it can deliver
        self.failed: str | None = None

    @property
    def label(self) -> str:
        """Where the packets come from, for messages."""
        return "generic protocol"

    def _accept(self, data: bytes) -> None:
        """Decode one packet and queue it (called from the transport's thread)."""
        try:
            sample = self.protocol.decode(data)
        except ValueError as exc:
            self.n_bad += 1
            self.last_error = str(exc)
            return
        self._queue.put(sample)
        with self._lock:
            self.latest = sample
            self.n_packets += 1
            self._last_rx = time.monotonic()
            if self.first is None:
                self.first = (self._last_rx, sample[0])

    def drain(self) -> list[tuple[float, dict[str, float]]]:
        """All samples received since the last call, oldest first."""
        return self._queue.drain()

    def last_packet_age_s(self) -> float:
        """Seconds since the last good packet (infinity before the first)."""
        return time.monotonic() - self._last_rx if self._last_rx else float("inf")

    def rates(self) -> tuple[float | None, float | None]:
        """(packets per wall second, simulator seconds per wall second) since the first packet.
        With one packet per rendered frame these are the frame rate and the real-time factor."""
        if self.first is None or self.latest is None:
            return None, None
        wall = self._last_rx - self.first[0]
        if wall <= 0:
            return None, None
        return (self.n_packets - 1) / wall, (self.latest[0] - self.first[1]) / wall

    def wait_first(self, timeout_s: float) -> tuple[float, dict[str, float]]:
        """Block until one packet arrived; HarnessError after timeout_s or when the stream failed."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.latest is not None:
                return self.latest
            if self.failed is not None:
                raise HarnessError(self.failed)
            time.sleep(0.05)
        raise HarnessError(
            f"{self.label}: no packet within {timeout_s:g} s"
            + (f" ({self.n_bad} malformed: {self.last_error})" if self.n_bad else "")
        )
