"""One VM sandbox: QEMU/KVM booting a fresh overlay of the guest image.

Networking is QEMU's user-mode stack with `restrict=on`: the guest can reach nothing, neither
the host nor the outside; the host reaches the guest only through ports it forwards to its
own loopback (`forward()`, added at run time through the QEMU monitor). The guest supervisor
listens on a virtio-serial port wired to a unix socket in the episode's workdir.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from simbridge._errors import HarnessError
from simbridge._providers._procs import kill_group
from simbridge._net import free_port


def resolve_accel(accel: str) -> str:
    """`auto` → kvm when /dev/kvm is usable and the CPU shows hardware virtualisation.

    Inside another VM, /dev/kvm may exist while the CPU flags lack vmx/svm: there, guests hang
    right after the real-mode stub (seen on our CI machines), so software emulation is used.
    """
    if accel != "auto":
        return accel
    try:
        flags = open("/proc/cpuinfo").read()
    except OSError:
        flags = ""
    hw = " vmx" in flags or " svm" in flags
    return "kvm" if hw and os.access("/dev/kvm", os.R_OK | os.W_OK) else "tcg"


#: the guest's size: what QEMU is given (`-m`, `-smp`) and what an eval admits a VM episode by
#: (`simbridge._eval._cost`)
VM_MEM_MB = 2048
VM_CPUS = 2


class VmInstance:
    def __init__(
        self,
        image_dir: Path,
        workdir: Path,
        *,
        mem_mb: int = VM_MEM_MB,
        cpus: int = VM_CPUS,
        boot_timeout_s: float = 300.0,
        accel: str | None = None,
    ) -> None:
        self.image_dir, self.workdir = Path(image_dir), Path(workdir)
        #: "kvm", "tcg" (software emulation, 10-20x slower) or "auto"
        self.accel = resolve_accel(accel or os.environ.get("SIMBRIDGE_VM_ACCEL", "auto"))
        self.mem_mb, self.cpus, self.boot_timeout_s = mem_mb, cpus, boot_timeout_s
        self.proc: subprocess.Popen[bytes] | None = None
        self._ctl: socket.socket | None = None
        self._buf = b""
        self._next_id = 1
        #: one request at a time on the channel (the runner, the recorder and the agent's
        #: lockstep pacer may all ask about a guest process)
        self._lock = threading.Lock()
        #: set once the supervisor failed to answer: later requests fail at once, so tearing
        #: down a hung guest does not wait out every request's timeout
        self.hung: str | None = None
        self.forwards: dict[tuple[str, int], int] = {}
        self.boot_s: float | None = None
        self.sock_dir: Path | None = None

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> "VmInstance":
        base = self.image_dir / "base.qcow2"
        for f in (base, self.image_dir / "vmlinuz", self.image_dir / "initrd.img"):
            if not f.exists():
                raise HarnessError(f"{f}: missing; build the guest image with `simbridge vm build`")
        if self.accel == "kvm" and not os.access("/dev/kvm", os.R_OK | os.W_OK):
            raise HarnessError("/dev/kvm is not usable (set SIMBRIDGE_VM_ACCEL=tcg for software emulation)")
        qemu = shutil.which("qemu-system-x86_64")
        if qemu is None:
            raise HarnessError("qemu-system-x86_64 not found (apt-get install qemu-system-x86)")
        self.workdir.mkdir(parents=True, exist_ok=True)
        overlay = self.workdir / "overlay.qcow2"
        overlay.unlink(missing_ok=True)
        subprocess.run(
            ["qemu-img", "create", "-q", "-f", "qcow2", "-b", str(base.resolve()), "-F", "qcow2", str(overlay)],
            check=True,
        )
        # unix socket paths must fit in 108 bytes: a bundle under a long --out path would not,
        # so the sockets live in a short private folder, removed in stop()
        self.sock_dir = Path(tempfile.mkdtemp(prefix="sbvm-"))
        self.ctl_path = self.sock_dir / "control.sock"
        self.mon_path = self.sock_dir / "monitor.sock"
        accel = (
            ["-accel", "kvm", "-machine", "q35", "-cpu", "host,arch-capabilities=off"]
            if self.accel == "kvm"
            else ["-accel", "tcg,thread=multi", "-machine", "q35", "-cpu", "max"]
        )
        argv = [
            qemu,
            *accel,
            "-m",
            str(self.mem_mb),
            "-smp",
            str(self.cpus),
            "-nodefaults",
            "-no-user-config",
            "-display",
            "none",
            "-kernel",
            str(self.image_dir / "vmlinuz"),
            "-initrd",
            str(self.image_dir / "initrd.img"),
            "-append",
            "root=/dev/vda rw console=ttyS0 loglevel=4",
            "-drive",
            f"file={overlay},if=virtio,format=qcow2",
            "-netdev",
            "user,id=net0,restrict=on",
            "-device",
            "virtio-net-pci,netdev=net0",
            "-device",
            "virtio-serial",
            "-chardev",
            f"socket,id=ctl,path={self.ctl_path},server=on,wait=off",
            "-device",
            "virtserialport,chardev=ctl,name=org.simbridge.control",
            "-serial",
            f"file:{self.workdir / 'console.log'}",
            "-monitor",
            f"unix:{self.mon_path},server=on,wait=off",
        ]
        t0 = time.monotonic()
        from simbridge._providers._procs import _die_with_parent

        # QEMU dies with the runner, also after `kill -9` (the guest and its overlay go with it)
        self.proc = subprocess.Popen(
            argv,
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            preexec_fn=_die_with_parent,
            stdout=open(self.workdir / "qemu.log", "wb"),
            stderr=subprocess.STDOUT,
        )
        try:
            self._connect(t0)
        except BaseException:
            self.stop()
            raise
        self.boot_s = time.monotonic() - t0
        return self

    def _connect(self, t0: float) -> None:
        while not self.ctl_path.exists():
            self._check_alive(t0)
            time.sleep(0.05)
        self._ctl = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._ctl.connect(str(self.ctl_path))
        self._ctl.settimeout(1.0)
        while True:  # the supervisor greets once it is up; ping in case the greeting was missed
            self._check_alive(t0)
            try:
                self._send({"id": 0, "op": "ping"})
                line = self._readline(2.0)
                if line and json.loads(line).get("ok"):
                    return
            except (TimeoutError, socket.timeout):
                pass

    def _check_alive(self, t0: float) -> None:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise HarnessError(f"qemu exited with {self.proc.returncode}; see {self.workdir / 'qemu.log'}")
        if time.monotonic() - t0 > self.boot_timeout_s:
            raise HarnessError(
                f"guest did not answer within {self.boot_timeout_s:.0f} s; see {self.workdir / 'console.log'}"
            )

    def stop(self) -> None:
        if self._ctl is not None:
            try:
                self._ctl.close()
            except OSError:
                pass
            self._ctl = None
        if self.proc is not None and self.proc.poll() is None:
            kill_group(self.proc, grace_s=10.0)
        self.proc = None
        (self.workdir / "overlay.qcow2").unlink(missing_ok=True)
        if self.sock_dir is not None:
            shutil.rmtree(self.sock_dir, ignore_errors=True)
            self.sock_dir = None

    # ------------------------------------------------------------------ control channel
    def _send(self, obj: dict[str, Any]) -> None:
        assert self._ctl is not None
        self._ctl.sendall(json.dumps(obj).encode() + b"\n")

    def _readline(self, timeout_s: float) -> bytes:
        assert self._ctl is not None
        end = time.monotonic() + timeout_s
        while b"\n" not in self._buf:
            if time.monotonic() > end:
                raise TimeoutError("no reply from the guest supervisor")
            try:
                chunk = self._ctl.recv(65536)
            except socket.timeout:
                continue
            if not chunk:
                raise HarnessError("guest control channel closed")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return line

    def request(self, op: str, *, timeout_s: float = 60.0, **kw: Any) -> dict[str, Any]:
        """One supervisor request; a guest that does not answer within `timeout_s` (or a closed
        channel) is a HarnessError. A late answer to an earlier request is skipped by its id."""
        with self._lock:
            if self._ctl is None:
                raise HarnessError(f"guest {op}: the control channel is closed")
            if self.hung is not None:
                raise HarnessError(f"guest {op}: {self.hung}")
            rid = self._next_id
            self._next_id += 1
            try:
                self._send({"id": rid, "op": op, **kw})
                while True:
                    rep = json.loads(self._readline(timeout_s))
                    if rep.get("id") == rid:
                        break
            except TimeoutError:
                self.hung = f"the guest supervisor did not answer {op} within {timeout_s:g} s"
                raise HarnessError(f"guest {op}: {self.hung}") from None
            except OSError as exc:
                raise HarnessError(f"guest {op}: control channel: {exc}") from None
        if not rep.get("ok"):
            raise HarnessError(f"guest {op}: {rep.get('error', rep)}")
        return rep

    # ------------------------------------------------------------------ ports
    def _monitor(self, command: str) -> str:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.connect(str(self.mon_path))
            s.settimeout(2.0)
            s.sendall(command.encode() + b"\n")
            time.sleep(0.2)
            try:
                return s.recv(65536).decode(errors="replace")
            except socket.timeout:
                return ""

    def forward(self, guest_port: int, proto: str = "tcp") -> int:
        """Forward a guest port to a free port on the host's loopback; returns the host port."""
        key = (proto, guest_port)
        if key not in self.forwards:
            host_port = free_port()
            out = self._monitor(f"hostfwd_add net0 {proto}:127.0.0.1:{host_port}-:{guest_port}")
            if "Could not" in out or "invalid" in out.lower():
                raise HarnessError(f"qemu hostfwd_add {proto} {guest_port}: {out.strip()}")
            self.forwards[key] = host_port
        return self.forwards[key]
