"""A test double of X-Plane's network interfaces. It is NOT X-Plane.

It speaks the documented byte layouts on loopback so the adapter can be tested without the
simulator: native UDP (RREF/DREF/CMND, BECN beacons), XPlaneConnect (CONN, GETD/RESP, DREF,
POSI/GETP, CTRL/GETC, SIMU, TEXT, WYPT, VIEW, COMM, with the plugin's 20-messages-per-frame
limit), the Web API REST endpoints the adapter uses, a WebSocket for dataref subscriptions (on
its own port: the double's HTTP server cannot upgrade connections, real X-Plane serves both on
8086), and the simbridge FMS probe. Behind them sits a small dataref table moved by a trivial
flight model and a scripted pilot (take off, climb, hold a heading/altitude/speed), nothing
like X-Plane's physics. Switches: `loss` (probability an RREF datagram is dropped) and
`reorder` (probability one is held back and sent after the next), seeded.
"""

from __future__ import annotations

import json
import math
import random
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

from simbridge.adapters.xplane import _fms, _udp_wire, _xpc_wire

FT_PER_M = 1 / 0.3048
MAG_VAR_DEG = 15.5  # east; magnetic = true - variation

#: start points the double knows: (airport, runway or pad) -> lat, lon, elevation m, true heading
AIRPORTS: dict[tuple[str, str], tuple[float, float, float, float]] = {
    ("KSEA", "34R"): (47.43117533, -122.30804122, 110.6, 0.34),
    ("KHAF", "30"): (37.5105, -122.4960, 20.0, 300.0),
    ("KPAO", "31"): (37.4584849, -122.1124398, 2.1, 322.0),
    ("KBOS", "22L"): (42.3717, -71.0050, 5.0, 215.0),
}


@dataclass
class Pilot:
    """The scripted pilot: what it aims for once airborne."""

    takeoff_at_s: float = 1.0
    rotate_kt: float = 55.0
    climb_ias_kt: float = 75.0
    cruise_ias_kt: float = 90.0
    target_alt_ft: float = 3000.0
    target_hdg_mag: float = 340.0
    climb_fpm: float = 900.0
    glide_ias_kt: float = 68.0


@dataclass
class _Sub:
    addr: tuple[str, int]
    freq: int
    name: str
    next_due: float = 0.0


@dataclass
class _XpcConn:
    addr: tuple[str, int]
    id: int
    last_getd: list[str] = field(default_factory=list)


class XPlaneDouble:
    def __init__(
        self,
        *,
        udp_port: int = 0,
        xpc_port: int = 0,
        http_port: int = 0,
        ws_port: int = 0,
        fms_port: int = 0,
        fps: float = 100.0,
        loss: float = 0.0,
        reorder: float = 0.0,
        seed: int = 0,
        pilot: Pilot | None = None,
        beacon_to: tuple[str, int] | None = None,
        beacon_interval_s: float = 1.0,
        web: bool = True,
        time_scale: float = 1.0,
    ) -> None:
        self.fps = fps
        self.time_scale = time_scale  # simulator seconds per wall second (X-Plane's sim speed)
        self.wall = 0.0
        self.loss, self.reorder = loss, reorder
        self.rng = random.Random(seed)
        self.pilot = pilot
        self.beacon_to, self.beacon_interval_s = beacon_to, beacon_interval_s
        self.lock = threading.RLock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.udp = self._bind(udp_port)
        self.xpc = self._bind(xpc_port)
        self.fms_sock = self._bind(fms_port)
        for s in (self.udp, self.xpc, self.fms_sock):
            s.setblocking(False)
        self.subs: dict[tuple[tuple[str, int], int], _Sub] = {}
        self.xpc_conns: dict[str, _XpcConn] = {}
        self.held: list[tuple[bytes, tuple[str, int]]] = []
        # what the double saw, for assertions
        self.commands: list[str] = []
        self.xpc_log: list[str] = []
        self.xpc_overflows = 0
        self.text: str = ""
        self.waypoints: list[tuple[float, float, float]] = []
        self.view: int | None = None
        self.flights: list[dict[str, Any]] = []
        self.rref_sent = 0
        self.rref_dropped = 0
        self.fms_entries: list[_fms.FmsEntry] = []
        self.fms_destination = 0
        self.clock = 0.0
        self.d: dict[str, Any] = {}
        self.reset_state(*AIRPORTS[("KSEA", "34R")])
        self.web = web
        self._http: ThreadingHTTPServer | None = None
        self._ws: Any = None
        self.ids: dict[str, int] = {}
        self.cmd_ids: dict[str, int] = {}
        if web:
            self._http = ThreadingHTTPServer(("127.0.0.1", http_port), self._http_handler())
            self._http.daemon_threads = True
        self._ws_port = ws_port

    @staticmethod
    def _bind(port: int) -> socket.socket:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", port))
        return s

    # ------------------------------------------------------------------ addresses
    @property
    def udp_port(self) -> int:
        return self.udp.getsockname()[1]

    @property
    def xpc_port(self) -> int:
        return self.xpc.getsockname()[1]

    @property
    def fms_port(self) -> int:
        return self.fms_sock.getsockname()[1]

    @property
    def http_port(self) -> int:
        return self._http.server_address[1] if self._http else 0

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self._ws.socket.getsockname()[1]}/api/v2" if self._ws else ""

    # ------------------------------------------------------------------ state
    def reset_state(
        self, lat: float, lon: float, elev_m: float, hdg_true: float, *, airborne_ft: float = 0.0, ias_kt: float = 0.0
    ) -> None:
        with self.lock:
            self.ground_m = elev_m
            on_ground = airborne_ft <= 0
            self.d.update(
                {
                    "sim/time/total_running_time_sec": self.clock,
                    "sim/time/paused": 0.0,
                    "sim/time/local_date_days": 170.0,
                    "sim/time/local_time_sec": 12 * 3600.0,
                    "sim/time/zulu_time_sec": 19 * 3600.0,
                    "sim/flightmodel/position/latitude": lat,
                    "sim/flightmodel/position/longitude": lon,
                    "sim/flightmodel/position/elevation": elev_m + airborne_ft / FT_PER_M,
                    "sim/flightmodel/position/y_agl": airborne_ft / FT_PER_M,
                    "sim/flightmodel/position/indicated_airspeed": ias_kt,
                    "sim/flightmodel/position/groundspeed": ias_kt / 1.943844,
                    "sim/flightmodel/position/vh_ind_fpm": 0.0,
                    "sim/flightmodel/position/psi": hdg_true,
                    "sim/flightmodel/position/mag_psi": (hdg_true - MAG_VAR_DEG) % 360,
                    "sim/flightmodel/position/theta": 0.0,
                    "sim/flightmodel/position/phi": 0.0,
                    "sim/flightmodel/failures/onground_any": 1.0 if on_ground else 0.0,
                    "sim/flightmodel2/misc/has_crashed": 0.0,
                    "sim/flightmodel/engine/ENGN_running": [1.0, 0.0],
                    "sim/cockpit2/engine/indicators/engine_speed_rpm": [800.0, 0.0],
                    "sim/cockpit2/engine/actuators/ignition_key": [3.0, 0.0],
                    "sim/cockpit2/engine/actuators/mixture_ratio": [1.0, 0.0],
                    "sim/cockpit2/engine/actuators/throttle_ratio": [0.0, 0.0],
                    "sim/cockpit2/electrical/battery_on": [1.0],
                    "sim/cockpit2/electrical/generator_on": [1.0],
                    "sim/cockpit2/switches/beacon_on": 1.0,
                    "sim/cockpit2/switches/avionics_power_on": 1.0,
                    "sim/cockpit2/fuel/fuel_tank_selector": 4.0,
                    "sim/flightmodel2/wing/flap1_deg": [0.0, 0.0],
                    "sim/flightmodel2/gear/deploy_ratio": [1.0, 1.0, 1.0],
                    "sim/cockpit2/controls/parking_brake_ratio": 0.0,
                    "sim/cockpit2/autopilot/servos_on": 0.0,
                    "sim/cockpit2/autopilot/heading_status": 0.0,
                    "sim/cockpit2/autopilot/nav_status": 0.0,
                    "sim/cockpit2/autopilot/altitude_hold_status": 0.0,
                    "sim/cockpit2/autopilot/approach_status": 0.0,
                    "sim/cockpit2/autopilot/altitude_dial_ft": 0.0,
                    "sim/cockpit2/radios/actuators/nav1_frequency_hz": 11030.0,
                    "sim/cockpit2/radios/actuators/nav1_obs_deg_mag_pilot": 340.0,
                    "sim/cockpit2/radios/indicators/nav1_hdef_dots_pilot": 0.0,
                    "sim/cockpit2/radios/indicators/nav1_vdef_dots_pilot": 0.0,
                    "sim/cockpit2/radios/actuators/com1_frequency_hz_833": 119900.0,
                    "sim/cockpit2/radios/actuators/com1_standby_frequency_hz_833": 121900.0,
                    "sim/cockpit2/radios/actuators/transponder_code": 1200.0,
                    "sim/cockpit2/radios/actuators/transponder_mode": 1.0,
                    "sim/cockpit2/gauges/actuators/barometer_setting_in_hg_pilot": 29.92,
                    "sim/operation/failures/rel_engfai0": 0.0,
                    "sim/operation/failures/rel_vacuum": 0.0,
                    "sim/weather/region/wind_altitude_msl_m": [500.0, 1500.0, 3000.0],
                    "sim/weather/region/wind_direction_degt": [270.0, 280.0, 290.0],
                    "sim/weather/region/wind_speed_msc": [7.716, 10.0, 12.0],
                    "sim/weather/region/cloud_type": [1.0, 0.0, 0.0],
                    "sim/weather/region/cloud_coverage_percent": [0.7, 0.0, 0.0],
                    "sim/weather/region/cloud_base_msl_m": [elev_m + 457.2, 0.0, 0.0],
                    "sim/weather/region/cloud_tops_msl_m": [elev_m + 1200.0, 0.0, 0.0],
                    "sim/weather/region/visibility_reported_sm": 5.0,
                    "sim/cockpit/gps/destination_index": 0.0,
                    "sim/aircraft/view/acf_ICAO": [float(b) for b in b"C172"] + [0.0] * 36,
                }
            )

    def get(self, name: str) -> float | None:
        """A value as RREF reads it: `name[i]` picks an array element; unknown -> None."""
        base, idx = name, None
        if name.endswith("]") and "[" in name:
            base, _, rest = name.partition("[")
            idx = int(rest[:-1])
        v = self.d.get(base)
        if v is None:
            return None
        if isinstance(v, list):
            return float(v[idx or 0]) if (idx or 0) < len(v) else None
        return float(v) if idx in (None, 0) else None

    def set(self, name: str, value: float) -> None:
        base, idx = name, None
        if name.endswith("]") and "[" in name:
            base, _, rest = name.partition("[")
            idx = int(rest[:-1])
        cur = self.d.get(base)
        if isinstance(cur, list):
            if isinstance(value, list):
                self.d[base] = [float(x) for x in value]
            else:
                cur[idx or 0] = float(value)
        else:
            self.d[base] = value if isinstance(value, list) else float(value)

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> "XPlaneDouble":
        self._spawn(self._sim_loop, "sim")
        if self._http is not None:
            self._spawn(self._http.serve_forever, "http")
            from websockets.sync.server import serve

            self._ws = serve(self._ws_handler, "127.0.0.1", self._ws_port)
            self._spawn(self._ws.serve_forever, "ws")
        return self

    def _spawn(self, fn: Any, name: str) -> None:
        t = threading.Thread(target=fn, name=f"xplane-double-{name}", daemon=True)
        t.start()
        self._threads.append(t)

    def stop(self) -> None:
        self._stop.set()
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
        if self._ws is not None:
            self._ws.shutdown()
        for t in self._threads:
            t.join(timeout=2)
        for s in (self.udp, self.xpc, self.fms_sock):
            s.close()

    def __enter__(self) -> "XPlaneDouble":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ the frame loop
    def _sim_loop(self) -> None:
        dt = 1.0 / self.fps
        next_t = time.monotonic()
        last_beacon = -1e9
        while not self._stop.is_set():
            next_t += dt
            with self.lock:
                self._read_udp()
                self._read_xpc()
                self._read_fms()
                self.wall += dt
                if not self.d["sim/time/paused"]:
                    sim_dt = dt * self.time_scale
                    self.clock += sim_dt
                    self.d["sim/time/total_running_time_sec"] = self.clock
                    self._fly(sim_dt)
                self._send_rref()
            if self.beacon_to and time.monotonic() - last_beacon >= self.beacon_interval_s:
                last_beacon = time.monotonic()
                self._send_beacon()
            sleep = next_t - time.monotonic()
            if sleep > 0:
                time.sleep(sleep)
            else:
                next_t = time.monotonic()

    def _fly(self, dt: float) -> None:
        d, p = self.d, self.pilot
        engine_ok = d["sim/operation/failures/rel_engfai0"] < 6 and d["sim/flightmodel/engine/ENGN_running"][0] >= 0.5
        if d["sim/operation/failures/rel_engfai0"] >= 6:
            d["sim/flightmodel/engine/ENGN_running"][0] = 0.0
        rpm = d["sim/cockpit2/engine/indicators/engine_speed_rpm"]
        if p is not None and self.clock >= p.takeoff_at_s and engine_ok:
            d["sim/cockpit2/engine/actuators/throttle_ratio"][0] = 1.0
        thr = d["sim/cockpit2/engine/actuators/throttle_ratio"][0] if engine_ok else 0.0
        target_rpm = 800 + 1600 * thr if engine_ok else 0.0
        rpm[0] += (target_rpm - rpm[0]) * min(1.0, dt * 2)
        ias = d["sim/flightmodel/position/indicated_airspeed"]
        on_ground = d["sim/flightmodel/failures/onground_any"] >= 0.5
        agl_ft = d["sim/flightmodel/position/y_agl"] * FT_PER_M
        alt_ft = d["sim/flightmodel/position/elevation"] * FT_PER_M
        vs = d["sim/flightmodel/position/vh_ind_fpm"]
        hdg_true = d["sim/flightmodel/position/psi"]
        bank = 0.0
        if on_ground:
            accel = 4.0 * thr - (0 if thr > 0 else 3.0)
            ias = max(0.0, ias + accel * dt)
            vs = 0.0
            if p is not None and engine_ok and ias >= p.rotate_kt:
                on_ground = False
        else:
            if p is None:
                target_ias, target_vs = ias, vs
            elif not engine_ok:
                target_ias, target_vs = p.glide_ias_kt, -700.0
            else:
                climbing = alt_ft < p.target_alt_ft - 50
                target_ias = p.climb_ias_kt if climbing else p.cruise_ias_kt
                target_vs = max(-p.climb_fpm, min(p.climb_fpm, (p.target_alt_ft - alt_ft) * 3.0))
            ias += (target_ias - ias) * min(1.0, dt * 0.5)
            vs += (target_vs - vs) * min(1.0, dt * 1.0)
            if p is not None:
                err = ((p.target_hdg_mag + MAG_VAR_DEG) - hdg_true + 540) % 360 - 180
                bank = max(-20.0, min(20.0, err * 2.0))
                turn_rate = 1091 * math.tan(math.radians(bank)) / max(ias, 40.0)  # deg/s
                hdg_true = (hdg_true + turn_rate * dt) % 360
            agl_ft += vs / 60 * dt
            if agl_ft <= 0:
                agl_ft, on_ground = 0.0, True
                if vs < -1000:
                    d["sim/flightmodel2/misc/has_crashed"] = 1.0
                vs = 0.0
        gs_mps = ias / 1.943844
        lat = d["sim/flightmodel/position/latitude"]
        dist = gs_mps * dt
        d["sim/flightmodel/position/latitude"] = lat + dist * math.cos(math.radians(hdg_true)) / 111_320
        d["sim/flightmodel/position/longitude"] += (
            dist * math.sin(math.radians(hdg_true)) / (111_320 * math.cos(math.radians(lat)))
        )
        d["sim/flightmodel/position/indicated_airspeed"] = ias
        d["sim/flightmodel/position/groundspeed"] = gs_mps
        d["sim/flightmodel/position/vh_ind_fpm"] = vs
        d["sim/flightmodel/position/y_agl"] = agl_ft / FT_PER_M
        d["sim/flightmodel/position/elevation"] = self.ground_m + agl_ft / FT_PER_M
        d["sim/flightmodel/position/psi"] = hdg_true
        d["sim/flightmodel/position/mag_psi"] = (hdg_true - MAG_VAR_DEG) % 360
        d["sim/flightmodel/position/phi"] = bank
        d["sim/flightmodel/position/theta"] = 0.0 if on_ground else max(-10.0, min(10.0, vs / 150))
        d["sim/flightmodel/failures/onground_any"] = 1.0 if on_ground else 0.0

    # ------------------------------------------------------------------ native UDP
    def _read_udp(self) -> None:
        while True:
            try:
                data, addr = self.udp.recvfrom(65535)
            except (BlockingIOError, OSError):
                return
            tag = data[:4]
            try:
                if tag == b"RREF":
                    freq, index, name = _udp_wire.decode_rref_request(data)
                    if freq == 0:
                        self.subs.pop((addr, index), None)
                    else:
                        # one schedule per (client, rate), so a rate's datarefs share a datagram
                        due = next(
                            (s.next_due for s in self.subs.values() if s.addr == addr and s.freq == freq),
                            self.wall + 1.0 / freq,
                        )
                        self.subs[(addr, index)] = _Sub(addr, freq, name, due)
                elif tag == b"DREF":
                    value, name = _udp_wire.decode_dref(data)
                    self.set(name, value)
                elif tag == b"CMND":
                    self._command(_udp_wire.decode_cmnd(data))
            except _udp_wire.UdpWireError:
                continue

    def _command(self, cmd: str) -> None:
        self.commands.append(cmd)
        if cmd == "sim/operation/pause_on":
            self.d["sim/time/paused"] = 1.0
        elif cmd == "sim/operation/pause_off":
            self.d["sim/time/paused"] = 0.0
        elif cmd == "sim/operation/pause_toggle":
            self.d["sim/time/paused"] = 0.0 if self.d["sim/time/paused"] else 1.0

    def _send_rref(self) -> None:
        """Everything due for one client at one rate goes out in one datagram (at most 183 pairs).
        Rates are in wall-clock time, as X-Plane's are; the values carry simulator time."""
        batches: dict[tuple[tuple[str, int], int], list[tuple[int, float]]] = {}
        for (addr, index), sub in self.subs.items():
            if self.wall + 1e-9 >= sub.next_due:
                sub.next_due += 1.0 / sub.freq
                if sub.next_due < self.wall:
                    sub.next_due = self.wall + 1.0 / sub.freq
                v = self.get(sub.name)
                batches.setdefault((addr, sub.freq), []).append((index, math.nan if v is None else v))
        if self.d["sim/time/paused"]:
            return
        for (addr, _freq), pairs in batches.items():
            for start in range(0, len(pairs), 183):
                self._emit(_udp_wire.encode_rref_reply(pairs[start : start + 183]), addr)

    def _emit(self, data: bytes, addr: tuple[str, int]) -> None:
        if self.loss and self.rng.random() < self.loss:
            self.rref_dropped += 1
            return
        if self.reorder and self.rng.random() < self.reorder and not self.held:
            self.held.append((data, addr))
            return
        self._sendto(self.udp, data, addr)
        for held, haddr in self.held:
            self._sendto(self.udp, held, haddr)
        self.held.clear()

    def _sendto(self, sock: socket.socket, data: bytes, addr: tuple[str, int]) -> None:
        try:
            sock.sendto(data, addr)
            self.rref_sent += sock is self.udp
        except OSError:
            pass

    def _send_beacon(self) -> None:
        b = _udp_wire.Beacon(1, 2, 1, 124000, 1, self.udp_port, "xplane-double", 49010)
        try:
            self.udp.sendto(_udp_wire.encode_becn(b), self.beacon_to)
        except OSError:
            pass

    # ------------------------------------------------------------------ XPlaneConnect
    def _read_xpc(self) -> None:
        handled = 0
        while True:
            try:
                data, addr = self.xpc.recvfrom(65535)
            except (BlockingIOError, OSError):
                return
            if handled >= _xpc_wire.MAX_MESSAGES_PER_FRAME:
                # the plugin re-creates its socket: everything still queued is lost
                self.xpc_overflows += 1
                while True:
                    try:
                        self.xpc.recvfrom(65535)
                    except (BlockingIOError, OSError):
                        return
            handled += 1
            self._xpc(data, addr)

    def _xpc(self, data: bytes, addr: tuple[str, int]) -> None:
        tag = data[:4].decode("ascii", "replace")
        self.xpc_log.append(tag)
        key = addr[0]
        conn = self.xpc_conns.get(key)
        if conn is None:
            conn = self.xpc_conns[key] = _XpcConn(addr, len(self.xpc_conns))
        if tag == "CONN":
            conn.addr = (addr[0], struct.unpack_from("<H", data, 5)[0])
            self.xpc.sendto(b"CONF\x00" + bytes([conn.id]), conn.addr)
        elif tag == "GETD":
            count, pos = data[5], 6
            if count:
                names = []
                for _ in range(count):
                    n = data[pos]
                    names.append(data[pos + 1 : pos + 1 + n].decode())
                    pos += 1 + n
                conn.last_getd = names
            out = b"RESP\x00" + bytes([len(conn.last_getd)])
            for name in conn.last_getd:
                v = self.d.get(name)
                vals = [] if v is None else (v if isinstance(v, list) else [v])
                out += bytes([len(vals)]) + struct.pack(f"<{len(vals)}f", *vals)
            self.xpc.sendto(out, conn.addr)
        elif tag == "DREF":
            pos = 5
            while pos < len(data):
                n = data[pos]
                name = data[pos + 1 : pos + 1 + n].decode()
                pos += 1 + n
                cnt = data[pos]
                vals = list(struct.unpack_from(f"<{cnt}f", data, pos + 1))
                pos += 1 + 4 * cnt
                self.set(name, vals if isinstance(self.d.get(name), list) else vals[0])
        elif tag == "POSI" and len(data) == 46:
            _ac, lat, lon, elev, pitch, roll, hdg, _gear = struct.unpack("<5xBdddffff", data)
            self.d["sim/flightmodel/position/latitude"], self.d["sim/flightmodel/position/longitude"] = lat, lon
            self.d["sim/flightmodel/position/elevation"] = elev
            self.d["sim/flightmodel/position/y_agl"] = max(0.0, elev - self.ground_m)
            for name, v in (("theta", pitch), ("phi", roll), ("psi", hdg)):
                if v != _xpc_wire.UNCHANGED:
                    self.d[f"sim/flightmodel/position/{name}"] = v
        elif tag == "GETP":
            d = self.d
            self.xpc.sendto(
                b"POSI\x00"
                + struct.pack(
                    "<Bdddffff",
                    1,
                    d["sim/flightmodel/position/latitude"],
                    d["sim/flightmodel/position/longitude"],
                    d["sim/flightmodel/position/elevation"],
                    d["sim/flightmodel/position/theta"],
                    d["sim/flightmodel/position/phi"],
                    d["sim/flightmodel/position/psi"],
                    1.0,
                ),
                conn.addr,
            )
        elif tag == "CTRL" and len(data) in (26, 27, 31):
            thr = struct.unpack_from("<f", data, 17)[0]
            if thr != _xpc_wire.UNCHANGED:
                self.d["sim/cockpit2/engine/actuators/throttle_ratio"][0] = thr
            flaps = struct.unpack_from("<f", data, 22)[0]
            if flaps != _xpc_wire.UNCHANGED:
                self.d["sim/flightmodel2/wing/flap1_deg"][0] = flaps * 30
        elif tag == "GETC":
            self.xpc.sendto(
                b"CTRL\x00"
                + struct.pack(
                    "<ffffbfBf",
                    0.0,
                    0.0,
                    0.0,
                    self.d["sim/cockpit2/engine/actuators/throttle_ratio"][0],
                    1,
                    self.d["sim/flightmodel2/wing/flap1_deg"][0] / 30,
                    data[5],
                    0.0,
                ),
                conn.addr,
            )
        elif tag == "SIMU":
            v = data[5]
            self.d["sim/time/paused"] = (
                {0: 0.0, 1: 1.0}.get(v, 0.0 if self.d["sim/time/paused"] else 1.0)
                if v <= 2
                else self.d["sim/time/paused"]
            )
        elif tag == "TEXT":
            n = data[13]
            self.text = data[14 : 14 + n].decode()
        elif tag == "WYPT":
            op, count = data[5], data[6]
            pts = [struct.unpack_from("<fff", data, 7 + 12 * i) for i in range(count)]
            if op == 1:
                self.waypoints += pts
            elif op == 2:
                self.waypoints = [w for w in self.waypoints if w not in pts]
            elif op == 3:
                self.waypoints = []
        elif tag == "VIEW" and len(data) == 9:
            self.view = struct.unpack_from("<i", data, 5)[0]
        elif tag == "COMM":
            pos = 5
            while pos < len(data):
                n = data[pos]
                self._command(data[pos + 1 : pos + 1 + n].decode())
                pos += 1 + n

    # ------------------------------------------------------------------ FMS probe plugin
    def _read_fms(self) -> None:
        while True:
            try:
                data, addr = self.fms_sock.recvfrom(2048)
            except (BlockingIOError, OSError):
                return
            if data[:4] == b"FMSQ":
                self.fms_sock.sendto(_fms.encode_fmsl(self.fms_entries, self.fms_destination), addr)

    # ------------------------------------------------------------------ Web API
    def _id(self, name: str) -> int:
        if name not in self.ids:
            self.ids[name] = 1000 + len(self.ids) * 7
        return self.ids[name]

    def _name_of(self, did: int) -> str | None:
        return next((n for n, i in self.ids.items() if i == did), None)

    def _start_flight(self, data: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        starts = [
            k for k in ("runway_start", "ramp_start", "lle_ground_start", "lle_air_start", "boat_start") if k in data
        ]
        if not isinstance(data.get("aircraft"), dict) or "path" not in data["aircraft"]:
            return 400, {"error_code": "invalid", "error_message": "aircraft.path is required"}
        if len(starts) != 1:
            return 400, {"error_code": "invalid", "error_message": f"exactly one start key required, got {starts}"}
        start = data[starts[0]]
        if starts[0] == "runway_start":
            key = (start.get("airport_id"), start.get("runway"))
            if key not in AIRPORTS:
                return 400, {"error_code": "invalid", "error_message": f"unknown runway {key}"}
            self.reset_state(*AIRPORTS[key])
        elif starts[0] in ("lle_ground_start", "lle_air_start"):
            elev = start.get("elevation_in_meters", 0.0)
            self.reset_state(
                start["latitude"],
                start["longitude"],
                0.0 if starts[0] == "lle_air_start" else elev,
                start.get("heading_true", 0.0),
                airborne_ft=elev * FT_PER_M if starts[0] == "lle_air_start" else 0.0,
                ias_kt=start.get("speed_in_meters_per_second", 0.0) * 1.943844,
            )
        self.flights.append(data)
        return 200, {}

    def _http_handler(self) -> type[BaseHTTPRequestHandler]:
        double = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _reply(self, code: int, body: Any) -> None:
                raw = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def _body(self) -> Any:
                n = int(self.headers.get("Content-Length") or 0)
                return json.loads(self.rfile.read(n) or b"{}")

            def _route(self, method: str) -> None:
                u = urlparse(self.path)
                q = parse_qs(u.query)
                parts = u.path.strip("/").split("/")  # api, vN, ...
                with double.lock:
                    if parts[:2] == ["api", "capabilities"]:
                        return self._reply(
                            200, {"api": {"versions": ["v1", "v2", "v3"]}, "x-plane": {"version": "12.4.0 (double)"}}
                        )
                    if len(parts) < 3 or parts[0] != "api" or parts[1] not in ("v1", "v2", "v3"):
                        return self._reply(404, {"error_code": "not_found", "error_message": u.path})
                    rest = parts[2:]
                    if rest == ["datarefs"] and method == "GET":
                        names = q.get("filter[name]", [])
                        data = [
                            {
                                "id": double._id(n),
                                "name": n,
                                "value_type": "float" if not isinstance(double.d[n], list) else "float_array",
                                "is_writable": True,
                            }
                            for n in names
                            if n in double.d
                        ]
                        return self._reply(200, {"data": data})
                    if len(rest) == 3 and rest[0] == "datarefs" and rest[2] == "value":
                        name = double._name_of(int(rest[1]))
                        if name is None:
                            return self._reply(404, {"error_code": "dataref_not_found", "error_message": rest[1]})
                        if method == "GET":
                            v = double.d[name]
                            if "index" in q and isinstance(v, list):
                                v = v[int(q["index"][0])]
                            return self._reply(200, {"data": v})
                        if method == "PATCH":
                            value = self._body()["data"]
                            double.set(f"{name}[{q['index'][0]}]" if "index" in q else name, value)
                            return self._reply(200, {})
                    if rest == ["commands"] and method == "GET":
                        names = q.get("filter[name]", [])
                        return self._reply(
                            200,
                            {
                                "data": [
                                    {"id": double.cmd_ids.setdefault(n, 5000 + len(double.cmd_ids)), "name": n}
                                    for n in names
                                ]
                            },
                        )
                    if len(rest) == 3 and rest[0] == "command" and rest[2] == "activate" and method == "POST":
                        name = next((n for n, i in double.cmd_ids.items() if i == int(rest[1])), None)
                        if name is None:
                            return self._reply(404, {"error_code": "command_not_found", "error_message": rest[1]})
                        double._command(name)
                        return self._reply(200, {})
                    if rest == ["flight"] and parts[1] == "v3":
                        if method == "POST":
                            return self._reply(*double._start_flight(self._body().get("data", {})))
                        if method == "PATCH":
                            double.flights.append({"update": self._body().get("data", {})})
                            return self._reply(200, {})
                    return self._reply(404, {"error_code": "not_found", "error_message": u.path})

            def do_GET(self) -> None:
                self._route("GET")

            def do_PATCH(self) -> None:
                self._route("PATCH")

            def do_POST(self) -> None:
                self._route("POST")

        return Handler

    def _ws_handler(self, ws: Any) -> None:
        subscribed: set[int] = set()
        last: dict[int, Any] = {}
        next_push = time.monotonic()
        while not self._stop.is_set():
            try:
                raw = ws.recv(timeout=0.02)
            except TimeoutError:
                raw = None
            except Exception:
                return
            if raw is not None:
                msg = json.loads(raw)
                kind, params = msg.get("type"), msg.get("params", {})
                ok = True
                with self.lock:
                    if kind == "dataref_subscribe_values":
                        subscribed |= {int(d["id"]) for d in params.get("datarefs", [])}
                    elif kind == "dataref_unsubscribe_values":
                        subscribed = (
                            set()
                            if params.get("datarefs") == "all"
                            else subscribed - {int(d["id"]) for d in params["datarefs"]}
                        )
                    elif kind == "dataref_set_values":
                        for item in params.get("datarefs", []):
                            name = self._name_of(int(item["id"]))
                            ok = ok and name is not None
                            if name:
                                self.set(name, item["value"])
                    else:
                        ok = False
                ws.send(json.dumps({"type": "result", "req_id": msg.get("req_id"), "success": ok}))
            if subscribed and time.monotonic() >= next_push:
                next_push += 0.1  # about 10 Hz, changed values only
                with self.lock:
                    changed = {}
                    for did in subscribed:
                        name = self._name_of(did)
                        v = self.d.get(name) if name else None
                        if v is not None and last.get(did) != v:
                            changed[str(did)] = list(v) if isinstance(v, list) else v
                            last[did] = list(v) if isinstance(v, list) else v
                if changed:
                    try:
                        ws.send(json.dumps({"type": "dataref_update_values", "data": changed}))
                    except Exception:
                        return


def _session_class() -> type:
    from simbridge.adapters.xplane import XPlaneSession

    class DoubleXPlaneSession(XPlaneSession):
        """The real X-Plane adapter wired to a double it starts itself (for `simbridge run --sim
        doubles.xplane_double:DoubleXPlaneSession`). XPLANE_DOUBLE_TIME_SCALE sets the sim speed."""

        @classmethod
        def preflight(cls, provider: str) -> None:
            """The double is started by `start` itself: nothing to find beforehand."""

        def start(self, task: Any, sandbox: Any, *, seed: int | None = None) -> None:
            import os

            self.double = XPlaneDouble(
                pilot=Pilot(), time_scale=float(os.environ.get("XPLANE_DOUBLE_TIME_SCALE", "10"))
            ).start()
            sandbox.info["xplane"] = {
                "host": "127.0.0.1",
                "udp_port": self.double.udp_port,
                "xpc_port": self.double.xpc_port,
                "web_port": self.double.http_port,
                "fms_port": self.double.fms_port,
                "require_lockdown": False,
                "ready_timeout_s": 5.0,
            }
            super().start(task, sandbox, seed=seed)

        def stop(self) -> None:
            super().stop()
            if getattr(self, "double", None) is not None:
                self.double.stop()
                self.double = None

    return DoubleXPlaneSession


def __getattr__(name: str) -> Any:  # lazy: importing the double must not need the adapter
    if name == "DoubleXPlaneSession":
        return _session_class()
    raise AttributeError(name)
