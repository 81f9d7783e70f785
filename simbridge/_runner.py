"""The runner: one task, one simulator, one agent, N trials → one scored bundle per trial.

Per trial: open the bundle (status `running`), bring up the sandbox (provider), serve the agent
port, let the agent set up, start the simulator in the task's initial state, record, run the
agent on a worker thread, and end on the first of: the agent's done/give-up, the time limit
(simulator time), an aircraft crash, the simulator exiting, a harness fault, Ctrl-C. Then tear
everything down, close the bundle with its status and score it.

The agent port is up (and its address in the run directory's `agent_port.json`) from the
start, but serves nothing but the task description until the simulator is up in its initial
state, the isolation audit has passed and the recording has begun: the agent's first
screenshot shows the cockpit, and nothing it does happens before isolation is proven.

Statuses: `completed` (the agent said done, or the aircraft crashed: the verifier judges it),
`timeout`, `agent_quit` (give-up, or the agent raised), `agent_disconnected` (an external agent's
MCP client went away without done/give_up): the agent's outcomes, always scored
on what was recorded. `sim_crashed` (the simulator process died) and `harness_error` (anything
else of ours, including Ctrl-C, and a failure outside the agent's control that the agent or
its framework reports by raising `simbridge.agents.ExternalFault`: a model/API error, a solver
crash, a cancelled sample) are harness faults, never scored as agent failures (the
verifier returns `unscored`).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import subprocess
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from simbridge._adapter import TELEMETRY_STALL_S as TELEMETRY_STALL_S  # the stall limit: see below
from simbridge._adapter import ProcessHandle, SimSession
from simbridge._providers._base import Provider
from simbridge._agent_port import (
    AgentFiles,
    AgentPort,
    DirectClient,
    EpisodeOver,
    LockstepPacer,
    McpPortServer,
    Pacer,
    make_brief,
)
from simbridge._agent_port._actions import OBSERVE
from simbridge._agent_port._mcp_server import new_token
from simbridge._agent_port._screen import ScreenGrabber, encode
from simbridge._agent_port._transport import GUEST_PORT, for_sandbox, guest_port_needed
from simbridge._bundle import BundleWriter, EpisodeInfo, SandboxRecord, read_bundle, write_manifest
from simbridge._errors import HarnessError, SimbridgeError
from simbridge._score import Score
from simbridge._task import TaskSpec, load_task, tasks_dir

#: TELEMETRY_STALL_S (simbridge._adapter): seconds without a new sample (simulator running, not
#: paused) before the simulator counts as frozen: its clock stands still. A frozen simulator
#: whose process is up is waited for (the freeze is recorded in episode.json `freezes`) up to
#: its frozen limit (FROZEN_LIMIT_S, or the session's `frozen_limit_s`); beyond it, or once the
#: process or its stream is gone, the episode is a harness fault
#: seconds the first samples may take after the simulator reported ready (× the sandbox's timeout scale)
FIRST_SAMPLES_S = 30.0
#: name of the agent port's status file in the run directory
STATUS_FILE = "agent_port.json"
#: statuses that are the agent's own outcome (scored on what was recorded)
AGENT_OUTCOMES = frozenset({"completed", "timeout", "agent_quit", "agent_disconnected"})


class PortStatus:
    """The agent port's status file (URL, ready flag, state), for agents started separately.

    Rewritten atomically at each change: `starting` (the port listens, the simulator is being
    brought up), `ready` (actions are served), `ended` (with the episode's status)."""

    def __init__(self, paths: list[Path]) -> None:
        self.paths = paths
        self.data: dict[str, Any] = {}

    def update(self, **fields: Any) -> None:
        import json

        self.data.update(fields, updated_wall=round(time.time(), 3))
        text = json.dumps(self.data, indent=2)
        for p in self.paths:
            try:
                p.parent.mkdir(parents=True, exist_ok=True)
                tmp = p.with_name(p.name + ".tmp")
                tmp.unlink(missing_ok=True)
                # it holds the episode's token: readable by its owner only
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "w") as fh:
                    fh.write(text)
                os.replace(tmp, p)
            except OSError:
                pass  # a status file is a courtesy; the episode does not depend on it


@dataclass
class RunConfig:
    task: str
    sim: str
    agent: str
    trials: int = 1
    out: Path | None = None
    lockstep: bool = False
    #: simulator seconds the simulator runs after each input in lockstep
    lockstep_slice_s: float = 0.1
    seed: int | None = None
    provider: str = "local"
    #: run even when the isolation audit fails; every score is then marked unisolated
    unisolated: bool = False
    #: save a PNG of the screen when the task clock passes these times (simulator seconds)
    snapshot_at: list[float] = field(default_factory=list)
    #: periodic screen frames (JPEG, half size) per simulator second; 0 disables
    frame_hz: float = 1.0
    #: cut the task's time limit (for smoke runs); recorded as a flag
    time_limit_s: float | None = None
    #: the agent port's MCP server: address and TCP port (0 = a free one), optional bearer token
    mcp_host: str = "127.0.0.1"
    mcp_port: int = 0
    #: the bearer token the agent's MCP client must send; None: a fresh random one per episode
    token: str | None = None
    #: False (--no-token): the agent port admits any client without a token; flagged agent_port_auth:none
    auth: bool = True
    #: the MCP `computer` tool returns the screen after each action
    computer_screenshot: bool = True
    #: an external agent whose MCP client has left for this long has disconnected (agent outcome)
    disconnect_grace_s: float = 10.0
    #: an external agent that has had no request in flight for this long has gone (wall seconds;
    #: the stateless MCP protocol has no connection whose loss could tell sooner)
    idle_timeout_s: float = 300.0
    #: also write the agent port's status (URL, ready) here, besides RUN_DIR/agent_port.json
    status_file: Path | None = None
    #: seconds an external (mcp) agent has to make its first request before the episode starts without it
    connect_timeout_s: float | None = None
    #: print progress lines here
    say: Callable[[str], None] = print


@dataclass
class TrialResult:
    trial: int
    path: Path
    status: str
    detail: str
    score: Score | None
    sim_s: float
    n_actions: int
    snapshots: list[Path] = field(default_factory=list)
    n_failed_actions: int = 0


def resolve_session(sim: str) -> type[SimSession]:
    """A simulator name from the registry, or `module:Class` of any SimSession (tests, plug-ins)."""
    if ":" in sim:
        module, _, name = sim.partition(":")
        try:
            cls = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError) as exc:
            raise SimbridgeError(f"simulator {sim!r}: cannot import: {exc}") from None
        if not (isinstance(cls, type) and issubclass(cls, SimSession)):
            raise SimbridgeError(f"simulator {sim!r} is not a SimSession class")
        return cls
    from simbridge._sims import session_class

    return session_class(sim)


def _check_sim(task: TaskSpec, sim: str) -> None:
    if ":" in sim:
        return
    allowed = [task.simulator.name, *task.simulator.alternatives]
    if sim not in allowed:
        raise SimbridgeError(f"task {task.id} runs on {', '.join(allowed)}, not {sim!r}")


def _cpu_s(proc: ProcessHandle) -> float | None:
    """utime+stime of a live host process (and its waited-for children), from /proc; None for
    a process the host cannot see (a VM guest's: any handle that is not a subprocess.Popen)
    and for one that has already exited."""
    if not isinstance(proc, subprocess.Popen):
        return None
    try:
        with open(f"/proc/{proc.pid}/stat") as fh:
            f = fh.read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12]) + int(f[13]) + int(f[14])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


class _Frames:
    """Periodic JPEG frames and PNG snapshots at given simulator times, on its own thread."""

    def __init__(
        self, display: str, bundle: Path, clock: Callable[[], float], hz: float, snapshot_at: list[float]
    ) -> None:
        self.grabber = ScreenGrabber(display)
        self.dir = bundle / "frames"
        self.bundle = bundle
        self.clock, self.hz = clock, hz
        self.pending = sorted(snapshot_at)
        self.saved: list[Path] = []
        self.n_frames = 0
        #: captures that failed (a lost frame does not end the episode, but it is counted)
        self.n_errors = 0
        self.last_error: str | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="frames", daemon=True)

    def start(self) -> None:
        if self.hz > 0:
            self.dir.mkdir(exist_ok=True)
        self._thread.start()

    def _loop(self) -> None:
        next_t = 0.0
        while not self._stop.wait(0.02):
            t = self.clock()
            try:
                while self.pending and t >= self.pending[0]:
                    at = self.pending.pop(0)
                    p = self.bundle / f"snapshot_t{at:g}.png"
                    p.write_bytes(encode(self.grabber.grab_bgr(), "png", png_level=3))
                    self.saved.append(p)
                if self.hz > 0 and t >= next_t:
                    import cv2

                    img = self.grabber.grab_bgr()
                    img = cv2.resize(img, (img.shape[1] // 2, img.shape[0] // 2), interpolation=cv2.INTER_AREA)
                    (self.dir / f"{t:010.3f}.jpg").write_bytes(encode(img, "jpeg", quality=70))
                    self.n_frames += 1
                    next_t = (int(t * self.hz) + 1) / self.hz
            except Exception as exc:  # a lost frame is not worth ending the episode; it is counted
                self.n_errors += 1
                self.last_error = f"t={t:.1f} s: {type(exc).__name__}: {exc}"
                next_t = (int(t * self.hz) + 1) / self.hz if self.hz > 0 else next_t

    def record(self) -> dict[str, Any]:
        """What episode.json says about the screen recording."""
        return {
            "frames": self.n_frames,
            "snapshots": len(self.saved),
            "capture_errors": self.n_errors,
            "last_error": self.last_error,
        }

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.grabber.close()


class _AgentThread(threading.Thread):
    def __init__(self, agent: Any, client: Any, task: TaskSpec, deadline_s: float) -> None:
        super().__init__(name="agent", daemon=True)
        self.agent, self.client, self.task, self.deadline_s = agent, client, task, deadline_s
        self.result: str | None = None
        self.error: str | None = None
        #: a failure outside the agent's control the agent reported (ExternalFault): unscored
        self.fault: str | None = None

    def run(self) -> None:
        from simbridge.agents import ExternalFault

        try:
            self.result = self.agent.run(self.client, self.task, self.deadline_s)
        except EpisodeOver:
            self.result = None
        except ExternalFault as exc:  # the model's API, the framework driving the agent: not the agent
            self.fault = str(exc) or type(exc).__name__
            self.traceback = traceback.format_exc()
        except BaseException as exc:  # the agent's own failure
            self.error = f"{type(exc).__name__}: {exc}"
            self.traceback = traceback.format_exc()


@runtime_checkable
class _WaitsForClient(Protocol):
    """An agent that is a client connecting from outside (the MCP agent): the episode waits for it."""

    connected: Callable[[], bool]

    def wait_connected(self) -> str | None: ...


class Episode:
    """One trial: one closed, scored bundle at `path`, with one cleanup stack.

    `run()` is the whole trial (what `run_trial` does). The steps, for callers that drive an
    episode themselves (a Gymnasium environment):

    - `start()` opens everything in order: the provider's sandbox, the agent port and its MCP
      server, the agent's setup, the simulator in the task's initial state, the isolation audit,
      the recorder and the screen frames; then the port serves actions and the agent's thread
      runs. Each step pushes its own teardown on `self.cleanup` (a contextlib.ExitStack) as soon
      as it holds something, so a failure at any step undoes exactly what was set up.
    - `wait()` blocks until the first end condition and returns (status, detail).
    - `fail(exc)` turns an exception from start()/wait() into the episode's status (a harness
      fault; an agent that never came is one too: `harness_error`, "outside the agent").
    - `close()` ends the episode: the agent port refuses further actions, the stack unwinds
      (frames, recorder, simulator, agent, server, port, provider: the reverse of set-up), the
      bundle is closed with its status. Idempotent.
    - `finish()` closes and scores: the TrialResult.

    Never raises for agent or simulator failures (they become statuses); `run()` re-raises
    KeyboardInterrupt after closing the bundle (then there is no score).
    """

    def __init__(self, cfg: RunConfig, task: TaskSpec, trial: int, path: Path) -> None:
        from simbridge.agents import make_agent

        self.cfg, self.task, self.trial, self.path = cfg, task, trial, path
        self.session_cls = resolve_session(cfg.sim)
        self.agent = make_agent(cfg.agent, task.id)
        if cfg.connect_timeout_s is not None and hasattr(self.agent, "connect_timeout_s"):
            self.agent.connect_timeout_s = cfg.connect_timeout_s
        self.limit_s = min(task.time_limit_s, cfg.time_limit_s) if cfg.time_limit_s else float(task.time_limit_s)
        self.seed = None if cfg.seed is None else cfg.seed + trial - 1
        flags = ["lockstep"] if cfg.lockstep else []
        if cfg.time_limit_s and cfg.time_limit_s < task.time_limit_s:
            flags.append(f"time_limit_cut:{cfg.time_limit_s:g}")
        self.info = EpisodeInfo(
            task_id=task.id,
            spec_hash=task.spec_hash,
            sim=self.session_cls.sim_name or cfg.sim,
            adapter=f"{self.session_cls.__module__}.{self.session_cls.__name__}",
            provider=cfg.provider,
            agent=getattr(self.agent, "name", cfg.agent),
            trial=trial,
            seed=self.seed,
            flags=flags,
            unisolated=True,
        )
        columns = list(dict.fromkeys([*self.session_cls.signals, *task.signals]))
        self.writer = BundleWriter(path, self.info, columns)
        self.status, self.detail = "harness_error", "did not start"
        self.cleanup = contextlib.ExitStack()
        self.provider: Provider | None = None
        self.session: SimSession | None = None
        self.port: AgentPort | None = None
        self.server: McpPortServer | None = None
        self.recorder: Any = None
        self.frames: _Frames | None = None
        self.agent_thread: _AgentThread | None = None
        self.ctx: Any = None
        self.snaps: dict[str, Any] = {}
        #: periods the simulator's clock stood still while it was alive (episode.json `freezes`)
        self.freezes: list[dict[str, Any]] = []
        #: the agent's last input as logged (not an observation, not a wait): episode.json `last_agent_action`
        self.last_action: dict[str, Any] | None = None
        self.cpu: dict[str, float | None] = {}
        self.interrupted: BaseException | None = None
        self.sim_t = 0.0
        self.started = threading.Event()
        self._cpu0 = time.process_time()
        self._w_started = 0.0
        self._closed = False
        self.status_file = PortStatus([path.parent / STATUS_FILE, *([cfg.status_file] if cfg.status_file else [])])

    # ------------------------------------------------------------------ the whole trial

    def run(self) -> TrialResult:
        try:
            self.start()
            self.status, self.detail = self.wait()
        except BaseException as exc:
            self.fail(exc)
        finally:
            self.close()
        if self.interrupted is not None:
            raise self.interrupted
        return self.finish()

    def clock(self) -> float:
        """Simulator seconds since the episode started (0 until the simulator is up)."""
        return self.session.sim_time() if (self.session is not None and self.started.is_set()) else 0.0

    # ------------------------------------------------------------------ set-up

    def start(self) -> None:
        """Bring the episode up to the point where the agent acts (see the class docstring)."""
        from simbridge._providers import make_provider
        from simbridge.agents import AgentContext

        cfg, task, path, info, push = self.cfg, self.task, self.path, self.info, self.cleanup.callback
        self.provider = provider = make_provider(cfg.provider, task=task, session_cls=self.session_cls)
        push(_quietly, provider.stop)
        info.unisolated = not provider.isolated
        sandbox = provider.start(path / "sandbox")
        info.isolation = provider.isolation_report()
        pacer: Pacer = (
            LockstepPacer(
                self._set_paused, self.clock, slice_s=cfg.lockstep_slice_s, alive=self._alive, advance=self._advance
            )
            if cfg.lockstep
            else Pacer()
        )
        files = agent_files(task, path / AGENT_HOME)
        self.port = port = AgentPort(
            sandbox.display,
            clock=self.clock,
            log=self._log_action,
            pacer=pacer,
            files=files,
            ready=False,
            transport=for_sandbox(sandbox),  # None: X11 or a local guest service ($SIMBRIDGE_AGENT_TRANSPORT)
        )
        push(_quietly, port.close)
        port.fault_log = lambda text: _append(path / "port_faults.txt", text)
        brief = make_brief(
            task,
            info.sim or cfg.sim,
            time_limit_s=self.limit_s,
            lockstep=cfg.lockstep,
            controls=tuple(self.session_cls.controls),
            screen_px=port.screen.size,
        )
        port.brief = brief.model_dump(mode="json")
        info.agent_brief = port.brief
        token = (cfg.token or new_token()) if cfg.auth else None
        info.agent_port_auth = "token" if token else "none"
        info.agent_transport = port.transport.kind
        if token is None:
            info.flags.append("agent_port_auth:none")
        self.server = server = McpPortServer(
            port,
            host=cfg.mcp_host,
            tcp_port=cfg.mcp_port,
            token=token,
            computer_screenshot=cfg.computer_screenshot,
        ).start()
        push(_quietly, server.stop)
        push(_quietly, self.agent.close)
        self.status_file.update(
            trial=self.trial,
            bundle=str(path),
            mcp_url=server.url,
            token_required=token is not None,
            token=token,
            state="starting",
            ready=False,
            task_id=task.id,
            sim=info.sim,
        )
        self.ctx = AgentContext(
            display=sandbox.display,
            port_url=server.url,
            port_token=token,
            spawn=sandbox.spawn,
            outcome=lambda: port.outcome,
            say=cfg.say,
            lockstep=cfg.lockstep,
        )
        info.agent_port_url = server.url
        self.agent.setup(self.ctx)
        no_show: str | None = None
        if isinstance(self.agent, _WaitsForClient):
            watch = server.watch
            if watch is None:
                raise HarnessError("the agent port's MCP server has no client watch")
            self.agent.connected = watch.seen_client.is_set
            no_show = self.agent.wait_connected()
        self.session = session = self.session_cls()
        session.start_paused = cfg.lockstep
        push(self._stop_session)
        session.start(task, sandbox, seed=self.seed)
        if cfg.lockstep:
            session.set_paused(True)
        _audit(cfg, task, session, provider, info)
        self.started.set()
        self._w_started = time.monotonic()
        _apply_info(info, session)
        self.snaps["start"] = session.snapshot()
        procs = provider.processes()
        info.sandbox = SandboxRecord(
            display=sandbox.display,
            pids={n: p.pid for n, p in procs},
            guest=sorted({n for n, p in procs if not isinstance(p, subprocess.Popen)}),
        )
        self.writer.write_episode()
        self.recorder = _make_recorder(session, self.writer).start()
        push(self._stop_recorder)
        _wait_first_samples(self.recorder, session, 1 if cfg.lockstep else 2, FIRST_SAMPLES_S * sandbox.timeout_scale)
        self.frames = frames = _Frames(sandbox.display, path, self.clock, cfg.frame_hz, list(cfg.snapshot_at))
        frames.start()
        push(self._stop_frames)
        info.ready_wall = round(time.time(), 4)
        port.mark_ready()
        self.status_file.update(state="ready", ready=True)
        if no_show is not None:
            raise _AgentNoShow(no_show)
        self.agent_thread = _AgentThread(self.agent, DirectClient(port), task, self.limit_s)
        self.agent_thread.start()
        cfg.say(
            f"trial {self.trial}: {task.id} on {info.sim} with {info.agent} (display {sandbox.display}, "
            f"limit {self.limit_s:g} s{', lockstep' if cfg.lockstep else ''})"
        )

    def wait(self) -> tuple[str, str]:
        """Block until the first end condition: (status, detail)."""
        if self.session is None or self.port is None or self.agent_thread is None or self.server is None:
            raise HarnessError("Episode.wait() before start() completed")
        watch = self.server.watch if getattr(self.agent, "external", False) else None
        return _watch(
            self.cfg,
            self.session,
            self.port,
            self.recorder,
            self.agent_thread,
            self.limit_s,
            self.clock,
            watch,
            self.freezes,
        )

    def fail(self, exc: BaseException) -> None:
        """The episode's status for an exception out of start() or wait()."""
        if isinstance(exc, _AgentNoShow):  # no agent was there to evaluate: not an agent's 0
            self.status, self.detail = "harness_error", f"outside the agent: {exc}"
        elif isinstance(exc, KeyboardInterrupt):
            self.status, self.detail, self.interrupted = "harness_error", "interrupted (Ctrl-C or SIGTERM)", exc
        elif isinstance(exc, SimbridgeError):
            self.status, self.detail = "harness_error", str(exc)
        elif isinstance(exc, Exception):
            self.status, self.detail = "harness_error", f"{type(exc).__name__}: {exc}"
            (self.path / "harness_error.txt").write_text(traceback.format_exc())
        else:  # SystemExit and the like: close the bundle as a harness fault, then let it through
            self.status, self.detail, self.interrupted = "harness_error", f"{type(exc).__name__}: {exc}", exc

    # ------------------------------------------------------------------ teardown

    def _log_action(self, rec: dict[str, Any]) -> None:
        """actions.jsonl, remembering the agent's last input (what preceded any fault)."""
        if rec.get("kind") not in OBSERVE and rec.get("kind") != "wait":
            self.last_action = dict(rec)
        self.writer.action(rec)

    def _set_paused(self, paused: bool) -> None:
        if self.session is not None:
            self.session.set_paused(paused)

    def _advance(self, seconds: float) -> float | None:
        return self.session.advance(seconds) if self.session is not None else None

    def _alive(self) -> bool:
        return self.session is not None and self.session.alive()

    def _stop_frames(self) -> None:
        assert self.frames is not None
        self.frames.stop()
        self.info.screen_recording = self.frames.record()

    def _stop_recorder(self) -> None:
        self.recorder.stop()
        if self.recorder.error is not None and self.status not in ("harness_error", "sim_crashed"):
            self.status, self.detail = "harness_error", f"recorder failed: {self.recorder.error}"
        stats = self.recorder.stats()
        self.info.sample_rate_hz = stats.get("rate_hz")
        self.info.recorder = stats

    def _stop_session(self) -> None:
        """End-of-episode facts from the simulator (rates, end snapshot, CPU), then stop it."""
        session = self.session
        assert session is not None
        if self.status != "sim_crashed":
            _apply_info(self.info, session)  # end-of-episode rates (frame rate, real-time factor)
        try:
            if session.alive():
                self.snaps["end"] = session.snapshot()
        except Exception:
            pass
        if self.provider is not None:
            for name, proc in self.provider.processes():
                if not isinstance(proc, subprocess.Popen):
                    self.cpu.setdefault(name, None)  # a guest process: the host cannot read its CPU
                elif (c := _cpu_s(proc)) is not None:
                    self.cpu[name] = (self.cpu.get(name) or 0.0) + c
        try:
            session.stop()
        except Exception as exc:
            self.detail += f"; simulator stop failed: {exc}"

    def close(self) -> None:
        """End the episode and close the bundle with its status (see the class docstring)."""
        if self._closed:
            return
        self._closed = True
        info = self.info
        self.sim_t = self.clock()
        if self.started.is_set():
            # simulator seconds per wall second over the episode: < 1 means it fell behind real time
            wall_run = time.monotonic() - self._w_started
            info.wall_run_s = round(wall_run, 3)
            info.achieved_rtf = round(self.sim_t / wall_run, 4) if wall_run > 0 else None
        if self.ctx is not None:
            self.ctx.ended.set()
        if self.port is not None:
            self.port.end_episode(self.status)
            info.agent_actions = {"served": self.port.n_actions, "failed": self.port.n_failed}
        self.cleanup.close()
        if self.server is not None and self.server.watch is not None:
            info.agent_port_refusals = self.server.refusals()
        if self.port is not None and self.port.files is not None and "end" in self.snaps:
            collect_answers(self.task, self.port.files, self.snaps["end"])
        if self.snaps:
            self.writer.snapshots(self.snaps)
        self.cpu["runner"] = time.process_time() - self._cpu0
        info.cpu_s = {k: None if v is None else round(v, 3) for k, v in self.cpu.items()}
        info.sim_seconds = round(self.sim_t, 3)
        # which input came last before the end: a harness fault that follows an agent input is
        # the agent's doing as much as ours (eval does not retry it, docs/validity.md)
        info.extra["last_agent_action"] = self.last_action
        if self.freezes:
            info.extra["freezes"] = self.freezes
        if self.status not in AGENT_OUTCOMES and self.last_action is not None:
            a = self.last_action
            self.detail += f" (after the agent's {a.get('kind')} {_short_args(a.get('args'))} at t={a.get('t')} s)"
        if self.started.is_set():
            # where the recording should end: a recording that stops short of it lost its tail
            info.sim_end_s = round(self.sim_t, 4)
        said = self.agent_thread.error or self.agent_thread.fault if self.agent_thread is not None else None
        if said:
            (self.path / "agent_error.txt").write_text(str(getattr(self.agent_thread, "traceback", said)))
        if self.port is not None:
            self.port.log = None  # calls after the end are refused and no longer logged: the bundle closes
        self.writer.finish(self.status, self.detail)  # type: ignore[arg-type]
        self.status_file.update(state="ended", ready=False, status=self.status, detail=self.detail)

    def finish(self) -> TrialResult:
        """Close (if not yet), score the bundle, write score.json and the manifest."""
        from simbridge._scoring import score_bundle

        self.close()
        score = score_bundle(read_bundle(self.path), self.task)
        (self.path / "score.json").write_text(score.model_dump_json(indent=2))
        write_manifest(self.path)
        port = self.port
        return TrialResult(
            self.trial,
            self.path,
            self.status,
            self.detail,
            score,
            self.sim_t,
            port.n_actions if port else 0,
            list(self.frames.saved) if self.frames else [],
            port.n_failed if port else 0,
        )


def run_trial(cfg: RunConfig, task: TaskSpec, trial: int, path: Path) -> TrialResult:
    """One episode → one closed, scored bundle at `path`. Never raises for agent or simulator
    failures (they become statuses); re-raises KeyboardInterrupt after closing the bundle."""
    return Episode(cfg, task, trial, path).run()


def _short_args(args: Any) -> str:
    """An action's arguments in one short line (for a status detail)."""
    import json

    text = json.dumps(args, separators=(",", ":"), default=str) if args else ""
    return text if len(text) <= 80 else text[:77] + "..."


def _quietly(step: Callable[[], object]) -> None:
    """A teardown step whose failure must not keep the others from running (nor mask the status)."""
    try:
        step()
    except Exception:
        pass


class _AgentNoShow(SimbridgeError):
    """No external agent connected: the episode ends at its start, unscored (harness_error,
    "outside the agent: …"): no agent was evaluated, so there is nothing to score."""


def _append(path: Path, text: str) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(text.rstrip() + "\n\n")


def _wait_first_samples(recorder: Any, session: SimSession, n: int, timeout_s: float) -> None:
    """Block until the recording has `n` samples: the agent may act only once the episode's
    start is on record (an agent that gives up at once is then scored on its initial state)."""
    t_end = time.monotonic() + timeout_s
    while recorder.n_samples < n:
        if recorder.error is not None:
            raise HarnessError(f"recorder failed: {recorder.error}")
        if not session.alive():
            raise HarnessError(session.lost_reason() or "the simulator exited before its first samples")
        if time.monotonic() > t_end:
            raise HarnessError(
                f"no telemetry within {timeout_s:g} s of the simulator starting "
                f"({recorder.n_samples} of {n} first samples)"
            )
        time.sleep(0.01)


#: the agent's folder inside the bundle (task inputs under input/, what the agent wrote)
AGENT_HOME = "home"
#: end-snapshot keys filled from files the agent writes into its folder
ANSWER_FILES = {"answer": "answer.json"}


def agent_files(task: TaskSpec, root: Path) -> AgentFiles:
    """The agent's folder for one episode with the task's input documents placed in it."""
    files = AgentFiles(root)
    files.place_inputs((f.path, tasks_dir() / f.source) for f in task.inputs if f.source)
    return files


def collect_answers(task: TaskSpec, files: AgentFiles, end: dict[str, Any]) -> None:
    """Put the answer files the task's snapshots ask for (`end.answer` ← answer.json) into the
    end snapshot: parsed JSON, the raw text when it does not parse, None when there is no file."""
    for key, name in ANSWER_FILES.items():
        if f"end.{key}" in task.snapshots:
            end[key] = files.collect_json(name)


def _audit(cfg: RunConfig, task: TaskSpec, session: SimSession, provider: Any, episode: EpisodeInfo) -> None:
    """The isolation audit, inside the sandbox with the simulator up, before the agent acts.

    A failed audit refuses the episode (harness_error, unscored) unless --unisolated, and then
    the episode is marked unisolated."""
    ports = task.lockdown.probes()
    ports += [(port, proto, f"{session.sim_name} state port") for proto, port in session.state_ports]
    if guest_port_needed():  # the guest service's port: open to the host, never to the agent
        ports.append((GUEST_PORT, "tcp", "guest service"))
    consoles = session.check_consoles(list(task.lockdown.disabled_consoles))
    episode.isolation = {**(episode.isolation or {}), "consoles": consoles}
    report = provider.audit(ports)
    if report is None:
        return
    enabled = [name for name, c in consoles.items() if c.get("state") == "enabled"]
    if enabled:
        report = {
            **report,
            "ok": False,
            "problems": [
                *report.get("problems", []),
                *(f"in-sim console enabled: {n} ({consoles[n].get('evidence', '')})" for n in enabled),
            ],
        }
    episode.isolation = {**(episode.isolation or {}), "audit": report}
    if not report.get("ok"):
        problems = "; ".join(report.get("problems", [])[:3])
        if not cfg.unisolated:
            raise HarnessError(f"isolation audit failed: {problems} (rerun with --unisolated to run anyway, marked so)")
        episode.unisolated = True
        episode.flags.append("audit_failed")


def _apply_info(episode: EpisodeInfo, session: SimSession) -> None:
    try:
        info = session.info()
    except Exception as exc:  # facts for episode.json are not worth ending the episode
        info = {"info_error": str(exc)}
    episode.sim_info = info
    version = info.get("sim_version") or info.get(f"{session.sim_name}_version") or info.get("version")
    if version is not None:
        episode.sim_version = str(version)
    for key, field_ in (
        ("real_time_factor", "real_time_factor"),
        ("frame_rate_hz", "frame_rate_hz"),
        ("frame_rate", "frame_rate_hz"),
    ):
        if isinstance(info.get(key), (int, float)):
            setattr(episode, field_, float(info[key]))


def _make_recorder(session: SimSession, writer: BundleWriter) -> Any:
    from simbridge._recorder import Recorder

    return Recorder(session, writer)


def _watch(
    cfg: RunConfig,
    session: SimSession,
    port: AgentPort,
    recorder: Any,
    agent_thread: _AgentThread,
    limit: float,
    clock: Callable[[], float],
    watch: Any = None,
    freezes: list[dict[str, Any]] | None = None,
) -> tuple[str, str]:
    """Wait for the first end condition; return (status, detail). `watch` (an external agent's
    MCP connection) ends the episode as `agent_disconnected` when the client has been gone for
    the grace period. Each freeze (no new sample for `_stall_s` with the simulator alive) is
    appended to `freezes`: {t: simulator time it stood at, process: its scheduler state,
    wall_s: wall seconds it stood, resumed_t}."""
    wall_cap = (limit * 20 + 60) if cfg.lockstep else None
    w0 = time.monotonic()
    last_n, last_move = -1, time.monotonic()
    freeze: dict[str, Any] | None = None
    while True:
        time.sleep(0.02)
        if recorder.error is not None:
            return "harness_error", f"recorder failed: {recorder.error}"
        if not session.alive():
            lost = session.lost_reason()
            if lost:  # the process may still run: the harness lost it, a harness fault
                return "harness_error", lost
            code = session.proc.returncode if session.proc is not None else None
            return "sim_crashed", "simulator exited" + (f" (exit code {code})" if code is not None else "")
        t = clock()
        if recorder.crash_t is not None:
            return "completed", f"aircraft crashed at t={recorder.crash_t:.1f} s ({recorder.crash_detail})"
        if t >= limit:
            return "timeout", f"time limit {limit:g} s (simulator time) reached"
        if port.finished.is_set() or not agent_thread.is_alive():
            if agent_thread.fault:
                return "harness_error", f"outside the agent: {agent_thread.fault}"
            if agent_thread.error:
                return "agent_quit", f"agent raised {agent_thread.error}"
            outcome = port.outcome or ((agent_thread.result, "returned") if agent_thread.result else None)
            if outcome is None:
                return "agent_quit", "agent stopped without done/give_up"
            kind, reason = outcome
            if kind == "done":
                return "completed", f"agent done at t={t:.1f} s" + (f": {reason}" if reason else "")
            return "agent_quit", f"agent gave up at t={t:.1f} s" + (f": {reason}" if reason else "")
        if watch is not None and watch.gone_for_s() > cfg.disconnect_grace_s:
            return "agent_disconnected", (
                f"the agent's MCP client disconnected without done/give_up "
                f"(gone {cfg.disconnect_grace_s:g} s, at t={t:.1f} s)"
            )
        if watch is not None and watch.idle_for_s() > cfg.idle_timeout_s:
            return "agent_disconnected", (
                f"no request from the agent for {cfg.idle_timeout_s:g} s "
                f"(at t={t:.1f} s): taken as gone without done/give_up"
            )
        now = time.monotonic()
        if recorder.n_samples != last_n:
            if freeze is not None:  # the clock moves again: the recording resumes where it stood
                freeze["wall_s"] = round(now - last_move, 3)
                freeze["resumed_t"] = round(t, 4)
                freeze = None
            last_n, last_move = recorder.n_samples, now
        elif not cfg.lockstep and now - last_move > _stall_s(session):
            # no new sample and the simulator is alive (above): its clock stands still. No
            # simulator time passes (the time limit is in simulator time), so none is lost
            if freeze is None:
                freeze = {"t": round(t, 4), "process": session.process_state(), "wall_s": None}
                if freezes is not None:
                    freezes.append(freeze)
            limit_s = _frozen_limit_s(session)
            if now - last_move > limit_s:
                state = freeze.get("process")
                return "harness_error", (
                    f"simulator frozen: no new sample at t={t:.1f} s for {now - last_move:.1f} s "
                    f"with its process up{f' ({state})' if state else ''}, beyond the {limit_s:g} s limit"
                )
            freeze["wall_s"] = round(now - last_move, 3)
        if wall_cap is not None and now - w0 > wall_cap:
            return "timeout", f"lockstep wall-clock cap {wall_cap:g} s reached"


def _stall_s(session: SimSession) -> float:
    """Seconds without a sample before telemetry counts as stalled: a session may allow longer
    pauses its agent causes (`telemetry_stall_s`: FlightGear repositioning for T08)."""
    return session.stall_limit()


def _frozen_limit_s(session: SimSession) -> float:
    """Wall seconds a simulator that is alive but whose clock stands still is waited for: the
    session's `frozen_limit()` (FROZEN_LIMIT_S unless it sets `frozen_limit_s`), never less
    than its stall limit."""
    return max(session.frozen_limit(), _stall_s(session))


def preflight(cfg: RunConfig, task: TaskSpec) -> None:
    """Everything that can be checked before a bundle exists: the provider can start a sandbox
    here, the simulator is installed or reachable. Raises SimbridgeError naming what is missing."""
    from simbridge._providers import make_provider

    session_cls = resolve_session(cfg.sim)
    make_provider(cfg.provider, task=task, session_cls=session_cls).preflight()
    session_cls.preflight(cfg.provider)


def run(cfg: RunConfig) -> list[TrialResult]:
    """All trials of `cfg`; bundles go to OUT/TASK-YYYYmmdd-HHMMSS/trial-N."""
    task = load_task(cfg.task)
    _check_sim(task, cfg.sim)
    resolve_session(cfg.sim)  # fail fast on a missing adapter
    from simbridge.agents import make_agent

    make_agent(cfg.agent, task.id)  # fail fast on a bad agent spec
    preflight(cfg, task)
    root = Path(cfg.out or "runs") / f"{task.id}-{time.strftime('%Y%m%d-%H%M%S')}"
    n = 1
    while root.exists():
        n += 1
        root = root.with_name(f"{root.name.split('~')[0]}~{n}")
    results = []
    for i in range(1, cfg.trials + 1):
        results.append(run_trial(cfg, task, i, root / f"trial-{i}"))
    return results


def summary_table(results: list[TrialResult]) -> str:
    head = f"{'trial':>5}  {'status':<13}{'score':>7}  {'success':<8}{'sim s':>7}{'actions':>8}  bundle"
    lines = [head, "-" * len(head)]
    for r in results:
        s = r.score
        sc = f"{s.score:.3f}" if s is not None and s.status == "scored" else "—"
        ok = str(s.success) if s is not None and s.status == "scored" else "unscored"
        lines.append(f"{r.trial:>5}  {r.status:<13}{sc:>7}  {ok:<8}{r.sim_s:>7.1f}{r.n_actions:>8}  {r.path}")
    return "\n".join(lines)
