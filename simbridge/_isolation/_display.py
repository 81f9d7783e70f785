"""X display numbers for sandboxes, taken atomically across every process on the host.

A sandbox leases a display number before it starts its Xvfb: it opens
`/run/simbridge/display/<n>.lock` and takes an exclusive, non-blocking flock on it, held for the
sandbox's life (closed by `release()`, or by the kernel when the process dies, even on SIGKILL).
Two sandboxes, in one process or in many (Ray workers on one node), never lease the same number.
A number whose X files (`/tmp/.X<n>-lock`, `/tmp/.X11-unix/X<n>`) belong to a live X server that
is not ours (started without a lease) is skipped; the files of a dead one are removed first.
The lease only says who may try a number: the sandbox still checks that the X server on it is
its own Xvfb (`owner_pid`), and tries the next number if another server won it.

`stale_displays()` / `remove_stale()` are `simbridge cleanup`'s part: X lock files whose owner
process is gone, sockets nobody listens on, and lease files nobody holds.
"""

from __future__ import annotations

import errno
import fcntl
import os
import socket
from dataclasses import dataclass
from pathlib import Path

from simbridge._errors import HarnessError

#: display numbers the netns sandboxes use (the local provider's Xvfb picks its own, from 0)
DISPLAY_BASE = 140
DISPLAY_COUNT = 400
X_LOCK = "/tmp/.X{n}-lock"
X_SOCKET = "/tmp/.X11-unix/X{n}"


def lease_dir() -> Path:
    return Path(os.environ.get("SIMBRIDGE_RUN_DIR", "/run/simbridge")) / "display"


def pid_alive(pid: int) -> bool:
    """Whether process `pid` exists (one we may not signal exists too); the one check the
    isolation modules (displays, namespaces, the reaper) decide ownership by."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def owner_pid(n: int) -> int | None:
    """The pid in /tmp/.X<n>-lock (the X server that holds display n), or None (no file, unreadable)."""
    try:
        text = Path(X_LOCK.format(n=n)).read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return None
    try:
        return int(text)
    except ValueError:
        return None


def _listening(path: str) -> bool:
    """Something accepts connections on the unix socket at `path`."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(1.0)
        try:
            s.connect(path)
        except OSError as exc:
            # refused or gone: nobody listens; a timeout or anything else: assume someone does
            return exc.errno not in (errno.ECONNREFUSED, errno.ENOENT)
    return True


def x_in_use(n: int) -> bool:
    """Display n has a live X server (its lock file's pid is alive, or its socket answers)."""
    lock_exists = os.path.exists(X_LOCK.format(n=n))
    pid = owner_pid(n)
    if lock_exists and (pid is None or pid_alive(pid)):
        return True  # a lock being written (no pid yet) counts as in use
    sock = X_SOCKET.format(n=n)
    return os.path.exists(sock) and _listening(sock)


def _remove_x_files(n: int) -> list[str]:
    removed = []
    for f in (X_LOCK.format(n=n), X_SOCKET.format(n=n)):
        try:
            os.unlink(f)
            removed.append(f)
        except FileNotFoundError:
            pass
    return removed


@dataclass
class DisplayLease:
    """Display number `n`, leased by this process until `release()`."""

    n: int
    fd: int

    @property
    def display(self) -> str:
        return f":{self.n}"

    def release(self, *, remove_x_files: bool = True) -> None:
        """Remove the X files our server left on n (if no other live server holds them), then
        drop the lease. Idempotent."""
        if self.fd < 0:
            return
        if remove_x_files and not x_in_use(self.n):
            _remove_x_files(self.n)
        try:
            os.unlink(lease_dir() / f"{self.n}.lock")
        except FileNotFoundError:
            pass
        os.close(self.fd)  # the flock goes with the last descriptor
        self.fd = -1


def _try_lock(path: Path) -> int | None:
    """An fd holding an exclusive flock on the file at `path` (the file still at that path
    once locked), or None when another process holds it. The file is opened without following
    a link and must be a regular file with one link: a symlink, hard link or FIFO planted there
    is never locked or written through (None: that number is not ours to use)."""
    import stat

    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EMLINK, errno.EISDIR, errno.ENXIO):
                return None
            raise
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            os.close(fd)
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        # the holder before us may have unlinked the file as it released it: our lock is then on
        # an orphan inode another process will not see; open the path again
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)


def lease_display(*, skip: set[int] | frozenset[int] = frozenset()) -> DisplayLease:
    """Lease the lowest free display number from DISPLAY_BASE on (see the module docstring)."""
    d = lease_dir()
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise HarnessError(f"cannot create the display lease folder {d}: {exc.strerror or exc}") from None
    for n in range(DISPLAY_BASE, DISPLAY_BASE + DISPLAY_COUNT):
        if n in skip:
            continue
        fd = _try_lock(d / f"{n}.lock")
        if fd is None:
            continue
        if x_in_use(n):  # a server started without a lease (another tool, an older simbridge)
            os.close(fd)
            continue
        _remove_x_files(n)  # a dead server's leftovers: ours to clear now that n is leased
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        return DisplayLease(n, fd)
    raise HarnessError(
        f"no free X display number in :{DISPLAY_BASE}..:{DISPLAY_BASE + DISPLAY_COUNT - 1} "
        "(run `simbridge cleanup` to remove leftovers of crashed runners)"
    )


def _numbers() -> set[int]:
    """Display numbers with any X file or lease file on this host."""
    found: set[int] = set()
    for f in Path("/tmp").glob(".X*-lock"):
        digits = f.name[2:-5]
        if digits.isdigit():
            found.add(int(digits))
    for f in Path("/tmp/.X11-unix").glob("X*"):
        if f.name[1:].isdigit():
            found.add(int(f.name[1:]))
    d = lease_dir()
    if d.is_dir():
        for f in d.glob("*.lock"):
            if f.stem.isdigit():
                found.add(int(f.stem))
    return found


def remove_stale() -> list[str]:
    """Remove display leftovers whose owner is gone: an X lock file whose pid is dead, a socket
    nobody listens on (with no live lock file), and a lease file nobody holds. A display whose
    lease a live process holds, or whose X server is alive, is left alone. Returns the paths removed."""
    removed: list[str] = []
    d = lease_dir()
    for n in sorted(_numbers()):
        lease_path = d / f"{n}.lock"
        had_lease = lease_path.exists()
        fd = None
        if had_lease or DISPLAY_BASE <= n < DISPLAY_BASE + DISPLAY_COUNT:
            if not d.is_dir():
                d.mkdir(parents=True, exist_ok=True)
            fd = _try_lock(lease_path)
            if fd is None:
                continue  # a live sandbox holds it
        try:
            if not x_in_use(n):
                removed += _remove_x_files(n)
            if fd is not None:
                os.unlink(lease_path)
                if had_lease:
                    removed.append(str(lease_path))
        finally:
            if fd is not None:
                os.close(fd)
    return removed


__all__ = ["DISPLAY_BASE", "DisplayLease", "lease_display", "owner_pid", "remove_stale", "x_in_use"]
