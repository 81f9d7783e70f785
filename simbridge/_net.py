"""A free port for a listener the harness (or a simulator it launches) is about to open.

One helper for the core, every provider and every adapter (the adapters' kit re-exports it): the
OS picks an unused port by binding port 0, and the socket is closed again so the caller can bind it. There is a small window in which another
process may take the port; callers that can bind port 0 themselves should do that instead.
"""

from __future__ import annotations

import socket


def free_port(kind: int = socket.SOCK_STREAM, host: str = "127.0.0.1") -> int:
    """An unused port number on `host` for sockets of `kind` (SOCK_STREAM: TCP, SOCK_DGRAM: UDP)."""
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


__all__ = ["free_port"]
