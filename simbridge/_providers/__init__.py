"""Sandbox providers by name: `local` (no isolation), `netns` (network namespace, users and
firewall; needs root) and `vm` (a QEMU/KVM guest), all with the same interface."""

from __future__ import annotations

from typing import Any

from simbridge._errors import SimbridgeError
from simbridge._providers._base import SCREEN_DEPTH, SCREEN_H, SCREEN_W, Provider
from simbridge._providers._local import LocalProvider
from simbridge._providers._procs import ProcessSet

PROVIDERS = ("local", "netns", "vm")


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


def make_provider(name: str, *, task: Any = None, session_cls: Any = None) -> Provider:
    """The provider `name`, configured for the task's lockdown and the simulator's ports."""
    if name == "local":
        return LocalProvider()
    tcp, udp = state_ports(task, session_cls)
    if name == "netns":
        from simbridge._providers._netns import NetnsProvider

        return NetnsProvider(state_tcp=tcp, state_udp=udp)
    if name == "vm":
        from simbridge._vm import VmProvider

        return VmProvider(state_tcp=tcp)
    raise SimbridgeError(f"unknown provider {name!r} (known: {', '.join(PROVIDERS)})")


__all__ = [
    "PROVIDERS",
    "LocalProvider",
    "ProcessSet",
    "Provider",
    "SCREEN_DEPTH",
    "SCREEN_H",
    "SCREEN_W",
    "make_provider",
    "state_ports",
]
