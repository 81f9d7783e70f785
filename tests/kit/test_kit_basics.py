"""The kit's free port, process ending and drain, on real sockets, processes and threads."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time

import pytest

from simbridge.adapters.kit import Drain, end_process, free_port, kill_group


@pytest.mark.parametrize("kind", [socket.SOCK_STREAM, socket.SOCK_DGRAM])
def test_free_port_can_be_bound(kind):
    port = free_port(kind)
    assert 1024 <= port <= 65535
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", port))


def _wait_for(pred, timeout_s=20.0):
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.02)
    return False


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


_IGNORES_TERM_WITH_CHILD = (
    "import signal, subprocess, sys, time\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "c = subprocess.Popen([sys.executable, '-c', 'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)'])\n"
    "print(c.pid, flush=True)\n"
    "time.sleep(60)\n"
)


def test_kill_group_kills_a_leader_that_ignores_sigterm_and_its_child():
    p = subprocess.Popen(
        [sys.executable, "-c", _IGNORES_TERM_WITH_CHILD], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    child = int(p.stdout.readline())
    kill_group(p, grace_s=0.2)
    assert p.returncode == -9
    assert _wait_for(lambda: not _alive(child)), "the group's child outlived kill_group"


def test_kill_group_on_a_process_that_leads_no_group():
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    kill_group(p, grace_s=5.0)
    assert p.returncode == -15  # SIGTERM was enough; the harness's own group was not signalled


def test_end_process_waits_for_a_process_that_quits():
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.3)"], start_new_session=True)
    end_process(p, exit_wait_s=30.0, grace_s=0.1)
    assert p.returncode == 0


def test_drain_hands_over_everything_in_order_once():
    d: Drain[int] = Drain()
    assert d.age_s() == float("inf") and d.drain() == []

    def produce():
        for i in range(5000):
            d.put(i)

    threads = [threading.Thread(target=produce) for _ in range(2)]
    got: list[int] = []
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        got += d.drain()
    for t in threads:
        t.join()
    got += d.drain()
    assert len(got) == 10_000 and sorted(got) == sorted(list(range(5000)) * 2)
    assert d.n_put == 10_000 and d.age_s() < 60 and d.drain() == []


def test_drain_bounded_counts_what_it_dropped():
    d: Drain[int] = Drain(max_items=3)
    d.extend(range(5))
    assert d.drain() == [2, 3, 4] and d.n_overflow == 2


def test_vm_guest_supervisor_kill_ends_a_process_group_that_ignores_sigterm():
    from simbridge._vm._guest import Supervisor

    sup = Supervisor()
    p = subprocess.Popen(
        [sys.executable, "-c", _IGNORES_TERM_WITH_CHILD], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    child = int(p.stdout.readline())
    sup.procs[p.pid] = p
    assert sup.handle({"op": "kill", "pid": p.pid}) == {"ok": True}
    assert p.returncode == -9 and p.pid not in sup.procs
    assert _wait_for(lambda: not _alive(child))


def test_a_window_process_gets_the_sandboxs_video_driver_not_the_runners(monkeypatch, tmp_path):
    """A runner process that draws off-screen itself (SDL_VIDEODRIVER=dummy) must not send the
    simulator's window nowhere: with a display the window process is on X11 unless the sandbox
    says otherwise."""
    from simbridge._adapter import Sandbox
    from simbridge.adapters.kit import window_env

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_VIDEO_X11_VISUALID", "0x21")
    monkeypatch.setenv("SIMBRIDGE_PROBE", "kept")
    env = window_env(Sandbox(display=":7", env={}, workdir=str(tmp_path)))
    assert env["SDL_VIDEODRIVER"] == "x11" and env["DISPLAY"] == ":7"
    assert "SDL_VIDEO_X11_VISUALID" not in env and env["SIMBRIDGE_PROBE"] == "kept"
    assert env["SDL_AUDIODRIVER"] == "dummy"
    chosen = window_env(Sandbox(display=":7", env={"SDL_VIDEODRIVER": "wayland"}, workdir=str(tmp_path)))
    assert chosen["SDL_VIDEODRIVER"] == "wayland"
    headless = window_env(Sandbox(display="", env={}, workdir=str(tmp_path)))
    assert headless["SDL_VIDEODRIVER"] == "dummy"


def test_a_simulator_without_its_window_on_the_display_is_a_harness_fault(tmp_path):
    from simbridge._adapter import Sandbox
    from simbridge._errors import HarnessError
    from simbridge.adapters.kit import check_window

    shown = Sandbox(display=":7", env={}, workdir=str(tmp_path))
    check_window("drive", shown, "x11")
    check_window("drive", Sandbox(display="", env={}, workdir=str(tmp_path)), "dummy")  # no display: none wanted
    with pytest.raises(HarnessError, match=r"drive: the simulator's window is not on display :7 .*'dummy'"):
        check_window("drive", shown, "dummy")
