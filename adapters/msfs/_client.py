"""SimConnectClient: the SimConnect calls the harness makes, on a reader thread.

One reader thread turns server frames into decoded data frames, events and exceptions. Every
call is remembered by its send id, so a SIMCONNECT_RECV_EXCEPTION names the call that caused it
("AddToDataDefinition 'PLANE BANK DEGREEZ' (define 1, datum 3): NAME_UNRECOGNIZED"). Definitions,
subscriptions and data requests are replayed by `reconnect()` after MSFS restarts.

Writing to the simulation (`set_data`, `flight_load`) is for the setup only: `end_setup()` is
called before the agent's turn and every later write raises, so the harness cannot fly for the
agent. Client events (`transmit_event`) stay open for pause/resume (lockstep).
"""

from __future__ import annotations

import collections
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from simbridge import HarnessError
from simbridge.adapters.msfs import _wire as w
from simbridge.adapters.msfs._transport import SimConnectTransport
from simbridge.adapters.msfs._wire import DataType, Fn, Period, RequestFlag


class SetupClosed(HarnessError):
    """A write to the simulation after the setup (during the agent's turn)."""


@dataclass(frozen=True)
class Datum:
    """One SimVar in a data definition, with the units and datum type asked of SimConnect."""

    name: str
    units: str | None
    datatype: DataType = DataType.FLOAT64
    epsilon: float = 0.0


@dataclass
class DataFrame:
    """One decoded SIMOBJECT_DATA message. `values` are in definition order (None for a datum a
    tagged message left out); `t_mono` is when the reader decoded it."""

    request_id: int
    values: list[Any]
    t_mono: float
    flags: int
    decode_s: float


@dataclass
class ClientException:
    exception: str
    send_id: int
    index: int
    call: str


def _unknown_call(send_id: int) -> str:
    return f"unknown call (send id {send_id})"


@dataclass
class _Request:
    request_id: int
    define_id: int
    period: Period
    flags: int
    frames: collections.deque[DataFrame] = field(default_factory=lambda: collections.deque(maxlen=100_000))
    received: int = 0


class SimConnectClient:
    def __init__(self, transport_factory: Callable[[], SimConnectTransport], *, app_name: str = "simbridge") -> None:
        self.transport_factory = transport_factory
        self.app_name = app_name
        self.transport: SimConnectTransport | None = None
        self.server: w.RecvOpen | None = None
        self.server_protocol: int | None = None
        self.definitions: dict[int, list[Datum]] = {}
        self.requests: dict[int, _Request] = {}
        self.subscriptions: dict[int, str] = {}
        self.mapped: dict[int, str] = {}
        self.exceptions: list[ClientException] = []
        self.events: collections.deque[tuple[float, w.RecvEvent]] = collections.deque(maxlen=10_000)
        self.quit = False
        self.lost: str | None = None
        self.setup_open = True
        self.last_message_mono: float | None = None
        self.reconnects = 0
        self._sent: collections.OrderedDict[int, str] = collections.OrderedDict()
        self._lock = threading.Lock()
        self._opened = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._event_callbacks: list[Callable[[w.RecvEvent], None]] = []

    # -- connection
    def open(self, timeout_s: float = 10.0) -> w.RecvOpen:
        """Connect, send Open and wait for the server's Open reply."""
        self.transport = self.transport_factory()
        self._opened.clear()
        self.quit, self.lost = False, None
        self.transport.connect(self.app_name, timeout_s)
        self._stop.clear()
        self._thread = threading.Thread(target=self._read_loop, name="simconnect-reader", daemon=True)
        self._thread.start()
        if not self._opened.wait(timeout_s):
            where = self.transport.where
            self.close()
            raise HarnessError(
                f"msfs: SimConnect at {where} sent no Open reply within {timeout_s:g} s "
                f"(not a SimConnect server, or it refused protocol {int(self.transport.protocol)})"
            )
        assert self.server is not None
        return self.server

    def reconnect(self, timeout_s: float = 60.0, *, retry_s: float = 1.0) -> w.RecvOpen:
        """After a Quit or a lost connection (MSFS restarted): open again and replay the
        definitions, subscriptions, event maps and periodic requests."""
        defs, subs, maps = dict(self.definitions), dict(self.subscriptions), dict(self.mapped)
        reqs = list(self.requests.values())
        self.close()
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                server = self.open(min(10.0, max(0.5, deadline - time.monotonic())))
                break
            except HarnessError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(retry_s)
        self.definitions, self.subscriptions, self.mapped = {}, {}, {}
        for define_id, datums in defs.items():
            self.define(define_id, datums)
        for ev, name in subs.items():
            self.subscribe(ev, name)
        for ev, name in maps.items():
            self.map_event(ev, name)
        for r in reqs:
            self.request(r.request_id, r.define_id, r.period, r.flags, frames=r.frames)
        self.reconnects += 1
        return server

    def close(self) -> None:
        self._stop.set()
        if self.transport is not None:
            self.transport.close()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
        self._thread = None

    @property
    def connected(self) -> bool:
        return self.transport is not None and self._opened.is_set() and not self.quit and self.lost is None

    # -- calls
    def _call(self, fn: Fn, what: str, *args: Any) -> int:
        if self.transport is None:
            raise HarnessError("msfs: SimConnect client is not open")
        send_id = self.transport.call(fn, *args)
        with self._lock:
            self._sent[send_id] = what
            while len(self._sent) > 4096:
                self._sent.popitem(last=False)
            # The server may answer before the call is recorded: name it now.
            for e in reversed(self.exceptions[-16:]):
                if e.send_id == send_id and e.call == _unknown_call(send_id):
                    e.call = what
        return send_id

    def define(self, define_id: int, datums: list[Datum]) -> list[int]:
        """AddToDataDefinition for each datum (explicit units and datum type); the send ids."""
        ids = []
        for i, d in enumerate(datums):
            if d.datatype not in w.DATUM_FORMAT:
                raise HarnessError(f"msfs: datum {d.name!r}: datatype {d.datatype!r} is not decoded by the harness")
            ids.append(
                self._call(
                    Fn.ADD_TO_DATA_DEFINITION,
                    f"AddToDataDefinition {d.name!r} [{d.units}] (define {define_id}, datum {i})",
                    define_id,
                    d.name,
                    d.units,
                    d.datatype,
                    d.epsilon,
                    i,
                )
            )
        self.definitions[define_id] = list(datums)
        return ids

    def request(
        self,
        request_id: int,
        define_id: int,
        period: Period,
        flags: int = RequestFlag.DEFAULT,
        *,
        object_id: int = w.OBJECT_ID_USER,
        frames: collections.deque[DataFrame] | None = None,
    ) -> int:
        if define_id not in self.definitions:
            raise HarnessError(f"msfs: request {request_id} names define {define_id}, which was never defined")
        req = _Request(request_id, define_id, Period(period), int(flags))
        if frames is not None:
            req.frames = frames
        self.requests[request_id] = req
        return self._call(
            Fn.REQUEST_DATA_ON_SIM_OBJECT,
            f"RequestDataOnSimObject request {request_id} define {define_id} {Period(period).name}",
            request_id,
            define_id,
            object_id,
            Period(period),
            int(flags),
        )

    def read_once(self, define_id: int, request_id: int, timeout_s: float = 5.0) -> list[Any]:
        """One ONCE request, waited for (snapshots)."""
        self.request(request_id, define_id, Period.ONCE)
        req = self.requests[request_id]
        deadline = time.monotonic() + timeout_s
        try:
            while time.monotonic() < deadline:
                if req.frames:
                    return req.frames.popleft().values
                exc = self.exception_for_request(request_id)
                if exc:
                    raise HarnessError(f"msfs: {exc.call}: {exc.exception}")
                if not self.connected:
                    raise HarnessError(f"msfs: SimConnect lost during a read: {self.lost or 'quit'}")
                time.sleep(0.005)
            raise HarnessError(f"msfs: no reply to a one-off read of define {define_id} within {timeout_s:g} s")
        finally:
            self.requests.pop(request_id, None)

    def exception_for_request(self, request_id: int) -> ClientException | None:
        for e in self.exceptions:
            if e.call.startswith(f"RequestDataOnSimObject request {request_id} "):
                return e
        return None

    def subscribe(self, client_event_id: int, name: str) -> int:
        self.subscriptions[client_event_id] = name
        return self._call(
            Fn.SUBSCRIBE_TO_SYSTEM_EVENT,
            f"SubscribeToSystemEvent {name!r} (event {client_event_id})",
            client_event_id,
            name,
        )

    def map_event(self, client_event_id: int, sim_event: str) -> int:
        self.mapped[client_event_id] = sim_event
        return self._call(
            Fn.MAP_CLIENT_EVENT_TO_SIM_EVENT,
            f"MapClientEventToSimEvent {sim_event!r} (event {client_event_id})",
            client_event_id,
            sim_event,
        )

    def transmit_event(self, client_event_id: int, data: int = 0, *, group_id: int = 1, flags: int = 0x10) -> int:
        """TransmitClientEvent to the user aircraft; flags default to GROUPID_IS_PRIORITY (0x10)."""
        if client_event_id not in self.mapped:
            raise HarnessError(f"msfs: client event {client_event_id} was never mapped to a sim event")
        return self._call(
            Fn.TRANSMIT_CLIENT_EVENT,
            f"TransmitClientEvent {self.mapped[client_event_id]!r} data {data}",
            w.OBJECT_ID_USER,
            client_event_id,
            data,
            group_id,
            flags,
        )

    def set_data(self, define_id: int, values: list[Any]) -> int:
        """SetDataOnSimObject on the user aircraft: setup only."""
        if not self.setup_open:
            raise SetupClosed(
                f"msfs: SetDataOnSimObject (define {define_id}) refused: the setup is over and the agent is flying"
            )
        datums = self.definitions.get(define_id)
        if datums is None:
            raise HarnessError(f"msfs: SetDataOnSimObject names define {define_id}, which was never defined")
        data = w.encode_values(values, [d.datatype for d in datums])
        return self._call(
            Fn.SET_DATA_ON_SIM_OBJECT, f"SetDataOnSimObject define {define_id}", define_id, w.OBJECT_ID_USER, data
        )

    def flight_load(self, path: str) -> int:
        """FlightLoad of a .FLT (a path on the MSFS machine): setup only."""
        if not self.setup_open:
            raise SetupClosed(f"msfs: FlightLoad {path!r} refused: the setup is over and the agent is flying")
        return self._call(Fn.FLIGHT_LOAD, f"FlightLoad {path!r}", path)

    def end_setup(self) -> None:
        self.setup_open = False

    def on_event(self, callback: Callable[[w.RecvEvent], None]) -> None:
        self._event_callbacks.append(callback)

    # -- frames
    def frames(self, request_id: int) -> list[DataFrame]:
        """Decoded frames of `request_id` since the last call."""
        req = self.requests.get(request_id)
        if req is None:
            return []
        out = []
        q = req.frames
        while q:
            out.append(q.popleft())
        return out

    def received(self, request_id: int) -> int:
        req = self.requests.get(request_id)
        return req.received if req else 0

    def _read_loop(self) -> None:
        t = self.transport
        assert t is not None
        while not self._stop.is_set():
            try:
                frames = t.recv(0.2)
            except (ConnectionError, OSError) as exc:
                if not self._stop.is_set() and not self.quit:
                    self.lost = str(exc) or "connection lost"
                return
            except w.WireError as exc:
                self.lost = f"protocol error: {exc}"
                return
            for f in frames:
                self._handle(f)

    def _handle(self, frame: bytes) -> None:
        now = time.monotonic()
        self.last_message_mono = now
        t0 = time.perf_counter()
        try:
            protocol, msg = w.parse_message(frame)
        except w.WireError as exc:
            self.lost = f"protocol error: {exc}"
            return
        if isinstance(msg, w.RecvSimObjectData):
            req = self.requests.get(msg.request_id)
            if req is None:
                return
            types = [d.datatype for d in self.definitions[req.define_id]]
            try:
                if msg.flags & RequestFlag.TAGGED:
                    tagged = w.decode_tagged(msg.data, msg.define_count, types)
                    values: list[Any] = [tagged.get(i) for i in range(len(types))]
                else:
                    values = w.decode_untagged(msg.data, types)
            except (w.WireError, struct.error) as exc:
                self.lost = f"protocol error: request {msg.request_id}: {exc}"
                return
            req.received += 1
            req.frames.append(DataFrame(msg.request_id, values, now, msg.flags, time.perf_counter() - t0))
        elif isinstance(msg, w.RecvEvent):
            self.events.append((now, msg))
            for cb in self._event_callbacks:
                cb(msg)
        elif isinstance(msg, w.RecvException):
            with self._lock:
                call = self._sent.get(msg.send_id, _unknown_call(msg.send_id))
                self.exceptions.append(ClientException(msg.name, msg.send_id, msg.index, call))
        elif isinstance(msg, w.RecvOpen):
            self.server, self.server_protocol = msg, protocol
            self._opened.set()
        elif isinstance(msg, w.RecvQuit):
            self.quit = True
            self.lost = "MSFS sent Quit (the simulator is closing)"
