"""The guest service on a real Xvfb, as a separate process: authentication per episode (a wrong
token refused and logged), and the agent port working through it exactly as through X11 (the
same pixels, the cursor where it was put, keys held down and released exactly)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

from simbridge._agent_port import AgentPort
from simbridge._agent_port._transport import GuestClient, guest
from simbridge._errors import HarnessError, SimbridgeError

pytestmark = [pytest.mark.display, pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb not installed")]


def poll(cond, timeout_s: float = 10.0):
    t_end = time.monotonic() + timeout_s
    while time.monotonic() < t_end:
        v = cond()
        if v:
            return v
        time.sleep(0.02)
    return cond()


def _pressed(d, keycode: int) -> bool:
    keymap = d.query_keymap()
    return bool(keymap[keycode // 8] & (1 << (keycode % 8)))


def test_wrong_token_refused_and_logged_then_right_token_served(guest_service):
    with pytest.raises(HarnessError, match="refused the episode's token"):
        GuestClient(guest_service.addr, "not-the-token")
    assert poll(lambda: "refused connection from 127.0.0.1" in guest_service.log_text())
    assert guest_service.proc.poll() is None  # still serving
    client = GuestClient(guest_service.addr, guest_service.token)
    try:
        assert client.screen_size == (1280, 800)
        reply, _ = client.call("ping")
        assert reply["ok"]
    finally:
        client.close()


def test_token_file_is_reread_per_connection(guest_service):
    old = guest_service.token
    guest_service.token_file.write_text("episode-2-token\n")
    with pytest.raises(HarnessError, match="refused"):
        GuestClient(guest_service.addr, old)
    GuestClient(guest_service.addr, "episode-2-token").close()


def test_port_through_guest_sees_and_acts_like_x11(sandbox, guest_service):
    from Xlib import XK, display as xdisplay

    port = AgentPort(sandbox.display, transport=guest(guest_service.addr, guest_service.token))
    x11 = AgentPort(sandbox.display)  # the X11 path on the same display, as the reference
    d = xdisplay.Display(sandbox.display)
    try:
        assert port.transport.kind == "guest" and x11.transport.kind == "x11"
        assert port.screen.size == x11.screen.size == (1280, 800)
        # the same pixels: a window drawn by an X client shows identically on both paths
        win = d.screen().root.create_window(
            100, 120, 300, 200, 0, d.screen().root_depth, background_pixel=d.screen().white_pixel
        )
        win.map()
        d.sync()
        assert poll(lambda: (x11.screen.grab_bgr()[220, 250] == 255).all())
        a, b = port.screen.grab_bgr(), x11.screen.grab_bgr()
        assert a.shape == b.shape == (800, 1280, 3) and np.array_equal(a, b)
        shot = port.execute("screenshot", {"format": "png", "region": [100, 120, 400, 320]})
        assert (shot.width, shot.height) == (300, 200) and (shot.to_array() == 255).all()
        # the cursor goes where the guest moved it, as X sees it
        port.execute("mouse_move", {"x": 321, "y": 456})
        assert x11.execute("cursor_position") == (321, 456) == port.execute("cursor_position")
        # key_down holds the key until key_up: X's keymap shows it pressed in between
        code_a = d.keysym_to_keycode(XK.string_to_keysym("a"))
        code_ctrl = d.keysym_to_keycode(XK.string_to_keysym("Control_L"))
        port.execute("key_down", {"keys": "ctrl+a"})
        assert _pressed(d, code_a) and _pressed(d, code_ctrl)
        port.execute("key_up", {"keys": "ctrl+a"})
        assert not _pressed(d, code_a) and not _pressed(d, code_ctrl)
        # a key held for hold_s is down while the pacer holds it and up afterwards
        code_left = d.keysym_to_keycode(XK.string_to_keysym("Left"))
        seen = []
        port.pacer.hold = lambda s: seen.append(_pressed(d, code_left))  # type: ignore[method-assign]
        port.execute("key", {"keys": "Left", "hold_s": 0.3})
        assert seen == [True] and not _pressed(d, code_left)
        # an unknown key is the agent's mistake, as on X11
        with pytest.raises(SimbridgeError, match="unknown key name"):
            port.execute("key", {"keys": "NoSuchKey"})
        # a key left held when the episode ends is released
        port.execute("key_down", {"keys": "shift"})
        port.end_episode("time limit")
        assert not _pressed(d, d.keysym_to_keycode(XK.string_to_keysym("Shift_L")))
    finally:
        port.close()
        x11.close()
        d.close()


def test_connection_closing_releases_held_keys(sandbox, guest_service):
    from Xlib import XK, display as xdisplay

    d = xdisplay.Display(sandbox.display)
    client = GuestClient(guest_service.addr, guest_service.token)
    code = d.keysym_to_keycode(XK.string_to_keysym("Up"))
    try:
        client.call("key_down", keys="Up")
        assert _pressed(d, code)
    finally:
        client.close()  # the host went away mid-hold
    assert poll(lambda: not _pressed(d, code))
    d.close()


def test_cli_bad_token_inputs_exit_2(tmp_path):
    empty = tmp_path / "empty"
    empty.write_text("\n")
    for args, says in (
        (["--token-file", str(empty)], "empty"),
        (["--token-file", str(tmp_path / "missing")], "cannot read"),
        (["--listen", "nonsense"], "not HOST:PORT"),
    ):
        r = subprocess.run(
            [sys.executable, "-m", "simbridge._cli", "guest", *args],
            capture_output=True,
            text=True,
            timeout=60,
            env={"PATH": "/usr/bin:/bin", "SIMBRIDGE_GUEST_TOKEN": ""},
        )
        assert r.returncode == 2, r.stderr
        [line] = r.stderr.strip().splitlines()
        assert line.startswith("simbridge: error:") and says in line


def test_compressed_frames_equal_raw_frames(guest_service):
    """Over a network the guest zlib-compresses frames (level 1); on loopback it sends them raw:
    the host decodes both to the same image."""
    from simbridge._agent_port._transport import GuestScreen

    client = GuestClient(guest_service.addr, guest_service.token)
    try:
        assert client.zlib_level == 0  # loopback
        screen = GuestScreen(client)
        raw = screen.grab_bgr()
        client.zlib_level = 1
        packed = screen.grab_bgr()
        reply, payload = client.call("grab", zlib=1)
        assert reply["zlib"] is True and len(payload) < 1280 * 800 * 4 // 10  # an idle screen packs small
        assert np.array_equal(raw, packed)
    finally:
        client.close()


def test_silent_peer_is_dropped_after_the_auth_timeout(guest_service):
    import socket

    from simbridge.guest._service import AUTH_TIMEOUT_S

    host, port = guest_service.addr.rsplit(":", 1)
    silent = socket.create_connection((host, int(port)))
    try:
        t0 = time.monotonic()
        assert poll(lambda: "ended: timed out" in guest_service.log_text(), AUTH_TIMEOUT_S + 10)
        assert time.monotonic() - t0 >= AUTH_TIMEOUT_S - 1
        GuestClient(guest_service.addr, guest_service.token).close()  # the service serves the next host
    finally:
        silent.close()
