"""Native X-Plane UDP client (port 49000): RREF subscriptions, DREF, CMND, BECN discovery.

RREF streams are fire-and-forget UDP: datagrams can be lost, duplicated or reordered. The client
only decodes and timestamps them; `_frames.FrameAssembler` puts them back in simulator-time
order and leaves gaps where packets were lost.
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from simbridge import HarnessError
from simbridge.adapters.kit import Drain
from simbridge.adapters.xplane import _udp_wire as w
from simbridge.adapters.xplane._transport import DatagramTransport

UDP_PORT = 49000


@dataclass(frozen=True)
class RrefPacket:
    """One RREF datagram: arrival time (monotonic, host clock) and dataref name -> value."""

    t_recv: float
    values: dict[str, float]


class UdpClient:
    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = UDP_PORT,
        *,
        transport: DatagramTransport | None = None,
        pace_every: int = 100,
        pace_s: float = 0.05,
        max_queue: int = 100_000,
    ) -> None:
        self.transport = transport or DatagramTransport(host, port)
        self.index_to_name: dict[int, str] = {}
        self._next_index = 0
        self._pace_every, self._pace_s = pace_every, pace_s
        self._queue: Drain[RrefPacket] = Drain(max_queue)
        self._reader: threading.Thread | None = None
        self._stop = threading.Event()
        self.packets_received = 0
        self.packets_bad = 0
        self.last_packet_mono: float | None = None

    # -- subscriptions
    def subscribe(self, names: Sequence[str], hz: int) -> dict[int, str]:
        """Ask X-Plane to send each dataref at `hz` (X-Plane caps the rate at its frame rate).

        Returns index -> name for the new subscriptions. Requests are paced (a short pause every
        `pace_every` subscriptions) so a long list does not flood the simulator's socket.
        """
        if hz <= 0:
            raise ValueError("hz must be positive; use unsubscribe() to stop")
        new: dict[int, str] = {}
        for n, name in enumerate(names):
            if n and n % self._pace_every == 0:
                time.sleep(self._pace_s)
            index = self._next_index
            self._next_index += 1
            self.transport.send(w.encode_rref(hz, index, name))
            new[index] = name
        self.index_to_name.update(new)
        return new

    def unsubscribe(self, indices: Sequence[int] | None = None) -> None:
        """Frequency 0 stops a subscription; default: all of this client's subscriptions."""
        for index in list(self.index_to_name if indices is None else indices):
            name = self.index_to_name.pop(index, None)
            if name is not None:
                self.transport.send(w.encode_rref(0, index, name))

    # -- writes
    def set_dref(self, name: str, value: float) -> None:
        self.transport.send(w.encode_dref(value, name))

    def command(self, path: str) -> None:
        self.transport.send(w.encode_cmnd(path))

    # -- reading
    def _decode(self, data: bytes, t_recv: float) -> RrefPacket | None:
        if data[:4] != b"RREF":
            return None
        try:
            pairs = w.decode_rref(data)
        except w.UdpWireError:
            self.packets_bad += 1
            return None
        values = {self.index_to_name[i]: v for i, v in pairs if i in self.index_to_name}
        self.packets_received += 1
        self.last_packet_mono = t_recv
        return RrefPacket(t_recv, values)

    def receive(self, timeout_s: float | None) -> RrefPacket | None:
        """The next RREF packet (skipping anything else), or None after `timeout_s`."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return None
            data = self.transport.recv(left)
            if data is None:
                return None
            pkt = self._decode(data, time.monotonic())
            if pkt is not None:
                return pkt

    def start_reader(self) -> None:
        """Receive in a background thread so arrival times are not skewed by the caller's loop."""
        if self._reader is not None:
            return
        self._stop.clear()

        def run() -> None:
            while not self._stop.is_set():
                data = self.transport.recv(0.1)
                if data is not None:
                    pkt = self._decode(data, time.monotonic())
                    if pkt is not None:
                        self._queue.put(pkt)

        self._reader = threading.Thread(target=run, name="xplane-rref-reader", daemon=True)
        self._reader.start()

    def drain(self) -> list[RrefPacket]:
        """Packets the reader thread received since the last call, oldest first."""
        return self._queue.drain()

    def stop_reader(self) -> None:
        if self._reader is not None:
            self._stop.set()
            self._reader.join(timeout=1.0)
            self._reader = None

    def close(self) -> None:
        self.stop_reader()
        try:
            self.unsubscribe()
        except OSError:
            pass
        self.transport.close()

    def __enter__(self) -> "UdpClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def listen_beacon(
    timeout_s: float = 3.0, *, group: str | None = w.BEACON_GROUP, port: int = w.BEACON_PORT, bind_host: str = ""
) -> tuple[w.Beacon, str]:
    """Wait for one BECN datagram; returns the beacon and the sender's address.

    `group=None` listens for unicast beacons only (tests on loopback).
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if hasattr(socket, "SO_REUSEPORT"):
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            except OSError:
                pass
        sock.bind((bind_host, port))
        if group is not None:
            mreq = struct.pack("4s4s", socket.inet_aton(group), socket.inet_aton("0.0.0.0"))
            sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
        deadline = time.monotonic() + timeout_s
        while (left := deadline - time.monotonic()) > 0:
            sock.settimeout(left)
            try:
                data, addr = sock.recvfrom(2048)
            except socket.timeout:
                break
            if data[:4] == b"BECN":
                try:
                    return w.decode_becn(data), addr[0]
                except w.UdpWireError:
                    continue
        raise HarnessError(f"no X-Plane beacon on {group or bind_host or '*'}:{port} within {timeout_s:g} s")
    finally:
        sock.close()
