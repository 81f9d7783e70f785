"""The `netns` provider: a network namespace per episode with a firewall, its own Xvfb and
unprivileged users (see docs/isolation.md). Linux, root."""

from __future__ import annotations

import pwd
import shutil
import socket
from pathlib import Path
from typing import Any

from simbridge._adapter import ProcessHandle, Sandbox
from simbridge._errors import SimbridgeError
from simbridge._isolation import SIM_USER, NetnsSandbox, sandbox_python
from simbridge._providers._base import SCREEN_DEPTH, SCREEN_H, SCREEN_W, Provider


def _free_udp_port(addr: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind((addr, 0))
        return s.getsockname()[1]


class NetnsProvider(Provider):
    name = "netns"
    isolated = True

    def __init__(
        self,
        *,
        state_tcp: list[int] | None = None,
        state_udp: list[int] | None = None,
        harness_udp_ports: int = 2,
        limits: Any = None,
    ) -> None:
        #: the sandbox's cgroup limits (None: the defaults, simbridge._isolation._cgroup)
        self.limits = limits
        self.state_tcp = list(state_tcp or [])
        self.state_udp = list(state_udp or [])
        self.n_udp = harness_udp_ports
        self.sb: NetnsSandbox | None = None

    def preflight(self) -> None:
        import os

        if os.geteuid() != 0:
            raise SimbridgeError("netns provider needs root (network namespaces, nftables, sandbox users)")
        missing = [p for p in ("ip", "nft", "Xvfb") if shutil.which(p) is None]
        if missing:
            raise SimbridgeError(f"netns provider needs {', '.join(missing)} (scripts/setup.sh installs them)")

    def start(self, workdir: str | Path) -> Sandbox:
        python = sandbox_python()
        # the sandbox users must read what the adapter writes for the simulator, and the bundle
        # may live under a private directory: the sandbox gets its own world-readable folder,
        # whose logs are copied into the bundle at the end
        self.bundle_dir = Path(workdir)
        self.sb = NetnsSandbox(
            state_tcp=self.state_tcp,
            state_udp=self.state_udp,
            screen=f"{SCREEN_W}x{SCREEN_H}x{SCREEN_DEPTH}",
            host_udp_picker=self._pick_udp,
            limits=self.limits,
        )
        self.sb.start()
        sandbox = self.sb.as_sandbox()
        sandbox.python = python
        sandbox.harness_addr = self.sb.host_addr
        sandbox.harness_udp_ports = list(self.sb.host_udp)
        sandbox.sim_uid = pwd.getpwnam(SIM_USER).pw_uid
        return sandbox

    def processes(self) -> list[tuple[str, ProcessHandle]]:
        """Xvfb and what went through `sandbox.spawn`, all host processes (readable in /proc)."""
        return list(self.sb.processes()) if self.sb is not None else []

    def _pick_udp(self, host_addr: str) -> list[int]:
        return [_free_udp_port(host_addr) for _ in range(self.n_udp)]

    def audit(self, ports: list[tuple[int, str, str]]) -> dict[str, Any]:
        from simbridge._isolation import host_addresses

        assert self.sb is not None
        return self.sb.audit(ports, extra_targets=host_addresses())

    def isolation_report(self) -> dict[str, Any]:
        rep: dict[str, Any] = {"provider": self.name, "isolated": True}
        if self.sb is not None and self.sb.ns is not None:
            rep.update(
                netns=self.sb.ns.name,
                host_addr=self.sb.host_addr,
                sandbox_addr=self.sb.sandbox_addr,
                firewall=self.sb.ruleset,
                limits=self.sb.cgroup.report() if self.sb.cgroup is not None else {"applied": False},
            )
        return rep

    def stop(self) -> None:
        if self.sb is not None:
            self.sb.close()
            logs = sorted(self.sb.workdir.rglob("*.log"))
            if logs:
                self.bundle_dir.mkdir(parents=True, exist_ok=True)
                for f in logs:
                    shutil.copy(f, self.bundle_dir / f.name)
            shutil.rmtree(self.sb.workdir, ignore_errors=True)
            self.sb = None
