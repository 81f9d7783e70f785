"""The host side of the embedded simulator: `JSBSimSession` launches the cockpit process in
the sandbox and reads its true state over the FlightGear-compatible ports (telnet property
protocol for control and snapshots, generic-protocol packets for the time series), with the
shared `simbridge.adapters.fgproto` clients.

The time series comes one of two ways, the same packets either way (first field the task
clock `/sim/time/elapsed-sec`, the same mapping to canonical signals):
- `udp`: the cockpit pushes one datagram per packet to the harness's address (local, netns);
- `tcp-stream`: the sandbox may send nothing to the host (a VM on restricted user networking),
  so the host opens a second connection to the cockpit's telnet port (through the provider's
  forwarded port) and asks for the packets with `stream`; they come back on that connection.
  Packets are produced in simulator time (every 1/`generic_hz` s), so a guest that renders
  slowly delivers them in bursts but without gaps in the task clock.
Assists: the cockpit shows the C172's panel only unless the runner sets `assists` (each one its
AdapterSpec offers; `readout`: the digital readout strip), passed as the cockpit's `--assist NAME`.
Lockstep: with `start_paused` (set by the runner) the cockpit starts frozen at t=0;
`advance(seconds)` runs whole FDM steps (1/120 s) at full speed with the cockpit's
`run advance`, in chunks of at most `ADVANCE_CHUNK_STEPS` so the packets of a long wait reach
the host between chunks, and returns the simulator time reached once that frame is drawn.
A stream that closes ends `alive()` at once (telemetry lost); a stream that stops while the
cockpit process is up (busy, or stopped) is a clock standing still, waited for up to the
session's frozen limit (`SimSession.frozen_limit()`): either is a harness fault, not the agent's.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from simbridge.sim import HarnessError, LogTail, ProcessHandle, Sandbox, SimEvent, SimSession, StateSample
from simbridge.adapters.fgproto import TcpStreamReceiver, TelnetProps, UdpReceiver
from simbridge.adapters.fgproto.keys import FLIGHTGEAR_KEYS
from simbridge.adapters.jsbsim._mapping import FAILURE_PROPS, MAPPINGS, default_protocol, to_canonical
from simbridge.adapters.jsbsim._scenario import from_task
from simbridge.adapters.kit import (
    DerivedEvents,
    Drain,
    FailurePlan,
    check_window,
    end_process,
    free_port,
    launch_window_process,
)

if TYPE_CHECKING:
    from simbridge import TaskSpec

START_TIMEOUT_S = 45.0
#: failure system (task YAML) -> cockpit property that is set false to inject it (engine_rough:
#: the magneto drawn per trial, `failure_paths`)
FAILURE_PATHS = {k: v for k, v in FAILURE_PROPS.items() if ":" not in k}
FUEL_TANKS = {1: "left", 2: "right", 3: "left", 0: "left"}


def magneto_side(task_id: str, seed: int | None) -> str:
    """Which magneto an `engine_rough` failure fails: L or R, drawn from (task, seed)."""
    import random

    return random.Random(f"{task_id}:{seed}:magneto").choice("LR")


def failure_paths(task_id: str, seed: int | None) -> dict[str, str]:
    """Every failure system this cockpit injects -> the property set false for it, this trial."""
    return {**FAILURE_PATHS, "engine_rough": FAILURE_PROPS[f"engine_rough:{magneto_side(task_id, seed)}"]}


SNAPSHOT_PATHS = {
    "aircraft": "/sim/aircraft",
    "airport": "/sim/airport",
    "com1_mhz": "/instrumentation/comm[0]/frequencies/selected-mhz",
    "com1_stby_mhz": "/instrumentation/comm[0]/frequencies/standby-mhz",
    "nav1_mhz": "/instrumentation/nav[0]/frequencies/selected-mhz",
    "nav1_stby_mhz": "/instrumentation/nav[0]/frequencies/standby-mhz",
    "nav1_obs_deg": "/instrumentation/nav[0]/radials/selected-deg",
    "xpdr_code": "/instrumentation/transponder/id-code",
    "xpdr_mode": "/instrumentation/transponder/mode",
    "baro_inhg": "/instrumentation/altimeter/setting-inhg",
    "autopilot_on": "/autopilot/switches/ap",
    "ap_hdg": "/autopilot/switches/hdg",
    "ap_nav": "/autopilot/switches/nav",
    "ap_alt": "/autopilot/switches/alt",
    "ap_heading_bug_deg": "/autopilot/settings/heading-bug-deg",
    "ap_alt_target_ft": "/autopilot/settings/target-altitude-ft",
    "fuel_left_gal": "/consumables/fuel/tank[0]/level-gal_us",
    "fuel_right_gal": "/consumables/fuel/tank[1]/level-gal_us",
    "crashed": "/sim/crashed",
    "crash_reason": "/sim/crash-reason",
    "sim_time_s": "/sim/time/elapsed-sec",
}
INFO_PATHS = {
    "frame_rate": "/sim/frame-rate",
    "real_time_factor": "/sim/real-time-factor",
    "frames": "/sim/rendering/sim-frame-count",
    "fdm_steps": "/sim/fdm-steps",
    "jsbsim_version": "/sim/version/jsbsim",
    "aircraft": "/sim/aircraft",
}
#: the aids the cockpit draws beyond the C172's panel, comma-separated ("" for none; `--assist`)
ASSISTS_PATH = "/sim/rendering/assists"
#: the cockpit's SDL video driver ("x11"; "dummy" draws nowhere)
VIDEO_DRIVER_PATH = "/sim/rendering/video-driver"


#: the cockpit's telnet port inside an isolated sandbox (FlightGear's default)
STATE_PORT = 5401
#: telemetry modes (episode.json `sim_info.telemetry.mode`)
TELEMETRY_UDP = "udp"
TELEMETRY_STREAM = "tcp-stream"
#: turns a telnet connection to the cockpit into a generic-protocol stream
STREAM_REQUEST = b"data\r\nstream\r\n"
#: the cockpit's FDM step (its `cockpit._fdm.DT_S`; the host does not import JSBSim for it)
FDM_STEP_S = 1.0 / 120.0
#: the most FDM steps one `run advance` asks for (1 simulator second: 60 packets at 60 Hz)
ADVANCE_CHUNK_STEPS = 120
#: lockstep with a failure waiting for a height: the host looks every 0.1 s of simulator time
FAILURE_CHECK_STEPS = 12
#: a failure's trigger time matches a sample this close to it (the packets' clock is rounded)
TRIGGER_TOLERANCE_S = 5e-4


class JSBSimSession(SimSession):
    sim_name = "jsbsim"
    #: the embedded cockpit has no console, debug menu or plugin loader
    has_consoles = False
    signals = tuple(m.canonical for m in MAPPINGS)
    state_ports = (("tcp", STATE_PORT),)
    controls = (
        *(k for k in FLIGHTGEAR_KEYS if not k[0].startswith("Tab")),
        ("mouse on the panel", "click switches, buttons and knobs (wheel turns knobs); drag levers"),
        (
            "switches BAT ALT BCN AVN; NAV LDG TAXI STRB PITOT",
            "battery and alternator halves of the master, beacon, avionics master; nav, landing, taxi and "
            "strobe lights, pitot heat (the second row, bottom right): click toggles, lit yellow when on",
        ),
        (
            "knobs CARB HT, CAB HT, CAB AIR",
            "carburettor heat, cabin heat, cabin air (bottom right): click pulls (on / open, lit) or pushes",
        ),
        (
            "MAGNETOS OFF R L BOTH START, FUEL OFF LEFT RIGHT BOTH, PRIMER, THR, MIX, FLAPS",
            "click a position (START cranks while held); each primer click is one stroke; drag or click the levers; "
            "click a flap detent",
        ),
        (
            "gauges AMPS, SUCTION, VOLTS, FUEL L/R; lights LOW VOLTS VAC SMOKE DOOR STALL",
            "battery current (discharge left of zero), vacuum suction (green 4.5-5.5 inHg), bus voltage, tank "
            "fuel; the annunciators beside the NAV 1 indicator",
        ),
        (
            "Tab or right mouse button",
            "mouse yoke mode on / off. While on (the panel shows MOUSE YOKE ON) the pointer's position "
            "flies aileron and elevator, the wheel trims, and left clicks on the panel do nothing; "
            "press Tab or right-click again to leave it",
        ),
    )

    @classmethod
    def preflight(cls, provider: str) -> None:
        import importlib.util

        from simbridge import SimbridgeError

        missing = [m for m in ("jsbsim", "pygame") if importlib.util.find_spec(m) is None]
        if missing:
            raise SimbridgeError(
                f"jsbsim simulator needs the Python package(s) {', '.join(missing)} (pip install 'simbridge[sim]')"
            )

    def __init__(self, *, fps: float = 25.0, generic_hz: float = 60.0, python: str | None = None):
        self.fps = fps
        self.generic_hz = generic_hz
        self.python = python  # None: the sandbox's interpreter
        self._pull_lock = threading.Lock()
        self.proc: ProcessHandle | None = None  # a host Popen, or the sandbox's own handle (a VM guest)
        self.telnet: TelnetProps | None = None
        self.video_driver: str | None = None
        self.receiver: UdpReceiver | TcpStreamReceiver | None = None
        self.telemetry_mode: str | None = None
        self._telemetry_addr = ""
        self._events: Drain[SimEvent] = Drain()
        self._derived = DerivedEvents(crash_reason=self._crash_reason)
        self._t = 0.0
        self._n_samples = 0
        self._stopped = False
        self._log_path: Path | None = None
        self._log_file: IO[bytes] | None = None
        self._unsupported: list[str] = []
        #: the scenario's steady wind (from degrees true, knots); (0, 0) is calm
        self._wind: tuple[float, float] = (0.0, 0.0)
        self._wall_start = 0.0
        self._failures = FailurePlan()  # harness-injected failures (planned at start)
        self._buffer: list[StateSample] = []  # samples pulled (lockstep) but not yet polled
        self._clock = 0.0  # lockstep: the simulator time the cockpit stands at
        self._failure_paths: dict[str, str] = dict(FAILURE_PATHS)
        self._magneto = "L"
        self._first_sample_wall: float | None = None
        self._t_first = 0.0
        self._start_timeout_s = START_TIMEOUT_S
        self._paused = False
        #: False once the cockpit refused `run advance` (an older guest image): pace by pausing
        self._can_advance = True
        #: the aids the cockpit said at start it draws (checked against `assists`)
        self._drawn_assists: list[str] | None = None

    # ---------------------------------------------------------------- lifecycle
    def start(self, task: "TaskSpec", sandbox: Sandbox, *, seed: int | None = None) -> None:
        try:
            scenario = from_task(task)
        except (KeyError, ValueError) as exc:
            raise HarnessError(f"jsbsim: task {task.id}: initial state not supported: {exc}") from None
        self._unsupported = list(scenario.unsupported)
        self._wind = (scenario.wind_from_deg, scenario.wind_kt)
        self._failure_paths = failure_paths(task.id, seed)
        self._magneto = magneto_side(task.id, seed)
        self._failures = FailurePlan.from_task(task, seed, self._failure_paths)
        self._unsupported += self._failures.unsupported
        work = Path(sandbox.workdir) / "jsbsim"
        work.mkdir(parents=True, exist_ok=True)
        # passed as text: a VM guest does not see the host's files (the file is for the record)
        scenario_json = json.dumps(json.loads(scenario.to_json()), separators=(",", ":"))
        (work / "scenario.json").write_text(scenario.to_json())
        # the packets are the cockpit's packaged generic.xml, which is this protocol (tested)
        protocol = default_protocol()
        # the cockpit's telnet port binds `listen`: the sandbox's address as the host side sees
        # it, or (vm) the address the provider's port forwarding reaches inside the guest
        listen = sandbox.listen_addr or sandbox.host_addr or "127.0.0.1"
        port = STATE_PORT if sandbox.isolated else free_port(host=listen)
        python = self.python or sandbox.python
        argv = [
            python,
            "-m",
            "simbridge.adapters.jsbsim.cockpit",
            "--scenario-json",
            scenario_json,
            "--telnet-port",
            str(port),
            "--telnet-host",
            listen,
            "--generic-hz",
            str(self.generic_hz),
            "--fps",
            str(self.fps),
        ]
        if getattr(self, "start_paused", False):  # lockstep: frozen at t=0 until the first `advance`
            argv.append("--paused")
            self._paused = True
        for name in self.assists:  # set by the runner, each one the AdapterSpec offers: by default none
            argv += ["--assist", name]
        harness = sandbox.harness_addr
        if sandbox.telemetry == "push" and harness is not None:
            # the cockpit pushes its packets to the harness's address on the sandbox's side
            udp_port = sandbox.harness_udp_ports[0] if sandbox.harness_udp_ports else 0
            self.receiver = UdpReceiver(protocol, host=harness, port=udp_port).start()
            self.telemetry_mode, self._telemetry_addr = TELEMETRY_UDP, f"{harness}:{self.receiver.port}"
            argv += ["--generic-udp", self._telemetry_addr]
        else:
            # telemetry is pulled (nothing in the sandbox may reach the host): the host asks for
            # the packets on a connection of its own to the state port, once the cockpit answers
            # (_wait_ready)
            self.telemetry_mode = TELEMETRY_STREAM
        self._protocol = protocol
        self._log_path = work / "cockpit.log"
        try:
            self.proc, self._log_file = launch_window_process(sandbox, argv, self._log_path, name="cockpit")
        except OSError as exc:
            self.stop()
            raise HarnessError(f"jsbsim: cannot launch the cockpit: {exc}") from None
        self._wall_start = time.monotonic()
        # a slow sandbox (software-emulated VM) states how much longer everything takes there
        self._start_timeout_s = START_TIMEOUT_S * sandbox.timeout_scale
        try:
            self._wait_ready(*sandbox.reach(port))
            self.video_driver = self._video_driver()
            check_window("jsbsim", sandbox, self.video_driver)
        except HarnessError:
            self.stop()
            raise

    def _video_driver(self) -> str | None:
        """The cockpit's SDL video driver, or None from a cockpit too old to say (a guest image
        built before cockpits reported it): unknown, not a fault."""
        assert self.telnet is not None
        try:
            return self.telnet.get(VIDEO_DRIVER_PATH)
        except HarnessError:
            return None

    def _inject_due(self, t: float, canon: dict[str, float]) -> None:
        """Fail what the plan says is due at this sample (a property set false), and record it."""
        for f in self._failures.due(t + TRIGGER_TOLERANCE_S, canon):
            if self.telnet is None:
                return
            self.telnet.set(self._failure_paths[f.system], False)
            detail: dict[str, Any] = {"property": self._failure_paths[f.system]}
            if f.system == "engine_rough":
                detail["magneto"] = self._magneto
            elif f.system == "fuel_empty_tank":
                detail["tank"] = FUEL_TANKS.get(int(canon.get("fuel_selector", 3)), "left")
            elif f.system == "flaps":
                detail["flaps_deg"] = round(float(canon.get("flaps_deg", 0.0)), 1)
            self._events.put(self._failures.event(f, t, canon, detail=detail))

    def _log_tail(self) -> str:
        try:
            if isinstance(self.proc, LogTail):  # its log is where the host cannot open it (a guest)
                text = self.proc.log_tail()
            else:
                text = self._log_path.read_text(errors="replace") if self._log_path else ""
        except (OSError, HarnessError):
            return ""
        lines = [ln for ln in text.splitlines() if ln.strip()]
        return " | ".join(lines[-5:])

    def _wait_ready(self, host: str, port: int) -> None:
        deadline = time.monotonic() + self._start_timeout_s
        while self.telnet is None:
            if self.proc is not None and self.proc.poll() is not None:
                raise HarnessError(
                    f"jsbsim: cockpit exited with code {self.proc.returncode} at start: {self._log_tail()}"
                )
            if time.monotonic() > deadline:
                raise HarnessError(
                    f"jsbsim: state port {host}:{port} did not answer within {self._start_timeout_s:g} s"
                    + (f": {tail}" if (tail := self._log_tail()) else "")
                )
            try:
                self.telnet = TelnetProps(host, port, timeout_s=10.0, connect_timeout_s=1.0)
            except HarnessError:
                time.sleep(0.1)
        while self.telnet.get_float("/sim/signals/fdm-initialized") < 0.5:
            if time.monotonic() > deadline:
                raise HarnessError("jsbsim: the flight model did not initialise")
            time.sleep(0.1)
        self._check_assists(self.telnet)
        if self.telemetry_mode == TELEMETRY_STREAM:
            self.receiver = TcpStreamReceiver(self._protocol, host, port, request=STREAM_REQUEST).start()
            self._telemetry_addr = f"{host}:{port}"
        assert self.receiver is not None
        try:
            self.receiver.wait_first(max(1.0, deadline - time.monotonic()))
        except HarnessError as exc:
            if self.telemetry_mode == TELEMETRY_STREAM and "refused" in str(exc):
                raise HarnessError(
                    f"{exc} (a cockpit older than the stream command: in a VM, rebuild the guest "
                    "image with `simbridge vm build`)"
                ) from None
            raise

    def _check_assists(self, telnet: TelnetProps) -> None:
        """The aids the cockpit says it draws (`/sim/rendering/assists`) are the ones the episode
        asked for, else a harness fault: the agent would see what the bundle does not record (a
        cockpit built before assists draws its readout strip whatever was asked)."""
        try:
            said = telnet.get(ASSISTS_PATH)
        except HarnessError:
            raise HarnessError(
                "jsbsim: the cockpit does not say which aids it draws (one older than --assist draws the "
                "readout strip always): in a VM, rebuild the guest image with `simbridge vm build`"
            ) from None
        drawn = sorted(a for a in said.split(",") if a)
        if drawn != sorted(self.assists):
            raise HarnessError(
                f"jsbsim: the cockpit draws {', '.join(drawn) or 'no aid'}, the episode asked for "
                f"{', '.join(self.assists) or 'none'}"
            )
        self._drawn_assists = drawn

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        if self.telnet is not None:
            self.telnet.send_exit()
        try:
            self._end_process()
        except HarnessError:
            pass  # a guest that stopped answering: the provider tears the whole VM down
        if self.telnet is not None:
            self.telnet.close()
        if self.receiver is not None:
            self.receiver.close()
        if self._log_file is not None:
            self._log_file.close()

    def _end_process(self) -> None:
        """The cockpit was asked to exit (telnet `exit`): up to 3 s for it, then its group is ended."""
        end_process(self.proc, exit_wait_s=3.0, grace_s=3.0)

    # ---------------------------------------------------------------- data
    def poll(self) -> list[StateSample]:
        self._pull()
        out, self._buffer = self._buffer, []
        return out

    def _pull(self) -> None:
        """Take the packets that arrived into the sample buffer, injecting the failures they make due.
        The recorder's thread (poll) and the lockstep thread (advance) both pull: one at a time, or
        a failure due on one packet is injected, and recorded, by both."""
        with self._pull_lock:
            self._pull_locked()

    def _pull_locked(self) -> None:
        if self.receiver is None:
            return
        out: list[StateSample] = []
        for t, values in self.receiver.drain():
            if out or self._n_samples:
                if t <= self._t:  # frozen (paused or crashed): the clock stands still, no new sample
                    continue
            canon = to_canonical(values)
            self._events.extend(self._derived.update(t, canon))
            if self._failures.pending:
                self._inject_due(t, canon)
            out.append(StateSample(t, canon))
            self._t = t
            self._n_samples += 1
        if out and self._first_sample_wall is None:
            self._first_sample_wall = time.monotonic()
            self._t_first = out[0].t_sim
        self._buffer += out

    def _pull_until(self, t: float, timeout_s: float = 5.0) -> None:
        """Lockstep: wait for the packet of simulator time `t` (the cockpit is frozen there) and pull."""
        end = time.monotonic() + timeout_s
        while self.receiver is not None and time.monotonic() < end:
            latest = self.receiver.latest
            if latest is not None and latest[0] >= t - 1e-3:
                break
            time.sleep(0.002)
        self._pull()

    def _steps_to_failure(self, t_now: float) -> int:
        """Lockstep: the most FDM steps to run before the host must look at the state again for a
        pending failure: to its trigger time exactly, or 0.1 s while one waits for a height."""
        limit = ADVANCE_CHUNK_STEPS
        for f in self._failures.pending:
            if f.trigger_agl_ft is not None:
                limit = min(limit, FAILURE_CHECK_STEPS)
            elif f.after_s is not None:
                k = round((f.after_s - t_now) / FDM_STEP_S)
                if k >= 1:
                    limit = min(limit, k)
        return limit

    def _crash_reason(self) -> str | None:
        if self.telnet is None:
            return None
        try:
            return self.telnet.get("/sim/crash-reason")
        except HarnessError:
            return None

    def events(self) -> list[SimEvent]:
        return self._events.drain()

    def sim_time(self) -> float:
        if self.receiver is not None and self.receiver.latest is not None:
            return max(self._t, self.receiver.latest[0])
        return self._t

    def alive(self) -> bool:
        # the telemetry first: it costs nothing, while asking a VM guest about its process is
        # a round trip (and a guest that stopped answering must not hold the runner up)
        if self._stopped or self.proc is None or self.receiver is None or self.receiver.failed is not None:
            return False
        if self.receiver.last_packet_age_s() >= self.frozen_limit():  # frozen beyond the limit
            return False
        try:
            return self.proc.poll() is None
        except HarnessError:  # a guest that does not say how its process is: lost as well
            return False

    def lost_reason(self) -> str | None:
        if self.receiver is None or self._stopped:
            return None
        if self.receiver.failed is not None:
            return f"telemetry lost: {self.receiver.failed}"
        age = self.receiver.last_packet_age_s()
        if age >= self.frozen_limit():
            return self.frozen_reason(age, f"no state packet ({self.telemetry_mode})")
        return None

    def set_paused(self, paused: bool) -> None:
        if self.telnet is None:
            raise HarnessError("jsbsim: not started")
        self.telnet.set("/sim/freeze/master", bool(paused))
        self._paused = bool(paused)

    def advance(self, seconds: float) -> float | None:
        """Lockstep: from a pause, exactly `seconds` of simulator time in whole FDM steps (at
        least one), run as fast as the cockpit computes them; the time reached, once its frame
        is drawn (None: not paused, or a cockpit without `run advance`)."""
        if self.telnet is None:
            raise HarnessError("jsbsim: not started")
        if not self._paused or not self._can_advance:
            return None
        steps = max(1, round(seconds / FDM_STEP_S))
        if self._failures.pending:  # where the frozen clock stands (it may have run since the last advance)
            self._clock = round(self.telnet.get_float("/sim/time/elapsed-sec"), 4)
        while steps > 0:
            pending = bool(self._failures.pending)
            n = min(steps, self._steps_to_failure(self._clock) if pending else ADVANCE_CHUNK_STEPS)
            try:
                self.telnet.run("advance", str(n))
            except HarnessError as exc:
                if "unknown command" in str(exc):
                    self._can_advance = False  # a cockpit built before lockstep stepping
                    return None
                if not self.alive():
                    return None  # the runner reports the lost simulator
                raise
            steps -= n
            self._clock += n * FDM_STEP_S
            if pending:  # a failure due at this time is injected before the next step
                # (the clock as the cockpit has it: a crash ends an advance early)
                self._clock = round(self.telnet.get_float("/sim/time/elapsed-sec"), 4)
                self._pull_until(self._clock)
        # the packets carry the clock to 1e-4 s: the time the host will see
        self._clock = round(self.telnet.get_float("/sim/time/elapsed-sec"), 4)
        return self._clock

    def snapshot(self) -> dict[str, Any]:
        if self.telnet is None or not self.alive():
            return {}
        keys = list(SNAPSHOT_PATHS)
        vals = self.telnet.get_many([SNAPSHOT_PATHS[k] for k in keys])
        out: dict[str, Any] = {}
        for k, v in zip(keys, vals):
            try:
                out[k] = float(v) if v not in ("true", "false") else float(v == "true")
            except ValueError:
                out[k] = v
        if "xpdr_code" in out:
            out["xpdr_code"] = int(out["xpdr_code"])
        return {
            "radios": {
                k: out[k]
                for k in (
                    "com1_mhz",
                    "com1_stby_mhz",
                    "nav1_mhz",
                    "nav1_stby_mhz",
                    "nav1_obs_deg",
                    "xpdr_code",
                    "xpdr_mode",
                    "baro_inhg",
                )
            },
            "autopilot": {
                k: out[k]
                for k in ("autopilot_on", "ap_hdg", "ap_nav", "ap_alt", "ap_heading_bug_deg", "ap_alt_target_ft")
            },
            "payload": {"fuel_left_gal": out["fuel_left_gal"], "fuel_right_gal": out["fuel_right_gal"]},
            "aircraft": out["aircraft"],
            "airport": out["airport"],
            "crashed": out["crashed"],
            "crash_reason": out["crash_reason"],
            "sim_time_s": out["sim_time_s"],
            "weather": (
                {"preset": "wind", "wind_dir_deg": self._wind[0], "wind_kt": self._wind[1]}
                if self._wind[1]
                else {"preset": "calm"}
            ),
        }

    def info(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "sim": "jsbsim",
            "fdm_rate_hz": 120,
            "generic_hz": self.generic_hz,
            "render_fps_target": self.fps,
            "unsupported": self._unsupported,
            "samples": self._n_samples,
            # the harness's failure plan with its drawn trigger values (one not reached is listed too)
            "failures": [p.as_dict() for p in self._failures.failures],
            # what the cockpit was asked to show beyond the C172's panel (its `--assist` arguments)
            # and what it said at start it draws (`/sim/rendering/assists`; None: not read)
            "assists": list(self.assists),
            "cockpit_assists": self._drawn_assists,
        }
        telemetry: dict[str, Any] = {"mode": self.telemetry_mode, "addr": self._telemetry_addr}
        if self.receiver is not None:
            telemetry.update(packets=self.receiver.n_packets, bad_packets=self.receiver.n_bad)
            if self.telemetry_mode == TELEMETRY_UDP:
                out["udp_packets"], out["udp_bad_packets"] = self.receiver.n_packets, self.receiver.n_bad
        if self._first_sample_wall is not None and self._n_samples > 1:
            wall = time.monotonic() - self._first_sample_wall
            if wall > 0:
                out["sample_rate_hz"] = round((self._n_samples - 1) / wall, 1)
                telemetry["samples_per_wall_s"] = out["sample_rate_hz"]
        if self._n_samples > 1 and self._t > self._t_first:
            telemetry["samples_per_sim_s"] = round((self._n_samples - 1) / (self._t - self._t_first), 1)
        if self.receiver is not None and self.receiver.failed:
            telemetry["failed"] = self.receiver.failed
        out["telemetry"] = telemetry
        if self.telnet is not None and self.alive():
            try:
                vals = self.telnet.get_many(list(INFO_PATHS.values()))
                for k, v in zip(INFO_PATHS, vals):
                    try:
                        out[k] = round(float(v), 3)
                    except ValueError:
                        out[k] = v
            except HarnessError:
                pass
        out["video_driver"] = self.video_driver
        return out
