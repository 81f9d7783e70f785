"""What one episode of each simulator costs this machine, and how many fit at once.

Measured on the 2-core development machine (`simbridge run T09 --sim jsbsim`, episode.json
`cpu_s` and /usr/bin/time, frames at 1 Hz):

- jsbsim, 20 s noop episode: 24.5 s wall, 7.9 CPU-s in all (runner 2.14 + cockpit 3.24 + Xvfb
  0.52 + interpreter start-up); a 2 s episode costs 3.6 CPU-s, so start-up is ~3.5 CPU-s and the
  steady state 0.23 cores (cockpit 0.13, runner 0.07, Xvfb 0.02). Averaged over a 30 s episode
  that is 0.33 cores; peak RSS 194 MB (runner) + ~150 MB (cockpit) + ~40 MB (Xvfb).
- The other simulators are not measured here (FlightGear renders 3-D scenery in software under
  Xvfb: one core at least); their figures are conservative estimates, marked so. Each figure is
  declared by the simulator's adapter (AdapterSpec.cost), never named here.

- A VM episode (`provider: vm`) is costed from the VM's configuration, not its simulator: QEMU
  is given VM_CPUS vCPUs and VM_MEM_MB of guest memory (`simbridge._vm._qemu`), and a software-
  emulated guest keeps its vCPUs busy (132 % CPU measured for a 2-vCPU jsbsim guest), so the
  episode holds all of them, plus the guest memory, QEMU's own (~150 MB) and the host-side
  runner's (~200 MB), and no host display (the guest has its own Xvfb).

- A sandboxed episode (`provider: netns`) runs under its sandbox's cgroup limits (1 core and
  1024 MB by default, `$SIMBRIDGE_SANDBOX_CPUS`, `$SIMBRIDGE_SANDBOX_MEM_MB`): it is admitted by
  the simulator's measured CPU share (a limit caps, it reserves nothing) and by its memory limit
  plus the runner's 200 MB (what the sandbox may take).

Admission (local executor): an episode starts while the running episodes' CPU share plus its own
stays within the CPU budget (the number of cores), the display count within MAX_DISPLAYS and
the memory within what /proc/meminfo says is available when the run starts, and no other
episode is still starting up (see _executors.MAX_STARTING). One episode always runs, however
large its cost.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from simbridge._adapters_registry import DEFAULT_EPISODE_COST, EpisodeCost, simulator_trait


#: one episode's cost (declared by each simulator's adapter: AdapterSpec.cost)
SimCost = EpisodeCost
DEFAULT_COST = DEFAULT_EPISODE_COST
#: Xvfb servers at once: each holds a 1280×800 framebuffer and a display number
MAX_DISPLAYS = 16


#: host memory besides the guest's for a VM episode: QEMU itself and the host-side runner (MB)
VM_HOST_MB = 350


def cost_of(sim: str) -> SimCost:
    """The cost of an episode of simulator `sim` (a name, `sim:NAME`, or a `module:Class`) on the
    local provider: what its adapter declares (AdapterSpec.cost), else DEFAULT_COST."""
    return simulator_trait(sim.removeprefix("sim:"), "cost", DEFAULT_COST)


def vm_cost() -> SimCost:
    """What a VM episode holds on its host, from the VM's configuration (see the module docstring)."""
    from simbridge._vm._qemu import VM_CPUS, VM_MEM_MB

    return SimCost(cpu_cores=float(VM_CPUS), displays=0, mem_mb=float(VM_MEM_MB + VM_HOST_MB), measured=False)


#: the host-side runner's memory beside a sandbox's (MB: 194 MB peak RSS measured, jsbsim)
RUNNER_MB = 200


def cost_for(sim: str, provider: str = "local") -> SimCost:
    """The cost of one episode of `sim` on `provider`: the VM's size for `vm`; for `netns` the
    simulator's measured CPU share and, for memory, the runner's plus the sandbox's memory limit
    (`simbridge._isolation._cgroup`: what the sandbox may take, so admission never overcommits it);
    else the simulator's measured cost."""
    if provider == "vm":
        return vm_cost()
    base = cost_of(sim)
    if provider == "netns":
        from dataclasses import replace

        from simbridge._isolation._cgroup import limits_for

        limit = limits_for(base.cpu_cores, base.mem_mb).mem_mb
        if limit:
            return replace(base, mem_mb=float(RUNNER_MB + limit))
    return base


def available_mem_mb() -> float:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return float("inf")


@dataclass
class Budget:
    """What the local machine gives to episodes, and what the running ones hold."""

    cpu_cores: float
    displays: int
    mem_mb: float
    used_cpu: float = 0.0
    used_displays: int = 0
    used_mem: float = 0.0
    running: int = 0

    @classmethod
    def here(cls) -> "Budget":
        return cls(cpu_cores=float(os.cpu_count() or 1), displays=MAX_DISPLAYS, mem_mb=available_mem_mb() * 0.8)

    def fits(self, c: SimCost) -> bool:
        if self.running == 0:
            return True
        eps = 1e-9
        return (
            self.used_cpu + c.cpu_cores <= self.cpu_cores + eps
            and self.used_displays + c.displays <= self.displays
            and self.used_mem + c.mem_mb <= self.mem_mb
        )

    def take(self, c: SimCost) -> None:
        self.used_cpu += c.cpu_cores
        self.used_displays += c.displays
        self.used_mem += c.mem_mb
        self.running += 1

    def give(self, c: SimCost) -> None:
        self.used_cpu -= c.cpu_cores
        self.used_displays -= c.displays
        self.used_mem -= c.mem_mb
        self.running -= 1

    def capacity(self, c: SimCost) -> int:
        """How many episodes of cost `c` fit at once."""
        n = min(self.cpu_cores / c.cpu_cores, self.displays / max(c.displays, 1), self.mem_mb / c.mem_mb)
        return max(1, int(n + 1e-9))
