"""The host side of the embedded driving simulator: `DriveSession` launches the drive process
(`simbridge.adapters.drive.world.sim`) on the sandbox's display, connects to its state port, and maps
its raw true state to canonical driving signals in CARLA's world frame (`_mapping`).

The host always connects to the sandbox (works for every provider: an isolated sandbox's
blocked port is opened to the host side only, a VM's is forwarded); nothing in the sandbox
reaches out. The world does not move until the host has connected and said `run`, so the
recording starts with the episode. A stream that closes is lost at once;
one silent (while not paused) with the drive process up is a clock standing still, waited for up
to the session's frozen limit (`SimSession.frozen_limit()`). Either is a harness fault
(`lost_reason`), never the agent's.
"""

from __future__ import annotations

import json
import queue
import socket
import threading
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from simbridge.adapters.drive.world.sim import FRAME_S
from simbridge.adapters.kit import Drain, check_window, end_process, free_port, launch_window_process
from simbridge.sim import HarnessError, LogTail, ProcessHandle, Sandbox, SimEvent, SimSession, StateSample

if TYPE_CHECKING:
    from simbridge import TaskSpec

#: the drive process's state port inside an isolated sandbox (a blocked port of the drive tasks)
STATE_PORT = 8800
START_TIMEOUT_S = 60.0
SIGNALS = (
    "x_m",
    "y_m",
    "yaw_deg",
    "speed_kmh",
    "lane_id",
    "lane_offset_m",
    "route_progress",
    "throttle",
    "steer",
    "brake",
)
CONTROLS = (
    ("W / Up", "throttle"),
    ("S / Down", "brake"),
    ("A / D or Left / Right", "steer left / right"),
    ("Q", "toggle reverse"),
    ("Space", "hand brake"),
    ("P", "autopilot (disabled in this simulator)"),
)


class _Link:
    """The TCP connection to the drive process: a reader thread, JSON lines both ways."""

    def __init__(self, host: str, port: int, timeout_s: float) -> None:
        self.sock = socket.create_connection((host, port), timeout=timeout_s)
        self.sock.settimeout(None)
        self.samples: Drain[dict[str, Any]] = Drain()
        self.events: Drain[dict[str, Any]] = Drain()
        self.hello: dict[str, Any] | None = None
        self.hello_ready = threading.Event()
        self.replies: queue.Queue[dict[str, Any]] = queue.Queue()
        #: world times at which `advance` commands finished
        self.advanced: queue.Queue[float] = queue.Queue()
        self.failed: str | None = None
        #: the latest traffic-light states ({"t", "states": {SUMO light id: link-state string}})
        self.lights: dict[str, Any] = {}
        self.n_light_changes = 0
        self.n_lines = 0
        self.n_bad = 0
        self.last_line_mono = time.monotonic()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._read, name="drive-state", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        buf = b""
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    self.failed = "the drive process closed the state connection"
                    return
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    self._line(line)
        except OSError as exc:
            if self.failed is None:
                self.failed = f"state connection error: {exc}"
        finally:
            self.hello_ready.set()

    def _line(self, line: bytes) -> None:
        try:
            obj = json.loads(line)
        except ValueError:
            self.n_bad += 1
            return
        self.n_lines += 1
        self.last_line_mono = time.monotonic()
        if "sample" in obj:
            self.samples.put(obj["sample"])
        elif "event" in obj:
            self.events.put(obj["event"])
        elif "hello" in obj:
            self.hello = obj["hello"]
            self.hello_ready.set()
        elif "lights" in obj:
            self.lights = obj["lights"]
            self.n_light_changes += 1
        elif "snapshot" in obj:
            self.replies.put(obj["snapshot"])
        elif "advanced" in obj:
            self.advanced.put(float(obj["advanced"]["t"]))

    def send(self, cmd: str, **fields: Any) -> None:
        with self._lock:
            try:
                self.sock.sendall((json.dumps({"cmd": cmd, **fields}) + "\n").encode())
            except OSError as exc:
                raise HarnessError(f"drive: cannot send {cmd!r} to the drive process: {exc}") from None

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class DriveSession(SimSession):
    sim_name = "drive"
    #: the drive window has no console, debug menu or plugin loader
    has_consoles = False
    signals = SIGNALS
    state_ports = (("tcp", STATE_PORT),)
    controls = CONTROLS

    @classmethod
    def preflight(cls, provider: str) -> None:
        import importlib.util

        from simbridge import SimbridgeError

        missing = [m for m in ("libsumo", "vehiclemodels", "pygame", "scipy") if importlib.util.find_spec(m) is None]
        if missing:
            raise SimbridgeError(
                f"drive simulator needs the Python package(s) {', '.join(missing)} (pip install 'simbridge[drive]')"
            )

    def __init__(self, *, python: str | None = None) -> None:
        self.python = python
        self.proc: ProcessHandle | None = None
        self.link: _Link | None = None
        self.mapper: Any = None
        self.start_snapshot: dict[str, Any] = {}
        self._events: Drain[SimEvent] = Drain()
        self._t = 0.0
        self._n_samples = 0
        self._paused = False
        self._timeout_scale = 1.0
        self._stopped = False
        self._log_path: Path | None = None
        self._log_file: IO[bytes] | None = None
        self._unsupported: list[str] = []
        self._first_sample_wall: float | None = None
        self._start_timeout_s = START_TIMEOUT_S

    # ---------------------------------------------------------------- lifecycle
    def start(self, task: "TaskSpec", sandbox: Sandbox, *, seed: int | None = None) -> None:
        from simbridge.adapters.drive._mapping import CanonicalMapper
        from simbridge.adapters.drive.world._net import net_path, xodr_path
        from simbridge.adapters.drive._scenario import from_task

        try:
            scenario = from_task(task, seed)
            xodr = xodr_path(scenario.town)
            net_path(scenario.town)  # convert on the host once (the cache is shared with a local sandbox)
        except ValueError as exc:
            raise HarnessError(f"drive: task {task.id}: scenario not supported: {exc}") from None
        self._unsupported = list(scenario.unsupported)
        work = Path(sandbox.workdir) / "drive"
        work.mkdir(parents=True, exist_ok=True)
        (work / "scenario.json").write_text(scenario.to_json())
        listen = sandbox.listen_addr or sandbox.host_addr or "127.0.0.1"
        port = STATE_PORT if sandbox.isolated else free_port(host=listen)
        argv = [
            self.python or sandbox.python,
            "-m",
            "simbridge.adapters.drive.world.sim",
            "--scenario-json",
            scenario.to_json(),
            "--port",
            str(port),
            "--host",
            listen,
        ]
        self._log_path = work / "drive.log"
        try:
            self.proc, self._log_file = launch_window_process(sandbox, argv, self._log_path, name="drive")
        except OSError as exc:
            self.stop()
            raise HarnessError(f"drive: cannot launch the drive process: {exc}") from None
        self._start_timeout_s = START_TIMEOUT_S * sandbox.timeout_scale
        self._timeout_scale = sandbox.timeout_scale
        try:
            self._connect(*sandbox.reach(port))
            assert self.link is not None
            self.start_snapshot = dict(self.link.hello or {})
            check_window("drive", sandbox, self.start_snapshot.get("video_driver"))
            route = [(float(p[0]), float(p[1])) for p in self.start_snapshot.get("route_xy_m", [])]
            self.mapper = CanonicalMapper(xodr, route)
            self.link.send("run")
        except HarnessError:
            self.stop()
            raise

    def _log_tail(self) -> str:
        try:
            if isinstance(self.proc, LogTail):
                text = self.proc.log_tail()
            else:
                text = self._log_path.read_text(errors="replace") if self._log_path else ""
        except (OSError, HarnessError):
            return ""
        lines = [ln for ln in text.splitlines() if ln.strip() and "pyarrow" not in ln]
        return " | ".join(lines[-3:])

    def _connect(self, host: str, port: int) -> None:
        deadline = time.monotonic() + self._start_timeout_s
        while self.link is None:
            if self.proc is not None and self.proc.poll() is not None:
                raise HarnessError(
                    f"drive: the drive process exited with code {self.proc.returncode} at start: {self._log_tail()}"
                )
            if time.monotonic() > deadline:
                raise HarnessError(
                    f"drive: state port {host}:{port} did not answer within {self._start_timeout_s:g} s"
                    + (f": {tail}" if (tail := self._log_tail()) else "")
                )
            try:
                self.link = _Link(host, port, timeout_s=1.0)
            except OSError:
                time.sleep(0.1)
        if not self.link.hello_ready.wait(max(1.0, deadline - time.monotonic())) or self.link.hello is None:
            raise HarnessError(f"drive: no greeting on the state port: {self.link.failed or 'timed out'}")

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        if self.link is not None:
            try:
                self.link.send("exit")
            except HarnessError:
                pass
        try:
            end_process(self.proc, exit_wait_s=3.0, grace_s=3.0)
        except HarnessError:
            pass
        if self.link is not None:
            self.link.close()
        if self._log_file is not None:
            self._log_file.close()

    # ---------------------------------------------------------------- data
    def poll(self) -> list[StateSample]:
        if self.link is None or self.mapper is None:
            return []
        for ev in self.link.events.drain():
            self._events.put(SimEvent(float(ev["t"]), str(ev["kind"]), dict(ev.get("data") or {})))
        out: list[StateSample] = []
        for raw in self.link.samples.drain():
            t = float(raw["t"])
            if self._n_samples and t <= self._t:
                continue
            canon, events = self.mapper.map(t, raw)
            for ev in events:
                self._events.put(SimEvent(float(ev["t"]), ev["kind"], ev["data"]))
            out.append(StateSample(t, canon))
            self._t = t
            self._n_samples += 1
        if out and self._first_sample_wall is None:
            self._first_sample_wall = time.monotonic()
        return out

    def events(self) -> list[SimEvent]:
        return sorted(self._events.drain(), key=lambda e: e.t_sim)

    def sim_time(self) -> float:
        return self._t

    def alive(self) -> bool:
        if self._stopped or self.proc is None or self.link is None or self.link.failed is not None:
            return False
        if not self._paused and time.monotonic() - self.link.last_line_mono >= self.frozen_limit():
            return False
        try:
            return self.proc.poll() is None
        except HarnessError:
            return False

    def lost_reason(self) -> str | None:
        if self.link is None or self._stopped:
            return None
        if self.link.failed is not None:
            return f"telemetry lost: {self.link.failed}"
        age = time.monotonic() - self.link.last_line_mono
        if not self._paused and age >= self.frozen_limit():
            return self.frozen_reason(age, "no state from the drive process")
        return None

    def set_paused(self, paused: bool) -> None:
        if self.link is None:
            raise HarnessError("drive: not started")
        self.link.send("pause" if paused else "resume")
        self._paused = paused
        if not paused:
            self.link.last_line_mono = time.monotonic()

    def advance(self, seconds: float) -> float | None:
        """Lockstep: from a pause, run exactly `seconds` of world time in whole 50 ms steps (at
        least one) and pause again; returns the world time reached once its frame is drawn."""
        if self.link is None:
            raise HarnessError("drive: not started")
        if not self._paused:
            return None
        while not self.link.advanced.empty():
            self.link.advanced.get_nowait()
        steps = max(1, round(seconds / FRAME_S))
        self.link.send("advance", steps=steps)
        # a step draws a frame: ~10-50 ms on one core; a stalled world is a harness fault
        wait_s = (10.0 + steps * 1.0) * self._timeout_scale
        try:
            t = self.link.advanced.get(timeout=wait_s)
        except queue.Empty:
            if not self.alive():
                return None  # the runner reports the lost simulator
            raise HarnessError(f"drive: the world did not run {steps} steps within {wait_s:g} s") from None
        self.link.last_line_mono = time.monotonic()
        return t

    def snapshot(self) -> dict[str, Any]:
        if self.link is None or not self.alive():
            return dict(self.start_snapshot)
        while not self.link.replies.empty():
            self.link.replies.get_nowait()
        self.link.send("snapshot")
        try:
            now = self.link.replies.get(timeout=5.0)
        except queue.Empty:
            return dict(self.start_snapshot)
        return {**self.start_snapshot, **now, "traffic_light_states": self.link.lights.get("states", {})}

    def info(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "sim": "drive",
            "step_s": FRAME_S,
            "unsupported": self._unsupported,
            "samples": self._n_samples,
            "vehicle_model": "CommonRoad single-track (vehicle_dynamics_st), Lincoln MKZ 2017 parameters",
            "town": self.start_snapshot.get("town"),
            "sumo_version": self.start_snapshot.get("sumo_version"),
            "video_driver": self.start_snapshot.get("video_driver"),
        }
        if self.link is not None:
            out["telemetry"] = {
                "mode": "tcp-stream",
                "lines": self.link.n_lines,
                "bad_lines": self.link.n_bad,
                "light_changes": self.link.n_light_changes,
            }
            if self.link.failed:
                out["telemetry"]["failed"] = self.link.failed
        if self._first_sample_wall is not None and self._n_samples > 1:
            wall = time.monotonic() - self._first_sample_wall
            if wall > 0:
                out["sample_rate_hz"] = round((self._n_samples - 1) / wall, 1)
        return out
