"""The guest supervisor: the host's control channel into a VM sandbox.

Runs as root in the guest (systemd unit `simbridge-guest.service`) and reads JSON lines from a
virtio-serial port that only root can open, so nothing the agent starts in the guest can use
it. The host asks it to start and stop processes (as the simulator or agent user), load the
firewall, and run the isolation audit. Besides the standard library it uses only
simbridge._providers._procs (the package it runs from, installed in the guest image), for the
harness's one SIGTERM -> SIGKILL sequence.

Requests `{"id": N, "op": ..., ...}`; replies `{"id": N, "ok": bool, ...}`. `spawn` takes `argv`,
`env`, `user`, `log` and `stdin` (text written to the process's stdin, then closed: how the guest
service's per-episode token reaches it without appearing on a command line).
"""

from __future__ import annotations

import json
import os
import pwd
import signal
import subprocess
import sys
import time
from typing import Any

from simbridge._providers._procs import kill_group

PORT = "/dev/virtio-ports/org.simbridge.control"
USERS = {"sim": "simbridge-sim", "agent": "simbridge-agent"}


class Supervisor:
    def __init__(self) -> None:
        self.procs: dict[int, subprocess.Popen[bytes]] = {}
        self.t0 = time.monotonic()

    def _preexec(self, user: str | None):
        if user is None:
            return None
        pw = pwd.getpwnam(USERS[user])

        def drop() -> None:
            os.setgroups([])
            os.setgid(pw.pw_gid)
            os.setuid(pw.pw_uid)

        return drop

    def handle(self, req: dict[str, Any]) -> dict[str, Any]:
        op = req.get("op")
        if op == "ping":
            return {"ok": True, "uptime_s": time.monotonic() - self.t0, "pid": os.getpid()}
        if op == "spawn":
            env = {
                "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/games",
                "HOME": "/tmp",
                "LANG": "C.UTF-8",
                **req.get("env", {}),
            }
            log = open(req.get("log", "/dev/null"), "ab")
            # `stdin`: text handed to the process on its stdin, then closed (a secret such as
            # the guest service's per-episode token travels this channel, never an argv)
            text = req.get("stdin")
            p = subprocess.Popen(
                req["argv"],
                env=env,
                preexec_fn=self._preexec(req.get("user")),
                start_new_session=True,
                stdin=subprocess.DEVNULL if text is None else subprocess.PIPE,
                stdout=log,
                stderr=log,
                cwd=req.get("cwd", "/tmp"),
            )
            if text is not None and p.stdin is not None:
                try:
                    p.stdin.write(str(text).encode())
                    p.stdin.close()
                except OSError:
                    pass  # the process already ended: poll() tells the host
            self.procs[p.pid] = p
            return {"ok": True, "pid": p.pid}
        if op == "poll":
            polled = self.procs.get(int(req["pid"]))
            return {"ok": polled is not None, "returncode": None if polled is None else polled.poll()}
        if op == "kill":
            pid = int(req["pid"])
            sig = int(req.get("signal", signal.SIGTERM))
            proc = self.procs.pop(pid, None)
            if proc is not None and sig == signal.SIGTERM:
                kill_group(proc, grace_s=4.0)  # within the host's 5 s request timeout
                return {"ok": True}
            try:
                os.killpg(pid, sig)
            except ProcessLookupError:
                pass
            if proc is not None:
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass
            return {"ok": True}
        if op == "run":
            env = {
                "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "HOME": "/tmp",
                "LANG": "C.UTF-8",
                **req.get("env", {}),
            }
            r = subprocess.run(
                req["argv"],
                env=env,
                preexec_fn=self._preexec(req.get("user")),
                capture_output=True,
                text=True,
                timeout=float(req.get("timeout_s", 60)),
                input=req.get("input"),
            )
            return {"ok": True, "returncode": r.returncode, "stdout": r.stdout, "stderr": r.stderr}
        if op == "pids":
            return {
                "ok": True,
                "pids": {u: pwd.getpwnam(n).pw_uid for u, n in USERS.items()},
                "running": [pid for pid, p in self.procs.items() if p.poll() is None],
            }
        if op == "shutdown":
            for pid in list(self.procs):
                self.handle({"op": "kill", "pid": pid})
            subprocess.Popen(["systemctl", "poweroff"])
            return {"ok": True}
        return {"ok": False, "error": f"unknown op {op!r}"}


def main() -> int:
    sup = Supervisor()
    while not os.path.exists(PORT):
        time.sleep(0.1)
    fd = os.open(PORT, os.O_RDWR)  # a virtio-serial port can be opened only once

    def send(obj: dict[str, Any]) -> None:
        data = json.dumps(obj).encode() + b"\n"
        while data:
            data = data[os.write(fd, data) :]

    send({"id": 0, "ok": True, "ready": True})
    buf = b""
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            time.sleep(0.05)  # host side not connected yet
            continue
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            if line.strip():
                send(_answer(sup, line))


def _answer(sup: Supervisor, line: bytes) -> dict[str, Any]:
    """One reply; errors are reported, never fatal: the host needs the channel."""
    try:
        req = json.loads(line)
    except ValueError as exc:
        return {"id": None, "ok": False, "error": f"not JSON: {exc}"}
    try:
        rep = sup.handle(req)
    except Exception as exc:
        rep = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    rep["id"] = req.get("id") if isinstance(req, dict) else None
    return rep


if __name__ == "__main__":
    sys.exit(main())
