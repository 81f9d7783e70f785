"""X display numbers are leased atomically across processes: many sandboxes started at once
from several processes each get their own display and their own Xvfb on it; an X server that
is not ours is stepped around; `simbridge cleanup` and the reaper remove display leftovers of
dead owners only (needs root for the sandboxes; the lease itself is tested without them)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simbridge._errors import HarnessError
from simbridge._isolation import _display
from simbridge._isolation._display import lease_display, owner_pid, remove_stale, x_in_use

LEASER = """
import json, sys, time
from simbridge._isolation._display import lease_display
go = float(sys.argv[1])
while time.time() < go:
    time.sleep(0.001)
leases = [lease_display() for _ in range(int(sys.argv[2]))]
print(json.dumps([l.n for l in leases]), flush=True)
sys.stdin.read()  # held until the test closes our stdin
"""


def _spawn_at(code: str, go: float, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", code, str(go), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_leases_taken_at_the_same_moment_by_many_processes_never_collide(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMBRIDGE_RUN_DIR", str(tmp_path))
    go = time.time() + 1.5  # every process past its imports, then all at once
    procs = [_spawn_at(LEASER, go, "5", env=dict(os.environ)) for _ in range(6)]
    try:
        got = [json.loads(p.stdout.readline() or "null") for p in procs]
        assert all(isinstance(g, list) and len(g) == 5 for g in got), [p.stderr.read() for p in procs if p.poll()]
        numbers = [n for g in got for n in g]
        assert len(set(numbers)) == 30, sorted(numbers)  # 30 leases, 30 numbers
        # held while the processes live: this process gets none of theirs
        mine = lease_display()
        assert mine.n not in numbers
        mine.release()
    finally:
        for p in procs:
            p.stdin.close()
            p.wait(10)
    # their owners are gone: the kernel dropped the flocks, so every one of their numbers can be
    # locked again (checked on the lease files themselves: which number lease_display hands out
    # next also depends on X servers other processes on this machine start meanwhile)
    from simbridge._isolation._display import _try_lock, lease_dir

    fds = [_try_lock(lease_dir() / f"{n}.lock") for n in numbers]
    try:
        assert all(fd is not None for fd in fds), [n for n, fd in zip(numbers, fds) if fd is None]
    finally:
        for fd in fds:
            if fd is not None:
                os.close(fd)


def test_a_lease_file_unlinked_by_its_releaser_is_not_shared(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMBRIDGE_RUN_DIR", str(tmp_path))
    a = lease_display()
    path = tmp_path / "display" / f"{a.n}.lock"
    # a second process opened the file before the holder released (and unlinked) it
    early = os.open(path, os.O_RDWR)
    a.release()
    b = lease_display()
    c = lease_display()
    assert b.n == a.n and c.n != b.n  # the released number is taken once, by one lease
    assert os.stat(path).st_ino == os.fstat(b.fd).st_ino
    os.close(early)
    b.release()
    c.release()


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def _stale_x_files(n: int) -> None:
    """What a SIGKILLed Xvfb leaves: its lock file (its dead pid) and a socket nobody listens on."""
    Path(f"/tmp/.X{n}-lock").write_text(f"{_dead_pid():>10}\n")
    os.makedirs("/tmp/.X11-unix", exist_ok=True)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(f"/tmp/.X11-unix/X{n}")
    s.close()


def _free_number(lo: int) -> int:
    return next(
        n
        for n in range(lo, lo + 200)
        if not os.path.exists(f"/tmp/.X{n}-lock") and not os.path.exists(f"/tmp/.X11-unix/X{n}")
    )


def _start_xvfb(n: int) -> subprocess.Popen[bytes]:
    xvfb = subprocess.Popen(
        ["Xvfb", f":{n}", "-screen", "0", "64x64x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 10
    while owner_pid(n) != xvfb.pid or not os.path.exists(f"/tmp/.X11-unix/X{n}"):
        assert xvfb.poll() is None and time.monotonic() < deadline, f"Xvfb :{n} did not start"
        time.sleep(0.05)
    return xvfb


def test_cleanup_removes_display_leftovers_of_dead_owners_only(tmp_path, monkeypatch, capsys):
    from simbridge._cli import main

    monkeypatch.setenv("SIMBRIDGE_RUN_DIR", str(tmp_path))
    stale = _free_number(900)
    _stale_x_files(stale)
    live = _free_number(stale + 1)
    xvfb = _start_xvfb(live)  # a live X server: never touched
    held = _free_number(live + 1)
    monkeypatch.setattr(_display, "DISPLAY_BASE", held)
    lease = lease_display()  # a live sandbox's lease, its X files not (yet) written
    assert lease.n == held
    _stale_x_files(held)
    try:
        assert not x_in_use(stale) and x_in_use(live)
        assert main(["cleanup"]) == 0
        out = capsys.readouterr().out
        assert f"/tmp/.X{stale}-lock" in out and f"/tmp/.X11-unix/X{stale}" in out, out
        assert not os.path.exists(f"/tmp/.X{stale}-lock") and not os.path.exists(f"/tmp/.X11-unix/X{stale}")
        assert owner_pid(live) == xvfb.pid and os.path.exists(f"/tmp/.X11-unix/X{live}")
        assert os.path.exists(f"/tmp/.X{held}-lock")  # its lease is held: the sandbox's to clear
        again = remove_stale()  # nothing more of ours: the live server's and the held lease's stay
        assert not any(f.endswith((f"X{live}-lock", f"X{live}", f"X{held}-lock", f"X{held}")) for f in again)
    finally:
        os.killpg(xvfb.pid, signal.SIGKILL)
        xvfb.wait()
        lease.release()
    assert not os.path.exists(f"/tmp/.X{held}-lock")  # released: the dead files went with the lease
    gone = remove_stale()  # now its owner is gone
    assert f"/tmp/.X{live}-lock" in gone and f"/tmp/.X11-unix/X{live}" in gone


# --------------------------------------------------------------------------- real sandboxes (root)

root = pytest.mark.skipif(os.geteuid() != 0, reason="network namespaces need root")

SANDBOXES = """
import json, os, sys, threading, time
from simbridge._isolation import NetnsSandbox
from simbridge._isolation._display import owner_pid
go, k = float(sys.argv[1]), int(sys.argv[2])
boxes, errors = [None] * k, []
def one(i):
    try:
        boxes[i] = NetnsSandbox().__enter__()
    except Exception as exc:
        errors.append(repr(exc))
while time.time() < go:
    time.sleep(0.001)
threads = [threading.Thread(target=one, args=(i,)) for i in range(k)]
for t in threads: t.start()
for t in threads: t.join()
out = []
for sb in boxes:
    if sb is None:
        continue
    xvfb = next(p for name, p in sb.processes() if name == "Xvfb")
    n = int(sb.display[1:])
    out.append({"display": n, "xvfb": xvfb.pid, "lock_pid": owner_pid(n), "netns": sb.ns.name,
                "addr": sb.host_addr, "limits": sb.cgroup.report() if sb.cgroup else None})
print(json.dumps({"boxes": out, "errors": errors}), flush=True)
sys.stdin.read()
for sb in boxes:
    if sb is not None:
        sb.close()
"""


def _x_lock_pid(display: int) -> int | None:
    """The pid in display `display`'s X lock file, None when there is none."""
    try:
        return int(Path(f"/tmp/.X{display}-lock").read_text().strip())
    except (FileNotFoundError, ValueError):
        return None


@root
@pytest.mark.root
@pytest.mark.slow
def test_many_sandboxes_started_at_once_from_several_processes_each_own_a_display():
    go = time.time() + 2.0
    procs = [_spawn_at(SANDBOXES, go, "3") for _ in range(4)]
    try:
        reports = []
        for p in procs:
            line = p.stdout.readline()
            assert line, p.stderr.read()
            reports.append(json.loads(line))
        assert [r["errors"] for r in reports] == [[]] * 4
        boxes = [b for r in reports for b in r["boxes"]]
        assert len(boxes) == 12
        assert len({b["display"] for b in boxes}) == 12, sorted(b["display"] for b in boxes)
        assert len({b["netns"] for b in boxes}) == 12 and len({b["addr"] for b in boxes}) == 12
        for b in boxes:  # the X server on each display is that sandbox's own Xvfb, in its own cgroup
            assert b["lock_pid"] == b["xvfb"], b
            assert b["limits"]["applied"], b["limits"]
            r = subprocess.run(["xdpyinfo", "-display", f":{b['display']}"], capture_output=True, text=True)
            assert r.returncode == 0 and "1280x800" in r.stdout, r.stderr
    finally:
        for p in procs:
            p.stdin.close()
            p.wait(60)
    for b in boxes:  # closed: no X file of ours left behind, the lease given back
        owner = _x_lock_pid(b["display"])
        assert owner != b["xvfb"], b
        if owner is None:  # free (any other X server on the machine may take a freed number at once)
            assert not os.path.exists(f"/tmp/.X11-unix/X{b['display']}")


@root
@pytest.mark.root
def test_a_display_held_by_a_server_that_is_not_ours_is_stepped_around(monkeypatch, tmp_path):
    from simbridge._isolation import NetnsSandbox

    monkeypatch.setenv("SIMBRIDGE_RUN_DIR", str(tmp_path))  # our own leases: the test's numbers only
    base = next(n for n in range(1000, 1200) if _free_number(n) == n and _free_number(n + 1) == n + 1)
    foreign = _start_xvfb(base)  # started without a lease, as another tool would
    _stale_x_files(base + 1)
    monkeypatch.setattr(_display, "DISPLAY_BASE", base)
    try:
        with NetnsSandbox() as sb:
            # :base is live and not ours; :base+1 was a dead server's and is reused
            assert sb.display == f":{base + 1}"
            xvfb = next(p for name, p in sb.processes() if name == "Xvfb")
            assert owner_pid(base + 1) == xvfb.pid
        assert not os.path.exists(f"/tmp/.X{base + 1}-lock")
        assert owner_pid(base) == foreign.pid  # the foreign server's files are untouched
    finally:
        os.killpg(foreign.pid, signal.SIGKILL)
        foreign.wait()
        remove_stale()


RUNNER = """
import sys, time
from simbridge._isolation import NetnsSandbox
sb = NetnsSandbox().__enter__()
print(sb.display, sb.cgroup.dirs[0] if sb.cgroup and sb.cgroup.dirs else "-", flush=True)
time.sleep(120)
"""


@root
@pytest.mark.root
@pytest.mark.slow
def test_kill_9_of_the_runner_leaves_no_display_files_nor_cgroup():
    p = subprocess.Popen([sys.executable, "-c", RUNNER], stdout=subprocess.PIPE, text=True)
    display, cgroup = p.stdout.readline().split()
    n = int(display[1:])
    assert x_in_use(n)
    p.send_signal(signal.SIGKILL)
    p.wait()
    deadline = time.monotonic() + 15  # the reaper removes the namespace, then the dead Xvfb's files
    while os.path.exists(f"/tmp/.X{n}-lock") and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not os.path.exists(f"/tmp/.X{n}-lock") and not os.path.exists(f"/tmp/.X11-unix/X{n}")
    if cgroup != "-":  # and the sandbox's cgroup
        while os.path.exists(cgroup) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not os.path.exists(cgroup), cgroup


def test_no_free_display_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMBRIDGE_RUN_DIR", str(tmp_path))
    monkeypatch.setattr(_display, "DISPLAY_BASE", _free_number(1300))  # no live server there
    monkeypatch.setattr(_display, "DISPLAY_COUNT", 1)
    first = lease_display()
    try:
        with pytest.raises(HarnessError, match=r"no free X display number .*simbridge cleanup"):
            lease_display()
    finally:
        first.release()
