"""A threaded UDP receiver for the generic protocol stream.

It binds a loopback port, decodes each packet with a `GenericProtocol`, and queues
`(t_sim, values)` until the harness drains them with `drain()` (the queue, rates and staleness
are `SampleQueue`'s, shared with the TCP stream receiver).
"""

from __future__ import annotations

import socket
import threading

from simbridge import HarnessError
from simbridge.adapters.fgproto._generic import GenericProtocol
from simbridge.adapters.fgproto._receiver import SampleQueue
from simbridge.adapters.kit import enlarge_receive_buffer


class UdpReceiver(SampleQueue):
    """Receive and decode generic-protocol packets on host:port in a daemon thread.

    `port=0` picks a free port (read it from `.port` before launching the sender).
    """

    def __init__(
        self, protocol: GenericProtocol, *, host: str = "127.0.0.1", port: int = 0, max_queue: int = 100_000
    ) -> None:
        super().__init__(protocol, max_queue=max_queue)
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        #: the kernel's buffer for datagrams not yet read (bytes, as the kernel reports it)
        self.receive_buffer_bytes = enlarge_receive_buffer(self._sock)
        try:
            self._sock.bind((host, port))
        except OSError as exc:
            self._sock.close()
            raise HarnessError(f"generic UDP: cannot bind {host}:{port}: {exc}") from None
        self._sock.settimeout(0.2)
        self.host, self.port = self._sock.getsockname()[:2]
        self._thread = threading.Thread(target=self._loop, name=f"fg-udp-{self.port}", daemon=True)

    @property
    def label(self) -> str:
        return f"generic UDP {self.host}:{self.port}"

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
            self._accept(data)

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)
        self._sock.close()

    def __enter__(self) -> "UdpReceiver":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
