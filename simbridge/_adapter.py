"""The contract between the runner and a simulator adapter (host side).

An adapter launches its simulator inside the sandbox in the task's initial state, then reads
the simulator's true state over the simulator's own API and hands it to the recorder as
canonical signals. It never touches the agent's door (the agent port).
"""

from __future__ import annotations

import abc
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    from simbridge._task import TaskSpec


@runtime_checkable
class ProcessHandle(Protocol):
    """A process started in a sandbox, as the runner and adapters use it: what
    `subprocess.Popen` (local, netns) and a VM's guest process handle have in common.

    Host processes are `subprocess.Popen` (their CPU time is read from /proc); a handle of any
    other type runs where the host cannot see it (a VM guest), so its CPU time is not recorded.
    """

    pid: int
    returncode: int | None

    def poll(self) -> int | None:
        """The exit code once the process has exited, else None (never blocks for long)."""
        ...

    def wait(self, timeout: float | None = None) -> int | None:
        """Block until exit (subprocess.TimeoutExpired after `timeout` seconds)."""
        ...

    def terminate(self) -> None: ...

    def kill(self) -> None: ...


@runtime_checkable
class LogTail(Protocol):
    """A process handle whose output lives where the host cannot open it (a VM guest):
    `log_tail()` fetches the end of it."""

    def log_tail(self, n_bytes: int = 4000) -> str: ...


class Spawn(Protocol):
    """`Sandbox.spawn`: start `argv` inside the sandbox (as the sandbox's simulator user, on its
    display). `env` adds to the sandbox environment (providers pass on only what is safe);
    `name` names the process (its log file, its entry in episode.json's `sandbox.pids`);
    further keywords are `subprocess.Popen`'s (stdin, stdout, stderr...), honoured by the
    host-process providers and ignored where they cannot apply (a VM guest)."""

    def __call__(
        self, argv: Sequence[str], env: Mapping[str, str] | None = None, *, name: str | None = None, **popen: Any
    ) -> ProcessHandle: ...


class Forward(Protocol):
    """`Sandbox.forward`: (address, port) at which the host reaches `port`/`proto` that the
    simulator listens on inside the sandbox."""

    def __call__(self, port: int, proto: str = "tcp") -> tuple[str, int]: ...


#: how the simulator's time series reaches the host: `push` (the simulator sends to
#: `Sandbox.harness_addr`, e.g. UDP) or `pull` (the sandbox may send nothing to the host, a VM
#: on restricted networking: the host opens the stream over a connection of its own)
Telemetry = Literal["push", "pull"]


@dataclass(frozen=True)
class StateSample:
    """One sample of canonical signals at simulator time `t_sim` (seconds since episode start)."""

    t_sim: float
    values: dict[str, float]


@dataclass(frozen=True)
class SimEvent:
    """Something that happened at simulator time `t_sim`; `data` is the payload of `kind`
    (see simbridge._events for the known kinds' fields, checked when the bundle records it)."""

    t_sim: float
    kind: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class Sandbox:
    """What a provider gives an episode: a display, an environment, and where things listen.

    `host_addr` is the address the host-side adapter uses to reach the simulator's state port;
    `agent_port_addr` is the only address the agent's client may use.
    """

    display: str
    env: dict[str, str]
    workdir: str
    host_addr: str = "127.0.0.1"
    #: where processes in the sandbox reach the harness (telemetry the simulator pushes, e.g.
    #: FlightGear's generic UDP); None when the sandbox can reach nothing on the host (VM)
    harness_addr: str | None = "127.0.0.1"
    #: host-side UDP ports the sandbox may send to (empty: any; an isolated sandbox lists them)
    harness_udp_ports: list[int] = field(default_factory=list)
    isolated: bool = False
    #: the provider's name, for the record (episode.json); adapters decide by the capabilities
    #: below (`telemetry`, `harness_addr`, `forward`...), never by this name
    provider: str = "local"
    #: run a command inside the sandbox (as the sandbox user, on its display)
    spawn: Spawn | None = None
    info: dict[str, Any] = field(default_factory=dict)
    #: the Python interpreter to use for processes started inside the sandbox
    python: str = field(default_factory=lambda: sys.executable)
    #: maps a port the simulator listens on inside the sandbox to where the host reaches it
    #: (identity for local/netns; a forwarded loopback port for a VM)
    forward: Forward | None = None
    #: the address the simulator's state ports bind inside the sandbox (None: `host_addr`;
    #: a VM binds where QEMU's port forwarding delivers, not where the host connects)
    listen_addr: str | None = None
    #: how much longer everything takes in this sandbox (a software-emulated VM: several times)
    timeout_scale: float = 1.0
    #: the uid the sandbox runs the simulator as (None: the harness's own user); files the
    #: simulator must write (its home, caches) are handed to it
    sim_uid: int | None = None
    #: how telemetry reaches the host (see `Telemetry`); set by the provider. `push` needs
    #: `harness_addr`: a sandbox without one can only be pulled from, whatever this says
    telemetry: Telemetry = "push"
    #: how the agent's guest service (`simbridge guest`) is started inside this sandbox when the
    #: guest transport is chosen: "" (none: the harness starts it on the host's display itself),
    #: "stdio" (`spawn`ed; its token on stdin, "listening on" on stdout; reached at `host_addr`),
    #: "supervisor" (`spawn`ed by a guest supervisor: the token as input, its log read; reached
    #: through `forward`). Set by the provider; the agent port decides by it, never by its name.
    guest_start: Literal["", "stdio", "supervisor"] = ""

    def reach(self, port: int, proto: str = "tcp") -> tuple[str, int]:
        """(address, port) at which the host side reaches `port` inside the sandbox."""
        if self.forward is not None:
            return self.forward(port, proto)
        return self.host_addr, port


#: seconds an alive simulator whose clock stands still is waited for (scenery loads, a view
#: change on a loaded machine, a SIGSTOPped process); a session may set its own `frozen_limit_s`
FROZEN_LIMIT_S = 120.0
#: seconds without a new sample (simulator running, not paused) before the simulator counts as
#: frozen: its clock stands still; a session may allow longer pauses (`telemetry_stall_s`)
TELEMETRY_STALL_S = 5.0

_PROC_STATES = {"R": "running", "S": "sleeping", "D": "disk-wait", "T": "stopped", "t": "stopped", "Z": "zombie"}


def process_state(proc: object) -> str | None:
    """The scheduler state of a host process handle (a subprocess.Popen) from /proc: "running",
    "sleeping", "disk-wait", "stopped" (SIGSTOP, a debugger), "zombie", "exited"; None for a
    handle the host cannot read (a VM guest's) or no handle."""
    import subprocess

    if not isinstance(proc, subprocess.Popen):
        return None
    if proc.returncode is not None:
        return "exited"
    try:
        with open(f"/proc/{proc.pid}/stat") as fh:
            code = fh.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "exited"
    return _PROC_STATES.get(code, code)


class SimSession(abc.ABC):
    """One simulator instance for one episode.

    Besides the methods, the runner reads these attributes (each has a default here, so an
    adapter sets only those that differ): `sim_name`, `signals`, `state_ports`, `controls`,
    `start_paused` and `assists` (written by the runner), `offered_assists`, `proc`,
    `telemetry_stall_s`, `frozen_limit_s`, `has_consoles`.
    """

    sim_name: str = ""
    #: canonical signal names this adapter can produce
    signals: tuple[str, ...] = ()
    #: (proto, port) the simulator serves its state on inside an isolated sandbox; the
    #: provider's firewall opens them to the host side only and the audit probes them
    state_ports: tuple[tuple[str, int], ...] = ()
    #: (keys, what they do): the simulator's controls as the agent is told them
    controls: tuple[tuple[str, str], ...] = ()
    #: set by the runner before `start()` in lockstep: a session that can starts its simulator
    #: frozen at t=0, so no wall-clock-paced time runs before the first `advance`
    start_paused: bool = False
    #: set by the runner before `start()`: the assists the episode asked for, each one the
    #: simulator offers (its AdapterSpec's `assists`, checked before); () is the vehicle's own displays
    assists: tuple[str, ...] = ()
    #: a `module:Class` simulator, which has no AdapterSpec, declares the assists it offers here
    #: (name -> what it shows); a registered simulator's AdapterSpec is what counts for it
    offered_assists: Mapping[str, str] = {}
    #: the simulator's process as the host holds it, once started (None: not started, or an
    #: adapter that attaches to a simulator it did not launch): its exit code is reported when
    #: the simulator exits, its scheduler state with each freeze
    proc: ProcessHandle | None = None
    #: seconds without a new sample before the simulator's clock counts as standing still; None:
    #: TELEMETRY_STALL_S. An adapter whose agent may cause longer pauses sets it (FlightGear's
    #: repositioning dialog for T08)
    telemetry_stall_s: float | None = None

    @classmethod
    def preflight(cls, provider: str) -> None:
        """Check, before any bundle exists, that this simulator can run here under `provider`
        (installed, reachable). Raises SimbridgeError with what is missing."""

    @abc.abstractmethod
    def start(self, task: "TaskSpec", sandbox: Sandbox, *, seed: int | None = None) -> None:
        """Launch in the task's initial state and wait until ready. Raises HarnessError on failure."""

    @abc.abstractmethod
    def poll(self) -> list[StateSample]:
        """New samples since the last call (may be empty)."""

    def events(self) -> list[SimEvent]:
        """New events since the last call (crash, failure_injected, autopilot_change, ...)."""
        return []

    def snapshot(self) -> dict[str, Any]:
        """State that is not a time series (radios, payload, weather, FMS...), read at start and end."""
        return {}

    @abc.abstractmethod
    def sim_time(self) -> float:
        """Simulator seconds since episode start (pauses excluded)."""

    #: seconds a simulator whose process is up but whose clock stands still (no new sample) is
    #: waited for before the episode is a harness fault; None: the runner's FROZEN_LIMIT_S
    frozen_limit_s: float | None = None

    @abc.abstractmethod
    def alive(self) -> bool:
        """False once the simulator process has exited, its telemetry stream has closed or
        failed, or it has been silent for longer than `frozen_limit_s` (`frozen_limit()`).

        A process that is up (running, busy, or stopped by SIGSTOP) but sends nothing is a
        simulator whose clock stands still, not a lost one: alive, until the frozen limit."""

    def frozen_limit(self) -> float:
        """Seconds this session's simulator may stand still with its process up (see `frozen_limit_s`)."""
        return self.frozen_limit_s or FROZEN_LIMIT_S

    def stall_limit(self) -> float:
        """Seconds without a sample before this session's telemetry counts as stalled (see
        `telemetry_stall_s`)."""
        return self.telemetry_stall_s or TELEMETRY_STALL_S

    def process_state(self) -> str | None:
        """The simulator process's scheduler state as the host sees it ("running", "sleeping",
        "disk-wait", "stopped", "zombie"), or None when the host cannot see it (a VM guest's
        process, or none): recorded with each freeze. Reads `self.proc` by default."""
        return process_state(self.proc)

    def frozen_reason(self, silent_s: float, what: str = "no state") -> str:
        """The harness-fault detail for a simulator silent beyond its frozen limit."""
        state = self.process_state()
        return (
            f"simulator frozen: {what} for {silent_s:.1f} s with its process up"
            + (f" ({state})" if state else "")
            + f", beyond the {self.frozen_limit():g} s limit"
        )

    def lost_reason(self) -> str | None:
        """Why the harness lost the simulator while its process may still run (telemetry
        closed, or silent beyond the frozen limit), or None: the runner reports it as a
        harness fault, not a crash."""
        return None

    def set_paused(self, paused: bool) -> None:
        """Pause or resume the simulation (for --lockstep). Adapters that cannot pause raise HarnessError."""
        from simbridge._errors import HarnessError

        raise HarnessError(f"{self.sim_name}: pausing is not supported")

    def advance(self, seconds: float) -> float | None:
        """Lockstep, from a pause: run exactly `seconds` of simulator time (in the simulator's
        own steps) and pause again, returning the simulator time reached once the screen shows
        it. None: this simulator cannot, and the runner resumes, watches `sim_time()` and pauses,
        which may overrun by however much runs before the pause arrives."""
        return None

    def info(self) -> dict[str, Any]:
        """Facts for episode.json: sim version, frame rate, real-time factor, flags."""
        return {}

    #: False for a simulator with no in-sim console, menu or plugin to disable (the embedded cockpit)
    has_consoles: bool = True

    def check_consoles(self, names: list[str]) -> dict[str, dict[str, str]]:
        """The state of each in-sim console the task says must be disabled, read on the host
        side: {"state": "disabled" | "enabled" | "absent" | "unchecked", "evidence": ...}.
        The isolation audit fails on "enabled"; "unchecked" says this adapter cannot tell."""
        if not self.has_consoles:
            return {n: {"state": "absent", "evidence": f"{self.sim_name} has no such console"} for n in names}
        return {n: {"state": "unchecked", "evidence": f"the {self.sim_name} adapter cannot inspect it"} for n in names}

    @abc.abstractmethod
    def stop(self) -> None:
        """Stop the simulator and release everything. Must be safe to call twice."""
