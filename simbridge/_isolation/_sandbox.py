"""The netns sandbox: namespace + firewall + display + sandbox users, torn down as one.

Inside: an Xvfb display, the simulator (as the simulator user) and the agent port (as the
agent user). Outside: the runner and the host-side adapter, which reach the simulator over the
veth link. `audit()` runs the isolation audit inside as the agent user.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from simbridge._adapter import Sandbox
from simbridge._errors import HarnessError
from simbridge._isolation._cgroup import Limits, SandboxCgroup
from simbridge._isolation._display import DisplayLease, lease_display, owner_pid
from simbridge._isolation._firewall import FirewallPlan, render
from simbridge._isolation._netns import AGENT_USER, SIM_USER, Netns, ensure_user
from simbridge._providers._procs import kill_group

#: environment variables passed into the sandbox (besides SDL_*/PYGAME_*)
_PASS_ENV = {"DISPLAY", "LANG", "LC_ALL", "TZ", "PYTHONUNBUFFERED"}
#: display numbers tried when another X server wins the one leased (see _display.py)
_DISPLAY_TRIES = 4


class NetnsSandbox:
    """Use as a context manager; everything inside is killed and removed on exit."""

    def __init__(
        self,
        *,
        state_tcp: Sequence[int] = (),
        state_udp: Sequence[int] = (),
        agent_port: int | None = None,
        host_udp: Sequence[int] = (),
        host_tcp: Sequence[int] = (),
        screen: str = "1280x800x24",
        workdir: str | None = None,
        host_udp_picker: Any = None,
        limits: Limits | None = None,
    ) -> None:
        self.state_tcp, self.state_udp = list(state_tcp), list(state_udp)
        self.agent_port = agent_port
        self.host_udp, self.host_tcp = list(host_udp), list(host_tcp)
        #: picks host-side UDP ports (given the host veth address) the simulator may send to
        self._host_udp_picker = host_udp_picker
        self.screen = screen
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix="simbridge-netns-"))
        self.ns: Netns | None = None
        self.display: str | None = None
        #: the display number's lease, held for the sandbox's life
        self._display_lease: DisplayLease | None = None
        #: CPU and memory limits of everything spawned inside (`_cgroup.py`)
        self.limits = limits if limits is not None else Limits.from_env()
        self.cgroup: SandboxCgroup | None = None
        #: (name, process) of everything started inside, oldest first
        self._procs: list[tuple[str, subprocess.Popen[Any]]] = []
        self._reaper: subprocess.Popen[Any] | None = None
        self.sim_pids: set[int] = set()
        self.harness_pids: set[int] = set()
        #: the runner itself holds the agent port's X connections (itself only, not its children)
        self.exact_pids: set[int] = {os.getpid()}

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> "NetnsSandbox":
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        agent_uid, _ = ensure_user(AGENT_USER)
        sim_uid, _ = ensure_user(SIM_USER)
        self.ns = Netns.create()
        self.cgroup = SandboxCgroup(self.ns.name, self.limits)
        self.cgroup.create()  # False: unlimited, and the report says why
        if self._host_udp_picker is not None:
            self.host_udp += self._host_udp_picker(self.ns.record.host_addr)
        self._reaper = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "simbridge._isolation._reaper",
                str(os.getpid()),
                self.ns.name,
                self.ns.record.host_if,
            ],
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        plan = FirewallPlan(
            sandbox_if=self.ns.record.sandbox_if,
            host_addr=self.ns.record.host_addr,
            agent_uid=agent_uid,
            sim_uid=sim_uid,
            agent_port=self.agent_port,
            state_tcp=self.state_tcp,
            state_udp=self.state_udp,
            host_udp=self.host_udp,
            host_tcp=self.host_tcp,
        )
        self.ruleset = render(plan)
        self.ns.exec_root(["nft", "-f", "-"], input=self.ruleset)
        os.chmod(self.workdir, 0o755)
        self._start_xvfb()

    def _start_xvfb(self) -> None:
        """Xvfb on a leased display number (atomic across processes: `_display.py`), checked to
        be ours: its lock file names our Xvfb's pid. A number another X server won is given up
        and the next one leased."""
        tried: set[int] = set()
        for _ in range(_DISPLAY_TRIES):
            lease = lease_display(skip=tried)
            self._display_lease, self.display = lease, lease.display
            n = lease.n
            xvfb = self.spawn(["Xvfb", self.display, "-screen", "0", self.screen, "-nolisten", "tcp", "-ac"], user=None)
            self.harness_pids.add(xvfb.pid)
            deadline = time.monotonic() + 10
            while not (os.path.exists(f"/tmp/.X11-unix/X{n}") and owner_pid(n) == xvfb.pid):
                if xvfb.poll() is not None:
                    break
                if time.monotonic() > deadline:
                    raise HarnessError(f"Xvfb {self.display} did not start in the sandbox")
                time.sleep(0.05)
            else:
                return
            # another server won n after all: forget this Xvfb and lease another number
            self._procs = [(nm, q) for nm, q in self._procs if q is not xvfb]
            self.harness_pids.discard(xvfb.pid)
            tried.add(n)
            lease.release(remove_x_files=False)
            self._display_lease, self.display = None, None
        raise HarnessError(f"Xvfb did not start in the sandbox on any of the displays tried ({sorted(tried)})")

    def close(self) -> None:
        for _, p in reversed(self._procs):
            kill_group(p)
        self._procs.clear()
        if self.ns is not None:
            self.ns.destroy()
            self.ns = None
        if self._reaper is not None:
            kill_group(self._reaper)
            self._reaper = None
        if self._display_lease is not None:  # our Xvfb is dead: its files go, then the lease
            self._display_lease.release()
            self._display_lease = None
        if self.cgroup is not None:  # its processes were killed with the namespace
            self.cgroup.destroy()
            self.cgroup = None

    # ------------------------------------------------------------------ processes
    @property
    def host_addr(self) -> str:
        assert self.ns
        return self.ns.record.host_addr

    @property
    def sandbox_addr(self) -> str:
        assert self.ns
        return self.ns.record.sandbox_addr

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        base = {"PATH": "/usr/local/bin:/usr/bin:/bin:/usr/games", "HOME": str(self.workdir), "LANG": "C.UTF-8"}
        if self.display:
            base["DISPLAY"] = self.display
        return {**base, **(extra or {})}

    def spawn(
        self,
        argv: Sequence[str],
        *,
        user: str | None = SIM_USER,
        env: dict[str, str] | None = None,
        name: str | None = None,
        **popen: Any,
    ) -> subprocess.Popen[Any]:
        """Start `argv` inside the sandbox as `user` (None = root, for the harness's own processes).

        Only the given `env` and a minimal base reach the process: the host's environment stays out.
        """
        assert self.ns is not None, "sandbox not started"
        full_env = self.env(
            {k: v for k, v in (env or {}).items() if k in _PASS_ENV or k.startswith(("SDL_", "PYGAME_"))}
        )
        if name and "stdout" not in popen:
            log = open(self.workdir / f"{name}.log", "wb")
            popen.update(stdout=log, stderr=subprocess.STDOUT)
        cmd = self.ns.argv(["env", "-i", *[f"{k}={v}" for k, v in full_env.items()], *argv], user=user)
        popen.setdefault("stdin", subprocess.DEVNULL)
        if self.cgroup is not None and self.cgroup.dirs:  # joined before exec: its children too
            popen["preexec_fn"] = _chain(popen.get("preexec_fn"), self.cgroup.join)
        p = subprocess.Popen(cmd, start_new_session=True, cwd=str(self.workdir), **popen)
        self._procs.append((name or Path(argv[0]).name, p))
        if user == SIM_USER:
            self.sim_pids.add(p.pid)
        else:
            self.harness_pids.add(p.pid)
        return p

    def processes(self) -> list[tuple[str, subprocess.Popen[Any]]]:
        """(name, process) of everything started inside and still held (Xvfb, the simulator,
        the agent port's helpers), oldest first; the audit's own run is not among them."""
        return list(self._procs)

    def as_sandbox(self) -> Sandbox:
        """The runner-facing view: the host-side adapter reaches the simulator at sandbox_addr."""

        def spawn(
            argv: Sequence[str], env: Mapping[str, str] | None = None, *, name: str | None = None, **popen: Any
        ) -> subprocess.Popen[Any]:
            return self.spawn(argv, env=dict(env or {}), name=name, **popen)

        return Sandbox(
            display=self.display or "",
            env=self.env(),
            workdir=str(self.workdir),
            host_addr=self.sandbox_addr,
            isolated=True,
            provider="netns",
            spawn=spawn,
            guest_start="stdio",
            telemetry="push",
            harness_addr=self.host_addr,
            harness_udp_ports=list(self.host_udp),
            info={
                "netns": self.ns.name if self.ns else None,
                "host_addr": self.host_addr,
                "sandbox_addr": self.sandbox_addr,
            },
        )

    # ------------------------------------------------------------------ audit
    def audit(
        self, ports: Sequence[tuple[int, str, str]], *, extra_targets: Sequence[str] = (), timeout_s: float = 0.5
    ) -> dict[str, Any]:
        """Run the isolation audit inside the sandbox as the agent user; returns its JSON report."""
        spec = {
            "targets": ["127.0.0.1", self.sandbox_addr, self.host_addr, *extra_targets],
            "ports": [list(p) for p in ports],
            "display": self.display,
            "allowed_pids": sorted(self.sim_pids | self.harness_pids),
            "exact_pids": sorted(self.exact_pids),
            "timeout_s": timeout_s,
        }
        script = Path(__file__).with_name("_audit.py")
        p = self.spawn(
            [sandbox_python(), str(script), json.dumps(spec)],
            user=AGENT_USER,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        out, err = p.communicate(timeout=120)
        self._procs = [(n, q) for n, q in self._procs if q is not p]  # done: not one of the episode's
        if p.returncode != 0:
            raise HarnessError(f"isolation audit failed to run: {err.strip()[-500:]}")
        return json.loads(out)


def _chain(first: Any, then: Any) -> Any:
    if first is None:
        return then

    def both() -> None:
        first()
        then()

    return both


def sandbox_python() -> str:
    """The interpreter sandbox users run: ours, if every directory on its path lets others in.

    An interpreter under a private home (pyenv in /root) is not executable by the sandbox
    users; scripts/setup.sh builds the venv from /usr/bin/python3 for that reason.
    """
    exe = Path(sys.executable)
    for path in [exe, *exe.resolve().parents, *exe.parents]:
        mode = path.stat().st_mode
        if path.is_dir() and not mode & 0o001:
            raise HarnessError(
                f"{sys.executable} is not usable by sandbox users ({path} is not world-searchable); "
                "build the venv from /usr/bin/python3 (scripts/setup.sh does)"
            )
    if not exe.resolve().stat().st_mode & 0o001:
        raise HarnessError(f"{exe.resolve()} is not executable by sandbox users")
    return sys.executable


def host_addresses() -> list[str]:
    """The host's own IPv4 addresses outside loopback (targets an agent might try)."""
    out = subprocess.run(["ip", "-o", "-4", "addr", "show"], capture_output=True, text=True).stdout
    addrs = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[2] == "inet" and not parts[3].startswith("127."):
            addrs.append(parts[3].split("/")[0])
    return addrs
