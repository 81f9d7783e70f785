"""CPU and memory limits for everything a sandbox runs (Xvfb, the simulator, the agent's helpers).

Each netns sandbox gets a cgroup named after its namespace, and every process it spawns joins it
before it execs (so its children are in it too); the runner, the agent port and the host-side
adapter stay outside. cgroup v2 first: `/sys/fs/cgroup/simbridge/<name>` with `cpu.max` and
`memory.max` (swap off: `memory.swap.max` 0), the `cpu` and `memory` controllers enabled for the
`simbridge` parent. Where the kernel keeps those controllers on cgroup v1 (a hybrid layout, as on
the development machines: `/sys/fs/cgroup/unified` offers only `hugetlb`), the v1 equivalents:
`cpu/simbridge/<name>/cpu.cfs_quota_us` over `cpu.cfs_period_us` and
`memory/simbridge/<name>/memory.limit_in_bytes`. Where neither can be written (an unprivileged
container), the sandbox runs unlimited and says so in the isolation report.

The limits: $SIMBRIDGE_SANDBOX_CPUS cores (default 1.0; a jsbsim episode's sandbox averages 0.15
and needs a core while the cockpit starts) and $SIMBRIDGE_SANDBOX_MEM_MB (default 1024; the
cockpit and Xvfb peak near 200 MB); 0 turns a limit off. A sandbox that exceeds its memory
limit has its largest process killed by the kernel (the simulator: the episode ends
`sim_crashed`, a harness fault, unscored) and the OOM kill is counted in the report.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simbridge._errors import SimbridgeError

PARENT = "simbridge"
CPU_PERIOD_US = 100_000
DEFAULT_CPUS = 1.0
DEFAULT_MEM_MB = 1024


@dataclass(frozen=True)
class Limits:
    """Per-sandbox limits; None: unlimited."""

    cpus: float | None = DEFAULT_CPUS
    mem_mb: int | None = DEFAULT_MEM_MB

    @classmethod
    def from_env(cls) -> "Limits":
        return cls(
            cpus=_env_number("SIMBRIDGE_SANDBOX_CPUS", DEFAULT_CPUS), mem_mb=_env_int("SIMBRIDGE_SANDBOX_MEM_MB")
        )


def limits_for(cpu_cores: float, mem_mb: float) -> Limits:
    """The limits of a sandbox whose simulator declares this cost (AdapterSpec.cost): what the
    environment sets, else at least the defaults and room for the simulator (its CPU share rounded
    up to whole cores, twice its memory) — FlightGear's ~1.5 GB does not fit the 1 GB default."""
    env = Limits.from_env()
    cpus = env.cpus if "SIMBRIDGE_SANDBOX_CPUS" in os.environ else max(DEFAULT_CPUS, float(math.ceil(cpu_cores)))
    mem = env.mem_mb if "SIMBRIDGE_SANDBOX_MEM_MB" in os.environ else max(DEFAULT_MEM_MB, int(2 * mem_mb))
    return Limits(cpus=cpus, mem_mb=mem)


def _env_number(name: str, default: float) -> float | None:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value >= 0 or value != value:
        raise SimbridgeError(f"${name}={raw!r}: not a number of cores >= 0 (0: no limit)")
    return value or None


def _env_int(name: str) -> int | None:
    raw = os.environ.get(name)
    if raw is None:
        return DEFAULT_MEM_MB
    if not raw.isdigit():
        raise SimbridgeError(f"${name}={raw!r}: not a whole number of MB >= 0 (0: no limit)")
    return int(raw) or None


def cgroup_root() -> Path:
    return Path(os.environ.get("SIMBRIDGE_CGROUP_ROOT", "/sys/fs/cgroup"))


def _v2_controllers(root: Path) -> set[str]:
    try:
        return set((root / "cgroup.controllers").read_text().split())
    except OSError:
        return set()


def detect(root: Path | None = None) -> str | None:
    """ "v2" (cpu and memory on the unified hierarchy), "v1" (on their own hierarchies), or None."""
    root = root or cgroup_root()
    if {"cpu", "memory"} <= _v2_controllers(root):
        return "v2"
    if (root / "cpu" / "cpu.cfs_quota_us").exists() and (root / "memory" / "memory.limit_in_bytes").exists():
        return "v1"
    return None


def _write(path: Path, value: str) -> None:
    with open(path, "w") as fh:
        fh.write(value)


class SandboxCgroup:
    """One sandbox's cgroup. `create()` (False when the host offers none: see `why`), then
    `join` as a spawned process's preexec_fn, `report()`, and `destroy()` once its processes
    are gone."""

    def __init__(self, name: str, limits: Limits, root: Path | None = None) -> None:
        self.name, self.limits = name, limits
        self.root = root or cgroup_root()
        self.version: str | None = None
        #: the cgroup directories (one on v2, cpu and memory on v1)
        self.dirs: list[Path] = []
        self.why = ""

    def create(self) -> bool:
        self.version = detect(self.root)
        if self.version is None:
            self.why = f"no cgroup hierarchy with the cpu and memory controllers under {self.root}"
            return False
        for attempt in range(2):  # once more if an old `simbridge cleanup` removed it under us
            try:
                self._create_v2() if self.version == "v2" else self._create_v1()
                return True
            except OSError as exc:
                self.why = f"cannot set up a cgroup under {self.root}: {exc.strerror or exc}"
                self.destroy()
                self.dirs = []
        return False

    def _create_v2(self) -> None:
        parent = self.root / PARENT
        wanted = {"cpu", "memory"}
        if not wanted <= set((self.root / "cgroup.subtree_control").read_text().split()):
            _write(self.root / "cgroup.subtree_control", "+cpu +memory")
        parent.mkdir(exist_ok=True)
        if not wanted <= set((parent / "cgroup.subtree_control").read_text().split()):
            _write(parent / "cgroup.subtree_control", "+cpu +memory")
        d = parent / self.name
        d.mkdir()
        self.dirs = [d]
        if self.limits.cpus:
            _write(d / "cpu.max", f"{int(self.limits.cpus * CPU_PERIOD_US)} {CPU_PERIOD_US}")
        if self.limits.mem_mb:
            _write(d / "memory.max", str(self.limits.mem_mb * 1024 * 1024))
            if (d / "memory.swap.max").exists():
                _write(d / "memory.swap.max", "0")

    def _create_v1(self) -> None:
        cpu, mem = self.root / "cpu" / PARENT / self.name, self.root / "memory" / PARENT / self.name
        wanted = [cpu, mem]
        acct = self.root / "cpuacct"
        if acct.is_dir() and acct.resolve() != (self.root / "cpu").resolve():  # mounted on its own
            wanted.append(acct / PARENT / self.name)
        for d in wanted:
            d.parent.mkdir(exist_ok=True)
            d.mkdir()
            self.dirs.append(d)
        if self.limits.cpus:
            _write(cpu / "cpu.cfs_period_us", str(CPU_PERIOD_US))
            _write(cpu / "cpu.cfs_quota_us", str(int(self.limits.cpus * CPU_PERIOD_US)))
        if self.limits.mem_mb:
            _write(mem / "memory.limit_in_bytes", str(self.limits.mem_mb * 1024 * 1024))
            if (mem / "memory.memsw.limit_in_bytes").exists():  # no swap beyond the limit
                _write(mem / "memory.memsw.limit_in_bytes", str(self.limits.mem_mb * 1024 * 1024))

    def join(self) -> None:
        """Move the calling process into the cgroup (a spawned process's preexec_fn, before exec)."""
        for d in self.dirs:
            _write(d / "cgroup.procs", "0")

    def pids(self) -> list[int]:
        out: set[int] = set()
        for d in self.dirs:
            try:
                out |= {int(x) for x in (d / "cgroup.procs").read_text().split()}
            except (OSError, ValueError):
                pass
        return sorted(out)

    def report(self) -> dict[str, Any]:
        """The limits as applied, and what the sandbox used so far (for episode.json `isolation`)."""
        if not self.dirs:
            return {"applied": False, "why": self.why or "not created"}
        rep: dict[str, Any] = {
            "applied": True,
            "cgroup": self.version,
            "path": str(self.dirs[0]),
            "cpus": self.limits.cpus,
            "mem_mb": self.limits.mem_mb,
        }
        rep.update(self.usage())
        return rep

    def usage(self) -> dict[str, Any]:
        """CPU seconds, peak memory (MB) and OOM kills of the sandbox's processes so far."""
        out: dict[str, Any] = {}
        try:
            if self.version == "v2":
                d = self.dirs[0]
                stat = dict(line.split() for line in (d / "cpu.stat").read_text().splitlines())
                out["cpu_s"] = round(int(stat["usage_usec"]) / 1e6, 3)
                if (d / "memory.peak").exists():
                    out["mem_peak_mb"] = round(int((d / "memory.peak").read_text()) / 2**20, 1)
                events = dict(line.split() for line in (d / "memory.events").read_text().splitlines())
                out["oom_kills"] = int(events.get("oom_kill", 0))
            elif self.version == "v1":
                cpu, mem = self.dirs[:2]
                acct = (self.dirs[2] if len(self.dirs) > 2 else cpu) / "cpuacct.usage"
                if acct.exists():
                    out["cpu_s"] = round(int(acct.read_text()) / 1e9, 3)
                out["mem_peak_mb"] = round(int((mem / "memory.max_usage_in_bytes").read_text()) / 2**20, 1)
                ctl = dict(line.split() for line in (mem / "memory.oom_control").read_text().splitlines())
                out["oom_kills"] = int(ctl.get("oom_kill", 0))
        except (OSError, ValueError, KeyError):
            pass
        return out

    def destroy(self, timeout_s: float = 5.0) -> None:
        """Remove the cgroup once its processes have gone (they are killed with the sandbox)."""
        deadline = time.monotonic() + timeout_s
        for d in reversed(self.dirs):
            while True:
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break  # left for `simbridge cleanup`: an empty cgroup costs nothing
                    time.sleep(0.05)


def remove_named(name: str, root: Path | None = None) -> list[str]:
    """Remove the (empty) cgroup directories of the sandbox `name` (its reaper, after a kill -9)."""
    root = root or cgroup_root()
    removed = []
    for parent in (root / PARENT, root / "cpu" / PARENT, root / "memory" / PARENT, root / "cpuacct" / PARENT):
        d = parent / name
        deadline = time.monotonic() + 5
        while d.is_dir():
            try:
                d.rmdir()
                removed.append(str(d))
            except OSError:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.05)  # its last processes are still exiting
    return removed


def remove_stale(root: Path | None = None, live: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """`simbridge cleanup`'s part: empty sandbox cgroups whose namespace (`live`) is gone."""
    root = root or cgroup_root()
    removed = []
    for parent in (root / PARENT, root / "cpu" / PARENT, root / "memory" / PARENT, root / "cpuacct" / PARENT):
        if not parent.is_dir():
            continue
        for d in sorted(parent.iterdir()):
            if d.is_dir() and d.name not in live:
                try:
                    d.rmdir()
                    removed.append(str(d))
                except OSError:
                    pass  # processes still in it
    return removed
