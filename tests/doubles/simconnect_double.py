"""A protocol-faithful double of a SimConnect server (MSFS's network API). It is NOT MSFS.

It speaks SimConnect's TCP framing and the calls the harness uses (Open, AddToDataDefinition,
RequestDataOnSimObject with every period and the CHANGED/TAGGED flags, SubscribeToSystemEvent,
MapClientEventToSimEvent, TransmitClientEvent, SetDataOnSimObject, FlightLoad), answers with
RecvOpen, SIMOBJECT_DATA, EVENT, EVENT_FILENAME, EXCEPTION (for unknown SimVars, units, events
and ids, carrying the offending call's send id) and QUIT, and serves a scripted Cessna 172
flight: a straight-in approach that descends to the runway, touches down and rolls out, with an
optional crash. Values come in the units asked for (radians or degrees, feet or metres, BCD16
radio and transponder encodings) with MSFS's sign conventions (pitch and bank positive nose
down / left wing down).

Independent of the harness' client on purpose: its fidelity is checked against node-simconnect
(tests/adapters/msfs/test_node_fidelity.py), a third-party implementation of the protocol.

    python tests/doubles/simconnect_double.py --port 5000 [--hz 60] [--crash-at 30]
"""

from __future__ import annotations

import argparse
import math
import random
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from typing import Any

# layouts: see adapters/msfs/_wire.py for the node-simconnect references; re-stated here so the
# double does not share the client's code
_HDR_IN = struct.Struct("<IIII")
_HDR_OUT = struct.Struct("<III")
FT_PER_M = 1 / 0.3048

EXC_NAME_UNRECOGNIZED, EXC_UNRECOGNIZED_ID, EXC_ERROR, EXC_INVALID_DATA_TYPE = 7, 3, 1, 18
FORMATS = {1: "<i", 2: "<q", 3: "<f", 4: "<d", 5: "<8s", 6: "<32s", 7: "<64s", 8: "<128s", 9: "<256s", 10: "<260s"}

# --------------------------------------------------------------------------- units
_ANGLE = {"radians": 1.0, "radian": 1.0, "degrees": math.pi / 180, "degree": math.pi / 180}  # -> radians
_LENGTH = {"feet": 1.0, "foot": 1.0, "ft": 1.0, "meters": FT_PER_M, "meter": FT_PER_M, "m": FT_PER_M}  # -> ft
_SPEED = {
    "knots": 1.0,
    "knot": 1.0,
    "kts": 1.0,
    "feet per second": 3600 / 6076.12,
    "meters per second": 3600 / 1852,
}  # -> kt
_VS = {"feet per minute": 1.0, "feet/minute": 1.0, "feet per second": 60.0, "meters per second": 60 * FT_PER_M}
_NUMBER = {
    "number": 1.0,
    "bool": 1.0,
    "boolean": 1.0,
    "enum": 1.0,
    "percent over 100": 1.0,
    "position": 1.0,
    "": 1.0,
    "rpm": 1.0,
    "bco16": 1.0,
}
_PERCENT = {"percent": 100.0, "percent over 100": 1.0, "position": 1.0}
_FREQ = {"mhz": 1.0, "khz": 1e-3, "hz": 1e-6, "frequency bcd16": 1.0, "bcd16": 1.0}
_PRESSURE = {"inhg": 1.0, "inches of mercury": 1.0, "millibars": 1 / 33.8639, "mbar": 1 / 33.8639}
_LATLON = {"degrees": 1.0, "degree": 1.0, "radians": 180 / math.pi}  # -> degrees from value unit

#: SimVar -> (unit family, native value key); native units: deg for lat/lon, radians for
#: attitude/heading, ft, kt, fpm, MHz, inHg, raw numbers
SIMVARS: dict[str, tuple[str, str]] = {
    "PLANE LATITUDE": ("latlon", "lat"),
    "PLANE LONGITUDE": ("latlon", "lon"),
    "PLANE ALTITUDE": ("length", "alt_ft"),
    "PLANE ALT ABOVE GROUND": ("length", "agl_ft"),
    "INDICATED ALTITUDE": ("length", "alt_ft"),
    "AIRSPEED INDICATED": ("speed", "ias_kt"),
    "AIRSPEED TRUE": ("speed", "ias_kt"),
    "GROUND VELOCITY": ("speed", "gs_kt"),
    "VERTICAL SPEED": ("vs", "vs_fpm"),
    "PLANE HEADING DEGREES TRUE": ("angle", "hdg_true"),
    "PLANE HEADING DEGREES MAGNETIC": ("angle", "hdg_mag"),
    "PLANE PITCH DEGREES": ("angle", "pitch"),
    "PLANE BANK DEGREES": ("angle", "bank"),
    "SIM ON GROUND": ("number", "on_ground"),
    "CRASH FLAG": ("number", "crash_flag"),
    "CRASH SEQUENCE": ("number", "crash_seq"),
    "PLANE TOUCHDOWN NORMAL VELOCITY": ("vs", "td_vs_fpm"),
    "PLANE TOUCHDOWN LATITUDE": ("angle", "td_lat_rad"),
    "PLANE TOUCHDOWN LONGITUDE": ("angle", "td_lon_rad"),
    "PLANE TOUCHDOWN BANK DEGREES": ("angle", "td_bank"),
    "PLANE TOUCHDOWN PITCH DEGREES": ("angle", "td_pitch"),
    "PLANE TOUCHDOWN HEADING DEGREES TRUE": ("angle", "td_hdg"),
    "GENERAL ENG COMBUSTION:1": ("number", "eng_running"),
    "GENERAL ENG RPM:1": ("number", "rpm"),
    "GENERAL ENG THROTTLE LEVER POSITION:1": ("percent", "throttle"),
    "GENERAL ENG MIXTURE LEVER POSITION:1": ("percent", "mixture"),
    "ELECTRICAL MASTER BATTERY": ("number", "one"),
    "GENERAL ENG MASTER ALTERNATOR:1": ("number", "one"),
    "LIGHT BEACON": ("number", "one"),
    "AVIONICS MASTER SWITCH": ("number", "one"),
    "FLAPS HANDLE INDEX": ("number", "zero"),
    "TRAILING EDGE FLAPS LEFT ANGLE": ("angle", "flaps"),
    "GEAR HANDLE POSITION": ("number", "one"),
    "BRAKE PARKING POSITION": ("number", "zero"),
    "AUTOPILOT MASTER": ("number", "ap_master"),
    "AUTOPILOT HEADING LOCK": ("number", "zero"),
    "AUTOPILOT NAV1 LOCK": ("number", "zero"),
    "AUTOPILOT ALTITUDE LOCK": ("number", "zero"),
    "AUTOPILOT APPROACH HOLD": ("number", "zero"),
    "AUTOPILOT ALTITUDE LOCK VAR": ("length", "ap_alt_ft"),
    "COM ACTIVE FREQUENCY:1": ("freq", "com1"),
    "COM STANDBY FREQUENCY:1": ("freq", "com1_stby"),
    "NAV ACTIVE FREQUENCY:1": ("freq", "nav1"),
    "NAV STANDBY FREQUENCY:1": ("freq", "nav1_stby"),
    "NAV OBS:1": ("angle", "obs"),
    "NAV CDI:1": ("number", "zero"),
    "NAV GSI:1": ("number", "zero"),
    "TRANSPONDER CODE:1": ("number", "xpdr_bco16"),
    "TRANSPONDER STATE:1": ("number", "xpdr_state"),
    "KOHLSMAN SETTING HG": ("pressure", "baro"),
    "KOHLSMAN SETTING HG:1": ("pressure", "baro"),
    "ABSOLUTE TIME": ("number", "abs_time"),
    "SIMULATION TIME": ("number", "t"),
    "SIMULATION RATE": ("number", "one"),
    "AUTO COORDINATION": ("number", "auto_rudder"),
    "ATC ID": ("string", "atc_id"),
    "TITLE": ("string", "title"),
}
FAMILIES = {
    "angle": _ANGLE,
    "length": _LENGTH,
    "speed": _SPEED,
    "vs": _VS,
    "number": _NUMBER,
    "percent": _PERCENT,
    "freq": _FREQ,
    "pressure": _PRESSURE,
    "latlon": _LATLON,
    "string": {"": 1.0},
}

EVENTS = {
    "PAUSE_ON",
    "PAUSE_OFF",
    "PAUSE_TOGGLE",
    "COM_RADIO_SET",
    "COM_STBY_RADIO_SET",
    "NAV1_RADIO_SET",
    "XPNDR_SET",
    "KOHLSMAN_SET",
    "AP_MASTER",
    "AUTOPILOT_OFF",
    "AUTO_COORDINATION_TOGGLE",
    "PARKING_BRAKES",
    "COM_RADIO_SWAP",
    "NAV1_RADIO_SWAP",
    "FREEZE_LATITUDE_LONGITUDE_SET",
}
SYSTEM_EVENTS = {
    "SIM",
    "PAUSE",
    "CRASHED",
    "CRASHRESET",
    "FLIGHTLOADED",
    "SIMSTART",
    "SIMSTOP",
    "PAUSED",
    "UNPAUSED",
    "1SEC",
    "FRAME",
    "AIRCRAFTLOADED",
    "VIEW",
    "SOUND",
    "POSITIONCHANGED",
}


def bcd16(value: int) -> int:
    """Decimal digits as 4-bit nibbles: 4521 -> 0x4521."""
    out, shift = 0, 0
    while value:
        out |= (value % 10) << shift
        value //= 10
        shift += 4
    return out


def from_bcd16(v: int) -> int:
    out, mul = 0, 1
    while v:
        out += (v & 0xF) * mul
        v >>= 4
        mul *= 10
    return out


def freq_to_bcd16(mhz: float) -> int:
    """MSFS COM/NAV BCD16: the four digits after the leading 1 (118.60 -> 0x1860)."""
    return bcd16(round(mhz * 100) - 10000)


# --------------------------------------------------------------------------- the flight
@dataclass
class C172Script:
    """A straight-in approach: start `dist_nm` out at `alt_ft`, descend at a constant angle to the
    threshold at `elev_ft` at `descent_fpm`, touch down sinking `td_sink_fpm`, decelerate to a stop."""

    lat0: float = 37.4049
    lon0: float = -122.0335
    hdg_true_deg: float = 321.8
    alt_ft: float = 1500.0
    ias_kt: float = 80.0
    elev_ft: float = 7.0
    td_sink_fpm: float = 240.0
    descent_fpm: float = 500.0
    magvar_deg: float = 13.0
    crash_at_s: float | None = None
    overrides: dict[str, float] = field(default_factory=dict)

    @property
    def t_td(self) -> float:
        return (self.alt_ft - self.elev_ft) / self.descent_fpm * 60.0

    def values(self, t: float) -> dict[str, Any]:
        td = self.t_td
        if t < td:
            alt, vs, gs, on_ground = self.alt_ft - self.descent_fpm * t / 60.0, -self.descent_fpm, self.ias_kt, 0.0
            dist_nm = self.ias_kt * t / 3600.0
        else:
            dt = t - td
            gs = max(0.0, self.ias_kt - 4.0 * dt)
            stop_t = self.ias_kt / 4.0
            dr = self.ias_kt * min(dt, stop_t) - 2.0 * min(dt, stop_t) ** 2
            alt, vs, on_ground = self.elev_ft, 0.0, 1.0
            dist_nm = (self.ias_kt * td + dr) / 3600.0
        h = math.radians(self.hdg_true_deg)
        lat = self.lat0 + dist_nm / 60.0 * math.cos(h)
        lon = self.lon0 + dist_nm / 60.0 * math.sin(h) / math.cos(math.radians(self.lat0))
        bank_right_deg = 5.0 * math.sin(t / 3.0) if not on_ground else 0.0
        crashed = self.crash_at_s is not None and t >= self.crash_at_s
        v: dict[str, Any] = {
            "lat": lat,
            "lon": lon,
            "alt_ft": alt,
            "agl_ft": alt - self.elev_ft,
            "ias_kt": gs,
            "gs_kt": gs,
            "vs_fpm": vs,
            "hdg_true": h,
            "hdg_mag": math.radians((self.hdg_true_deg - self.magvar_deg) % 360),
            "pitch": math.radians(-2.0 if not on_ground else 0.0),  # MSFS: nose down positive; -2 = 2° nose up
            "bank": math.radians(-bank_right_deg),  # MSFS: left wing down positive
            "on_ground": on_ground,
            "crash_flag": 4.0 if crashed else 0.0,
            "crash_seq": 11.0 if crashed else 0.0,
            "td_vs_fpm": self.td_sink_fpm if t >= td else 0.0,
            "td_lat_rad": math.radians(self.values_at_td()[0]) if t >= td else 0.0,
            "td_lon_rad": math.radians(self.values_at_td()[1]) if t >= td else 0.0,
            "td_bank": 0.0,
            "td_pitch": 0.0,
            "td_hdg": h if t >= td else 0.0,
            "eng_running": 1.0,
            "rpm": 2100.0,
            "throttle": 0.45,
            "mixture": 1.0,
            "one": 1.0,
            "zero": 0.0,
            "flaps": math.radians(20.0),
            "ap_master": 0.0,
            "ap_alt_ft": 3000.0,
            "com1": 118.6,
            "com1_stby": 125.0,
            "nav1": 114.1,
            "nav1_stby": 110.5,
            "obs": math.radians(322.0),
            "xpdr_bco16": bcd16(1200),
            "xpdr_state": 3.0,
            "baro": 29.92,
            "abs_time": 63_000_000_000.0 + t,
            "t": t,
            "auto_rudder": 0.0,
            "atc_id": "N172SB",
            "title": "Cessna Skyhawk G1000 Asobo",
        }
        v.update(self.overrides)
        return v

    def values_at_td(self) -> tuple[float, float]:
        h = math.radians(self.hdg_true_deg)
        d = self.ias_kt * self.t_td / 3600.0
        return (
            self.lat0 + d / 60.0 * math.cos(h),
            self.lon0 + d / 60.0 * math.sin(h) / math.cos(math.radians(self.lat0)),
        )


def convert(simvar: str, units: str, native: dict[str, Any]) -> float | str:
    fam, key = SIMVARS[simvar]
    v = native[key]
    u = units.strip().lower()
    if fam == "string":
        return str(v)
    if fam == "angle":
        return v / _ANGLE[u]
    if fam == "latlon":
        return v if u.startswith("degree") else math.radians(v)
    if fam == "freq" and "bcd" in u:
        return float(freq_to_bcd16(v))
    if fam == "freq":
        return v / _FREQ[u]
    if fam == "percent":
        return v * _PERCENT[u]
    return v / FAMILIES[fam][u]


# --------------------------------------------------------------------------- server
@dataclass
class _Datum:
    name: str
    units: str
    datatype: int
    datum_id: int


@dataclass
class _Req:
    request_id: int
    define_id: int
    period: int
    flags: int
    last: list[Any] | None = None
    sent_second: int = -1


class _Conn:
    def __init__(self, server: "SimConnectDouble", sock: socket.socket) -> None:
        self.server, self.sock = server, sock
        self.protocol = 5
        self.opened = False
        self.defs: dict[int, list[_Datum]] = {}
        self.reqs: dict[int, _Req] = {}
        self.subs: dict[int, str] = {}
        self.maps: dict[int, str] = {}
        self.packets: list[tuple[int, int, bytes]] = []  # (function, send id, body)
        self.lock = threading.Lock()
        self.alive = True
        self.rng = random.Random(1)

    def send(self, recv_id: int, body: bytes) -> None:
        self.send_many([(recv_id, body)])

    def send_many(self, items: list[tuple[int, bytes]]) -> None:
        data = b"".join(_HDR_OUT.pack(_HDR_OUT.size + len(b), self.protocol, rid) + b for rid, b in items)
        with self.lock:
            try:
                if self.server.split_writes:
                    i = 0
                    while i < len(data):
                        n = self.rng.randint(1, 40)
                        self.sock.sendall(data[i : i + n])
                        i += n
                else:
                    self.sock.sendall(data)
            except OSError:
                self.alive = False

    def exception(self, code: int, send_id: int, index: int) -> None:
        self.send(1, struct.pack("<III", code, send_id, index))
        self.server.exceptions.append((code, send_id, index))

    def serve(self) -> None:
        buf = b""
        try:
            while self.alive:
                chunk = self.sock.recv(65536)
                if not chunk:
                    break
                buf += chunk
                while len(buf) >= 4:
                    (size,) = struct.unpack_from("<I", buf)
                    if len(buf) < size:
                        break
                    frame, buf = buf[:size], buf[size:]
                    self.handle(frame)
        except OSError:
            pass
        finally:
            self.alive = False
            self.server.drop(self)

    def handle(self, frame: bytes) -> None:
        size, protocol, fn, send_id = _HDR_IN.unpack_from(frame)
        fn &= 0x0FFFFFFF
        body = frame[16:]
        self.packets.append((fn, send_id, body))
        self.server.packet_log.append((id(self), fn, body))
        if fn == 0x01:
            self.protocol = protocol
            name = body[:256].split(b"\0")[0].decode("latin-1")
            self.server.clients.append(name)
            if protocol not in (5, 6):
                self.exception(5, send_id, 1)  # VERSION_MISMATCH
                return
            self.opened = True
            ver = (11, 0, 62651, 3) if protocol == 5 else (12, 2, 282174, 999)
            self.send(2, struct.pack("<256s10I", b"KittyHawk" if protocol == 5 else b"SunRise", *ver, *ver, 0, 0))
            return
        if not self.opened:
            self.exception(4, send_id, 0)  # UNOPENED
            return
        s = self.server
        if fn == 0x0C:
            define_id = struct.unpack_from("<I", body)[0]
            name = body[4:260].split(b"\0")[0].decode("latin-1").upper().strip()
            units = body[260:516].split(b"\0")[0].decode("latin-1")
            datatype, _eps, datum_id = struct.unpack_from("<IfI", body, 516)
            if name not in SIMVARS:
                self.exception(EXC_NAME_UNRECOGNIZED, send_id, 2)
                return
            fam = SIMVARS[name][0]
            if units.strip().lower() not in FAMILIES[fam] and not (fam == "freq" and "bcd" in units.lower()):
                self.exception(EXC_NAME_UNRECOGNIZED, send_id, 3)
                return
            if datatype not in FORMATS:
                self.exception(EXC_INVALID_DATA_TYPE, send_id, 4)
                return
            d = self.defs.setdefault(define_id, [])
            d.append(_Datum(name, units, datatype, len(d) if datum_id == 0xFFFFFFFF else datum_id))
        elif fn == 0x0D:
            self.defs.pop(struct.unpack_from("<I", body)[0], None)
        elif fn == 0x0E:
            request_id, define_id, _obj, period, flags = struct.unpack_from("<5I", body)
            if define_id not in self.defs:
                self.exception(EXC_UNRECOGNIZED_ID, send_id, 2)
                return
            if period == 0:
                self.reqs.pop(request_id, None)
                return
            req = _Req(request_id, define_id, period, flags)
            if period == 1:
                self.send(8, self.data_body(req, s.native(), force=True) or b"")
            else:
                self.reqs[request_id] = req
        elif fn == 0x17:
            ev = struct.unpack_from("<I", body)[0]
            name = body[4:260].split(b"\0")[0].decode("latin-1")
            if name.upper() not in SYSTEM_EVENTS:
                self.exception(EXC_NAME_UNRECOGNIZED, send_id, 2)
                return
            self.subs[ev] = name.upper()
        elif fn == 0x18:
            self.subs.pop(struct.unpack_from("<I", body)[0], None)
        elif fn == 0x04:
            ev = struct.unpack_from("<I", body)[0]
            name = body[4:260].split(b"\0")[0].decode("latin-1").upper()
            if name and name not in EVENTS:
                self.exception(EXC_NAME_UNRECOGNIZED, send_id, 2)
                return
            self.maps[ev] = name
        elif fn == 0x05:
            _obj, ev, data, _group, _flags = struct.unpack_from("<5I", body)
            if ev not in self.maps:
                self.exception(EXC_UNRECOGNIZED_ID, send_id, 2)
                return
            s.client_event(self.maps[ev], data)
        elif fn == 0x10:
            define_id, _obj, _flags, count, unit = struct.unpack_from("<5I", body)
            if define_id not in self.defs:
                self.exception(EXC_UNRECOGNIZED_ID, send_id, 1)
                return
            off = 20
            for datum in self.defs[define_id]:
                (v,) = struct.unpack_from(FORMATS[datum.datatype], body, off)
                off += struct.calcsize(FORMATS[datum.datatype])
                fam, key = SIMVARS[datum.name]
                u = datum.units.strip().lower()
                if fam == "angle":
                    v = v * _ANGLE[u]
                elif fam in ("length", "speed", "vs", "number", "pressure", "freq"):
                    v = v * FAMILIES[fam].get(u, 1.0) if fam != "freq" else v
                s.script.overrides[key] = v
            s.sets.append(define_id)
        elif fn == 0x3D:
            path = body[:260].split(b"\0")[0].decode("latin-1")
            s.flight_load(path)
        else:
            self.exception(EXC_ERROR, send_id, 0)

    def data_body(self, req: _Req, native: dict[str, Any], *, force: bool = False) -> bytes | None:
        datums = self.defs.get(req.define_id, [])
        values = [convert(d.name, d.units, native) for d in datums]
        changed = list(range(len(values)))
        if req.flags & 1 and not force:
            if req.last is not None:
                changed = [i for i, v in enumerate(values) if v != req.last[i]]
                if not changed:
                    return None
        req.last = values
        if req.flags & 2:
            idx = changed if req.flags & 1 else list(range(len(values)))
            data = b"".join(struct.pack("<I", datums[i].datum_id) + _pack(values[i], datums[i].datatype) for i in idx)
            count = len(idx)
        else:
            data = b"".join(_pack(v, d.datatype) for v, d in zip(values, datums))
            count = len(values)
        return struct.pack("<7I", req.request_id, 1, req.define_id, req.flags, 1, 1, count) + data


def _pack(v: Any, datatype: int) -> bytes:
    fmt = FORMATS[datatype]
    if fmt.endswith("s"):
        return struct.pack(fmt, str(v).encode("latin-1"))
    if datatype in (1, 2):
        return struct.pack(fmt, int(round(v)))
    return struct.pack(fmt, v)


class SimConnectDouble:
    """The server. `start()` listens and ticks sim frames at `hz`; `stop()` ends everything."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        hz: float = 60.0,
        crash_at_s: float | None = None,
        split_writes: bool = False,
        start_paused: bool = False,
    ) -> None:
        self.host, self.hz = host, hz
        self.script = C172Script(crash_at_s=crash_at_s)
        self.split_writes = split_writes
        self.paused = start_paused
        self.frame = 0
        self.conns: list[_Conn] = []
        self.clients: list[str] = []
        self.exceptions: list[tuple[int, int, int]] = []
        self.events_in: list[tuple[str, int]] = []
        self.sets: list[int] = []
        #: every client packet received: (connection id, function id, body), for byte comparisons
        self.packet_log: list[tuple[int, int, bytes]] = []
        self.loaded: list[str] = []
        self._crash_sent = False
        self._stop = threading.Event()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((host, port))
        self.port = self.sock.getsockname()[1]
        self._threads: list[threading.Thread] = []

    @property
    def t(self) -> float:
        return self.frame / self.hz

    def native(self) -> dict[str, Any]:
        return self.script.values(self.t)

    def start(self) -> "SimConnectDouble":
        self.sock.listen(8)
        for target in (self._accept, self._tick):
            th = threading.Thread(target=target, daemon=True)
            th.start()
            self._threads.append(th)
        return self

    def _accept(self) -> None:
        self.sock.settimeout(0.2)
        while not self._stop.is_set():
            try:
                s, _ = self.sock.accept()
            except (socket.timeout, OSError):
                continue
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            c = _Conn(self, s)
            self.conns.append(c)
            threading.Thread(target=c.serve, daemon=True).start()

    def drop(self, c: _Conn) -> None:
        if c in self.conns:
            self.conns.remove(c)

    def _tick(self) -> None:
        period = 1.0 / self.hz
        nxt = time.monotonic()
        while not self._stop.is_set():
            nxt += period
            delay = nxt - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            elif delay < -1.0:  # far behind (a loaded machine): resynchronise, frames are skipped
                nxt = time.monotonic()
            if not self.paused:
                self.frame += 1
            self._serve_frame()

    def _serve_frame(self) -> None:
        native = self.native()
        crashed = native["crash_flag"] != 0 and not self._crash_sent
        if crashed:
            self._crash_sent = True
        second = int(self.t)
        for c in list(self.conns):
            if not c.opened:
                continue
            out: list[tuple[int, bytes]] = []
            if crashed:
                out += [(4, struct.pack("<III", 0xFFFFFFFF, ev, 0)) for ev, n in c.subs.items() if n == "CRASHED"]
            for r in list(c.reqs.values()):
                if r.period in (2, 3) and self.paused:
                    continue  # a paused sim runs no sim frames
                if r.period == 4:
                    if second == r.sent_second:
                        continue
                    r.sent_second = second
                body = c.data_body(r, native)
                if body is not None:
                    out.append((8, body))
            if out:
                c.send_many(out)

    def system_event(self, name: str, data: int = 0) -> None:
        for c in list(self.conns):
            for ev, n in list(c.subs.items()):
                if n == name:
                    c.send(4, struct.pack("<III", 0xFFFFFFFF, ev, data & 0xFFFFFFFF))

    def set_paused(self, paused: bool) -> None:
        if paused != self.paused:
            self.paused = paused
            self.system_event("PAUSE", 1 if paused else 0)
            self.system_event("PAUSED" if paused else "UNPAUSED")
            self.system_event("SIM", 0 if paused else 1)

    def client_event(self, name: str, data: int) -> None:
        self.events_in.append((name, data))
        o = self.script.overrides
        if name in ("PAUSE_ON", "PAUSE_OFF", "PAUSE_TOGGLE"):
            self.set_paused(name == "PAUSE_ON" or (name == "PAUSE_TOGGLE" and not self.paused))
        elif name in ("COM_RADIO_SET", "COM_STBY_RADIO_SET", "NAV1_RADIO_SET"):
            key = {"COM_RADIO_SET": "com1", "COM_STBY_RADIO_SET": "com1_stby", "NAV1_RADIO_SET": "nav1"}[name]
            o[key] = (10000 + from_bcd16(data)) / 100.0
        elif name == "XPNDR_SET":
            o["xpdr_bco16"] = data
        elif name == "KOHLSMAN_SET":
            o["baro"] = data / 16.0 / 33.8639
        elif name == "AP_MASTER":
            o["ap_master"] = 0.0 if self.native()["ap_master"] else 1.0
        elif name == "AUTOPILOT_OFF":
            o["ap_master"] = 0.0
        elif name == "AUTO_COORDINATION_TOGGLE":
            o["auto_rudder"] = 0.0 if self.native()["auto_rudder"] else 1.0

    def flight_load(self, path: str) -> None:
        """Restart the scripted flight (from the file's [SimVars.0] when it is readable here)."""
        self.loaded.append(path)
        settings = {k: v for k, v in self.script.overrides.items() if k == "auto_rudder"}  # user options survive
        try:
            from simbridge.adapters.msfs._flt import read_flt

            st = read_flt(path)
            self.script = C172Script(
                lat0=st["lat_deg"],
                lon0=st["lon_deg"],
                hdg_true_deg=st["heading_true_deg"],
                alt_ft=st["alt_msl_ft"],
                ias_kt=st.get("ias_kt", 80.0),
                crash_at_s=self.script.crash_at_s,
            )
        except (OSError, KeyError, ValueError, ImportError):
            self.script = C172Script(crash_at_s=self.script.crash_at_s)
        self.script.overrides.update(settings)
        self.frame = 0
        self._crash_sent = False
        for c in list(self.conns):
            for ev, n in list(c.subs.items()):
                if n == "FLIGHTLOADED":
                    c.send(6, struct.pack("<III260sI", 0xFFFFFFFF, ev, 0, path.encode("latin-1"), 0))

    def quit_all(self) -> None:
        """What MSFS does when it closes: RecvQuit, then the connections end."""
        for c in list(self.conns):
            c.send(3, b"")
            try:
                c.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            c.sock.close()

    def stop(self) -> None:
        self._stop.set()
        for c in list(self.conns):
            try:
                c.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            c.sock.close()
        self.sock.close()
        for th in self._threads:
            th.join(timeout=2)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="SimConnect protocol double (not MSFS): a scripted C172 approach")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=5000)
    ap.add_argument("--hz", type=float, default=60.0, help="sim frames per second")
    ap.add_argument("--crash-at", type=float, default=None, help="raise CRASH FLAG at this sim time (s)")
    ap.add_argument("--split-writes", action="store_true", help="send frames in small random pieces")
    a = ap.parse_args(argv)
    d = SimConnectDouble(a.host, a.port, hz=a.hz, crash_at_s=a.crash_at, split_writes=a.split_writes).start()
    print(f"simconnect double listening on {a.host}:{d.port}", flush=True)
    try:
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        d.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
