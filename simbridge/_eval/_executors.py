"""Where attempts run: child processes on this machine (admitted by measured cost), or Ray tasks
on a cluster (admitted by Ray, by the custom resources each node advertises).

Both have the same small interface for the driver: `can_start(job)`, `start(job)`,
`wait(timeout_s) -> [(job, outcome)]`, `stop()`. An outcome is the dict `run_attempt` returns,
or {"status": "harness_error", "fault": …} when the attempt was lost (its process or node died).
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import tarfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simbridge._errors import SimbridgeError
from simbridge._eval._cost import Budget, SimCost, cost_for
from simbridge._eval._attempt import OUTCOME_PREFIX, run_attempt, tar_bytes, untar_into
from simbridge._eval._plan import EpisodeSpec


@dataclass
class Job:
    spec: EpisodeSpec
    attempt: int
    dest: Path
    submit_wall: float = 0.0
    handle: Any = None
    cost: SimCost | None = field(default=None, repr=False)


def lost(detail: str) -> dict[str, Any]:
    return {"status": "harness_error", "detail": detail, "fault": detail, "score": None, "sim_s": 0.0}


#: episode.json status_detail of an attempt ended by a harness fault inside the agent port
#: (`AgentPort.harness_fault`: lost display, transport, screenshot failure)
PORT_FAULT_PREFIX = "agent port: "


def harness_side(outcome: dict[str, Any]) -> dict[str, Any]:
    """An attempt ended by a fault of the agent port is ours whatever the agent sent before it
    (no input of the agent's makes our screenshot fail): it is marked lost (`fault`), so the
    driver retries it like an attempt lost with its process or node."""
    detail = str(outcome.get("detail") or "")
    if outcome.get("status") == "harness_error" and detail.startswith(PORT_FAULT_PREFIX):
        outcome.setdefault("fault", detail)
    return outcome


def _spec_resource(spec: EpisodeSpec) -> str:
    return next((r for r in spec.resources if r.startswith("sim:")), f"sim:{spec.sim}")


def spec_cost(spec: EpisodeSpec) -> SimCost:
    """What one attempt of `spec` holds: its simulator's cost, or the VM's for a VM episode."""
    return cost_for(spec.sim, spec.provider)


#: episodes in start-up at once. A jsbsim episode spends ~3.5 CPU-s starting (interpreter,
#: imports, cockpit launch) before its steady 0.23 cores; starting six at once on two loaded
#: cores made each take 68 s instead of 21 (benchmarks/eval_scaling.py), so start-ups go one
#: after another and only the real-time part of the episodes overlaps
MAX_STARTING = 1
#: an attempt not ready after this long no longer holds back the next start-up (wall seconds)
STARTUP_CAP_S = 60.0


class LocalExecutor:
    """Each attempt a child process (`python -m simbridge._eval._attempt`) that dies with the driver."""

    name = "local"

    def __init__(self, max_parallel: int | None = None, env: dict[str, str] | None = None) -> None:
        self.budget = Budget.here()
        self.max_parallel = max_parallel
        self.env = env
        self.jobs: list[Job] = []

    def describe(self, specs: list[EpisodeSpec]) -> str:
        kinds = sorted({(_spec_resource(s).removeprefix("sim:"), s.provider) for s in specs})
        caps = ", ".join(
            f"{sim}{f' ({provider})' if provider != 'local' else ''} {self.budget.capacity(cost_for(sim, provider))} at once"
            for sim, provider in kinds
        )
        cap = f"; at most {self.max_parallel} (--max-parallel)" if self.max_parallel else ""
        return (
            f"local executor: {self.budget.cpu_cores:g} cores, {self.budget.mem_mb / 1024:.1f} GB for "
            f"episodes: {caps}{cap}"
        )

    def can_start(self, job: Job) -> bool:
        if self.max_parallel is not None and len(self.jobs) >= self.max_parallel:
            return False
        if sum(self._starting(j) for j in self.jobs) >= MAX_STARTING:
            return False
        return self.budget.fits(spec_cost(job.spec))

    @staticmethod
    def _starting(job: Job) -> bool:
        """Still in start-up (interpreter, simulator launch): until the runner's status file in the
        trial directory names this attempt's bundle as ready or ended, for at most STARTUP_CAP_S."""
        if time.time() - job.submit_wall > STARTUP_CAP_S:
            return False
        try:
            st = json.loads((job.dest.parent / "agent_port.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return True
        return not (st.get("bundle") == str(job.dest) and st.get("state") in ("ready", "ended"))

    def start(self, job: Job) -> None:
        from simbridge._providers._procs import _die_with_parent

        job.dest.parent.mkdir(parents=True, exist_ok=True)
        spec_file = job.dest.parent / f"{job.dest.name}.spec.json"
        spec_file.write_text(json.dumps(job.spec.to_json()))
        log = open(job.dest.parent / f"{job.dest.name}.log", "wb")
        job.cost = spec_cost(job.spec)
        self.budget.take(job.cost)
        job.submit_wall = time.time()
        try:
            job.handle = subprocess.Popen(
                [sys.executable, "-m", "simbridge._eval._attempt", str(spec_file), str(job.dest)],
                stdout=subprocess.PIPE,
                stderr=log,
                stdin=subprocess.DEVNULL,
                env=self.env,
                preexec_fn=_die_with_parent,
            )
        finally:
            log.close()
        self.jobs.append(job)

    def wait(self, timeout_s: float) -> list[tuple[Job, dict[str, Any]]]:
        t_end = time.monotonic() + timeout_s
        while True:
            done = [j for j in self.jobs if j.handle.poll() is not None]
            if done or time.monotonic() >= t_end:
                break
            time.sleep(0.05)
        out = []
        for j in done:
            self.jobs.remove(j)
            assert j.cost is not None
            self.budget.give(j.cost)
            text = j.handle.stdout.read().decode("utf-8", "replace")
            j.handle.stdout.close()
            line = next((ln for ln in reversed(text.splitlines()) if ln.startswith(OUTCOME_PREFIX)), None)
            code = j.handle.returncode
            if line is not None and code == 0:
                outcome = harness_side(json.loads(line[len(OUTCOME_PREFIX) :]))
            else:
                how = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
                outcome = lost(f"the episode's process died ({how}); see {j.dest.name}.log")
            outcome.setdefault("host", os.uname().nodename)
            out.append((j, outcome))
        return out

    def running(self) -> int:
        return len(self.jobs)

    def stop(self) -> None:
        """SIGTERM every child (each closes its bundle as interrupted), then wait for them."""
        for j in self.jobs:
            if j.handle.poll() is None:
                j.handle.terminate()
        t_end = time.monotonic() + 20
        for j in self.jobs:
            try:
                j.handle.wait(max(0.1, t_end - time.monotonic()))
            except subprocess.TimeoutExpired:
                j.handle.kill()
                j.handle.wait()


def ray_episode(spec_json: dict[str, Any], attempt: int, driver_version: str | None = None) -> dict[str, Any]:
    """The Ray task: run the attempt in a scratch directory on whichever node Ray picked and
    return its outcome and the bundle as tar bytes (nodes share no disk with the driver). A
    worker whose simbridge is not the driver's runs nothing: the attempt is lost, naming both."""
    import shutil
    import tempfile

    import ray

    from simbridge._version import installed_version

    mine = installed_version()
    if driver_version is not None and mine != driver_version:
        node = ray.get_runtime_context().get_node_id()
        return {"outcome": lost(_version_refusal(node, mine, driver_version)), "tar": None}
    spec = EpisodeSpec.from_json(spec_json)
    scratch = Path(tempfile.mkdtemp(prefix="simbridge-eval-"))
    try:
        bundle = scratch / f"attempt-{attempt}"
        lines: list[str] = []
        outcome = run_attempt(spec, bundle, say=lines.append)
        outcome["node_id"] = ray.get_runtime_context().get_node_id()
        outcome["log"] = "\n".join(lines)
        return {"outcome": outcome, "tar": tar_bytes(bundle) if bundle.exists() else None}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def node_version() -> str:
    """The Ray task that asks a node which simbridge it runs."""
    from simbridge._version import installed_version

    return installed_version()


def _version_refusal(node: str, theirs: str, mine: str, addr: str = "") -> str:
    where = f"{addr} " if addr else ""
    return (
        f"Ray node {where}({node[:12]}) runs simbridge {theirs}, this driver {mine}: every worker must run "
        f"the driver's version (pip install simbridge=={mine} there)"
    )


#: seconds episodes wait for a node that advertises their resources before they are given up as
#: harness faults (no alive node has them: the only `sim:jsbsim` node died); $SIMBRIDGE_RAY_PLACEMENT_TIMEOUT_S
PLACEMENT_TIMEOUT_S = 300.0
#: seconds between two looks at whether the waiting episodes' resources are on an alive node
_PLACEMENT_CHECK_S = 2.0
#: seconds the version check waits for the nodes' answers
VERSION_CHECK_S = 60.0


#: seconds `--ray HOST:PORT` may take to accept a TCP connection before the eval is refused
RAY_CONNECT_TIMEOUT_S = 5.0


def probe_ray_address(address: str, timeout_s: float = RAY_CONNECT_TIMEOUT_S) -> None:
    """For `--ray HOST:PORT`: one TCP connection to the cluster's GCS port, given `timeout_s`,
    before Ray is asked (ray.init would wait on an unreachable address for minutes). A bad
    address or port, a refused or timed-out connection: one-line SimbridgeError. `auto`,
    `local` and `ray://` addresses are left to Ray."""
    import socket

    if address in ("auto", "local") or "://" in address:
        return
    host, sep, port_text = address.rpartition(":")
    if not sep or not host:
        raise SimbridgeError(f"--ray {address!r}: expected auto or HOST:PORT")
    try:
        port = int(port_text)
    except ValueError:
        raise SimbridgeError(f"--ray {address!r}: port {port_text!r} is not a number") from None
    if not 0 < port < 65536:
        raise SimbridgeError(f"--ray {address!r}: port {port} is outside 1..65535")
    try:
        with socket.create_connection((host.strip("[]"), port), timeout=timeout_s):
            pass
    except TimeoutError:
        raise SimbridgeError(
            f"--ray {address}: no answer within {timeout_s:g} s (is `ray start --head` running there?)"
        ) from None
    except OSError as exc:
        raise SimbridgeError(f"--ray {address}: cannot connect to the Ray cluster: {exc.strerror or exc}") from None


#: where the Ray driver's own messages go while a RayExecutor is open (the last one opened)
_RAY_SINKS: list[Any] = []
#: the eval directory's file of Ray's messages (raylet notices of dead workers and nodes)
RAY_LOG = "ray.log"


def _quiet_ray_messages() -> None:
    """Ray's driver prints the raylet's and GCS's error notices ("(raylet) A worker died …")
    straight to stdout from a thread of its own, even with log_to_driver=False; while an executor
    is open they go to its sink (the eval directory's ray.log) instead of into eval's output."""
    import ray._private.worker as ray_worker

    if getattr(ray_worker, "_simbridge_quiet", False):
        return
    original = ray_worker.print_to_stdstream

    def to_sink(data: Any, *args: Any, **kwargs: Any) -> None:
        if not _RAY_SINKS:
            original(data, *args, **kwargs)
            return
        pid = data.get("pid", "?") if isinstance(data, dict) else "?"
        for line in data.get("lines", []) if isinstance(data, dict) else [str(data)]:
            _RAY_SINKS[-1](f"({pid}) {line}")

    ray_worker.print_to_stdstream = to_sink
    ray_worker._simbridge_quiet = True  # type: ignore[attr-defined]


def _names(need: tuple[tuple[str, float], ...]) -> str:
    custom = [r for r, _ in need if r != "CPU"]
    cpu = [f"{q:g} CPU" for r, q in need if r == "CPU" and q > 0]
    return " + ".join(custom + cpu)


def _placement_timeout() -> float:
    raw = os.environ.get("SIMBRIDGE_RAY_PLACEMENT_TIMEOUT_S")
    if raw is None:
        return PLACEMENT_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise SimbridgeError(f"$SIMBRIDGE_RAY_PLACEMENT_TIMEOUT_S={raw!r}: not a positive number of seconds")
    return value


class RayExecutor:
    """Each attempt a Ray task asking for the resources the episode names (`sim:jsbsim`, …),
    and the measured CPU share of its simulator; Ray never retries it (the driver does, keeping
    every attempt)."""

    name = "ray"

    def __init__(
        self, address: str, max_parallel: int | None = None, runtime_env: dict[str, Any] | None = None
    ) -> None:
        probe_ray_address(address)
        placement_timeout = _placement_timeout()  # bad input refused before Ray is asked
        try:
            import ray
        except ImportError:
            raise SimbridgeError("--ray needs Ray: pip install 'simbridge[eval]'") from None
        self.ray = ray
        #: Ray's own messages: kept here until the eval directory is known, then appended to RAY_LOG
        self.messages: list[str] = []
        self.log_path: Path | None = None
        self._messages_lock = threading.Lock()  # Ray's listener thread adds, the driver flushes
        try:
            _quiet_ray_messages()
        except (ImportError, AttributeError):  # another Ray's internals: its messages stay on stdout
            pass
        _RAY_SINKS.append(self._message)
        try:
            ray.init(
                address=address,
                logging_level=logging.ERROR,
                log_to_driver=False,
                runtime_env=runtime_env,
                configure_logging=True,
            )
        except (ConnectionError, ValueError, RuntimeError) as exc:
            _RAY_SINKS.remove(self._message)
            raise SimbridgeError(f"--ray {address}: cannot connect to the Ray cluster: {exc}".splitlines()[0]) from None
        self.remote = ray.remote(max_retries=0)(ray_episode)
        self.max_parallel = max_parallel
        self.jobs: dict[Any, Job] = {}
        from simbridge._version import installed_version

        self.version = installed_version()
        self.placement_timeout_s = placement_timeout
        #: warnings for the operator (stderr, beside the progress lines)
        self.warn: Any = lambda line: print(f"warning: {line}", file=sys.stderr, flush=True)
        #: resource sets (sorted tuples) no alive node advertises, and since when (monotonic)
        self._unplaceable: dict[tuple[tuple[str, float], ...], float] = {}
        self._last_placement_check = 0.0

    def _message(self, line: str) -> None:
        with self._messages_lock:
            self.messages.append(time.strftime("%Y-%m-%dT%H:%M:%SZ ", time.gmtime()) + line.rstrip())
        self._flush_messages()

    def _flush_messages(self) -> None:
        with self._messages_lock:
            if self.log_path is None or not self.messages:
                return
            try:
                with open(self.log_path, "a", encoding="utf-8") as fh:
                    fh.write("".join(m + "\n" for m in self.messages))
                self.messages = []
            except OSError:
                pass  # kept, tried again with the next message

    def _set_log_dir(self, job: Job) -> None:
        """The eval directory (the attempt's folder less the episode id's parts) holds RAY_LOG."""
        if self.log_path is not None:
            return
        out = job.dest.parents[len(Path(job.spec.episode_id).parts)]
        self.log_path = out / RAY_LOG
        self._flush_messages()

    def nodes(self) -> list[dict[str, Any]]:
        return [n for n in self.ray.nodes() if n.get("Alive")]

    def check(self, specs: list[EpisodeSpec]) -> None:
        """Every node runs the driver's simbridge, and every episode's resources are advertised by
        some live node; else one line naming what is wrong."""
        self.check_versions()
        nodes = self.nodes()
        for need in sorted({tuple(sorted(s.resources.items())) for s in specs}):
            if not any(all(n["Resources"].get(r, 0) >= q for r, q in need) for n in nodes):
                have = sorted({r for n in nodes for r in n["Resources"] if r.startswith(("sim:", "provider:"))})
                raise SimbridgeError(
                    f"no node of the Ray cluster advertises {' + '.join(r for r, _ in need)} "
                    f"(advertised: {', '.join(have) or 'no sim:/provider: resources'}); start one "
                    "with ray start --resources '{\"" + need[0][0] + "\": 1}'"
                )

    def check_versions(self) -> None:
        """Ask every alive node (a zero-CPU task pinned to it) which simbridge it runs; a node that
        runs another version than the driver's: one-line SimbridgeError. A node that does not
        answer within VERSION_CHECK_S is left to the per-attempt check in `ray_episode`."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        ask = self.ray.remote(num_cpus=0, max_retries=0)(node_version)
        refs = {
            ask.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False)).remote(): n
            for n in self.nodes()
        }
        ready, _ = self.ray.wait(list(refs), num_returns=len(refs), timeout=VERSION_CHECK_S)
        for ref in ready:
            node = refs[ref]
            try:
                theirs = self.ray.get(ref)
            except self.ray.exceptions.RayError:
                continue  # the node died meanwhile: nothing runs there
            if theirs != self.version:
                raise SimbridgeError(
                    _version_refusal(node["NodeID"], theirs, self.version, node.get("NodeManagerAddress", ""))
                )

    def describe(self, specs: list[EpisodeSpec]) -> str:
        nodes = self.nodes()
        res = {
            r: sum(n["Resources"].get(r, 0) for n in nodes)
            for n in nodes
            for r in n["Resources"]
            if r.startswith(("sim:", "provider:"))
        }
        cap = f"; at most {self.max_parallel} (--max-parallel)" if self.max_parallel else ""
        return f"ray executor: {len(nodes)} nodes, " + ", ".join(f"{r} {v:g}" for r, v in sorted(res.items())) + cap

    def can_start(self, job: Job) -> bool:
        return self.max_parallel is None or len(self.jobs) < self.max_parallel

    def start(self, job: Job) -> None:
        self._set_log_dir(job)
        job.cost = spec_cost(job.spec)
        job.submit_wall = time.time()
        ref = self.remote.options(
            resources=dict(job.spec.resources), num_cpus=job.cost.cpu_cores, name=job.spec.episode_id
        ).remote(job.spec.to_json(), job.attempt, self.version)
        job.handle = ref
        self.jobs[ref] = job

    def _placement(self) -> list[tuple[Job, dict[str, Any]]]:
        """Warn when no alive node advertises what waiting episodes need (once per resource
        set), and give those episodes up as lost once that has lasted `placement_timeout_s`."""
        now = time.monotonic()
        if now - self._last_placement_check < _PLACEMENT_CHECK_S:
            return []
        self._last_placement_check = now
        nodes = self.nodes()
        needs: dict[tuple[tuple[str, float], ...], list[Any]] = {}
        for ref, job in self.jobs.items():
            cpu = job.cost.cpu_cores if job.cost is not None else 0.0
            needs.setdefault(tuple(sorted({**job.spec.resources, "CPU": cpu}.items())), []).append(ref)
        out = []
        for need, refs in needs.items():
            if any(all(n["Resources"].get(r, 0) >= q for r, q in need) for n in nodes):
                if self._unplaceable.pop(need, None) is not None:
                    self.warn(f"a node advertising {_names(need)} is back: {len(refs)} episode(s) can run again")
                continue
            since = self._unplaceable.setdefault(need, now)
            if since == now:
                self.warn(
                    f"no alive Ray node advertises {_names(need)}: {len(refs)} episode(s) wait for one; "
                    f"given up as harness faults after {self.placement_timeout_s:g} s "
                    "($SIMBRIDGE_RAY_PLACEMENT_TIMEOUT_S)"
                )
            if now - since < self.placement_timeout_s:
                continue
            for ref in refs:
                job = self.jobs.pop(ref)
                try:
                    self.ray.cancel(ref, force=True)
                except Exception:
                    pass
                out.append((job, lost(f"no alive Ray node advertised {_names(need)} for {now - since:.0f} s")))
        return out

    def wait(self, timeout_s: float) -> list[tuple[Job, dict[str, Any]]]:
        if not self.jobs:
            time.sleep(min(timeout_s, 0.05))
            return []
        given_up = self._placement()
        if given_up:
            return given_up
        ready, rest = self.ray.wait(list(self.jobs), num_returns=1, timeout=timeout_s, fetch_local=False)
        if ready and rest:
            ready += self.ray.wait(rest, num_returns=len(rest), timeout=0, fetch_local=False)[0]
        out = []
        for ref in ready:
            job = self.jobs.pop(ref)
            try:
                res = self.ray.get(ref)
            except self.ray.exceptions.RayError as exc:  # node died, worker crashed, task raised
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                out.append((job, lost(f"{type(exc).__name__}: {first}"[:300])))
                continue
            outcome = harness_side(res["outcome"])
            if res.get("tar") is not None:
                try:
                    untar_into(res["tar"], job.dest)
                except (SimbridgeError, OSError, tarfile.TarError) as exc:
                    out.append((job, lost(f"cannot unpack the bundle sent back: {exc}")))
                    continue
            log = outcome.pop("log", "")
            job.dest.parent.mkdir(parents=True, exist_ok=True)
            (job.dest.parent / f"{job.dest.name}.log").write_text(log + "\n" if log else "")
            out.append((job, outcome))
        return out

    def running(self) -> int:
        return len(self.jobs)

    def stop(self) -> None:
        for ref in list(self.jobs):
            try:
                self.ray.cancel(ref, force=False)
            except Exception:
                pass
        self.jobs.clear()
        self.ray.shutdown()
        if self._message in _RAY_SINKS:
            _RAY_SINKS.remove(self._message)
