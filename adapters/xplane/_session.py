"""XPlaneSession: one X-Plane episode, driven by the runner through the SimSession contract.

X-Plane itself runs inside the sandbox (started by the provider, or here when `executable` is
given). The session reaches it from the host only: the Web API starts the flight in the task's
initial state, RREF streams the canonical signals at `hz`, XPlaneConnect GETD reads the start/end
snapshots, and the FMS probe plugin supplies FMS legs for T04/T20.

Options come from keyword arguments, overridden by `sandbox.info["xplane"]` (a dict with the same
names), so a runner that constructs the session without arguments still reaches a lab setup.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from simbridge.sim import Sandbox, SimEvent, SimSession, StateSample
from simbridge import HarnessError
from simbridge.adapters.kit import DerivedEvents, Drain, kill_group
from simbridge.adapters.xplane import _mapping, _snapshots
from simbridge.adapters.xplane._fms import FMS_PORT, FmsProbeClient
from simbridge.adapters.xplane._lockdown import require_locked_down
from simbridge.adapters.xplane._logger import RrefLogger
from simbridge.adapters.xplane._tasks import FAILURE_INOPERATIVE, TaskPlan, plan_task
from simbridge.adapters.xplane._udp import UDP_PORT, UdpClient
from simbridge.adapters.xplane._webapi import WEB_PORT, WebApiClient
from simbridge.adapters.xplane._xpc import XPC_PORT, XpcClient

if TYPE_CHECKING:
    from simbridge import TaskSpec

_OPTIONS = (
    "host",
    "udp_port",
    "xpc_port",
    "web_port",
    "fms_port",
    "hz",
    "install_dir",
    "start_flight",
    "executable",
    "ready_timeout_s",
    "stale_after_s",
    "require_lockdown",
)


class XPlaneSession(SimSession):
    sim_name = "xplane"
    signals = tuple(_mapping.TABLE)
    #: what the harness reaches X-Plane on; an isolated provider keeps them host-only
    state_ports = (("udp", UDP_PORT), ("udp", XPC_PORT), ("tcp", WEB_PORT), ("udp", FMS_PORT))

    @classmethod
    def preflight(cls, provider: str) -> None:
        """On the local provider X-Plane runs on this machine: its Web API must answer."""
        import socket

        from simbridge import SimbridgeError

        if provider != "local":
            return
        try:
            socket.create_connection(("127.0.0.1", WEB_PORT), timeout=1.0).close()
        except OSError as exc:
            raise SimbridgeError(
                f"xplane: no X-Plane answering on 127.0.0.1:{WEB_PORT} (Web API): "
                f"{exc.strerror or exc}; start X-Plane 12 with the Web API enabled"
            ) from None

    def __init__(
        self,
        *,
        host: str | None = None,
        udp_port: int = UDP_PORT,
        xpc_port: int | None = XPC_PORT,
        web_port: int | None = WEB_PORT,
        fms_port: int | None = FMS_PORT,
        hz: int = 50,
        install_dir: str | None = None,
        start_flight: bool = True,
        executable: str | None = None,
        ready_timeout_s: float = 60.0,
        stale_after_s: float = 5.0,
        require_lockdown: bool = True,
    ) -> None:
        self.opts: dict[str, Any] = {k: v for k, v in locals().items() if k in _OPTIONS}
        self.plan: TaskPlan | None = None
        self.udp: UdpClient | None = None
        self.xpc: XpcClient | None = None
        self.web: WebApiClient | None = None
        self.fms: FmsProbeClient | None = None
        self.logger: RrefLogger | None = None
        self._events: Drain[SimEvent] = Drain()
        self._proc: Any = None
        self._derived = DerivedEvents()
        self._info: dict[str, Any] = {"flags": []}
        self._stopped = False

    # -- lifecycle
    def start(self, task: "TaskSpec", sandbox: Sandbox, *, seed: int | None = None) -> None:
        o = {**self.opts, **(sandbox.info.get("xplane") or {})}
        host = o["host"] or sandbox.host_addr
        if o["install_dir"]:
            self._info["lockdown"] = require_locked_down(o["install_dir"]).as_dict()
        elif o["require_lockdown"] and sandbox.isolated:
            raise HarnessError("xplane: an isolated episode needs install_dir for the plugin lockdown check")
        else:
            self._info["flags"].append("lockdown_unchecked")
        if o["executable"]:
            if sandbox.spawn is None:
                raise HarnessError("xplane: executable given but the sandbox cannot spawn processes")
            args = [o["executable"]] + ([f"--web_server_port={o['web_port']}"] if o["web_port"] else [])
            self._proc = sandbox.spawn(args)
        self.plan = plan_task(task, seed)
        self._info["plan_notes"] = self.plan.notes
        if o["web_port"]:
            self.web = WebApiClient(host, o["web_port"])
            if o["start_flight"] and self.plan.flight:
                self._wait_web(o["ready_timeout_s"])
                self.web.start_flight(self.plan.flight)
        if o["xpc_port"]:
            self.xpc = XpcClient(host, o["xpc_port"])
        if o["fms_port"] and "fms" in self.plan.snapshot_groups:
            self.fms = FmsProbeClient(host, o["fms_port"])
        self.udp = UdpClient(host, o["udp_port"])
        rows = _mapping.select(self.plan.signals)
        self.logger = RrefLogger(self.udp, rows, hz=o["hz"])
        # with no flight to start (T08: the agent starts it) the stream may begin later
        self.logger.start(ready_timeout_s=o["ready_timeout_s"], require_data=self.plan.flight is not None)
        self._install_dir = o["install_dir"]
        self._info.update(
            sample_rate_hz=o["hz"], clock=_mapping.CLOCK_DATAREF, injections=[i.as_dict() for i in self.plan.injections]
        )

    def _wait_web(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                caps = self.web.capabilities()  # type: ignore[union-attr]
                self._info["sim_version"] = (caps.get("x-plane") or {}).get("version")
                return
            except HarnessError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    def poll(self) -> list[StateSample]:
        if self.logger is None:
            return []
        samples = self.logger.samples()
        for s in samples:
            self._watch(s)
        return samples

    def _watch(self, s: StateSample) -> None:
        v = s.values
        self._events.extend(self._derived.update(s.t_sim, v))
        if self.plan is None:
            return
        for f in self.plan.failures.due(s.t_sim, v):
            self.udp.set_dref(f.target, FAILURE_INOPERATIVE)  # type: ignore[union-attr,arg-type]
            self._events.put(self.plan.failures.event(f, s.t_sim, v, dataref=f.target, value=FAILURE_INOPERATIVE))

    def events(self) -> list[SimEvent]:
        return self._events.drain()

    def snapshot(self) -> dict[str, Any]:
        groups = self.plan.snapshot_groups if self.plan else ["position"]
        out: dict[str, Any] = {}
        names = _snapshots.datarefs_for_groups(groups)
        if names:
            try:
                out.update(_snapshots.build(groups, self._read_raw(names)))
            except HarnessError as exc:
                out["error"] = str(exc)
        if self.fms is not None:
            try:
                out["fms"] = self.fms.snapshot()
            except HarnessError as exc:
                out["fms"] = {"error": str(exc)}
        out["airport"] = self._airport(out.get("position") or {})
        if self.plan is not None and self.plan.injections:
            first = self.plan.injections[0].trigger_agl_ft
            if first is not None:
                out["failure_agl_ft"] = round(first, 1)
            out["failure_schedule"] = [
                {"system": i.system, "trigger_agl_ft": i.as_dict()["trigger_agl_ft"], "injected_at_t": i.injected_at_t}
                for i in self.plan.injections
            ]
        return out

    def _read_raw(self, names: list[str]) -> dict[str, list[float]]:
        """Dataref values for a snapshot: XPlaneConnect GETD (one request), else the Web API
        (one REST call per dataref; unknown datarefs are left out)."""
        if self.xpc is not None:
            try:
                return self.xpc.get_drefs(names)
            except HarnessError:
                if self.web is None:
                    raise
        if self.web is None:
            raise HarnessError("xplane: no XPlaneConnect or Web API configured for snapshots")
        raw: dict[str, list[float]] = {}
        for n in names:
            try:
                v = self.web.get(n)
            except HarnessError:
                continue
            raw[n] = list(v) if isinstance(v, (list, bytes, bytearray)) else [float(v)]
        return raw

    def _airport(self, pos: dict[str, Any]) -> str | None:
        """Nearest airport from the install's apt.dat, else the airport the harness started at."""
        from simbridge.adapters.xplane._airports import find_apt_dat, nearest_airport

        apt = find_apt_dat(self._install_dir) if getattr(self, "_install_dir", None) else None
        if apt is not None and pos.get("lat_deg") is not None:
            return nearest_airport(apt, pos["lat_deg"], pos["lon_deg"])
        flight = self.plan.flight if self.plan else None
        for key in ("runway_start", "ramp_start"):
            if flight and key in flight:
                return flight[key].get("airport_id")
        return None

    def sim_time(self) -> float:
        return self.logger.assembler.t_sim if self.logger else 0.0

    def alive(self) -> bool:
        if self._stopped or self.udp is None:
            return False
        if self._proc is not None and self._proc.poll() is not None:
            return False
        last = self.udp.last_packet_mono
        if last is None:  # nothing yet: fine only while waiting for the agent to start the flight
            return self.plan is not None and self.plan.flight is None
        return time.monotonic() - last < self.opts["stale_after_s"]

    def lost_reason(self) -> str | None:
        """A silent RREF stream while X-Plane may still run: the harness lost it (unscored)."""
        if self._stopped or self.udp is None or self.udp.last_packet_mono is None:
            return None
        if self._proc is not None and self._proc.poll() is not None:
            return None  # X-Plane itself exited: sim_crashed
        age = time.monotonic() - self.udp.last_packet_mono
        if age >= self.opts["stale_after_s"]:
            return f"telemetry lost: no RREF data for {age:.1f} s"
        return None

    def set_paused(self, paused: bool) -> None:
        if self.udp is None:
            raise HarnessError("xplane: not started")
        self.udp.command("sim/operation/pause_on" if paused else "sim/operation/pause_off")

    def info(self) -> dict[str, Any]:
        out = dict(self._info)
        if self.logger is not None:
            a = self.logger.assembler
            out.update(
                rref_packets=self.udp.packets_received if self.udp else 0,
                frames=self.logger.frames_out,
                dropped_late=a.dropped_late,
                paused_frames=a.paused_frames,
            )
        return out

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        if self.logger is not None:
            self.logger.stop()
        for c in (self.udp, self.xpc, self.web, self.fms):
            if c is not None:
                try:
                    c.close()
                except OSError:
                    pass
        if self._proc is not None:
            kill_group(self._proc, grace_s=10.0)
