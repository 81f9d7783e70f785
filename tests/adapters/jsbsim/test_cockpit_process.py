"""The cockpit process lifecycle without a display (SDL dummy driver)."""

import os
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.slow


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as fh:
        return fh.read().split()[2] != "Z"


def test_cockpit_exits_when_its_launcher_dies():
    cmd = (
        f"{sys.executable} -m simbridge.adapters.jsbsim.cockpit --headless --task T09 --telnet-port 0 "
        f">/dev/null 2>&1 & echo $!; sleep 4"
    )
    sh = subprocess.Popen(["sh", "-c", cmd], stdout=subprocess.PIPE, text=True, start_new_session=True)
    pid = int(sh.stdout.readline())
    try:
        time.sleep(3)
        assert _alive(pid)  # running while its launcher lives
        sh.wait(timeout=10)
        deadline = time.monotonic() + 8
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(pid)
    finally:
        if _alive(pid):
            os.kill(pid, 9)
