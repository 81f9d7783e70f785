"""`Episode`: one trial, the one API every driver uses.

    with Episode(cfg, task, trial, path, driver="caller") as ep:
        obs = ep.start()                    # the first screen and the task brief
        while not obs.over:
            obs = ep.act("key", keys="Up")  # one agent-port action, then the screen
        result = ep.close()                 # the closed, scored bundle (TrialResult)

`simbridge run` (`run_trial`) opens the same episode with `driver="agent"`: the agent's own
`Agent.run` acts on a worker thread and the runner waits for the end (`run()`). The Gymnasium
environment and the Inspect AI solver drive it as the caller.

Set-up is a sequence of small named steps (`_open`): the provider's sandbox, the agent port,
its MCP server, the agent's setup, the simulator in the task's initial state, the isolation
audit, the recorder, the screen frames. Each pushes its own teardown on `self.cleanup` (a
contextlib.ExitStack) as soon as it holds something, so a failure at any step undoes exactly
what was set up; closing unwinds the stack (the reverse of set-up) and closes the bundle with
its status.

The agent port is up (and its address in the run directory's `agent_port.json`) from the start,
but serves nothing but the task description until the simulator is up in its initial state,
the isolation audit has passed and the recording has begun: the agent's first screenshot shows
the cockpit, and nothing it does happens before isolation is proven.

Statuses: `completed` (the agent said done, or the aircraft crashed: the verifier judges it),
`timeout`, `agent_quit` (give-up, or the agent raised, or the caller closed without done or
give_up), `agent_disconnected` (an external agent's MCP client went away without done/give_up):
the agent's outcomes, always scored on what was recorded. `sim_crashed` (the simulator process
died) and `harness_error` (anything else of ours, including Ctrl-C, and a failure outside the
agent's control: `simbridge.agents.ExternalFault` raised by the agent, or `close(fault=...)` by
the caller: a model/API error, a solver crash, a cancelled sample) are harness faults, never
scored as agent failures (the verifier returns `unscored`).
"""

from __future__ import annotations

import contextlib
import subprocess
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from simbridge._adapter import Sandbox, SimSession
from simbridge._agent_port import AgentPort, DirectClient, LockstepPacer, McpPortServer, Pacer, make_brief
from simbridge._agent_port._actions import is_agent_input
from simbridge._agent_port._mcp_server import new_token
from simbridge._agent_port._transport import for_sandbox
from simbridge._bundle import BundleWriter, EpisodeInfo, SandboxRecord, add_to_manifest, read_bundle
from simbridge._end_watch import EndWatch
from simbridge._episode_parts import (
    AGENT_HOME,
    FIRST_SAMPLES_S,
    STATUS_FILE,
    PortStatus,
    _AgentNoShow,
    _AgentThread,
    _append,
    _apply_info,
    _audit,
    _cpu_s,
    _Frames,
    _make_recorder,
    _quietly,
    _short_args,
    _wait_first_samples,
    _WaitsForClient,
    agent_files,
    collect_answers,
)
from simbridge._errors import HarnessError, SimbridgeError
from simbridge._providers._base import Provider
from simbridge._run_config import (
    AGENT_OUTCOMES,
    RunConfig,
    TrialResult,
    assist_flags,
    check_assists,
    offered_assists,
    resolve_session,
)
from simbridge._task import TaskSpec

#: who acts in an episode: the agent's own `run` on a worker thread, or the caller through `act`
Driver = Literal["agent", "caller"]


@dataclass(frozen=True)
class Observation:
    """What the caller sees after `start()` or `act()`."""

    #: simulator seconds since the episode started
    t: float
    #: the task brief, as the agent port's `task` action gives it
    brief: dict[str, Any]
    #: the screen (uint8 H×W×3, BGR) right after the action; None once the display is gone
    screen: Any
    #: what the action returned (a Screenshot, the cursor position, a file list...; None for inputs)
    result: Any = None
    #: the episode has ended: no further action is served; `close()` gives the result
    over: bool = False


class CallerTurn:
    """The agent's turn when the caller acts (`driver="caller"`): alive until `close()` ends it,
    which may say why it ended outside the agent's control (`fault`)."""

    def __init__(self) -> None:
        self.fault: str | None = None
        self.error: str | None = None
        self.result: str | None = None
        self.traceback: str | None = None
        self._released = threading.Event()

    def is_alive(self) -> bool:
        return not self._released.is_set()

    def release(self, fault: str | None = None) -> None:
        if fault is not None and not self._released.is_set():
            self.fault = fault
        self._released.set()


class Episode:
    """One trial: one closed, scored bundle at `path`, with one cleanup stack (see the module
    docstring).

    - `start()` brings everything up (the steps of `_open`) and returns the first Observation;
      with `driver="agent"` the agent's thread runs from then on, with `driver="caller"` the
      end conditions are watched on a thread of the episode's own, which closes the bundle the
      moment one holds (time limit, crash, simulator lost, done/give_up).
    - `act(kind, **args)` (caller) runs one agent-port action and returns the Observation after it.
    - `close(fault=None)` ends the episode (if it has not ended), unwinds the stack, closes and
      scores the bundle: the TrialResult. Idempotent.
    - `run()` is the whole trial with `driver="agent"` (what `run_trial` does); `wait()` blocks
      until the first end condition and returns (status, detail); `fail(exc)` turns an
      exception from set-up or waiting into the episode's status.

    Never raises for agent or simulator failures (they become statuses); `run()` re-raises
    KeyboardInterrupt after closing the bundle (then there is no score). `start()` raises
    SimbridgeError when the episode ends before the agent's turn (the bundle is then closed).
    """

    def __init__(self, cfg: RunConfig, task: TaskSpec, trial: int, path: Path, *, driver: Driver = "agent") -> None:
        self.cfg, self.task, self.trial, self.path, self.driver = cfg, task, trial, path, driver
        self.session_cls = resolve_session(cfg.sim)
        #: the agent (driver "agent"); None when the caller acts, and `cfg.agent` is its name
        self.agent: Any = None
        if driver == "agent":
            from simbridge.agents import make_agent

            self.agent = make_agent(cfg.agent, task.id)
            if cfg.connect_timeout_s is not None and hasattr(self.agent, "connect_timeout_s"):
                self.agent.connect_timeout_s = cfg.connect_timeout_s
        self.limit_s = min(task.time_limit_s, cfg.time_limit_s) if cfg.time_limit_s else float(task.time_limit_s)
        self.seed = None if cfg.seed is None else cfg.seed + trial - 1
        if getattr(task, "variants", None) and getattr(task, "variant", None) is None:
            self.task = task = task.drawn(self.seed)  # the trial's seeded variant, written into the task
        #: the assists asked for, each one the simulator offers (a bad name fails before any bundle)
        self.assists = check_assists(cfg.sim, cfg.assists)
        flags = ["lockstep"] if cfg.lockstep else []
        if cfg.time_limit_s and cfg.time_limit_s < task.time_limit_s:
            flags.append(f"time_limit_cut:{cfg.time_limit_s:g}")
        flags += assist_flags(self.assists)
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
            assists=list(self.assists),
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
        #: the in-process client of the port (what a thread agent or a caller's tools act through)
        self.client: DirectClient | None = None
        self.recorder: Any = None
        self.frames: _Frames | None = None
        self.agent_thread: _AgentThread | None = None
        self.turn: CallerTurn | None = None
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
        self.result: TrialResult | None = None
        self._no_show: str | None = None
        self._cpu0 = time.process_time()
        self._w_started = 0.0
        self._closed = False
        self._closing = threading.Event()
        self._close_lock = threading.Lock()
        self._watcher: threading.Thread | None = None
        self.status_file = PortStatus([path.parent / STATUS_FILE, *([cfg.status_file] if cfg.status_file else [])])

    # ------------------------------------------------------------------ the public API

    def start(self) -> Observation:
        """Bring the episode up to the agent's turn; the first Observation. Raises SimbridgeError
        (the bundle closed with its status) when it ends before the agent's turn."""
        try:
            self._open()
        except BaseException as exc:
            self.fail(exc)
            self._close_bundle()
            if self.interrupted is not None:
                raise self.interrupted from None
            raise SimbridgeError(
                f"episode {self.task.id} on {self.cfg.sim} ended before the agent's turn "
                f"({self.status}: {self.detail}); bundle {self.path}"
            ) from None
        if self.driver == "caller":
            self._watcher = threading.Thread(target=self._watch_to_the_end, name=f"episode-{self.task.id}", daemon=True)
            self._watcher.start()
        return self.observe()

    def act(self, kind: str, /, **args: Any) -> Observation:
        """One agent-port action (`simbridge._agent_port._actions.VOCABULARY`: "key",
        "click", "wait", "done"...), logged like any agent's; the Observation after it. Raises
        EpisodeOver once the episode has ended, ActionError for an action the port refuses."""
        if self.client is None:
            raise SimbridgeError("Episode.act() before start()")
        return self.observe(self.client.execute(kind, args))

    def observe(self, result: Any = None) -> Observation:
        """The episode as it is now (the screen grabbed now, not logged as an agent action)."""
        port = self.port
        screen = None
        if port is not None and not self._closing.is_set():
            try:
                screen = port.screen.grab_bgr()
            except Exception:  # the display closed as the episode ended
                screen = None
        brief = dict(port.brief) if port is not None and port.brief is not None else {}
        return Observation(self.clock(), brief, screen, result, self.over)

    @property
    def over(self) -> bool:
        """The episode has ended (or is ending): no further action is served."""
        return self._closing.is_set() or (self.port is not None and self.port.over)

    def close(self, *, fault: str | None = None, timeout_s: float = 120.0) -> TrialResult:
        """End the episode and return its result: the stack unwound, the bundle closed with its
        status and scored (score.json, manifest). Idempotent.

        With `driver="caller"`, ending the caller's turn: unless the episode had already ended
        (time limit, crash, done/give_up through `act`), it ends `agent_quit` ("stopped without
        done/give_up"), or with `fault` (the turn ended for a reason outside the agent's
        control: a model/API error, the caller's exception, a cancelled sample) `harness_error`,
        unscored, detail "outside the agent: FAULT"."""
        if self.result is not None:
            return self.result
        if self.turn is not None:
            self.turn.release(fault)
        if self._watcher is not None:
            self._watcher.join(timeout_s)
            if self._watcher.is_alive():
                raise SimbridgeError(
                    f"episode {self.task.id}: the runner did not finish within {timeout_s:g} s (bundle {self.path})"
                )
        self._close_bundle()
        self.result = self._score()
        return self.result

    def __enter__(self) -> "Episode":
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc is not None and self.driver == "caller":
            self.close(fault=f"{type(exc).__name__}: {exc}".strip()[:500])
            return
        if exc is not None and not self._closed:
            self.fail(exc)
        self.close()

    # ------------------------------------------------------------------ the whole trial (driver "agent")

    def run(self) -> TrialResult:
        try:
            self._open()
            self.status, self.detail = self.wait()
        except BaseException as exc:
            self.fail(exc)
        finally:
            self._close_bundle()
        if self.interrupted is not None:
            raise self.interrupted
        return self.close()

    def clock(self) -> float:
        """Simulator seconds since the episode started (0 until the simulator is up)."""
        return self.session.sim_time() if (self.session is not None and self.started.is_set()) else 0.0

    def wait(self) -> tuple[str, str]:
        """Block until the first end condition: (status, detail)."""
        ended = self._end_watch().wait()
        assert ended is not None
        return ended

    def fail(self, exc: BaseException) -> None:
        """The episode's status for an exception out of set-up or waiting."""
        if isinstance(exc, _AgentNoShow):  # no agent was there to evaluate: not an agent's 0
            self.status, self.detail = "harness_error", f"outside the agent: {exc}"
        elif isinstance(exc, KeyboardInterrupt):
            self.status, self.detail, self.interrupted = "harness_error", "interrupted (Ctrl-C or SIGTERM)", exc
        elif isinstance(exc, SimbridgeError):
            self.status, self.detail = "harness_error", str(exc)
        elif isinstance(exc, Exception):
            self.status, self.detail = "harness_error", f"{type(exc).__name__}: {exc}"
            (self.path / "harness_error.txt").write_text(
                "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            )
        else:  # SystemExit and the like: close the bundle as a harness fault, then let it through
            self.status, self.detail, self.interrupted = "harness_error", f"{type(exc).__name__}: {exc}", exc

    def _end_watch(self) -> EndWatch:
        turn = self.turn or self.agent_thread
        if self.session is None or self.port is None or turn is None or self.server is None:
            raise HarnessError("Episode.wait() before start() completed")
        client_watch = self.server.watch if getattr(self.agent, "external", False) else None
        return EndWatch(
            self.cfg,
            self.session,
            self.port,
            self.recorder,
            turn,
            self.limit_s,
            self.clock,
            client_watch,
            self.freezes,
        )

    def _watch_to_the_end(self) -> None:
        """driver "caller": wait for the first end condition and close the bundle at once (the
        caller may be thinking: the recording must not run on past the end)."""
        try:
            self.status, self.detail = self.wait()
        except BaseException as exc:
            self.fail(exc)
        finally:
            self._close_bundle()

    # ------------------------------------------------------------------ set-up, step by step

    def _open(self) -> None:
        """Each step pushes its own teardown on `self.cleanup` as soon as it holds something."""
        sandbox = self._open_sandbox()
        port = self._open_port(sandbox)
        token = self._serve_port(port)
        self._set_up_agent(sandbox, token)
        session = self._start_simulator(sandbox)
        self._audit_isolation(session, sandbox)
        self._record(session, sandbox)
        self._record_screen(sandbox)
        self._hand_over(port, sandbox)

    def _open_sandbox(self) -> Sandbox:
        """The provider's sandbox (a display, the simulator's user, its network)."""
        from simbridge._providers import make_provider

        self.provider = provider = make_provider(self.cfg.provider, task=self.task, session_cls=self.session_cls)
        self.cleanup.callback(_quietly, provider.stop)
        self.info.unisolated = not provider.isolated
        sandbox = provider.start(self.path / "sandbox")
        self.info.isolation = provider.isolation_report()
        return sandbox

    def _open_port(self, sandbox: Sandbox) -> AgentPort:
        """The agent port on the sandbox's screen, not ready yet (it serves the task only), with
        the agent's folder and the brief."""
        cfg, info = self.cfg, self.info
        pacer: Pacer = (
            LockstepPacer(
                self._set_paused, self.clock, slice_s=cfg.lockstep_slice_s, alive=self._alive, advance=self._advance
            )
            if cfg.lockstep
            else Pacer()
        )
        self.port = port = AgentPort(
            sandbox.display,
            clock=self.clock,
            log=self._log_action,
            pacer=pacer,
            files=agent_files(self.task, self.path / AGENT_HOME),
            ready=False,
            transport=for_sandbox(sandbox),  # None: X11 or a local guest service ($SIMBRIDGE_AGENT_TRANSPORT)
        )
        self.cleanup.callback(_quietly, port.close)
        port.fault_log = lambda text: _append(self.path / "port_faults.txt", text)
        offered = offered_assists(cfg.sim)
        brief = make_brief(
            self.task,
            info.sim or cfg.sim,
            time_limit_s=self.limit_s,
            lockstep=cfg.lockstep,
            controls=tuple(self.session_cls.controls),
            screen_px=port.screen.size,
            assists={a: offered[a] for a in self.assists},
            assists_offered=tuple(offered),
        )
        port.brief = brief.model_dump(mode="json")
        info.agent_brief = port.brief
        info.agent_transport = port.transport.kind
        return port

    def _serve_port(self, port: AgentPort) -> str | None:
        """The port's MCP server (with its bearer token unless --no-token); the status file says where."""
        cfg, info = self.cfg, self.info
        token = (cfg.token or new_token()) if cfg.auth else None
        info.agent_port_auth = "token" if token else "none"
        if token is None:
            info.flags.append("agent_port_auth:none")
        self.server = server = McpPortServer(
            port,
            host=cfg.mcp_host,
            tcp_port=cfg.mcp_port,
            token=token,
            computer_screenshot=cfg.computer_screenshot,
        ).start()
        self.cleanup.callback(_quietly, server.stop)
        info.agent_port_url = server.url
        return token

    def _set_up_agent(self, sandbox: Sandbox, token: str | None) -> None:
        """The agent's setup (its helpers, its addresses); an external agent is waited for here."""
        assert self.server is not None and self.port is not None
        server, port, info = self.server, self.port, self.info
        if self.agent is not None:
            self.cleanup.callback(_quietly, self.agent.close)
        self.status_file.update(
            trial=self.trial,
            bundle=str(self.path),
            mcp_url=server.url,
            token_required=token is not None,
            token=token,
            state="starting",
            ready=False,
            task_id=self.task.id,
            sim=info.sim,
        )
        if self.agent is None:
            return
        from simbridge.agents import AgentContext

        self.ctx = AgentContext(
            display=sandbox.display,
            port_url=server.url,
            port_token=token,
            spawn=sandbox.spawn,
            outcome=lambda: port.outcome,
            say=self.cfg.say,
            lockstep=self.cfg.lockstep,
        )
        self.agent.setup(self.ctx)
        if isinstance(self.agent, _WaitsForClient):
            watch = server.watch
            if watch is None:
                raise HarnessError("the agent port's MCP server has no client watch")
            self.agent.connected = watch.seen_client.is_set
            self._no_show = self.agent.wait_connected()

    def _start_simulator(self, sandbox: Sandbox) -> SimSession:
        """The simulator in the task's initial state (paused at t=0 in lockstep)."""
        self.session = session = self.session_cls()
        session.start_paused = self.cfg.lockstep
        session.assists = self.assists
        self.cleanup.callback(self._stop_session)
        session.start(self.task, sandbox, seed=self.seed)
        if self.cfg.lockstep:
            session.set_paused(True)
        return session

    def _audit_isolation(self, session: SimSession, sandbox: Sandbox) -> None:
        """The isolation audit with the simulator up; then the episode's start is on record
        (episode.json: simulator facts, start snapshot, the sandbox's processes)."""
        assert self.provider is not None
        info, provider = self.info, self.provider
        _audit(self.cfg, self.task, session, provider, info)
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
        if (variant := getattr(self.task, "variant", None)) is not None:  # a seeded task variant: what was drawn
            info.extra["variant"] = dict(variant)
        self.writer.write_episode()

    def _record(self, session: SimSession, sandbox: Sandbox) -> None:
        """The recorder, until the episode's start is on record (its first samples)."""
        self.recorder = _make_recorder(session, self.writer).start()
        self.cleanup.callback(self._stop_recorder)
        _wait_first_samples(
            self.recorder, session, 1 if self.cfg.lockstep else 2, FIRST_SAMPLES_S * sandbox.timeout_scale
        )

    def _record_screen(self, sandbox: Sandbox) -> None:
        """Periodic screen frames and the snapshots asked for."""
        cfg = self.cfg
        self.frames = frames = _Frames(sandbox.display, self.path, self.clock, cfg.frame_hz, list(cfg.snapshot_at))
        frames.start()
        self.cleanup.callback(self._stop_frames)

    def _hand_over(self, port: AgentPort, sandbox: Sandbox) -> None:
        """The port serves actions from now on; the agent's thread (or the caller's turn) begins."""
        cfg, info = self.cfg, self.info
        info.ready_wall = round(time.time(), 4)
        port.mark_ready()
        self.status_file.update(state="ready", ready=True)
        if self._no_show is not None:
            raise _AgentNoShow(self._no_show)
        self.client = DirectClient(port)
        if self.agent is not None:
            self.agent_thread = _AgentThread(self.agent, self.client, self.task, self.limit_s)
            self.agent_thread.start()
        else:
            self.turn = CallerTurn()
        cfg.say(
            f"trial {self.trial}: {self.task.id} on {info.sim} with {info.agent} (display {sandbox.display}, "
            f"limit {self.limit_s:g} s{', lockstep' if cfg.lockstep else ''})"
        )

    # ------------------------------------------------------------------ what the parts call back

    def _log_action(self, rec: dict[str, Any]) -> None:
        """actions.jsonl, remembering the agent's last input (what preceded any fault)."""
        if is_agent_input(rec.get("kind")):
            self.last_action = dict(rec)
        self.writer.action(rec)

    def _set_paused(self, paused: bool) -> None:
        if self.session is not None:
            self.session.set_paused(paused)

    def _advance(self, seconds: float) -> float | None:
        return self.session.advance(seconds) if self.session is not None else None

    def _alive(self) -> bool:
        return self.session is not None and self.session.alive()

    # ------------------------------------------------------------------ teardown

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

    def _close_bundle(self) -> None:
        """End the episode and close the bundle with its status: the agent port refuses further
        actions, the stack unwinds (frames, recorder, simulator, agent, server, port, provider:
        the reverse of set-up). Idempotent."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        self._closing.set()
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
        turn = self.turn or self.agent_thread
        said = (turn.error or turn.fault) if turn is not None else None
        if said and turn is not None:
            (self.path / "agent_error.txt").write_text(str(turn.traceback or said))
        if self.port is not None:
            self.port.log = None  # calls after the end are refused and no longer logged: the bundle closes
        self.writer.finish(self.status, self.detail)  # type: ignore[arg-type]
        self.status_file.update(state="ended", ready=False, status=self.status, detail=self.detail)

    def _score(self) -> TrialResult:
        """Score the closed bundle, write score.json and the manifest."""
        from simbridge._scoring import score_bundle

        score = score_bundle(read_bundle(self.path), self.task)
        (self.path / "score.json").write_text(score.model_dump_json(indent=2))
        add_to_manifest(self.path, "score.json")  # the bundle was sealed when it closed
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
