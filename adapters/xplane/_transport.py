"""The datagram transport the UDP clients sit on.

Clients build and parse messages; the transport only moves bytes. Tests swap the peer (the
X-Plane double listens on loopback) without touching client code.
"""

from __future__ import annotations

import ipaddress
import socket

from simbridge.adapters.kit import RECEIVE_BUFFER_BYTES, enlarge_receive_buffer


def default_bind_host(remote_host: str) -> str:
    """Loopback peers get a loopback socket; anything else needs all interfaces to hear replies."""
    try:
        return "127.0.0.1" if ipaddress.ip_address(socket.gethostbyname(remote_host)).is_loopback else "0.0.0.0"
    except (OSError, ValueError):
        return "0.0.0.0"


class DatagramTransport:
    """One UDP socket talking to one remote (host, port)."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        bind_host: str | None = None,
        bind_port: int = 0,
        recv_buffer_bytes: int = RECEIVE_BUFFER_BYTES,
    ) -> None:
        self.remote = (socket.gethostbyname(host), port)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        enlarge_receive_buffer(self.sock, recv_buffer_bytes)
        self.sock.bind((bind_host if bind_host is not None else default_bind_host(host), bind_port))
        self.closed = False

    @property
    def local_port(self) -> int:
        return self.sock.getsockname()[1]

    def send(self, data: bytes) -> None:
        self.sock.sendto(data, self.remote)

    def recv(self, timeout_s: float | None) -> bytes | None:
        """One datagram from anyone, or None after `timeout_s` (None blocks)."""
        self.sock.settimeout(timeout_s)
        try:
            data, _addr = self.sock.recvfrom(65535)
        except (socket.timeout, BlockingIOError):
            return None
        except OSError:
            if self.closed:
                return None
            raise
        return data

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.sock.close()
