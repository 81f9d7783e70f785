"""XPlaneConnect client (UDP 49009): request/reply over the XPC plugin's message set.

The plugin handles at most 20 messages per simulator frame and drops its backlog past that, so
the client paces itself: no more than `MAX_MESSAGES_PER_FRAME` messages per `min_frame_s`
(default 1/20 s, i.e. assumes the sim runs at least at 20 fps). Requests that expect a reply are
retried after `timeout_s`, because UDP can lose either direction.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Iterable, Sequence

from simbridge import HarnessError
from simbridge.adapters.xplane import _xpc_wire as w
from simbridge.adapters.xplane._transport import DatagramTransport

XPC_PORT = 49009


class XpcClient:
    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = XPC_PORT,
        *,
        timeout_s: float = 0.1,
        retries: int = 3,
        min_frame_s: float = 1 / 20,
        transport: DatagramTransport | None = None,
    ) -> None:
        self.transport = transport or DatagramTransport(host, port)
        self.timeout_s = timeout_s
        self.retries = retries
        self.min_frame_s = min_frame_s
        self._sent: collections.deque[float] = collections.deque(maxlen=w.MAX_MESSAGES_PER_FRAME)
        self.client_id: int | None = None

    # -- plumbing
    def _send(self, msg: bytes) -> None:
        if len(self._sent) == self._sent.maxlen:
            wait = self._sent[0] + self.min_frame_s - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        self._sent.append(time.monotonic())
        self.transport.send(msg)

    def _request(self, msg: bytes, reply_tag: bytes) -> bytes:
        # a late reply to an earlier, timed-out request must not be taken for this one
        while self.transport.recv(0) is not None:
            pass
        for _attempt in range(self.retries + 1):
            self._send(msg)
            deadline = time.monotonic() + self.timeout_s
            while (left := deadline - time.monotonic()) > 0:
                data = self.transport.recv(left)
                if data is not None and data[:4] == reply_tag:
                    return data
        raise HarnessError(
            f"XPC: no {reply_tag.decode()} reply to {msg[:4].decode()} from "
            f"{self.transport.remote[0]}:{self.transport.remote[1]} after {self.retries + 1} tries "
            f"({self.timeout_s:g} s each); is the XPlaneConnect plugin installed and the port open?"
        )

    # -- messages
    def conn(self) -> int:
        """CONN: make the plugin reply to this socket's port; returns the plugin's client id."""
        self.client_id = w.decode_conf(self._request(w.encode_conn(self.transport.local_port), b"CONF"))
        return self.client_id

    def get_drefs(self, names: Sequence[str]) -> dict[str, list[float]]:
        """GETD: values of up to 255 datarefs (all as float32; arrays come back whole)."""
        out: dict[str, list[float]] = {}
        for start in range(0, len(names), 255):
            chunk = list(names[start : start + 255])
            values = w.decode_resp(self._request(w.encode_getd(chunk), b"RESP"))
            if len(values) != len(chunk):
                raise HarnessError(f"XPC: asked for {len(chunk)} datarefs, RESP carries {len(values)}")
            out.update(zip(chunk, values))
        return out

    def set_drefs(self, items: Iterable[tuple[str, Sequence[float]]]) -> None:
        """DREF: set one or more datarefs (split into messages under 4096 B)."""
        batch: list[tuple[str, Sequence[float]]] = []
        for item in items:
            trial = batch + [item]
            if len(w.encode_dref(trial)) > w.MAX_MESSAGE_BYTES - 256 and batch:
                self._send(w.encode_dref(batch))
                trial = [item]
            batch = trial
        if batch:
            self._send(w.encode_dref(batch))

    def set_dref(self, name: str, value: float | Sequence[float]) -> None:
        self.set_drefs([(name, [value] if isinstance(value, (int, float)) else value)])

    def pause(self, mode: int = 1) -> None:
        self._send(w.encode_simu(mode))

    def get_posi(self, aircraft: int = 0) -> w.Posi:
        return w.decode_posi(self._request(w.encode_getp(aircraft), b"POSI"))

    def send_posi(
        self,
        lat_deg: float,
        lon_deg: float,
        elev_m_msl: float,
        pitch_deg: float,
        roll_deg: float,
        true_heading_deg: float,
        gear: float = -1.0,
        aircraft: int = 0,
    ) -> None:
        self._send(w.encode_posi(lat_deg, lon_deg, elev_m_msl, pitch_deg, roll_deg, true_heading_deg, gear, aircraft))

    def get_ctrl(self, aircraft: int = 0) -> w.Ctrl:
        return w.decode_ctrl(self._request(w.encode_getc(aircraft), b"CTRL"))

    def send_ctrl(
        self,
        elevator: float = w.UNCHANGED,
        aileron: float = w.UNCHANGED,
        rudder: float = w.UNCHANGED,
        throttle: float = w.UNCHANGED,
        gear: int = -1,
        flaps: float = w.UNCHANGED,
        aircraft: int = 0,
        speedbrake: float = w.UNCHANGED,
    ) -> None:
        """Set the controls; any left out keep their value (UNCHANGED, gear -1)."""
        self._send(w.encode_ctrl(elevator, aileron, rudder, throttle, gear, flaps, aircraft, speedbrake))

    def send_text(self, text: str, x: int = -1, y: int = -1) -> None:
        self._send(w.encode_text(text, x, y))

    def send_wypt(self, op: int, points: Sequence[tuple[float, float, float]]) -> None:
        self._send(w.encode_wypt(op, points))

    def send_view(self, view: int) -> None:
        self._send(w.encode_view(view))

    def send_comm(self, commands: Iterable[str]) -> None:
        self._send(w.encode_comm(commands))

    def close(self) -> None:
        self.transport.close()

    def __enter__(self) -> "XpcClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
