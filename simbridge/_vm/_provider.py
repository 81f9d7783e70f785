"""The `vm` provider: each episode in a fresh QEMU/KVM guest (copy-on-write overlay).

The guest runs Xvfb listening on TCP; its X port and the simulator's state ports are forwarded
to the host's loopback only (QEMU user networking with `restrict=on`: guest → host and guest →
outside are impossible by construction). The runner's agent port talks X11 to the forwarded
display, so the agent's actions and screenshots go through the same code as on the other
providers; processes in the guest start through the guest supervisor.

Inside the guest, the X port and the state ports accept only connections that came through
QEMU's forwarding (from the gateway address); loopback TCP to them is dropped, so every X
client without a pid (a TCP client) is the host's, and the audit allows exactly as many of
those as the host has connections open to the forwarded display.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from simbridge._adapter import ProcessHandle, Sandbox
from simbridge._errors import HarnessError
from simbridge._isolation._firewall import FirewallPlan, render
from simbridge._providers._base import SCREEN_DEPTH, SCREEN_H, SCREEN_W, Provider
from simbridge._vm._image import GUEST_UIDS, VENV
from simbridge._vm._qemu import VM_CPUS, VM_MEM_MB, VmInstance

#: QEMU user networking: the host as seen from the guest
SLIRP_GATEWAY = "10.0.2.2"
GUEST_DISPLAY = 0
#: what a simulator's state port binds in the guest: QEMU forwards to the guest's DHCP
#: address (10.0.2.15), and the guest firewall admits only forwarded connections to it
LISTEN_ADDR = "0.0.0.0"
#: how much longer starting things takes under software emulation than on KVM or the host
TCG_TIMEOUT_SCALE = 4.0
#: seconds a guest process's state is trusted before the supervisor is asked again
POLL_CACHE_S = 0.5
#: seconds the supervisor may take to answer about a process before the guest counts as hung
#: (as long as the telemetry may stay silent: the two ways of noticing a lost guest agree)
POLL_TIMEOUT_S = 5.0
#: bytes of each guest process's log copied into the episode's folder at the end
LOG_TAIL_BYTES = 64 * 1024


def default_image_dir() -> Path:
    env = os.environ.get("SIMBRIDGE_VM_IMAGE")
    if env:
        return Path(env)
    return Path("/var/cache/simbridge/vm") if os.geteuid() == 0 else Path.home() / ".cache/simbridge/vm"


class GuestProcess:
    """Popen-like handle of a process in the guest (a `simbridge.sim.ProcessHandle`; not a host
    process: its pid is the guest's, and the host cannot read its CPU time).

    `poll()` asks the supervisor at most every `POLL_CACHE_S` (callers poll in tight loops);
    a supervisor that does not answer within `POLL_TIMEOUT_S` raises HarnessError."""

    def __init__(self, vm: VmInstance, pid: int, log: str) -> None:
        self.vm, self.pid, self.log = vm, pid, log
        self.returncode: int | None = None
        self._polled = 0.0

    def poll(self) -> int | None:
        if self.returncode is None and self.vm._ctl is not None and time.monotonic() - self._polled >= POLL_CACHE_S:
            self.returncode = self.vm.request("poll", pid=self.pid, timeout_s=POLL_TIMEOUT_S)["returncode"]
            self._polled = time.monotonic()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int | None:
        end = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if end is not None and time.monotonic() > end:
                raise subprocess.TimeoutExpired(str(self.pid), timeout or 0)
            time.sleep(0.1)
        return self.returncode

    def terminate(self) -> None:
        self._signal(15)

    def kill(self) -> None:
        self._signal(9)

    def _signal(self, sig: int) -> None:
        if self.vm._ctl is not None:
            self.vm.request("kill", pid=self.pid, signal=sig, timeout_s=POLL_TIMEOUT_S)
            self._polled = 0.0

    def log_tail(self, n_bytes: int = 4000) -> str:
        """The end of the process's output (stdout and stderr), read in the guest."""
        r = self.vm.request("run", argv=["tail", "-c", str(n_bytes), self.log], timeout_s=POLL_TIMEOUT_S)
        return r["stdout"]


class VmProvider(Provider):
    name = "vm"
    isolated = True

    def __init__(
        self,
        *,
        image_dir: Path | None = None,
        state_tcp: list[int] | None = None,
        mem_mb: int = VM_MEM_MB,
        cpus: int = VM_CPUS,
    ) -> None:
        self.image_dir = Path(image_dir or default_image_dir())
        self.state_tcp = list(state_tcp or [])
        self.mem_mb, self.cpus = mem_mb, cpus
        self.vm: VmInstance | None = None
        self.sandbox: Sandbox | None = None
        #: processes started in the guest through `sandbox.spawn`: (name, handle)
        self.spawned: list[tuple[str, GuestProcess]] = []
        self.workdir: Path | None = None
        self.ruleset: str | None = None
        self.image_source: dict[str, Any] | None = None
        self.xvfb_pid = 0
        self.xvfb: GuestProcess | None = None
        self.host_x = 0

    def preflight(self) -> None:
        import shutil

        from simbridge._errors import SimbridgeError

        for name in ("base.qcow2", "vmlinuz", "initrd.img"):
            if not (self.image_dir / name).exists():
                raise SimbridgeError(
                    f"vm provider: no guest image at {self.image_dir} ({name} missing); build it "
                    "with `simbridge vm build` or set SIMBRIDGE_VM_IMAGE"
                )
        if shutil.which("qemu-system-x86_64") is None:
            raise SimbridgeError("vm provider needs qemu-system-x86_64 (apt-get install qemu-system-x86)")
        from simbridge._vm._image import image_staleness

        stale = image_staleness(self.image_dir)
        if stale and os.environ.get("SIMBRIDGE_VM_ALLOW_STALE") != "1":
            # the guest runs the image's simbridge (supervisor, audit, cockpit): not this one
            raise SimbridgeError(
                f"vm provider: the guest image at {self.image_dir} is stale: {stale}; rebuild it with "
                "`simbridge vm build` (SIMBRIDGE_VM_ALLOW_STALE=1 runs it anyway)"
            )

    def start(self, workdir: str | Path) -> Sandbox:
        workdir = Path(workdir)
        self.workdir = workdir
        self.vm = VmInstance(self.image_dir, workdir / "vm", mem_mb=self.mem_mb, cpus=self.cpus).start()
        x_port = 6000 + GUEST_DISPLAY
        # the X port is a state port too: reachable only through the forwarding, never over
        # the guest's loopback (local clients use the unix socket, which gives the audit a pid)
        plan = FirewallPlan(
            sandbox_if="en*",
            host_addr=SLIRP_GATEWAY,
            agent_uid=GUEST_UIDS["simbridge-agent"],
            sim_uid=GUEST_UIDS["simbridge-sim"],
            agent_port=x_port,
            state_tcp=[*self.state_tcp, x_port],
        )
        self.ruleset = render(plan)
        r = self.vm.request("run", argv=["nft", "-f", "-"], input=self.ruleset)
        if r["returncode"] != 0:
            raise HarnessError(f"guest firewall: {r['stderr'].strip()}")
        xvfb = self.vm.request(
            "spawn",
            argv=[
                "Xvfb",
                f":{GUEST_DISPLAY}",
                "-screen",
                "0",
                f"{SCREEN_W}x{SCREEN_H}x{SCREEN_DEPTH}",
                "-listen",
                "tcp",
                "-ac",
                "-noreset",
                "+extension",
                "XTEST",
            ],
            log="/tmp/xvfb.log",
        )
        self.xvfb_pid = xvfb["pid"]
        self.xvfb = GuestProcess(self.vm, self.xvfb_pid, "/tmp/xvfb.log")
        self.host_x = self.vm.forward(x_port)
        display = f"127.0.0.1:{self.host_x - 6000}"
        self._wait_display(display)
        vm = self.vm

        def spawn(
            argv: Sequence[str],
            env: Mapping[str, str] | None = None,
            *,
            name: str | None = None,
            user: str | None = "sim",
            input: str | None = None,
            **_: Any,
        ) -> GuestProcess:
            """Start `argv` in the guest through its supervisor (the `Spawn` protocol); Popen
            keywords (stdout...) do not apply there: output goes to a guest log (`GuestProcess.log_tail`).
            `input`: text for the process's stdin (over the supervisor's channel, never an argv)."""
            guest_argv = [VENV + "/bin/python" if c == sys.executable else c for c in argv]
            guest_env = {k: v for k, v in (env or {}).items() if k in ("SDL_AUDIODRIVER", "SDL_VIDEODRIVER", "LANG")}
            guest_env["DISPLAY"] = f":{GUEST_DISPLAY}"
            name = name or Path(guest_argv[0]).name
            log = f"/tmp/{name}-{len(self.spawned)}.log"
            extra: dict[str, Any] = {} if input is None else {"stdin": input}
            rep = vm.request("spawn", argv=guest_argv, env=guest_env, user=user, log=log, **extra)
            proc = GuestProcess(vm, rep["pid"], log)
            self.spawned.append((name, proc))
            return proc

        def forward(port: int, proto: str = "tcp") -> tuple[str, int]:
            return "127.0.0.1", vm.forward(port, proto)

        tcg = self.vm.accel == "tcg"
        try:
            self.image_source = json.loads((self.image_dir / "image.json").read_text()).get("source")
        except (OSError, ValueError):
            self.image_source = None
        self.sandbox = Sandbox(
            display=display,
            env={"DISPLAY": display, "SDL_AUDIODRIVER": "dummy"},
            workdir=str(workdir),
            host_addr="127.0.0.1",
            harness_addr=None,
            isolated=True,
            provider=self.name,
            telemetry="pull",
            spawn=spawn,
            guest_start="supervisor",
            python=VENV + "/bin/python",
            forward=forward,
            listen_addr=LISTEN_ADDR,
            timeout_scale=TCG_TIMEOUT_SCALE if tcg else 1.0,
            info={
                "boot_s": round(self.vm.boot_s or 0, 1),
                "image": str(self.image_dir),
                "image_source": self.image_source,
                "accel": self.vm.accel,
            },
        )
        return self.sandbox

    def processes(self) -> list[tuple[str, ProcessHandle]]:
        """Xvfb and what went through `sandbox.spawn`: guest processes (guest pids, no host CPU)."""
        if self.vm is None or self.xvfb is None:
            return []
        return [("Xvfb", self.xvfb), *self.spawned]

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

    def audit(
        self,
        ports: list[tuple[int, str, str]],
        allowed_pids: list[int] | None = None,
        remote_clients: int | None = None,
    ) -> dict[str, Any]:
        """The isolation audit, inside the guest as the agent user.

        X clients with a pid must be Xvfb or a process started through `sandbox.spawn` (or one
        of their children); clients without one came through the forwarded X port, i.e. from
        the host, and as many are allowed as the host has connections open to it (`remote_clients`
        overrides the count)."""
        assert self.vm is not None
        if allowed_pids is None:
            allowed_pids = [p.pid for _, p in self.spawned]
        if remote_clients is None:
            remote_clients = host_connections(self.host_x)
        spec = {
            "targets": ["127.0.0.1", "10.0.2.15", SLIRP_GATEWAY, "10.0.2.3"],
            "ports": [list(p) for p in ports],
            "display": f":{GUEST_DISPLAY}",
            "allowed_pids": [self.xvfb_pid, *allowed_pids],
            "timeout_s": 0.5,
            "allowed_remote_clients": remote_clients,
        }
        audit_py = f"{VENV}/lib/python3.11/site-packages/simbridge/_isolation/_audit.py"
        r = self.vm.request("run", argv=[f"{VENV}/bin/python", audit_py, json.dumps(spec)], user="agent", timeout_s=120)
        if r["returncode"] != 0:
            raise HarnessError(f"guest audit failed to run: {r['stderr'][-400:]}")
        report = json.loads(r["stdout"])
        report["host_x_connections"] = remote_clients
        return report

    def isolation_report(self) -> dict[str, Any]:
        rep: dict[str, Any] = {
            "provider": self.name,
            "isolated": True,
            "network": "qemu user networking, restrict=on",
            "forwards": {f"{p}/{g}": h for (p, g), h in (self.vm.forwards.items() if self.vm else [])},
        }
        if self.vm is not None:
            rep.update(
                accel=self.vm.accel,
                boot_s=round(self.vm.boot_s or 0, 1),
                image_source=self.image_source,
                firewall=self.ruleset,
            )
        return rep

    def stop(self) -> None:
        if self.vm is not None:
            self._save_logs()
            self.vm.stop()
            self.vm = None

    def _save_logs(self) -> None:
        """Copy the end of each guest process's log into the episode's folder (`guest-NAME.log`)."""
        if self.workdir is None or self.vm is None or self.vm._ctl is None or self.vm.hung:
            return
        for name, proc in self.spawned:
            try:
                (self.workdir / f"guest-{name}.log").write_text(proc.log_tail(LOG_TAIL_BYTES))
            except (HarnessError, OSError):
                return  # a guest that stopped answering has nothing more to give


def host_connections(port: int) -> int:
    """Established TCP connections on this host to 127.0.0.1:`port` (client ends only)."""
    target = f"0100007F:{port:04X}"
    n = 0
    try:
        with open("/proc/net/tcp") as fh:
            next(fh)
            for line in fh:
                f = line.split()
                if len(f) > 3 and f[2] == target and f[3] == "01":
                    n += 1
    except OSError:
        return 0
    return n
