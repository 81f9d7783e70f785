"""MsfsSession: one MSFS episode on a remote (or local Windows) MSFS, through SimConnect.

MSFS runs on a Windows machine or VM the provider gives (its SimConnect.xml opens a global
IPv4 port, docs/msfs.md). The session connects over TCP (or SimConnect.dll on Windows), loads
the task's .FLT (FlightLoad; the project ships them, `_flt`), checks and records the assists
(T03: auto-rudder off, landing assist off), closes the setup (no SetData or FlightLoad after it)
and records every sim frame. The SimConnect ports are the session's state ports: an isolated
provider opens them to the host side only and the audit probes them from the agent's side.

Options come from keyword arguments (defaults from the environment: SIMBRIDGE_MSFS_HOST,
SIMBRIDGE_MSFS_PORT, SIMBRIDGE_MSFS_PROTOCOL = 2020|2024, SIMBRIDGE_MSFS_FLIGHTS_DIR, so
`simbridge run --sim msfs` reaches a remote MSFS), overridden by `sandbox.info["msfs"]`.
"""

from __future__ import annotations

import ntpath
import os
import posixpath
import time
from typing import TYPE_CHECKING, Any

from simbridge.sim import Sandbox, SimEvent, SimSession, StateSample
from simbridge.canonical import AIRCRAFT_STATE
from simbridge import HarnessError
from simbridge.adapters.msfs import _flt, _mapping
from simbridge.adapters.msfs._client import Datum, SimConnectClient
from simbridge.adapters.msfs._logger import EV_FLIGHT_LOADED, MsfsLogger
from simbridge.adapters.msfs._transport import make_transport
from simbridge.adapters.msfs._wire import DataType, Protocol

if TYPE_CHECKING:
    from simbridge import TaskSpec

#: the SimConnect.xml port docs/msfs.md configures, and the server's fallback
SIMCONNECT_PORT = 500
FALLBACK_PORT = 2048
#: where deploy/msfs/ copies adapters/msfs/flights on the MSFS machine
DEFAULT_FLIGHTS_DIR = r"C:\simbridge\flights"
#: signals logged first on every MSFS task (then the rest of the mapping's, then the task's)
BASE_SIGNALS = list(AIRCRAFT_STATE)
DEFINE_ASSISTS, DEFINE_SNAPSHOT = 10, 11
EV_PAUSE_ON, EV_PAUSE_OFF, EV_AUTO_RUDDER_TOGGLE = 20, 21, 22
SNAPSHOT_ROWS = (
    "com1_mhz",
    "com1_stby_mhz",
    "nav1_mhz",
    "xpdr_code",
    "xpdr_mode",
    "baro_inhg",
    "lat_deg",
    "lon_deg",
    "alt_msl_ft",
    "on_ground",
    "engine_running",
    "autopilot_on",
)
_OPTIONS = (
    "host",
    "port",
    "protocol",
    "transport",
    "flights_dir",
    "hz",
    "ready_timeout_s",
    "stale_after_s",
    "load_flight",
)


class MsfsSession(SimSession):
    sim_name = "msfs"
    signals = tuple(_mapping.TABLE)
    state_ports = (("tcp", SIMCONNECT_PORT), ("tcp", FALLBACK_PORT))

    def __init__(
        self,
        *,
        host: str | None = None,
        port: int = SIMCONNECT_PORT,
        protocol: str = "2020",
        transport: str = "auto",
        flights_dir: str = DEFAULT_FLIGHTS_DIR,
        hz: float | None = None,
        ready_timeout_s: float = 60.0,
        stale_after_s: float = 5.0,
        load_flight: bool = True,
    ) -> None:
        self.opts: dict[str, Any] = {k: v for k, v in locals().items() if k in _OPTIONS}
        env = os.environ
        if host is None and env.get("SIMBRIDGE_MSFS_HOST"):
            self.opts["host"] = env["SIMBRIDGE_MSFS_HOST"]
        for key, name, conv in (
            ("port", "SIMBRIDGE_MSFS_PORT", int),
            ("protocol", "SIMBRIDGE_MSFS_PROTOCOL", str),
            ("flights_dir", "SIMBRIDGE_MSFS_FLIGHTS_DIR", str),
        ):
            if env.get(name):
                try:
                    self.opts[key] = conv(env[name])
                except ValueError:
                    raise HarnessError(f"msfs: {name}={env[name]!r} is not a valid {key}") from None
        self.client: SimConnectClient | None = None
        self.logger: MsfsLogger | None = None
        self._info: dict[str, Any] = {"flags": []}
        self._assists: dict[str, Any] = {}
        self._samples_pending: list[StateSample] = []
        self._stopped = False

    @classmethod
    def preflight(cls, provider: str) -> None:
        """A SimConnect server must answer where SIMBRIDGE_MSFS_HOST/PORT say (or the DLL be there)."""
        import socket

        from simbridge import SimbridgeError
        from simbridge.adapters.msfs._transport import dll_available

        host = os.environ.get("SIMBRIDGE_MSFS_HOST")
        if host is None:
            if dll_available():
                return
            raise SimbridgeError(
                "msfs: set SIMBRIDGE_MSFS_HOST (and SIMBRIDGE_MSFS_PORT) to the MSFS machine's "
                "SimConnect address; see docs/msfs.md"
            )
        try:
            port = int(os.environ.get("SIMBRIDGE_MSFS_PORT") or SIMCONNECT_PORT)
        except ValueError:
            raise SimbridgeError(
                f"msfs: SIMBRIDGE_MSFS_PORT={os.environ['SIMBRIDGE_MSFS_PORT']!r} is not a port"
            ) from None
        try:
            socket.create_connection((host, port), timeout=3.0).close()
        except OSError as exc:
            raise SimbridgeError(
                f"msfs: no SimConnect server at {host}:{port}: {exc.strerror or exc}; "
                "check SimConnect.xml on the MSFS machine (docs/msfs.md)"
            ) from None

    @staticmethod
    def _protocol(name: str) -> Protocol:
        try:
            return {"2020": Protocol.KITTYHAWK, "2024": Protocol.SUNRISE}[str(name)]
        except KeyError:
            raise HarnessError(f"msfs: protocol {name!r} is not 2020 or 2024") from None

    def start(self, task: "TaskSpec", sandbox: Sandbox, *, seed: int | None = None) -> None:
        o = {**self.opts, **(sandbox.info.get("msfs") or {})}
        host, port = (o["host"], o["port"]) if o["host"] else sandbox.reach(o["port"], "tcp")
        protocol = self._protocol(o["protocol"])
        self.client = SimConnectClient(
            lambda: make_transport(host, port, protocol=protocol, prefer=o["transport"]), app_name="simbridge harness"
        )
        server = self.client.open(min(o["ready_timeout_s"], 30.0) * sandbox.timeout_scale)
        self._info.update(
            sim_version=".".join(map(str, server.application_version)),
            simconnect_version=".".join(map(str, server.simconnect_version)),
            server_name=server.application_name,
            protocol=int(protocol),
            simconnect=f"{host}:{port}",
        )
        # every mapped signal (the runner's columns are `signals`; 40 SimVars per frame are cheap)
        wanted = [s for s in dict.fromkeys([*BASE_SIGNALS, *_mapping.TABLE, *task.signals]) if s in _mapping.TABLE]
        missing = [s for s in task.signals if s not in _mapping.TABLE]
        if missing:
            self._info["flags"].append("signals_unmapped")
            self._info["unmapped"] = missing
        self.logger = MsfsLogger(self.client, _mapping.select(wanted), hz=o["hz"])
        self.logger.subscribe()
        self.client.map_event(EV_PAUSE_ON, "PAUSE_ON")
        self.client.map_event(EV_PAUSE_OFF, "PAUSE_OFF")
        self.client.map_event(EV_AUTO_RUDDER_TOGGLE, "AUTO_COORDINATION_TOGGLE")
        flt = _flt.flight_file(task.id)
        if o["load_flight"] and flt is not None:
            d = o["flights_dir"]
            join = ntpath.join if ("\\" in d or d[1:2] == ":") else posixpath.join  # a path on the MSFS machine
            self._load(join(d, flt.name), o["ready_timeout_s"] * sandbox.timeout_scale)
        elif flt is None:
            self._info["flags"].append("no_flight_file")
        if task.id.split("@")[0] == "T03" or task.lockdown.disabled_assists:
            self._assists = self._check_assists(task)
        self.client.define(DEFINE_SNAPSHOT, [_mapping.TABLE[s].datum for s in SNAPSHOT_ROWS])
        self.logger.start()
        self.client.end_setup()
        deadline = time.monotonic() + o["ready_timeout_s"] * sandbox.timeout_scale
        while self.logger.t0 is None:
            self._samples_pending += self.logger.samples()
            if self.logger.t0 is not None:
                break
            self._raise_if_lost()
            if time.monotonic() > deadline:
                raise HarnessError(f"msfs: no sim-frame data within {o['ready_timeout_s']:g} s of the request")
            time.sleep(0.01)
        self._info["sample_rate_hz"] = o["hz"] or "sim frame"

    def _load(self, path: str, timeout_s: float) -> None:
        assert self.client is not None
        n0 = len(self.client.events)
        self.client.flight_load(path)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for _, ev in list(self.client.events)[n0:]:
                if ev.event_id == EV_FLIGHT_LOADED:
                    self._info["flight_file"] = getattr(ev, "filename", path)
                    return
            for e in self.client.exceptions:
                if e.call.startswith("FlightLoad"):
                    raise HarnessError(f"msfs: {e.call}: {e.exception}")
            self._raise_if_lost()
            time.sleep(0.02)
        raise HarnessError(f"msfs: FlightLoad {path!r} not confirmed (no FlightLoaded event) within {timeout_s:g} s")

    def _check_assists(self, task: "TaskSpec") -> dict[str, Any]:
        """Auto-rudder is readable (AUTO COORDINATION) and switched off here if it is on; the
        landing assist has no SimVar known to the harness: set off in the .FLT, recorded as not
        checked."""
        assert self.client is not None
        self.client.define(DEFINE_ASSISTS, [Datum("AUTO COORDINATION", "bool", DataType.INT32)])
        before = self.client.read_once(DEFINE_ASSISTS, 90)[0]
        after = before
        if before:
            self.client.transmit_event(EV_AUTO_RUDDER_TOGGLE)
            deadline = time.monotonic() + 5
            while after and time.monotonic() < deadline:
                after = self.client.read_once(DEFINE_ASSISTS, 91)[0]
        if after:
            raise HarnessError("msfs: auto-rudder (AUTO COORDINATION) stays on after AUTO_COORDINATION_TOGGLE")
        return {
            "auto_rudder": {"state": "off", "checked": True, "evidence": f"AUTO COORDINATION {before} -> {after}"},
            "landing_assist": {
                "state": "off in the .FLT [Assistance]",
                "checked": False,
                "evidence": "no SimVar for the landing assist; set by the flight file only",
            },
            "required_off": list(task.lockdown.disabled_assists),
        }

    def _raise_if_lost(self) -> None:
        if self.client is not None and not self.client.connected:
            raise HarnessError(f"msfs: SimConnect lost: {self.client.lost or 'no Open reply'}")

    def poll(self) -> list[StateSample]:
        if self.logger is None:
            return []
        out, self._samples_pending = self._samples_pending + self.logger.samples(), []
        return out

    def events(self) -> list[SimEvent]:
        return self.logger.events() if self.logger else []

    def snapshot(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.client is not None and self.client.connected:
            try:
                raw = self.client.read_once(DEFINE_SNAPSHOT, 92)
                rows = [_mapping.TABLE[s] for s in SNAPSHOT_ROWS]
                vals = {r.signal: (r.convert(v) if isinstance(v, (int, float)) else None) for r, v in zip(rows, raw)}
                out["radios"] = {
                    k: vals[k] for k in ("com1_mhz", "com1_stby_mhz", "nav1_mhz", "xpdr_code", "xpdr_mode", "baro_inhg")
                }
                out["position"] = {k: vals[k] for k in ("lat_deg", "lon_deg", "alt_msl_ft", "on_ground")}
                out["aircraft"] = {k: vals[k] for k in ("engine_running", "autopilot_on")}
            except (HarnessError, ValueError) as exc:
                out["error"] = str(exc)
        if self._assists:
            out["assists"] = self._assists
        if "flight_file" in self._info:
            out["flight_file"] = self._info["flight_file"]
        return out

    def sim_time(self) -> float:
        return self.logger.t_sim if self.logger else 0.0

    def alive(self) -> bool:
        return not self._stopped and self.lost_reason() is None

    def lost_reason(self) -> str | None:
        c = self.client
        if c is None:
            return None
        if not c.connected:
            return f"msfs: SimConnect lost: {c.lost or 'closed'}"
        paused = self.logger is not None and self.logger.paused
        if (
            not paused
            and c.last_message_mono is not None
            and time.monotonic() - c.last_message_mono > self.opts["stale_after_s"]
        ):
            return f"msfs: no SimConnect data for {self.opts['stale_after_s']:g} s"
        return None

    def set_paused(self, paused: bool) -> None:
        if self.client is None:
            raise HarnessError("msfs: not started")
        self.client.transmit_event(EV_PAUSE_ON if paused else EV_PAUSE_OFF)

    def info(self) -> dict[str, Any]:
        out = dict(self._info)
        if self.logger is not None:
            out.update(frames_in=self.logger.frames_in, frames=self.logger.frames_out)
        if self.client is not None:
            out["simconnect_exceptions"] = [vars(e) for e in self.client.exceptions]
        return out

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        if self.client is not None:
            self.client.close()
