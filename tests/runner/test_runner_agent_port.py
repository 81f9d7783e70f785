"""The agent port on a real Xvfb display: capture, XTEST input, logging, MCP transport, and the
computer-use mappings."""

from __future__ import annotations

import time

import pytest

from simbridge._agent_port import (
    ACTIONS,
    AgentPort,
    AgentPortClient,
    DirectClient,
    EpisodeOver,
    McpPortServer,
    connect,
    run_anthropic_action,
    run_openai_action,
)
from simbridge._agent_port._input import MIN_TAP_SPACING_S, XInput, split_combo
from simbridge._errors import SimbridgeError

from support.runner import needs_xvfb


def test_split_combo():
    assert split_combo("ctrl+shift+a") == ["ctrl", "shift", "a"]
    assert split_combo("+") == ["+"]
    assert split_combo("ctrl++") == ["ctrl", "+"]
    assert split_combo("Left") == ["Left"]


class Recording(AgentPortClient):
    """A client that records calls instead of acting (checks the mappings only)."""

    def __init__(self):
        self.calls = []

    def _call(self, kind, args):
        self.calls.append((kind, {k: v for k, v in args.items() if v is not None}))
        return (1, 2) if kind == "cursor_position" else None


def test_anthropic_mapping():
    c = Recording()
    run_anthropic_action(c, {"action": "left_click", "coordinate": [10, 20]})
    run_anthropic_action(c, {"action": "key", "text": "ctrl+s"})
    run_anthropic_action(c, {"action": "left_click_drag", "start_coordinate": [1, 2], "coordinate": [30, 40]})
    run_anthropic_action(c, {"action": "scroll", "coordinate": [5, 6], "scroll_direction": "up", "scroll_amount": 2})
    run_anthropic_action(c, {"action": "hold_key", "text": "Left", "duration": 1.5})
    run_anthropic_action(c, {"action": "triple_click", "coordinate": [7, 8]})
    assert c.calls == [
        ("click", {"x": 10, "y": 20, "button": "left", "count": 1}),
        ("key", {"keys": "ctrl+s", "hold_s": 0.05, "repeat": 1}),
        ("drag", {"path": [[1, 2], [30, 40]], "button": "left", "duration_s": 0.3}),
        ("scroll", {"x": 5, "y": 6, "dx": 0, "dy": -2}),
        ("key", {"keys": "Left", "hold_s": 1.5, "repeat": 1}),
        ("click", {"x": 7, "y": 8, "button": "left", "count": 3}),
    ]
    with pytest.raises(SimbridgeError, match="unsupported"):
        run_anthropic_action(c, {"action": "zoom_to_moon"})


def test_openai_mapping():
    c = Recording()
    run_openai_action(c, {"type": "click", "button": "right", "x": 3, "y": 4})
    run_openai_action(c, {"type": "keypress", "keys": ["CTRL", "A"]})
    run_openai_action(c, {"type": "drag", "path": [{"x": 1, "y": 1}, {"x": 2, "y": 3}, {"x": 5, "y": 8}]})
    run_openai_action(c, {"type": "scroll", "x": 0, "y": 0, "scroll_x": 0, "scroll_y": 250})
    run_openai_action(c, {"type": "wait"})
    assert c.calls == [
        ("click", {"x": 3, "y": 4, "button": "right", "count": 1}),
        ("key", {"keys": "ctrl+a", "hold_s": 0.05, "repeat": 1}),
        ("drag", {"path": [[1, 1], [2, 3], [5, 8]], "button": "left", "duration_s": 0.3}),
        ("scroll", {"x": 0, "y": 0, "dx": 0, "dy": 2}),
        ("wait", {"seconds": 2.0}),
    ]


@needs_xvfb
def test_screenshot_and_pointer(sandbox):
    log = []
    port = AgentPort(sandbox.display, clock=lambda: 12.5, log=log.append)
    c = DirectClient(port)
    try:
        png = c.screenshot("png")
        assert (png.width, png.height, png.format) == (1280, 800, "png")
        assert png.data[:8] == b"\x89PNG\r\n\x1a\n"
        assert png.to_array().shape == (800, 1280, 3)
        jpg = c.screenshot("jpeg", scale=0.5)
        assert (jpg.width, jpg.height) == (640, 400) and jpg.data[:2] == b"\xff\xd8"
        c.mouse_move(321, 123)
        assert c.cursor_position() == (321, 123)
        c.drag([(10, 10), (200, 150)], duration_s=0.05)
        assert c.cursor_position() == (200, 150)
    finally:
        port.close()
    kinds = [r["kind"] for r in log]
    assert kinds == ["screenshot", "screenshot", "mouse_move", "drag"]  # clock reads are not logged
    assert all(r["t"] == 12.5 and r["t_wall"] > 1e9 for r in log)
    assert log[2]["args"] == {"x": 321, "y": 123}


def test_an_in_process_png_is_the_pixels_its_bytes_decode_to(sandbox):
    """An in-process PNG keeps its pixels and encodes only when its bytes are read: the pixels
    an in-process agent gets are exactly what the PNG decodes to, region and scale included."""
    import cv2
    import numpy as np

    port = AgentPort(sandbox.display, clock=lambda: 0.0)
    c = DirectClient(port)
    try:
        for kw in ({}, {"region": [100, 50, 740, 450]}, {"scale": 0.5}):
            shot = c.screenshot("png", **kw)
            pixels = shot.to_array()
            pixels[0, 0] = 255 - pixels[0, 0]  # the caller's copy: changing it changes nothing
            decoded = cv2.imdecode(np.frombuffer(shot.data, np.uint8), cv2.IMREAD_COLOR)
            assert decoded.shape == (shot.height, shot.width, 3)
            assert np.array_equal(shot.to_array(), decoded), kw
            assert not np.array_equal(pixels, decoded)
    finally:
        port.close()


@needs_xvfb
def test_bad_actions_are_rejected(sandbox):
    port = AgentPort(sandbox.display)
    try:
        with pytest.raises(SimbridgeError, match="unknown action"):
            port.execute("teleport", {})
        with pytest.raises(SimbridgeError, match="unknown argument"):
            port.execute("key", {"keys": "a", "force": 3})
        with pytest.raises(SimbridgeError, match="missing argument"):
            port.execute("type", {})
        with pytest.raises(SimbridgeError, match="unknown key"):
            port.execute("key", {"keys": "NoSuchKeyName"})
        port.end_episode("time limit")
        with pytest.raises(EpisodeOver):
            port.execute("screenshot", {})
    finally:
        port.close()


@needs_xvfb
def test_taps_of_one_key_are_spaced(sandbox):
    x = XInput(sandbox.display)
    events = []
    real = x._fake_key
    x._fake_key = lambda code, down: (events.append((code, down, time.monotonic())), real(code, down))
    try:
        x.key("a", hold_s=0.0, repeat=3)
    finally:
        x.close()
    releases = [t for _, down, t in events if not down]
    presses = [t for _, down, t in events if down]
    assert len(presses) == 3
    gaps = [p - r for r, p in zip(releases, presses[1:])]
    assert min(gaps) >= MIN_TAP_SPACING_S


@needs_xvfb
def test_mcp_transport(sandbox):
    log = []
    port = AgentPort(sandbox.display, clock=lambda: 3.0, log=log.append)
    server = McpPortServer(port).start()
    client = connect(server.url)
    try:
        shot = client.screenshot("jpeg", scale=0.25)
        assert (shot.width, shot.height) == (320, 200)
        assert shot.to_array().shape == (200, 320, 3)
        client.mouse_move(50, 60)
        assert client.cursor_position() == (50, 60)
        assert client.elapsed() == 3.0
        with pytest.raises(SimbridgeError):
            client.key("NoSuchKeyName")
        client.done("finished")
        assert port.outcome == ("done", "finished")
        port.end_episode("over")
        with pytest.raises(EpisodeOver):
            client.click(1, 1)
    finally:
        client.close()
        server.stop()
        port.close()
    # every call is logged; failed ones with their error (an unknown key, a call after done)
    assert [r["kind"] for r in log] == ["screenshot", "mouse_move", "key", "done", "click"]
    assert [("error" in r) for r in log] == [False, False, True, False, True]
    assert "NoSuchKeyName" in log[2]["error"] and "episode over" in log[4]["error"]


def test_vocabulary_covers_computer_use():
    # the verbs of Anthropic's and OpenAI's computer-use tools all have a port action
    for kind in (
        "screenshot",
        "key",
        "type",
        "mouse_move",
        "click",
        "double_click",
        "drag",
        "scroll",
        "mouse_down",
        "mouse_up",
        "wait",
        "cursor_position",
        "key_down",
        "key_up",
        "done",
        "give_up",
    ):
        assert kind in ACTIONS


@needs_xvfb
def test_standalone_port_process(sandbox, tmp_path):
    """The port as its own process on the sandbox display (what netns/vm providers will run)."""
    import json
    import subprocess
    import sys

    log = tmp_path / "actions.jsonl"
    proc = sandbox.spawn(
        [sys.executable, "-m", "simbridge._agent_port", "--display", sandbox.display, "--log", str(log)],
        name="agent-port",
        stdout=subprocess.PIPE,
    )
    try:
        url = proc.stdout.readline().decode().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
        said, token = proc.stdout.readline().decode().split()
        assert said == "token" and len(token) >= 32
        with pytest.raises(SimbridgeError, match="401|nauthorized"):
            connect(url, token="wrong").elapsed()
        client = connect(url, token=token)
        try:
            client.mouse_move(7, 9)
            assert client.cursor_position() == (7, 9)
            client.give_up("test over")
        finally:
            client.close()
        assert proc.wait(20) == 0  # give_up ends the server
    finally:
        if proc.poll() is None:
            proc.kill()
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["kind"] for r in records] == ["mouse_move", "give_up"]
    assert records[1]["args"] == {"reason": "test over"}


def _key_events(display: str, press) -> list[tuple[int, int, int]]:
    """(keysym as the client reads it, event state, press=1/release=0) of every key event a real X
    client window receives while `press()` runs."""
    from Xlib import X, XK
    from Xlib import display as xdisplay

    d = xdisplay.Display(display)
    try:
        root = d.screen().root
        w = root.create_window(0, 0, 200, 200, 0, d.screen().root_depth, event_mask=X.KeyPressMask | X.KeyReleaseMask)
        w.map()
        w.set_input_focus(X.RevertToParent, X.CurrentTime)
        d.sync()
        press()
        d.sync()
        time.sleep(0.2)  # the server has sent every event once XTEST's requests are synced
        out = []
        numlock_code = d.keysym_to_keycode(XK.string_to_keysym("Num_Lock"))
        while d.pending_events():
            ev = d.next_event()
            if ev.type in (X.KeyPress, X.KeyRelease) and ev.detail != numlock_code:
                numlock = any(
                    numlock_code in codes for i, codes in enumerate(d.get_modifier_mapping()) if ev.state & (1 << i)
                )
                # X's keypad rule: NumLock (without Shift) selects a keypad key's second keysym
                index = 1 if numlock and not ev.state & X.ShiftMask else (1 if ev.state & X.ShiftMask else 0)
                out.append((d.keycode_to_keysym(ev.detail, index), ev.state, int(ev.type == X.KeyPress)))
        return out
    finally:
        d.close()


@needs_xvfb
def test_a_keypad_digit_arrives_as_that_digit_without_shift(sandbox):
    """'KP_5' (the brief's "keypad 5") reaches the window as KP_5 with NumLock, never as Shift+keypad
    (which FlightGear ignores), and NumLock is as it was afterwards; a shifted character still
    comes with Shift."""
    from Xlib import X, XK

    x = XInput(sandbox.display)
    try:
        before = x.numlock_on()
        events = _key_events(sandbox.display, lambda: (x.key("KP_5"), x.key_down("KP_8"), x.key_up("KP_8")))
        assert [(e[0], e[2]) for e in events] == [
            (XK.string_to_keysym("KP_5"), 1),
            (XK.string_to_keysym("KP_5"), 0),
            (XK.string_to_keysym("KP_8"), 1),
            (XK.string_to_keysym("KP_8"), 0),
        ]
        assert not any(state & X.ShiftMask for _, state, _ in events)
        assert x.numlock_on() == before
        shifted = [
            (k, bool(state & X.ShiftMask)) for k, state, down in _key_events(sandbox.display, lambda: x.key("A"))
        ]
        assert shifted[0] == (XK.string_to_keysym("Shift_L"), False)  # Shift goes down first, then the letter
        assert (XK.string_to_keysym("A"), True) in shifted
    finally:
        x.close()
