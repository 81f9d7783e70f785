"""Operator lockdown checks for an X-Plane installation.

Scripting plugins (FlyWithLua, XPPython3 and its XP11 predecessor) would let anything inside the
sandbox write datarefs by script, which defeats a GUI-only task. The check inspects the install
folder and fails the episode if one is present.

Network reachability is not enforced here, and no provider calls `host_only_rules()`. What
really happens: under the `netns` provider the sandbox firewall (`simbridge._isolation._firewall`)
accepts the simulator's state ports only from the host side's address and drops them on
loopback; those ports are the task's `lockdown.blocked_ports` plus the adapter's `state_ports`
(`simbridge._providers.state_ports`). Every X-Plane task lists UDP 49000, UDP 49009, UDP 49010
and TCP 8086 there, and `XPlaneSession.state_ports` names them too, so a netns episode keeps
them host-only. The `vm` provider is given only the TCP ones;
the `local` provider applies no firewall. `host_only_rules()` is that same list as data, for an
operator who firewalls an X-Plane machine by hand; a test keeps it equal to the tasks' lists.
The FMS probe plugin's UDP port (`_fms.FMS_PORT`, 49010) is in both lists: without it the netns
firewall would drop the harness's FMS snapshots.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from simbridge import HarnessError

#: plugin folder/file name pattern -> what it is
FORBIDDEN_PLUGINS: dict[str, str] = {
    r"^flywithlua": "FlyWithLua (Lua scripting)",
    r"^xppython3": "XPPython3 (Python scripting)",
    r"^pythonplugins$": "XPPython3 scripts folder",
    r"^pythoninterface": "XPPython (Python scripting, X-Plane 11)",
}


class LockdownError(HarnessError):
    """The simulator installation is not locked down for a scored episode."""


@dataclass
class LockdownReport:
    install_dir: str
    ok: bool
    findings: list[str] = field(default_factory=list)
    plugins: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {"install_dir": self.install_dir, "ok": self.ok, "findings": self.findings, "plugins": self.plugins}


def _match(name: str) -> str | None:
    low = name.lower()
    for pat, what in FORBIDDEN_PLUGINS.items():
        if re.search(pat, low):
            return what
    return None


def inspect_install(install_dir: str | Path, *, aircraft_depth: int = 4) -> LockdownReport:
    """Look for scripting plugins in `Resources/plugins/` and in aircraft `plugins/` folders."""
    root = Path(install_dir)
    plugins_dir = root / "Resources" / "plugins"
    report = LockdownReport(str(root), ok=True)
    if not plugins_dir.is_dir():
        report.ok = False
        report.findings.append(f"{plugins_dir}: not found; is {root} an X-Plane installation?")
        return report
    for entry in sorted(plugins_dir.iterdir()):
        report.plugins.append(entry.name)
        what = _match(entry.name)
        if what:
            report.ok = False
            report.findings.append(f"{entry}: {what} is installed; remove it (scripts could drive the simulator)")
    aircraft = root / "Aircraft"
    if aircraft.is_dir():
        for pdir in _aircraft_plugin_dirs(aircraft, aircraft_depth):
            for entry in sorted(pdir.iterdir()):
                what = _match(entry.name)
                if what:
                    report.ok = False
                    report.findings.append(f"{entry}: {what} bundled with an aircraft; remove it")
    return report


def _aircraft_plugin_dirs(aircraft: Path, depth: int) -> list[Path]:
    out: list[Path] = []
    frontier = [aircraft]
    for _ in range(depth):
        nxt: list[Path] = []
        for d in frontier:
            try:
                children = [c for c in d.iterdir() if c.is_dir()]
            except OSError:
                continue
            for c in children:
                (out if c.name.lower() == "plugins" else nxt).append(c)
        frontier = nxt
    return out


def require_locked_down(install_dir: str | Path) -> LockdownReport:
    """Raise LockdownError naming every forbidden plugin; return the report when clean."""
    report = inspect_install(install_dir)
    if not report.ok:
        raise LockdownError("X-Plane lockdown failed: " + "; ".join(report.findings))
    return report


def host_only_rules(
    host_addr: str, *, udp_port: int = 49000, xpc_port: int = 49009, web_port: int = 8086, fms_port: int = 49010
) -> list[dict[str, object]]:
    """The ports only the harness host may reach, as firewall rules for an operator to apply by
    hand. Descriptive: no provider reads this (see the module docstring for what enforces them)."""
    return [
        {"proto": "udp", "port": udp_port, "allow_from": host_addr, "service": "X-Plane native UDP"},
        {"proto": "udp", "port": xpc_port, "allow_from": host_addr, "service": "XPlaneConnect"},
        {"proto": "tcp", "port": web_port, "allow_from": host_addr, "service": "X-Plane Web API (REST/WebSocket)"},
        {"proto": "udp", "port": fms_port, "allow_from": host_addr, "service": "simbridge FMS probe plugin"},
    ]
