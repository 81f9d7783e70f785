"""The cockpit process on a real X display, driven only by synthetic input (xdotool/XTEST),
observed through its telnet port and screenshots."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import pytest

from simbridge.adapters.fgproto import TelnetProps
from simbridge.adapters.jsbsim import _layout as L
from simbridge.adapters.kit import free_port

pytestmark = [pytest.mark.display, pytest.mark.slow]

if shutil.which("xdotool") is None:
    pytest.skip("xdotool is not installed", allow_module_level=True)


@pytest.fixture(scope="module")
def cockpit(xvfb):
    port = free_port()
    env = {**os.environ, "DISPLAY": xvfb, "SDL_AUDIODRIVER": "dummy"}
    env.pop("SDL_VIDEODRIVER", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "simbridge.adapters.jsbsim.cockpit", "--task", "T01", "--telnet-port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        fg = None
        while fg is None:
            assert proc.poll() is None, proc.stdout.read().decode()
            assert time.monotonic() < deadline, "cockpit did not answer"
            try:
                fg = TelnetProps("127.0.0.1", port, timeout_s=5, connect_timeout_s=0.5)
            except Exception:  # noqa: BLE001 - not listening yet
                time.sleep(0.2)
        xdo(xvfb, "mousemove", "640", "300")  # pointer over the window: it gets the keyboard
        time.sleep(0.3)
        yield xvfb, fg
        fg.send_exit()
        fg.close()
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 9)
            proc.wait()


def xdo(display: str, *args: str) -> None:
    subprocess.run(["xdotool", *args], env={**os.environ, "DISPLAY": display}, check=True, timeout=10)


def click(display: str, name: str) -> None:
    x, y = L.centre(name)
    xdo(display, "mousemove", str(x), str(y), "click", "1")
    time.sleep(0.1)


def wait_for(fg: TelnetProps, path: str, pred, timeout_s: float = 3.0) -> float:
    deadline = time.monotonic() + timeout_s
    while True:
        v = fg.get_float(path)
        if pred(v) or time.monotonic() > deadline:
            return v
        time.sleep(0.05)


def grab(display: str):
    import mss
    import numpy as np

    os.environ["DISPLAY"] = display
    with mss.MSS() if hasattr(mss, "MSS") else mss.mss() as s:
        img = s.grab({"left": 0, "top": 0, "width": L.WIDTH, "height": L.HEIGHT})
    return np.array(img)[:, :, 2::-1]  # BGRA -> RGB


def test_bat_switch_click_flips_master_bat(cockpit):
    display, fg = cockpit
    before = fg.get_float("/controls/switches/master-bat")
    click(display, "switch:master_bat")
    assert wait_for(fg, "/controls/switches/master-bat", lambda v: v != before) == 1 - before
    click(display, "switch:master_bat")
    assert wait_for(fg, "/controls/switches/master-bat", lambda v: v == before) == before


def test_keys_move_the_controls(cockpit):
    display, fg = cockpit
    t0 = fg.get_float("/controls/engines/engine[0]/throttle")
    xdo(display, "key", "--delay", "40", "Prior", "Prior", "Prior")
    assert wait_for(fg, "/controls/engines/engine[0]/throttle", lambda v: v >= t0 + 0.029) == pytest.approx(t0 + 0.03)
    xdo(display, "key", "--delay", "40", "Next", "Next", "Next")
    assert wait_for(fg, "/controls/engines/engine[0]/throttle", lambda v: v <= t0 + 1e-6) == pytest.approx(t0)
    xdo(display, "key", "Up")
    assert wait_for(fg, "/controls/flight/elevator", lambda v: v > 0) == pytest.approx(0.05)
    xdo(display, "key", "5")  # centre the controls
    assert wait_for(fg, "/controls/flight/elevator", lambda v: v == 0) == 0
    xdo(display, "key", "bracketright")
    assert wait_for(fg, "/controls/flight/flaps", lambda v: v > 0) == pytest.approx(1 / 3)
    xdo(display, "key", "bracketleft")
    assert wait_for(fg, "/controls/flight/flaps", lambda v: v == 0) == 0


def test_gauge_needles_are_where_the_layout_says(cockpit):
    display, fg = cockpit
    img = grab(display)
    # on the ground, stopped: the ASI needle points at 0 kt, the VSI at 0 fpm
    for g, angle in ((L.ASI, L.asi_angle(0.0)), (L.VSI, L.vsi_angle(0.0))):
        x, y = L.needle_tip(g, angle, 0.6)
        assert tuple(img[y, x]) == L.NEEDLE, g.name
        x, y = L.needle_tip(g, angle + 90, 0.6)
        assert tuple(img[y, x]) != L.NEEDLE, g.name
    # attitude indicator: sky above the centre, ground below (level on the ground)
    assert tuple(img[L.AI.cy - 30, L.AI.cx]) == L.SKY
    assert tuple(img[L.AI.cy + 30, L.AI.cx]) == L.GROUND


def test_cold_and_dark_engine_start_by_mouse_and_keys_only(cockpit):
    display, fg = cockpit
    assert fg.get_float("/engines/engine[0]/running") == 0
    if fg.get_float("/controls/switches/master-bat") < 0.5:
        click(display, "switch:master_bat")
    xdo(display, "mousemove", "640", "300")
    xdo(display, "key", "--delay", "40", *(["m"] * 22))  # mixture full rich
    xdo(display, "key", "--delay", "40", *(["Prior"] * 10))  # throttle 0.1
    for _ in range(3):
        click(display, "primer")
    assert fg.get_float("/controls/engines/engine[0]/primer") == 3
    x, y = L.centre("mags:START")
    xdo(display, "mousemove", str(x), str(y), "mousedown", "1")
    try:
        assert wait_for(fg, "/engines/engine[0]/running", lambda v: v > 0.5, timeout_s=8) == 1
    finally:
        xdo(display, "mouseup", "1")
    assert wait_for(fg, "/controls/switches/magnetos", lambda v: v == 3) == 3  # sprang back to BOTH
    time.sleep(6)
    rpm = fg.get_float("/engines/engine[0]/rpm")
    assert 700 <= rpm <= 1100
    # fuel selector OFF starves it
    click(display, "fuel:OFF")
    assert wait_for(fg, "/engines/engine[0]/running", lambda v: v < 0.5, timeout_s=20) == 0
