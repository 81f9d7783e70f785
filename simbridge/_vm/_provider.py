"""The `vm` provider: each episode in a fresh QEMU/KVM guest (copy-on-write overlay).

The guest runs Xvfb listening on TCP; its X port and the simulator's state ports are forwarded
to the host's loopback only (QEMU user networking with `restrict=on`: guest → host and guest →
outside are impossible by construction). The runner's agent port talks X11 to the forwarded
display, so the agent's actions and screenshots go through the same code as on the other
providers; processes in the guest start through the guest supervisor.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from simbridge._adapter import Sandbox
from simbridge._errors import HarnessError
from simbridge._isolation._firewall import FirewallPlan, render
from simbridge._providers._base import SCREEN_DEPTH, SCREEN_H, SCREEN_W, Provider
from simbridge._vm._image import GUEST_UIDS, VENV
from simbridge._vm._qemu import VmInstance

#: QEMU user networking: the host as seen from the guest
SLIRP_GATEWAY = "10.0.2.2"
GUEST_DISPLAY = 0


def default_image_dir() -> Path:
    env = os.environ.get("SIMBRIDGE_VM_IMAGE")
    if env:
        return Path(env)
    return Path("/var/cache/simbridge/vm") if os.geteuid() == 0 else Path.home() / ".cache/simbridge/vm"


class GuestProcess:
    """Popen-like handle of a process in the guest."""

    def __init__(self, vm: VmInstance, pid: int) -> None:
        self.vm, self.pid = vm, pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None and self.vm._ctl is not None:
            self.returncode = self.vm.request("poll", pid=self.pid)["returncode"]
        return self.returncode

    def wait(self, timeout: float | None = None) -> int | None:
        end = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if end is not None and time.monotonic() > end:
                import subprocess

                raise subprocess.TimeoutExpired(str(self.pid), timeout or 0)
            time.sleep(0.1)
        return self.returncode

    def terminate(self) -> None:
        if self.vm._ctl is not None:
            self.vm.request("kill", pid=self.pid, signal=15)

    kill = terminate


class VmProvider(Provider):
    name = "vm"
    isolated = True

    def __init__(self, *, image_dir: Path | None = None, state_tcp: list[int] | None = None,
                 mem_mb: int = 2048, cpus: int = 2) -> None:
        self.image_dir = Path(image_dir or default_image_dir())
        self.state_tcp = list(state_tcp or [])
        self.mem_mb, self.cpus = mem_mb, cpus
        self.vm: VmInstance | None = None
        self.sandbox: Sandbox | None = None

    def start(self, workdir: str | Path) -> Sandbox:
        workdir = Path(workdir)
        self.vm = VmInstance(self.image_dir, workdir / "vm", mem_mb=self.mem_mb, cpus=self.cpus).start()
        plan = FirewallPlan(sandbox_if="en*", host_addr=SLIRP_GATEWAY, agent_uid=GUEST_UIDS["simbridge-agent"],
                            sim_uid=GUEST_UIDS["simbridge-sim"], agent_port=6000 + GUEST_DISPLAY, state_tcp=self.state_tcp)
        self.ruleset = render(plan)
        r = self.vm.request("run", argv=["nft", "-f", "-"], input=self.ruleset)
        if r["returncode"] != 0:
            raise HarnessError(f"guest firewall: {r['stderr'].strip()}")
        xvfb = self.vm.request("spawn", argv=["Xvfb", f":{GUEST_DISPLAY}", "-screen", "0",
                                              f"{SCREEN_W}x{SCREEN_H}x{SCREEN_DEPTH}", "-listen", "tcp", "-ac", "-noreset",
                                              "+extension", "XTEST"], log="/tmp/xvfb.log")
        self.xvfb_pid = xvfb["pid"]
        host_x = self.vm.forward(6000 + GUEST_DISPLAY)
        display = f"127.0.0.1:{host_x - 6000}"
        self._wait_display(display)
        vm = self.vm

        def spawn(cmd: list[str], *, env: dict[str, str] | None = None, user: str | None = "sim", name: str | None = None,
                  **_: Any) -> GuestProcess:
            argv = [VENV + "/bin/python" if c == sys.executable else c for c in cmd]
            guest_env = {k: v for k, v in (env or {}).items() if k in ("SDL_AUDIODRIVER", "SDL_VIDEODRIVER", "LANG")}
            guest_env["DISPLAY"] = f":{GUEST_DISPLAY}"
            rep = vm.request("spawn", argv=argv, env=guest_env, user=user, log=f"/tmp/{name or 'proc'}.log")
            return GuestProcess(vm, rep["pid"])

        def forward(port: int, proto: str = "tcp") -> tuple[str, int]:
            return "127.0.0.1", vm.forward(port, proto)

        self.sandbox = Sandbox(display=display, env={"DISPLAY": display, "SDL_AUDIODRIVER": "dummy"},
                               workdir=str(workdir), host_addr="127.0.0.1", harness_addr=None,
                               isolated=True, provider=self.name,
                               spawn=spawn, python=VENV + "/bin/python", forward=forward,
                               info={"boot_s": round(self.vm.boot_s or 0, 1), "image": str(self.image_dir)})
        return self.sandbox

    def _wait_display(self, display: str, timeout_s: float = 90.0) -> None:
        from Xlib import display as xdisplay
        from Xlib.error import ConnectionClosedError, DisplayError

        end = time.monotonic() + timeout_s
        while True:
            try:
                xdisplay.Display(display).close()
                return
            except (DisplayError, ConnectionClosedError, OSError):
                if time.monotonic() > end:
                    raise HarnessError(f"guest X display not reachable at {display}") from None
                time.sleep(0.3)

    def audit(self, ports: list[tuple[int, str, str]], allowed_pids: list[int] | None = None,
              remote_clients: int = 0) -> dict[str, Any]:
        """The isolation audit, inside the guest as the agent user."""
        import json

        assert self.vm is not None
        spec = {"targets": ["127.0.0.1", "10.0.2.15", SLIRP_GATEWAY, "10.0.2.3"], "ports": [list(p) for p in ports],
                "display": f":{GUEST_DISPLAY}", "allowed_pids": [self.xvfb_pid, *(allowed_pids or [])], "timeout_s": 0.5,
                "allowed_remote_clients": remote_clients}
        audit_py = f"{VENV}/lib/python3.11/site-packages/simbridge/_isolation/_audit.py"
        r = self.vm.request("run", argv=[f"{VENV}/bin/python", audit_py, json.dumps(spec)], user="agent", timeout_s=120)
        if r["returncode"] != 0:
            raise HarnessError(f"guest audit failed to run: {r['stderr'][-400:]}")
        # the host's own agent-port connections to the forwarded display have no guest pid
        # (they come through QEMU's network stack): `remote_clients` of them are expected
        return json.loads(r["stdout"])

    def isolation_report(self) -> dict[str, Any]:
        return {"provider": self.name, "isolated": True, "network": "qemu user networking, restrict=on",
                "forwards": {f"{p}/{g}": h for (p, g), h in (self.vm.forwards.items() if self.vm else [])}}

    def stop(self) -> None:
        if self.vm is not None:
            self.vm.stop()
            self.vm = None
