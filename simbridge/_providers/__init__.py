"""Sandbox providers by name: `local` (no isolation), `netns` (network namespace, users and
firewall; needs root) and `vm` (a QEMU/KVM guest), all with the same interface."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from simbridge._errors import SimbridgeError
from simbridge._providers._base import SCREEN_DEPTH, SCREEN_H, SCREEN_W, Provider
from simbridge._providers._local import LocalProvider
from simbridge._providers._procs import ProcessSet

if TYPE_CHECKING:  # the registry's module is imported when a cost is asked, not by the VM guest's supervisor
    from simbridge._adapters_registry import EpisodeCost

#: the built-in providers, in the order the CLI lists them (plug-ins add theirs to the registry)
BUILTIN_PROVIDERS = ("local", "netns", "vm")


def providers() -> tuple[str, ...]:
    """Every registered provider's name: the built-ins first, then plug-ins' (sorted)."""
    from simbridge.registry import registry

    names = registry().names("provider")
    return tuple(n for n in BUILTIN_PROVIDERS if n in names) + tuple(n for n in names if n not in BUILTIN_PROVIDERS)


def state_ports(task: Any, session_cls: Any) -> tuple[list[int], list[int]]:
    """(tcp, udp) ports the simulator's state API uses: the task's lockdown list plus the
    adapter's own. An isolated provider opens them to the host side only."""
    tcp = task.lockdown.ports("tcp") if task is not None else []
    udp = task.lockdown.ports("udp") if task is not None else []
    for proto, port in getattr(session_cls, "state_ports", ()):
        (tcp if proto == "tcp" else udp).append(port)
    from simbridge._agent_port._transport import GUEST_PORT, guest_port_needed

    if guest_port_needed():  # the runner starts the guest service inside the sandbox (for_sandbox)
        tcp.append(GUEST_PORT)
    return sorted(set(tcp)), sorted(set(udp))


class ProviderFactory:
    """A registered provider: `factory(task=, session_cls=)` makes the episode's Provider, and
    `factory.episode_cost(sim_cost)` says what such an episode holds on its host (the eval's
    admission reads it; a plug-in's plain function factory costs what its simulator costs)."""

    def __init__(self, make: Callable[..., Provider], episode_cost: Callable[[EpisodeCost], EpisodeCost] | None = None):
        self._make = make
        self._cost = episode_cost

    def __call__(self, *, task: Any = None, session_cls: Any = None) -> Provider:
        return self._make(task=task, session_cls=session_cls)

    def episode_cost(self, sim_cost: EpisodeCost) -> EpisodeCost:
        return self._cost(sim_cost) if self._cost is not None else sim_cost


def _local(*, task: Any = None, session_cls: Any = None) -> Provider:
    return LocalProvider()


def _netns(*, task: Any = None, session_cls: Any = None) -> Provider:
    from simbridge._providers._netns import NetnsProvider

    from simbridge._adapters_registry import DEFAULT_EPISODE_COST, simulator_trait
    from simbridge._isolation._cgroup import limits_for

    tcp, udp = state_ports(task, session_cls)
    cost = simulator_trait(getattr(session_cls, "sim_name", "") or "", "cost", DEFAULT_EPISODE_COST)
    return NetnsProvider(state_tcp=tcp, state_udp=udp, limits=limits_for(cost.cpu_cores, cost.mem_mb))


#: the host-side runner's memory beside a sandbox's (MB: 194 MB peak RSS measured, jsbsim)
RUNNER_MB = 200


def _netns_cost(sim_cost: EpisodeCost) -> EpisodeCost:
    """Admitted by the simulator's CPU share (a cgroup limit caps, it reserves nothing) and, for
    memory, by the sandbox's limit plus the runner's (what the sandbox may take, so admission
    never overcommits it)."""
    from dataclasses import replace

    from simbridge._isolation._cgroup import limits_for

    limit = limits_for(sim_cost.cpu_cores, sim_cost.mem_mb).mem_mb
    return replace(sim_cost, mem_mb=float(RUNNER_MB + limit)) if limit else sim_cost


def _vm(*, task: Any = None, session_cls: Any = None) -> Provider:
    from simbridge._vm import VmProvider

    tcp, _ = state_ports(task, session_cls)
    return VmProvider(state_tcp=tcp)


#: host memory besides the guest's for a VM episode: QEMU itself and the host-side runner (MB)
VM_HOST_MB = 350


def _vm_cost(sim_cost: EpisodeCost) -> EpisodeCost:
    """The VM's size, whatever it runs: QEMU is given VM_CPUS vCPUs and VM_MEM_MB of guest memory
    (`simbridge._vm._qemu`) and a software-emulated guest keeps its vCPUs busy (132 % CPU measured
    for a 2-vCPU jsbsim guest), so the episode holds all of them, the guest memory, QEMU's own and
    the runner's, and no host display (the guest has its own Xvfb)."""
    from simbridge._adapters_registry import EpisodeCost
    from simbridge._vm._qemu import VM_CPUS, VM_MEM_MB

    return EpisodeCost(cpu_cores=float(VM_CPUS), displays=0, mem_mb=float(VM_MEM_MB + VM_HOST_MB), measured=False)


def register(registry: Any) -> None:
    """The built-in providers (the `providers` entry point of simbridge.plugins). A provider is a
    factory `(*, task, session_cls) -> Provider`."""
    registry.add(
        "provider", "local", ProviderFactory(_local), doc="no isolation: the simulator runs on this host's X display"
    )
    registry.add(
        "provider",
        "netns",
        ProviderFactory(_netns, _netns_cost),
        doc="a network namespace, own users and firewall (root)",
    )
    registry.add("provider", "vm", ProviderFactory(_vm, _vm_cost), doc="a QEMU/KVM guest")


def make_provider(name: str, *, task: Any = None, session_cls: Any = None) -> Provider:
    """The provider `name`, configured for the task's lockdown and the simulator's ports."""
    from simbridge.registry import registry

    reg = registry()
    if reg.find("provider", name) is None:
        raise SimbridgeError(f"unknown provider {name!r} (known: {', '.join(providers())})")
    return reg.provider(name)(task=task, session_cls=session_cls)


__all__ = [
    "BUILTIN_PROVIDERS",
    "LocalProvider",
    "ProcessSet",
    "Provider",
    "ProviderFactory",
    "SCREEN_DEPTH",
    "SCREEN_H",
    "SCREEN_W",
    "make_provider",
    "providers",
    "state_ports",
]
