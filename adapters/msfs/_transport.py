"""The `SimConnectTransport` seam: one interface, two ways to reach a SimConnect server.

- `TcpTransport` speaks SimConnect's network protocol itself (`_wire`), so a Linux host reaches
  MSFS on a Windows machine or VM whose SimConnect.xml opens a global-scope IPv4 port.
- `DllTransport` calls SimConnect.dll, the one shipped in PyPI `SimConnect` (Windows only). Its
  dispatch hands back SIMCONNECT_RECV structs, laid out exactly as the network frames are, so
  both transports feed the same parser.

The client above calls `call(fn, *args)` with the arguments of the SimConnect function and gets
the send id that exceptions refer to; `recv` returns whole server frames. `make_transport`
picks the DLL on Windows when the package is installed, else TCP: the package imports cleanly on
Linux without it.
"""

from __future__ import annotations

import abc
import ctypes
import socket
import struct
import sys
import threading
import time
from typing import Any

from simbridge import HarnessError
from simbridge.adapters.msfs import _wire as w
from simbridge.adapters.msfs._wire import Fn

#: function id -> body builder taking the call's arguments
BUILDERS: dict[Fn, Any] = {
    Fn.OPEN: w.open_body,
    Fn.MAP_CLIENT_EVENT_TO_SIM_EVENT: w.map_client_event_body,
    Fn.TRANSMIT_CLIENT_EVENT: w.transmit_client_event_body,
    Fn.ADD_TO_DATA_DEFINITION: w.add_to_data_definition_body,
    Fn.CLEAR_DATA_DEFINITION: lambda define_id: struct.pack("<I", define_id),
    Fn.REQUEST_DATA_ON_SIM_OBJECT: w.request_data_body,
    Fn.SET_DATA_ON_SIM_OBJECT: w.set_data_body,
    Fn.SUBSCRIBE_TO_SYSTEM_EVENT: w.subscribe_system_event_body,
    Fn.UNSUBSCRIBE_FROM_SYSTEM_EVENT: w.unsubscribe_system_event_body,
    Fn.FLIGHT_LOAD: w.flight_load_body,
}


class SimConnectTransport(abc.ABC):
    """Moves SimConnect calls out and server frames in; keeps no protocol state of its own."""

    protocol: w.Protocol
    where: str

    @abc.abstractmethod
    def connect(self, app_name: str, timeout_s: float) -> None:
        """Reach the server and send Open (the server answers with RecvOpen on `recv`)."""

    @abc.abstractmethod
    def call(self, fn: Fn, *args: Any) -> int:
        """Send one SimConnect call; returns its send id."""

    @abc.abstractmethod
    def recv(self, timeout_s: float) -> list[bytes]:
        """Whole server frames that arrived within `timeout_s` (empty on timeout). Raises
        ConnectionError once the server has gone."""

    @abc.abstractmethod
    def close(self) -> None: ...


class TcpTransport(SimConnectTransport):
    """SimConnect over TCP, framed by the size prefix (frames split or coalesced are fine)."""

    def __init__(self, host: str, port: int = w.DEFAULT_PORT, *, protocol: w.Protocol = w.Protocol.KITTYHAWK) -> None:
        self.host, self.port, self.protocol = host, port, protocol
        self.where = f"{host}:{port}"
        self.sock: socket.socket | None = None
        self.splitter = w.FrameSplitter()
        self._send_lock = threading.Lock()
        self._next_send_id = 1
        self.bytes_in = 0

    def connect(self, app_name: str, timeout_s: float) -> None:
        try:
            self.sock = socket.create_connection((self.host, self.port), timeout=timeout_s)
        except OSError as exc:
            raise HarnessError(f"msfs: no SimConnect server at {self.where}: {exc.strerror or exc}") from None
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.splitter = w.FrameSplitter()
        self.call(Fn.OPEN, app_name, self.protocol)

    def encode(self, fn: Fn, *args: Any) -> tuple[int, bytes]:
        """(send id, packet) for a call; send ids count up from 1 per connection."""
        body = BUILDERS[fn](*args)
        send_id = self._next_send_id
        self._next_send_id += 1
        return send_id, w.packet(int(self.protocol), int(fn), send_id, body)

    def call(self, fn: Fn, *args: Any) -> int:
        if self.sock is None:
            raise HarnessError(f"msfs: SimConnect at {self.where} is not connected")
        with self._send_lock:
            send_id, pkt = self.encode(fn, *args)
            try:
                self.sock.sendall(pkt)
            except OSError as exc:
                raise HarnessError(f"msfs: SimConnect at {self.where} send failed: {exc.strerror or exc}") from None
        return send_id

    def recv(self, timeout_s: float) -> list[bytes]:
        if self.sock is None:
            raise ConnectionError("not connected")
        self.sock.settimeout(timeout_s)
        try:
            chunk = self.sock.recv(1 << 16)
        except (socket.timeout, BlockingIOError):
            return []
        if not chunk:
            raise ConnectionError(f"SimConnect at {self.where} closed the connection")
        self.bytes_in += len(chunk)
        return self.splitter.feed(chunk)

    def close(self) -> None:
        if self.sock is not None:
            try:
                self.sock.close()
            finally:
                self.sock = None


class DllTransport(SimConnectTransport):  # pragma: no cover - needs Windows and SimConnect.dll
    """SimConnect.dll through ctypes (the DLL bundled with PyPI `SimConnect`). Untested here:
    CI has no Windows; the calls follow the SimConnect SDK signatures."""

    def __init__(
        self, dll_path: str | None = None, *, config_index: int = 0, protocol: w.Protocol = w.Protocol.KITTYHAWK
    ) -> None:
        if dll_path is None:
            import os

            import SimConnect as pkg  # type: ignore[import-not-found,unused-ignore]

            dll_path = os.path.join(os.path.dirname(pkg.__file__), "SimConnect.dll")
        self.dll = ctypes.WinDLL(dll_path)  # type: ignore[attr-defined]
        self.where = f"SimConnect.dll config {config_index}"
        self.config_index = config_index
        self.protocol = protocol
        self.handle = ctypes.c_void_p()

    def connect(self, app_name: str, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            hr = self.dll.SimConnect_Open(
                ctypes.byref(self.handle), app_name.encode("latin-1"), None, 0, None, self.config_index
            )
            if hr == 0:
                return
            if time.monotonic() > deadline:
                raise HarnessError(f"msfs: SimConnect_Open failed (HRESULT {hr & 0xFFFFFFFF:#x}); is MSFS running?")
            time.sleep(0.5)

    def call(self, fn: Fn, *args: Any) -> int:
        d, h = self.dll, self.handle
        s = lambda v: v.encode("latin-1")
        if fn == Fn.MAP_CLIENT_EVENT_TO_SIM_EVENT:
            hr = d.SimConnect_MapClientEventToSimEvent(h, args[0], s(args[1]))
        elif fn == Fn.TRANSMIT_CLIENT_EVENT:
            hr = d.SimConnect_TransmitClientEvent(h, *(ctypes.c_uint32(a & 0xFFFFFFFF) for a in args))
        elif fn == Fn.ADD_TO_DATA_DEFINITION:
            define_id, name, units, dt, *rest = args
            eps = rest[0] if rest else 0.0
            datum = rest[1] if len(rest) > 1 else w.UNUSED
            hr = d.SimConnect_AddToDataDefinition(
                h, define_id, s(name), s(units) if units else None, int(dt), ctypes.c_float(eps), ctypes.c_uint32(datum)
            )
        elif fn == Fn.CLEAR_DATA_DEFINITION:
            hr = d.SimConnect_ClearDataDefinition(h, args[0])
        elif fn == Fn.REQUEST_DATA_ON_SIM_OBJECT:
            full = list(args) + [0] * (8 - len(args))
            hr = d.SimConnect_RequestDataOnSimObject(h, *(ctypes.c_uint32(int(a)) for a in full))
        elif fn == Fn.SET_DATA_ON_SIM_OBJECT:
            define_id, object_id, data = args[:3]
            buf = ctypes.create_string_buffer(data, len(data))
            hr = d.SimConnect_SetDataOnSimObject(h, define_id, object_id, 0, 1, len(data), buf)
        elif fn == Fn.SUBSCRIBE_TO_SYSTEM_EVENT:
            hr = d.SimConnect_SubscribeToSystemEvent(h, args[0], s(args[1]))
        elif fn == Fn.UNSUBSCRIBE_FROM_SYSTEM_EVENT:
            hr = d.SimConnect_UnsubscribeFromSystemEvent(h, args[0])
        elif fn == Fn.FLIGHT_LOAD:
            hr = d.SimConnect_FlightLoad(h, s(args[0]))
        else:
            raise HarnessError(f"msfs: {fn.name} is not available over SimConnect.dll here")
        if hr != 0:
            raise HarnessError(f"msfs: SimConnect_{fn.name} failed (HRESULT {hr & 0xFFFFFFFF:#x})")
        sent = ctypes.c_uint32()
        d.SimConnect_GetLastSentPacketID(h, ctypes.byref(sent))
        return sent.value

    def recv(self, timeout_s: float) -> list[bytes]:
        out: list[bytes] = []
        deadline = time.monotonic() + timeout_s
        p, n = ctypes.c_void_p(), ctypes.c_uint32()
        while True:
            if self.dll.SimConnect_GetNextDispatch(self.handle, ctypes.byref(p), ctypes.byref(n)) == 0:
                out.append(ctypes.string_at(p, n.value))
                continue
            if out or time.monotonic() > deadline:
                return out
            time.sleep(0.001)

    def close(self) -> None:
        if self.handle:
            self.dll.SimConnect_Close(self.handle)
            self.handle = ctypes.c_void_p()


def dll_available() -> bool:
    """True on Windows with PyPI `SimConnect` installed (its DLL is what DllTransport loads)."""
    if sys.platform != "win32":
        return False
    import importlib.util

    return importlib.util.find_spec("SimConnect") is not None


def make_transport(
    host: str | None, port: int | None, *, protocol: w.Protocol = w.Protocol.KITTYHAWK, prefer: str = "auto"
) -> SimConnectTransport:
    """TCP when a host is given or the DLL is not there; the DLL on Windows for a local MSFS.
    `prefer` is "auto", "tcp" or "dll"."""
    if prefer not in ("auto", "tcp", "dll"):
        raise HarnessError(f"msfs: transport {prefer!r} is not one of auto, tcp, dll")
    if prefer == "dll" or (prefer == "auto" and host is None and dll_available()):
        if not dll_available():
            raise HarnessError("msfs: the SimConnect.dll transport needs Windows and `pip install SimConnect`")
        return DllTransport(protocol=protocol)  # pragma: no cover
    return TcpTransport(host or "127.0.0.1", port or w.DEFAULT_PORT, protocol=protocol)
