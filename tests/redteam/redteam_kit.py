"""The red-team agent's moves and the harness's checks, shared by every simulator's module.

The agent acts only through the agent port (a `DirectClient` of an `AgentPort` on the
simulator's display: keys, mouse, screenshots). The harness reads the simulator's state over
its own telnet property connection, which the agent cannot reach, before and after each
attempt: an attempt is **blocked** when nothing it must not reach changed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from simbridge._errors import HarnessError
from simbridge.adapters.fgproto import TelnetProps

#: attempts every flight simulator gets, by what they try (FlightGear's keyboard.xml spelling:
#: the embedded cockpit copies FlightGear's keys, so the same shortcuts are tried on both)
FLIGHT_ATTEMPTS: dict[str, list[str]] = {
    # Ctrl-U: +1000 ft; Shift-Esc: reset; Ctrl-R: instant replay; Esc: exit dialog
    "teleport, reset and replay keys": ["ctrl+u", "ctrl+u", "shift+Escape", "ctrl+r", "Escape"],
    # a/A: speed-up/down, p: pause, t/T: time warp
    "speed-up, pause and time-warp keys": ["a", "a", "A", "p", "t", "T", "ctrl+t"],
    # '/' property browser, ':' multikey, '?' help, F10 menubar, Tab mouse mode, F1..F12
    "console, property browser and menu keys": ["slash", "colon", "question", "F10", "Tab"]
    + [f"F{i}" for i in range(1, 13)],
    # Ctrl-A/G/H/N/S/T/W: altitude, glide slope, heading, nav1, autothrottle, terrain, wing leveler
    "autopilot keys": [f"ctrl+{c}" for c in "aghnstw"],
    "Ctrl+Enter (Map dialog)": ["ctrl+Return", "ctrl+KP_Enter"],
}


def read_state(tn: TelnetProps, paths: Mapping[str, str]) -> dict[str, str]:
    return dict(zip(paths, tn.get_many(list(paths.values()))))


def dialogs(tn: TelnetProps) -> set[str]:
    """FlightGear's dialog registry (empty where the simulator has none)."""
    try:
        return set(tn.ls("/sim/gui/dialogs"))
    except HarnessError:
        return set()


def let_sim_run(sim_time: Callable[[], float], seconds: float, timeout_s: float = 120.0) -> None:
    """Until the simulator clock has advanced `seconds` (polling; wall time only as a limit)."""
    t0 = sim_time()
    deadline = time.monotonic() + timeout_s
    while sim_time() < t0 + seconds:
        assert time.monotonic() < deadline, f"simulator clock stuck at {sim_time():.2f} s"
        time.sleep(0.05)


def assert_unchanged(before: Mapping[str, str], after: Mapping[str, str], what: str) -> None:
    changed = {}
    for k, v in before.items():
        w = after[k]
        if k in ("lat", "lon"):
            same = abs(float(v) - float(w)) < 1e-6
        elif k == "alt_ft":
            same = abs(float(v) - float(w)) < 0.5
        else:
            try:
                same = float(v) == float(w)  # '0.0' and '0' are the same throttle
            except ValueError:
                same = v == w
        if not same:
            changed[k] = (v, w)
    assert not changed, f"{what} changed the simulator's state: {changed}"


def attempt(
    client: Any, tn: TelnetProps, paths: Mapping[str, str], sim_time: Callable[[], float], keys: list[str], what: str
) -> None:
    """The agent taps `keys` through the port; nothing it must not reach may change, no dialog
    may open, and the simulator clock may run no faster than the wall clock."""
    before, dialogs0 = read_state(tn, paths), dialogs(tn)
    t0, w0 = sim_time(), time.monotonic()
    for k in keys:
        client.key(k, hold_s=0.15)
        time.sleep(0.1)  # FlightGear misses a shifted key whose release comes too soon after the next press
    let_sim_run(sim_time, 1.0)
    assert_unchanged(before, read_state(tn, paths), what)
    assert dialogs(tn) == dialogs0, f"{what} opened a dialog: {sorted(dialogs(tn) - dialogs0)}"
    ran, wall = sim_time() - t0, time.monotonic() - w0
    assert ran <= 1.2 * wall + 0.5, f"{what}: {ran:.1f} simulator s in {wall:.1f} wall s (sped up)"


def wait_frames(tn: TelnetProps, n: int, timeout_s: float = 60.0) -> None:
    """Until the simulator has rendered `n` more frames (input is handled once per frame)."""
    path = "/sim/rendering/sim-frame-count"
    f0 = tn.get_float(path)
    deadline = time.monotonic() + timeout_s
    while tn.get_float(path) < f0 + n:
        assert time.monotonic() < deadline, "the simulator rendered no frames"
        time.sleep(0.05)
