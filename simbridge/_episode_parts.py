"""The parts an episode is built from (`simbridge._episode.Episode` puts them together): the
agent port's status file, the screen frames, the agent's thread, the isolation audit, the
simulator's facts for episode.json, the agent's folder and its answer files."""

from __future__ import annotations

import os
import subprocess
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from simbridge._adapter import ProcessHandle, SimSession
from simbridge._agent_port import AgentFiles, EpisodeOver
from simbridge._agent_port._screen import ScreenGrabber, encode
from simbridge._agent_port._transport import GUEST_PORT, guest_port_needed
from simbridge._bundle import BundleWriter, EpisodeInfo
from simbridge._errors import HarnessError, SimbridgeError
from simbridge._run_config import RunConfig
from simbridge._task import TaskSpec, input_source

#: seconds the first samples may take after the simulator reported ready (× the sandbox's timeout scale)
FIRST_SAMPLES_S = 30.0
#: name of the agent port's status file in the run directory
STATUS_FILE = "agent_port.json"


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
        self.traceback: str | None = None

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
    files.place_inputs((f.path, input_source(task, f.source)) for f in task.inputs if f.source)
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
