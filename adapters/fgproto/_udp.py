"""A threaded UDP receiver for the generic protocol stream.

It binds a loopback port, decodes each packet with a `GenericProtocol`, and queues
`(t_sim, values)` until the harness drains them with `drain()`. Malformed packets are counted,
not raised: one corrupt datagram must not end an episode, but a stream that stops does — the
caller watches `last_packet_age_s()`.
"""

from __future__ import annotations

import socket
import threading
import time
from collections import deque

from simbridge._errors import HarnessError
from simbridge.adapters.fgproto._generic import GenericProtocol


class UdpReceiver:
    """Receive and decode generic-protocol packets on host:port in a daemon thread.

    `port=0` picks a free port (read it from `.port` before launching the sender).
    """

    def __init__(self, protocol: GenericProtocol, *, host: str = "127.0.0.1", port: int = 0, max_queue: int = 100_000) -> None:
        self.protocol = protocol
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            self._sock.bind((host, port))
        except OSError as exc:
            self._sock.close()
            raise HarnessError(f"generic UDP: cannot bind {host}:{port}: {exc}") from None
        self._sock.settimeout(0.2)
        self.host, self.port = self._sock.getsockname()[:2]
        self._queue: deque[tuple[float, dict[str, float]]] = deque(maxlen=max_queue)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"fg-udp-{self.port}", daemon=True)
        self.n_packets = 0
        self.n_bad = 0
        self.last_error = ""
        self._last_rx = 0.0
        self.latest: tuple[float, dict[str, float]] | None = None
        #: (monotonic wall time, t_sim) of the first good packet: rates since the stream began
        self.first: tuple[float, float] | None = None

    def start(self) -> "UdpReceiver":
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                data = self._sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                break
            try:
                sample = self.protocol.decode(data)
            except ValueError as exc:
                self.n_bad += 1
                self.last_error = str(exc)
                continue
            with self._lock:
                self._queue.append(sample)
                self.latest = sample
                self.n_packets += 1
                self._last_rx = time.monotonic()
                if self.first is None:
                    self.first = (self._last_rx, sample[0])

    def drain(self) -> list[tuple[float, dict[str, float]]]:
        """All samples received since the last call, oldest first."""
        with self._lock:
            out = list(self._queue)
            self._queue.clear()
        return out

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
        """Block until one packet arrived; HarnessError after timeout_s."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.latest is not None:
                return self.latest
            time.sleep(0.05)
        raise HarnessError(
            f"generic UDP {self.host}:{self.port}: no packet within {timeout_s:g} s"
            + (f" ({self.n_bad} malformed: {self.last_error})" if self.n_bad else "")
        )

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)
        self._sock.close()

    def __enter__(self) -> "UdpReceiver":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
