"""Generic-protocol packets over a TCP connection the host opens.

For sandboxes that may send nothing to the host (a VM on QEMU user networking with
`restrict=on`): the simulator cannot push UDP datagrams to the harness, but the host can
connect to the simulator's forwarded state port and ask for the stream. The wire format is the
text generic protocol, one packet per line (`<t_sim>,<v1>,...,<vn>\\n`, see `_generic`), so the
same `GenericProtocol` decodes it and the task clock is the first field, as over UDP.

`request` is what turns the connection into a stream (the embedded JSBSim cockpit's telnet
port takes `data` then `stream`). A line starting with `-ERR` (the server refused) or the
connection closing ends the stream for good: `failed` says why, and the caller treats it as a
lost simulator (a harness fault).
"""

from __future__ import annotations

import socket
import threading

from simbridge import HarnessError
from simbridge.adapters.fgproto._generic import GenericProtocol
from simbridge.adapters.fgproto._receiver import SampleQueue

#: a line longer than this is not a packet: the peer is not speaking the protocol
MAX_LINE_BYTES = 1 << 20


class TcpStreamReceiver(SampleQueue):
    """Connect to host:port, send `request`, decode one packet per line in a daemon thread."""

    def __init__(
        self,
        protocol: GenericProtocol,
        host: str,
        port: int,
        *,
        request: bytes = b"",
        connect_timeout_s: float = 5.0,
        max_queue: int = 100_000,
    ) -> None:
        super().__init__(protocol, max_queue=max_queue)
        self.host, self.port = host, port
        self.request = request
        self.connect_timeout_s = connect_timeout_s
        self._sock: socket.socket | None = None
        self._thread = threading.Thread(target=self._loop, name=f"fg-tcp-{port}", daemon=True)

    @property
    def label(self) -> str:
        return f"generic stream {self.host}:{self.port}"

    def start(self) -> "TcpStreamReceiver":
        try:
            sock = socket.create_connection((self.host, self.port), timeout=self.connect_timeout_s)
        except OSError as exc:
            raise HarnessError(f"{self.label}: cannot connect: {exc}") from None
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            if self.request:
                sock.sendall(self.request)
        except OSError as exc:
            sock.close()
            raise HarnessError(f"{self.label}: cannot send the stream request: {exc}") from None
        sock.settimeout(0.2)
        self._sock = sock
        self._thread.start()
        return self

    def _loop(self) -> None:
        assert self._sock is not None
        buf = b""
        while not self._stop.is_set():
            try:
                chunk = self._sock.recv(65536)
            except socket.timeout:
                continue
            except OSError as exc:
                self.failed = f"{self.label}: receive failed: {exc}"
                return
            if not chunk:
                self.failed = f"{self.label}: connection closed by the simulator"
                return
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in lines:
                line = line.strip()
                if line.startswith(b"-ERR"):
                    self.failed = f"{self.label}: the simulator refused the stream: {line.decode('utf-8', 'replace')}"
                    return
                if line:
                    self._accept(line)
            if len(buf) > MAX_LINE_BYTES:
                self.failed = f"{self.label}: no line end in {len(buf)} bytes: not a generic-protocol stream"
                return

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)
        if self._sock is not None:
            try:
                self._sock.close()
            finally:
                self._sock = None

    def __enter__(self) -> "TcpStreamReceiver":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
