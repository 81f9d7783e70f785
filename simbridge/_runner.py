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
MCP client went away without done/give_up, or never came): the agent's outcomes, always scored
on what was recorded. `sim_crashed` (the simulator process died) and `harness_error` (anything
else of ours, including Ctrl-C) are harness faults, never scored as agent failures (the
verifier returns `unscored`).
"""

from __future__ import annotations

import importlib
import os
import subprocess
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simbridge._adapter import ProcessHandle, SimSession
from simbridge._agent_port import (AgentFiles, AgentPort, DirectClient, EpisodeOver, LockstepPacer, McpPortServer,
                                   Pacer, make_brief)
from simbridge._agent_port._screen import ScreenGrabber, encode
from simbridge._bundle import BundleWriter, EpisodeInfo, SandboxRecord, read_bundle, write_manifest
from simbridge._errors import HarnessError, SimbridgeError
from simbridge._score import Score
from simbridge._task import TaskSpec, load_task, tasks_dir

#: seconds without a new sample (simulator running, not paused) before telemetry counts as lost
TELEMETRY_STALL_S = 5.0
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
                tmp.write_text(text)
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
    token: str | None = None
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

    def __init__(self, display: str, bundle: Path, clock: Callable[[], float], hz: float, snapshot_at: list[float]) -> None:
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
        return {"frames": self.n_frames, "snapshots": len(self.saved), "capture_errors": self.n_errors,
                "last_error": self.last_error}

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

    def run(self) -> None:
        try:
            self.result = self.agent.run(self.client, self.task, self.deadline_s)
        except EpisodeOver:
            self.result = None
        except BaseException as exc:  # the agent's own failure
            self.error = f"{type(exc).__name__}: {exc}"
            self.traceback = traceback.format_exc()


def run_trial(cfg: RunConfig, task: TaskSpec, trial: int, path: Path) -> TrialResult:
    """One episode → one closed, scored bundle at `path`. Never raises for agent or simulator
    failures (they become statuses); re-raises KeyboardInterrupt after closing the bundle."""
    from simbridge._providers import make_provider
    from simbridge.agents import AgentContext, make_agent
    from simbridge.verifiers import score_bundle

    say = cfg.say
    session_cls = resolve_session(cfg.sim)
    agent = make_agent(cfg.agent, task.id)
    if cfg.connect_timeout_s is not None and hasattr(agent, "connect_timeout_s"):
        agent.connect_timeout_s = cfg.connect_timeout_s
    limit = min(task.time_limit_s, cfg.time_limit_s) if cfg.time_limit_s else float(task.time_limit_s)
    seed = None if cfg.seed is None else cfg.seed + trial - 1
    columns = list(dict.fromkeys([*session_cls.signals, *task.signals]))
    flags = ["lockstep"] if cfg.lockstep else []
    if cfg.time_limit_s and cfg.time_limit_s < task.time_limit_s:
        flags.append(f"time_limit_cut:{cfg.time_limit_s:g}")
    episode = EpisodeInfo(task_id=task.id, spec_hash=task.spec_hash, sim=session_cls.sim_name or cfg.sim,
                          adapter=f"{session_cls.__module__}.{session_cls.__name__}", provider=cfg.provider,
                          agent=getattr(agent, "name", cfg.agent), trial=trial, seed=seed, flags=flags,
                          unisolated=True)
    writer = BundleWriter(path, episode, columns)
    status, detail = "harness_error", "did not start"
    provider = session = port = server = recorder = frames = agent_thread = None
    snaps: dict[str, Any] = {}
    cpu: dict[str, float | None] = {}
    cpu0 = time.process_time()
    interrupted: BaseException | None = None
    ctx: Any = None
    sim_t = 0.0
    started = threading.Event()
    status_file = PortStatus([path.parent / STATUS_FILE, *([cfg.status_file] if cfg.status_file else [])])

    def clock() -> float:
        return session.sim_time() if (session is not None and started.is_set()) else 0.0

    try:
        provider = make_provider(cfg.provider, task=task, session_cls=session_cls)
        episode.unisolated = not provider.isolated
        sandbox = provider.start(path / "sandbox")
        episode.isolation = provider.isolation_report()
        pacer: Pacer = (LockstepPacer(lambda p: session.set_paused(p), clock, slice_s=cfg.lockstep_slice_s,
                                      alive=lambda: session.alive()) if cfg.lockstep else Pacer())
        files = agent_files(task, path / AGENT_HOME)
        port = AgentPort(sandbox.display, clock=clock, log=writer.action, pacer=pacer, files=files, ready=False)
        port.fault_log = lambda text: _append(path / "port_faults.txt", text)
        brief = make_brief(task, episode.sim or cfg.sim, time_limit_s=limit, lockstep=cfg.lockstep,
                           controls=tuple(getattr(session_cls, "controls", ())), screen_px=port.screen.size)
        port.brief = brief.model_dump(mode="json")
        episode.agent_brief = port.brief
        server = McpPortServer(port, host=cfg.mcp_host, tcp_port=cfg.mcp_port, token=cfg.token).start()
        status_file.update(trial=trial, bundle=str(path), mcp_url=server.url, token_required=cfg.token is not None,
                           state="starting", ready=False, task_id=task.id, sim=episode.sim)
        ctx = AgentContext(display=sandbox.display, port_url=server.url, spawn=sandbox.spawn,
                           outcome=lambda: port.outcome, say=say, lockstep=cfg.lockstep)
        episode.agent_port_url = server.url
        agent.setup(ctx)
        no_show: str | None = None
        if hasattr(agent, "wait_connected"):
            agent.connected = server.watch.seen_client.is_set
            no_show = agent.wait_connected()
        session = session_cls()
        session.start(task, sandbox, seed=seed)
        if cfg.lockstep:
            session.set_paused(True)
        _audit(cfg, task, session, provider, episode)
        started.set()
        w_started = time.monotonic()
        _apply_info(episode, session)
        snaps["start"] = session.snapshot()
        procs = provider.processes()
        episode.sandbox = SandboxRecord(display=sandbox.display, pids={n: p.pid for n, p in procs},
                                        guest=sorted({n for n, p in procs if not isinstance(p, subprocess.Popen)}))
        writer.write_episode()
        recorder = _make_recorder(session, writer).start()
        _wait_first_samples(recorder, session, 1 if cfg.lockstep else 2,
                            FIRST_SAMPLES_S * getattr(sandbox, "timeout_scale", 1.0))
        frames = _Frames(sandbox.display, path, clock, cfg.frame_hz, list(cfg.snapshot_at))
        frames.start()
        episode.ready_wall = round(time.time(), 4)
        port.mark_ready()
        status_file.update(state="ready", ready=True)
        if no_show is not None:
            raise _AgentNoShow(no_show)
        agent_thread = _AgentThread(agent, DirectClient(port), task, limit)
        agent_thread.start()
        say(f"trial {trial}: {task.id} on {episode.sim} with {episode.agent} "
            f"(display {sandbox.display}, limit {limit:g} s{', lockstep' if cfg.lockstep else ''})")
        watch = server.watch if getattr(agent, "external", False) else None
        status, detail = _watch(cfg, session, port, recorder, agent_thread, limit, clock, watch)
    except _AgentNoShow as exc:
        status, detail = "agent_disconnected", str(exc)
    except KeyboardInterrupt as exc:
        status, detail, interrupted = "harness_error", "interrupted (Ctrl-C or SIGTERM)", exc
    except SimbridgeError as exc:
        status, detail = "harness_error", str(exc)
    except Exception as exc:
        status, detail = "harness_error", f"{type(exc).__name__}: {exc}"
        (path / "harness_error.txt").write_text(traceback.format_exc())
    finally:
        sim_t = clock()
        if started.is_set():
            # simulator seconds per wall second over the episode: < 1 means it fell behind real time
            wall_run = time.monotonic() - w_started
            episode.wall_run_s = round(wall_run, 3)
            episode.achieved_rtf = round(sim_t / wall_run, 4) if wall_run > 0 else None
        if ctx is not None:
            ctx.ended.set()
        if port is not None:
            port.end_episode(status)
            episode.agent_actions = {"served": port.n_actions, "failed": port.n_failed}
        if recorder is not None:
            recorder.stop()
            if recorder.error is not None and status not in ("harness_error", "sim_crashed"):
                status, detail = "harness_error", f"recorder failed: {recorder.error}"
            stats = recorder.stats()
            episode.sample_rate_hz = stats.get("rate_hz")
            episode.recorder = stats
        if frames is not None:
            frames.stop()
            episode.screen_recording = frames.record()
        if session is not None:
            if status not in ("sim_crashed",):
                _apply_info(episode, session)  # end-of-episode rates (frame rate, real-time factor)
            try:
                if session.alive():
                    snaps["end"] = session.snapshot()
            except Exception:
                pass
            if provider is not None:
                for name, proc in provider.processes():
                    if not isinstance(proc, subprocess.Popen):
                        cpu.setdefault(name, None)  # a guest process: the host cannot read its CPU
                    elif (c := _cpu_s(proc)) is not None:
                        cpu[name] = (cpu.get(name) or 0.0) + c
            try:
                session.stop()
            except Exception as exc:
                detail += f"; simulator stop failed: {exc}"
        for step in (lambda: agent.close(), lambda: server and server.stop(), lambda: port and port.close(),
                     lambda: provider and provider.stop()):
            try:
                step()
            except Exception:
                pass
        if port is not None and port.files is not None and "end" in snaps:
            collect_answers(task, port.files, snaps["end"])
        if snaps:
            writer.snapshots(snaps)
        cpu["runner"] = time.process_time() - cpu0
        episode.cpu_s = {k: None if v is None else round(v, 3) for k, v in cpu.items()}
        episode.sim_seconds = round(sim_t, 3)
        if started.is_set():
            # where the recording should end: a recording that stops short of it lost its tail
            episode.sim_end_s = round(sim_t, 4)
        if agent_thread is not None and agent_thread.error:
            (path / "agent_error.txt").write_text(getattr(agent_thread, "traceback", agent_thread.error))
        if port is not None:
            port.log = None  # calls after the end are refused and no longer logged: the bundle closes
        writer.finish(status, detail)  # type: ignore[arg-type]
        status_file.update(state="ended", ready=False, status=status, detail=detail)
    if interrupted is not None:
        raise interrupted
    score = score_bundle(read_bundle(path), task)
    (path / "score.json").write_text(score.model_dump_json(indent=2))
    write_manifest(path)
    return TrialResult(trial, path, status, detail, score, sim_t, port.n_actions if port else 0,
                       list(frames.saved) if frames else [], port.n_failed if port else 0)


class _AgentNoShow(SimbridgeError):
    """No external agent connected: the episode ends at its start, scored (agent_disconnected)."""


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
            raise HarnessError(f"no telemetry within {timeout_s:g} s of the simulator starting "
                               f"({recorder.n_samples} of {n} first samples)")
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
    ports += [(port, proto, f"{session.sim_name} state port") for proto, port in getattr(session, "state_ports", ())]
    consoles = session.check_consoles(list(task.lockdown.disabled_consoles))
    episode.isolation = {**(episode.isolation or {}), "consoles": consoles}
    report = provider.audit(ports)
    if report is None:
        return
    enabled = [name for name, c in consoles.items() if c.get("state") == "enabled"]
    if enabled:
        report = {**report, "ok": False,
                  "problems": [*report.get("problems", []),
                               *(f"in-sim console enabled: {n} ({consoles[n].get('evidence', '')})" for n in enabled)]}
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
    for key, field_ in (("real_time_factor", "real_time_factor"), ("frame_rate_hz", "frame_rate_hz"),
                        ("frame_rate", "frame_rate_hz")):
        if isinstance(info.get(key), (int, float)):
            setattr(episode, field_, float(info[key]))


def _make_recorder(session: SimSession, writer: BundleWriter) -> Any:
    from simbridge._recorder import Recorder

    return Recorder(session, writer)


def _watch(cfg: RunConfig, session: SimSession, port: AgentPort, recorder: Any, agent_thread: _AgentThread,
           limit: float, clock: Callable[[], float], watch: Any = None) -> tuple[str, str]:
    """Wait for the first end condition; return (status, detail). `watch` (an external agent's
    MCP connection) ends the episode as `agent_disconnected` when the client has been gone for
    the grace period."""
    wall_cap = (limit * 20 + 60) if cfg.lockstep else None
    w0 = time.monotonic()
    last_n, last_move = -1, time.monotonic()
    while True:
        time.sleep(0.02)
        if recorder.error is not None:
            return "harness_error", f"recorder failed: {recorder.error}"
        if not session.alive():
            lost = session.lost_reason()
            if lost:  # the process may still run: the harness lost it, a harness fault
                return "harness_error", lost
            code = getattr(getattr(session, "proc", None), "returncode", None)
            return "sim_crashed", "simulator exited" + (f" (exit code {code})" if code is not None else "")
        t = clock()
        if recorder.crash_t is not None:
            return "completed", f"aircraft crashed at t={recorder.crash_t:.1f} s ({recorder.crash_detail})"
        if t >= limit:
            return "timeout", f"time limit {limit:g} s (simulator time) reached"
        if port.finished.is_set() or not agent_thread.is_alive():
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
            return "agent_disconnected", (f"the agent's MCP client disconnected without done/give_up "
                                          f"(gone {cfg.disconnect_grace_s:g} s, at t={t:.1f} s)")
        if watch is not None and watch.idle_for_s() > cfg.idle_timeout_s:
            return "agent_disconnected", (f"no request from the agent for {cfg.idle_timeout_s:g} s "
                                          f"(at t={t:.1f} s): taken as gone without done/give_up")
        now = time.monotonic()
        if recorder.n_samples != last_n:
            last_n, last_move = recorder.n_samples, now
        elif not cfg.lockstep and now - last_move > TELEMETRY_STALL_S:
            return "harness_error", f"telemetry stalled: no sample for {TELEMETRY_STALL_S:g} s"
        if wall_cap is not None and now - w0 > wall_cap:
            return "timeout", f"lockstep wall-clock cap {wall_cap:g} s reached"


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
