"""The sandbox firewall (nftables, inside the episode's namespace).

Policy, from the threat model (the agent drives the screen and could open a terminal):
- the agent-side user may open **no** new connection of its own, on any address including
  loopback (it only answers on the agent port);
- the simulator's state ports accept only the host side's veth address; loopback connections
  to them are dropped;
- the simulator user may send only to the host-side ports the episode needs (e.g. the
  generic-protocol UDP stream), nothing else on the host;
- everything else inbound is dropped.
FlightGear's telnet binds all interfaces and cannot be told otherwise, so this is what keeps
it away from the agent.
"""

from __future__ import annotations

from dataclasses import dataclass, field

TABLE = "simbridge"


@dataclass
class FirewallPlan:
    sandbox_if: str
    host_addr: str
    agent_uid: int
    sim_uid: int
    agent_port: int | None = None
    state_tcp: list[int] = field(default_factory=list)
    state_udp: list[int] = field(default_factory=list)
    #: ports on the host side the simulator may send to (UDP) or connect to (TCP)
    host_udp: list[int] = field(default_factory=list)
    host_tcp: list[int] = field(default_factory=list)


def _set(ports: list[int]) -> str:
    return "{ " + ", ".join(str(p) for p in sorted(set(ports))) + " }" if ports else ""


def render(plan: FirewallPlan) -> str:
    """The nft script for the sandbox namespace (atomic: loaded with `nft -f -`)."""
    lines = [
        f"table inet {TABLE} {{",
        "  chain input {",
        "    type filter hook input priority 0; policy drop;",
        "    ct state established,related accept",
        "    ct state invalid drop",
    ]
    if plan.state_tcp:
        lines.append(f"    iif lo tcp dport {_set(plan.state_tcp)} drop")
    if plan.state_udp:
        lines.append(f"    iif lo udp dport {_set(plan.state_udp)} drop")
    lines.append("    iif lo accept")
    host = f'iifname "{plan.sandbox_if}" ip saddr {plan.host_addr}'
    if plan.state_tcp:
        lines.append(f"    {host} tcp dport {_set(plan.state_tcp)} accept")
    if plan.state_udp:
        lines.append(f"    {host} udp dport {_set(plan.state_udp)} accept")
    if plan.agent_port:
        lines.append(f"    {host} tcp dport {plan.agent_port} accept")
    lines += [
        "  }",
        "  chain output {",
        "    type filter hook output priority 0; policy accept;",
        "    ct state established,related accept",
        f"    meta skuid {plan.agent_uid} counter reject with icmpx admin-prohibited",
    ]
    if plan.host_udp:
        lines.append(f"    meta skuid {plan.sim_uid} ip daddr {plan.host_addr} udp dport {_set(plan.host_udp)} accept")
    if plan.host_tcp:
        lines.append(f"    meta skuid {plan.sim_uid} ip daddr {plan.host_addr} tcp dport {_set(plan.host_tcp)} accept")
    lines += [f"    meta skuid {plan.sim_uid} oif lo accept", f"    meta skuid {plan.sim_uid} counter drop", "  }", "}"]
    return "\n".join(lines) + "\n"
