"""Child processes that cannot outlive the harness.

Every process a provider starts runs in its own process group (so its own children go with
it) and gets PR_SET_PDEATHSIG=SIGKILL (so even a `kill -9` of the runner takes it down).
`ProcessSet.stop()` sends SIGTERM to each group, then SIGKILL to what is left. Live sets are
also stopped at interpreter exit.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import signal
import subprocess
import threading
import time
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

_PR_SET_PDEATHSIG = 1
_LIVE: "weakref.WeakSet[ProcessSet]" = weakref.WeakSet()


def _die_with_parent() -> None:  # runs in the child between fork and exec
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except OSError:
        pass


class ProcessSet:
    """The processes of one sandbox."""

    def __init__(self, log_dir: str | Path | None = None) -> None:
        self.log_dir = Path(log_dir) if log_dir else None
        self.procs: list[tuple[str, subprocess.Popen]] = []
        self._lock = threading.Lock()
        _LIVE.add(self)

    def spawn(
        self,
        cmd: Sequence[str],
        *,
        name: str | None = None,
        env: dict[str, str] | None = None,
        cwd: str | Path | None = None,
        stdout: Any = None,
        stderr: Any = None,
        **kw: Any,
    ) -> subprocess.Popen:
        """Start `cmd` in a new process group; output goes to LOG_DIR/NAME.log unless given."""
        name = name or Path(cmd[0]).name
        log = None
        if stdout is None and self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            log = open(self.log_dir / f"{name}.log", "ab")
            stdout = log
            if stderr is None:
                stderr = subprocess.STDOUT
        try:
            p = subprocess.Popen(
                list(cmd),
                env=env,
                cwd=cwd,
                stdin=kw.pop("stdin", subprocess.DEVNULL),
                stdout=stdout if stdout is not None else subprocess.DEVNULL,
                stderr=stderr if stderr is not None else subprocess.DEVNULL,
                start_new_session=True,
                preexec_fn=_die_with_parent,
                **kw,
            )
        finally:
            if log is not None:
                log.close()
        with self._lock:
            self.procs.append((name, p))
        return p

    def processes(self) -> list[tuple[str, subprocess.Popen]]:
        """(name, process) of every process started here and not yet stopped, oldest first."""
        with self._lock:
            return list(self.procs)

    def pids(self) -> list[int]:
        with self._lock:
            return [p.pid for _, p in self.procs]

    def stop(self, grace_s: float = 3.0) -> None:
        """SIGTERM every process group, wait up to `grace_s`, SIGKILL the rest. Idempotent."""
        with self._lock:
            procs = list(reversed(self.procs))
            self.procs.clear()
        for _, p in procs:
            _signal_group(p, signal.SIGTERM)
        t_end = time.monotonic() + grace_s
        for _, p in procs:
            _wait(p, max(0.0, t_end - time.monotonic()))
        for _, p in procs:
            _signal_group(p, signal.SIGKILL)  # also reaps stragglers left in the group
            _wait(p, 2.0)


def _signal_group(p: Any, sig: int) -> None:
    """`sig` to `p`'s process group when it leads one on this host, else to `p` alone.

    A handle that is not a host `Popen` (a VM guest's process) is signalled through its own
    terminate()/kill(), which the guest's supervisor applies to the process's group there."""
    if not isinstance(p, subprocess.Popen):
        try:
            p.kill() if sig == signal.SIGKILL else p.terminate()
        except (ProcessLookupError, OSError):
            pass
        return
    try:
        # start_new_session: pgid == pid. A group with p's id exists only while p leads it (or
        # its stragglers live on after p was reaped); for a process that leads no group, ESRCH
        os.killpg(p.pid, sig)
        return
    except PermissionError:
        return
    except ProcessLookupError:
        pass
    try:
        if p.poll() is None:
            p.send_signal(sig)
    except (ProcessLookupError, PermissionError):
        pass


def _wait(p: Any, timeout_s: float) -> bool:
    """True once `p` has exited, False when it still runs after `timeout_s`."""
    try:
        p.wait(timeout_s)
        return True
    except subprocess.TimeoutExpired:
        return False


def kill_group(p: Any, grace_s: float = 3.0) -> None:
    """End one process (a group leader started with `start_new_session`, or any `ProcessHandle`):
    SIGTERM to its group, up to `grace_s` to exit, then SIGKILL to the group (also the
    stragglers it left). The one SIGTERM -> SIGKILL sequence of the harness."""
    _signal_group(p, signal.SIGTERM)
    _wait(p, grace_s)
    _signal_group(p, signal.SIGKILL)  # also reaps stragglers left in the group
    _wait(p, grace_s)


def end_process(p: Any, *, exit_wait_s: float = 3.0, grace_s: float = 3.0) -> None:
    """End a process that was asked to quit on its own (a simulator's exit command): wait up to
    `exit_wait_s` for it, then `kill_group`. Nothing to do when it has already exited."""
    if p is None or p.poll() is not None:
        return
    if not _wait(p, exit_wait_s):
        kill_group(p, grace_s)


@atexit.register
def _stop_all() -> None:
    for ps in list(_LIVE):
        try:
            ps.stop(grace_s=1.0)
        except Exception:
            pass
