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

- A provider turns the simulator's cost into what the episode holds on the host (its factory's
  `episode_cost`, simbridge._providers): a VM episode holds the VM's size whatever it runs; a
  cgroup-limited sandbox is admitted by the simulator's CPU share and by its memory limit plus
  the runner's.

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


def cost_of(sim: str) -> SimCost:
    """The cost of an episode of simulator `sim` (a name, `sim:NAME`, or a `module:Class`) on the
    local provider: what its adapter declares (AdapterSpec.cost), else DEFAULT_COST."""
    return simulator_trait(sim.removeprefix("sim:"), "cost", DEFAULT_COST)


def cost_for(sim: str, provider: str = "local") -> SimCost:
    """The cost of one episode of `sim` on `provider`: the simulator's own cost as the provider
    turns it into what the episode holds on its host (a registered provider factory's
    `episode_cost(sim_cost)`: a VM holds its own size, a cgroup sandbox its memory limit); a
    provider that declares nothing costs what its simulator costs."""
    from simbridge.registry import registry

    base = cost_of(sim)
    reg = registry()
    factory = reg.provider(provider) if reg.find("provider", provider) is not None else None
    episode_cost = getattr(factory, "episode_cost", None)
    return episode_cost(base) if callable(episode_cost) else base


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
