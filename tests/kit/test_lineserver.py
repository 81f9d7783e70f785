"""The in-sandbox line server, over real loopback sockets: two clients, lines split across
packets, broadcast, a slow client dropped while a reading one keeps its stream."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterator

import pytest

from simbridge.adapters.kit import LineClient, LineServer


class Echo(LineServer[LineClient]):
    """Greets, answers each line upper-cased, closes on `quit`."""

    def __init__(self, max_backlog: int = 1 << 20) -> None:
        super().__init__("127.0.0.1", 0, client_class=LineClient, max_backlog=max_backlog)
        self.lines: list[bytes] = []

    def on_connect(self, c: LineClient) -> None:
        self.queue(c, b"hello\n")

    def on_line(self, c: LineClient, line: bytes) -> bool:
        self.lines.append(line)
        if line == b"quit":
            self.queue(c, b"bye\n")
            return False
        self.queue(c, line.upper() + b"\n")
        return True


@pytest.fixture
def server() -> Iterator[Echo]:
    s = Echo()
    yield s
    s.close()


def _until(server: LineServer, cond: Callable[[], bool], timeout_s: float = 5.0) -> None:
    end = time.monotonic() + timeout_s
    while not cond():
        assert time.monotonic() < end, "condition not met"
        server.poll(0.01)
        server.flush()


def _connect(server: LineServer) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    n = len(server.clients)
    _until(server, lambda: len(server.clients) > n)
    return sock


def _read_line(server: LineServer, sock: socket.socket, buf: bytearray) -> bytes:
    sock.setblocking(False)

    def got() -> bool:
        try:
            chunk = sock.recv(65536)
        except BlockingIOError:
            chunk = b""
        buf.extend(chunk)
        return b"\n" in buf

    _until(server, got)
    i = buf.index(b"\n")
    line = bytes(buf[:i])
    del buf[: i + 1]
    return line


def test_two_clients_greeted_and_answered_apart(server: Echo) -> None:
    a, b = _connect(server), _connect(server)
    ba, bb = bytearray(), bytearray()
    assert _read_line(server, a, ba) == b"hello"
    assert _read_line(server, b, bb) == b"hello"
    a.sendall(b"alpha\n")
    b.sendall(b"beta\n")
    assert _read_line(server, a, ba) == b"ALPHA"
    assert _read_line(server, b, bb) == b"BETA"
    assert not ba and not bb  # no client got the other's answer
    a.close()
    b.close()
    _until(server, lambda: not server.clients)


def test_a_line_split_across_packets_waits_for_its_end(server: Echo) -> None:
    a = _connect(server)
    buf = bytearray()
    assert _read_line(server, a, buf) == b"hello"
    a.sendall(b"spl")
    end = time.monotonic() + 0.2
    while time.monotonic() < end:  # the half line is held, not handled
        server.poll(0.01)
    assert server.lines == []
    a.sendall(b"it\ntwo\nthr")
    assert _read_line(server, a, buf) == b"SPLIT"
    assert _read_line(server, a, buf) == b"TWO"
    a.sendall(b"ee\n")
    assert _read_line(server, a, buf) == b"THREE"
    assert server.lines == [b"split", b"two", b"three"]
    a.close()


def test_closing_line_is_answered_then_the_connection_closed(server: Echo) -> None:
    a = _connect(server)
    buf = bytearray()
    assert _read_line(server, a, buf) == b"hello"
    a.sendall(b"quit\nignored\n")
    assert _read_line(server, a, buf) == b"bye"
    _until(server, lambda: not server.clients)
    a.setblocking(True)
    a.settimeout(5)
    assert a.recv(100) == b""  # closed by the server, nothing after the answer
    assert server.lines == [b"quit"]
    a.close()


def test_broadcast_reaches_every_client_or_the_chosen_ones(server: Echo) -> None:
    a, b = _connect(server), _connect(server)
    ba, bb = bytearray(), bytearray()
    for sock, buf in ((a, ba), (b, bb)):
        assert _read_line(server, sock, buf) == b"hello"
    server.broadcast(b"all\n")
    server.flush()
    assert _read_line(server, a, ba) == b"all"
    assert _read_line(server, b, bb) == b"all"
    only_b = [c for c in server.clients.values() if c.sock.getpeername() == b.getsockname()]
    server.broadcast(b"just-b\n", to=only_b)
    server.broadcast(b"all-again\n")
    server.flush()
    assert _read_line(server, b, bb) == b"just-b"
    assert _read_line(server, a, ba) == b"all-again"
    assert _read_line(server, b, bb) == b"all-again"
    a.close()
    b.close()


def test_a_client_that_does_not_read_is_dropped_the_reader_keeps_its_stream() -> None:
    server = Echo(max_backlog=1 << 16)
    try:
        slow = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        slow.connect(("127.0.0.1", server.port))
        _until(server, lambda: len(server.clients) == 1)
        fast = _connect(server)
        fast.setblocking(False)
        slow_client = next(c for c in server.clients.values() if c.sock.getpeername() == slow.getsockname())
        packet = b"x" * 1023 + b"\n"
        received = 0
        sent = 0
        for _ in range(20000):
            if slow_client.sock not in server.clients:
                break
            server.broadcast(packet * 16)
            sent += len(packet) * 16
            server.poll(0)
            server.flush()
            try:
                while True:
                    chunk = fast.recv(1 << 20)
                    if not chunk:
                        break
                    received += len(chunk)
            except BlockingIOError:
                pass
        assert slow_client.sock not in server.clients, "the slow client was never dropped"
        assert len(server.clients) == 1  # the reader is still served
        reader = next(iter(server.clients.values()))
        _until(server, lambda: not reader.outbuf)
        fast.setblocking(True)
        fast.settimeout(5)
        while received < sent + len(b"hello\n"):
            chunk = fast.recv(1 << 20)
            assert chunk, "the reader's connection closed"
            received += len(chunk)
        assert received == sent + len(b"hello\n")  # every byte of the stream, none lost
        slow.close()
        fast.close()
    finally:
        server.close()
