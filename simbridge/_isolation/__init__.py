"""Isolation: per-episode network namespaces with a firewall, and the audit that proves it.

The threat model: the agent controls the sandbox's screen and input, so it could open a
terminal or browser inside the sandbox and talk to the simulator's API ports, or open the
simulator's own consoles. The sandbox offers nothing but the simulator window, the agent-side
user may open no connection of its own, and the simulator's state ports accept only the
host-side adapter. The audit checks this from inside before every scored episode.
"""

from simbridge._isolation._audit import USUAL_PORTS, AuditReport, run_audit
from simbridge._isolation._firewall import FirewallPlan, render
from simbridge._isolation._netns import AGENT_USER, SIM_USER, Netns, cleanup_stale, list_namespaces
from simbridge._isolation._sandbox import NetnsSandbox, host_addresses, sandbox_python

__all__ = [
    "AGENT_USER",
    "AuditReport",
    "FirewallPlan",
    "Netns",
    "NetnsSandbox",
    "SIM_USER",
    "USUAL_PORTS",
    "cleanup_stale",
    "host_addresses",
    "list_namespaces",
    "render",
    "run_audit",
    "sandbox_python",
]
