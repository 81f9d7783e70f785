"""A non-blocking TCP line server for the programs that run inside a sandbox and serve their
state to the host (the JSBSim cockpit's telnet port, the drive world's state port).

`LineServer` accepts clients on a non-blocking listening socket, keeps a line buffer in and an
output buffer out per client, sends without blocking the program's loop, broadcasts, and drops a
client that falls more than `max_backlog` bytes behind. A program keeps only its protocol: it
subclasses `LineServer` and answers `on_line` (and, if it greets, `on_connect`).

Only the standard library: it runs in the sandbox's program loop, one `poll` per frame.
"""

from __future__ import annotations

import selectors
import socket
from collections.abc import Iterable
from typing import Generic, TypeVar

#: bytes of unsent output a client may owe before it is dropped (~minutes of state lines)
MAX_BACKLOG = 8 << 20


class LineClient:
    """One connection: its socket, the bytes of a line not yet ended, the bytes not yet sent."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.inbuf = b""
        self.outbuf = b""


C = TypeVar("C", bound=LineClient)


class LineServer(Generic[C]):
    """Accept, read lines, queue and send output; the protocol is the subclass's `on_line`.

    `poll` serves what is waiting: new connections (`on_connect`), each complete line of a
    client (`on_line`; lines end LF, a line split across packets waits in the client's input
    buffer), then `answer` for that client (default: send without blocking). `queue` and
    `broadcast` add output; `flush` sends every client what it is owed without blocking."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        client_class: type[C],
        listen_backlog: int = 8,
        max_backlog: int = MAX_BACKLOG,
    ) -> None:
        self.client_class = client_class
        self.max_backlog = max_backlog
        self.sel = selectors.DefaultSelector()
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind((host, port))
        self.listener.listen(listen_backlog)
        self.listener.setblocking(False)
        self.port: int = self.listener.getsockname()[1]
        self.sel.register(self.listener, selectors.EVENT_READ, None)
        self.clients: dict[socket.socket, C] = {}

    # ------------------------------------------------------------ the protocol's hooks

    def on_connect(self, c: C) -> None:
        """A client was accepted (queue a greeting here)."""

    def on_line(self, c: C, line: bytes) -> bool:
        """One complete line from `c` (without its LF); False to close the connection."""
        return True

    def answer(self, c: C) -> None:
        """Send what `c` is owed after its lines were handled (default: without blocking)."""
        self.push(c)

    # ------------------------------------------------------------ serving

    def poll(self, timeout_s: float = 0.0) -> None:
        """Accept and read whatever is waiting (up to `timeout_s` for the first event)."""
        for key, _ in self.sel.select(timeout_s):
            if key.data is None:
                self._accept()
                continue
            c: C = key.data
            try:
                chunk = c.sock.recv(65536)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                chunk = b""
            if not chunk:
                self.drop(c)
                continue
            c.inbuf += chunk
            while b"\n" in c.inbuf:
                line, c.inbuf = c.inbuf.split(b"\n", 1)
                if not self.on_line(c, line):
                    self.answer(c)
                    self.drop(c)
                    break
            else:
                self.answer(c)

    def _accept(self) -> None:
        try:
            sock, _ = self.listener.accept()
        except BlockingIOError:
            return
        sock.setblocking(False)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        c = self.client_class(sock)
        self.clients[sock] = c
        self.sel.register(sock, selectors.EVENT_READ, c)
        self.on_connect(c)

    def queue(self, c: C, data: bytes) -> None:
        """Add `data` to what `c` is owed (sent at the next `push`/`flush`)."""
        c.outbuf += data

    def broadcast(self, data: bytes, to: Iterable[C] | None = None) -> None:
        """Queue `data` for every client (or those of `to`)."""
        for c in list(self.clients.values()) if to is None else list(to):
            c.outbuf += data

    def push(self, c: C) -> None:
        """Send what `c` is owed without blocking; drop it when it errs or owes more than
        `max_backlog` bytes (its reader is gone or hopelessly behind)."""
        if not c.outbuf:
            return
        try:
            sent = c.sock.send(c.outbuf)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:
            self.drop(c)
            return
        c.outbuf = c.outbuf[sent:]
        if len(c.outbuf) > self.max_backlog:
            self.drop(c)

    def flush(self) -> None:
        """`push` every client that is owed something."""
        for c in [c for c in self.clients.values() if c.outbuf]:
            self.push(c)

    def drop(self, c: C) -> None:
        """Close a client's connection (twice is harmless)."""
        try:
            self.sel.unregister(c.sock)
        except (KeyError, ValueError):
            pass
        c.sock.close()
        self.clients.pop(c.sock, None)

    def close(self) -> None:
        """Drop every client and close the listener (unsent output is discarded)."""
        for c in list(self.clients.values()):
            self.drop(c)
        self.sel.unregister(self.listener)
        self.listener.close()
        self.sel.close()
