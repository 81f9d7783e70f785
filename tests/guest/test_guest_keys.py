"""Every key the simulators' controls name, and every alias of the action table, reaches the
display through the guest service (pyautogui) as the same physical key the X11 path (XTEST)
presses: held between key_down and key_up, released after."""

from __future__ import annotations

import shutil

import pytest

from simbridge._agent_port._input import _ALIASES, XInput
from simbridge._agent_port._transport import GuestClient

pytestmark = [pytest.mark.display, pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb not installed")]

#: the keys the jsbsim, flightgear and drive controls name (their `controls` tables)
CONTROL_KEYS = (
    "Up Down Left Right KP_8 KP_2 KP_4 KP_6 KP_0 KP_Enter Insert Return KP_5 Page_Up Page_Down KP_9 KP_3"
    " Home End KP_7 KP_1 m M } { s b comma period B ] [ Tab W S A D Q space P F1 F12 Escape BackSpace"
).split()
ALIASES = sorted(k for k in _ALIASES if k not in ("\n", "\t"))


def _down(d, code: int) -> bool:
    return bool(d.query_keymap()[code // 8] & (1 << (code % 8)))


@pytest.mark.parametrize("group", ["controls", "aliases"])
def test_keys_press_the_same_physical_key_as_xtest(sandbox, guest_service, group):
    x = XInput(sandbox.display)
    client = GuestClient(guest_service.addr, guest_service.token)
    names = CONTROL_KEYS if group == "controls" else ALIASES
    wrong = []
    try:
        d = x._d
        for name in names:
            codes, _ = x._codes(name)
            main = codes[-1]  # the key itself (XTEST adds Shift before a shifted symbol)
            client.call("key_down", keys=name)
            held = _down(d, main)
            client.call("key_up", keys=name)
            if not held or _down(d, main):
                wrong.append((name, main, held))
    finally:
        client.close()
        x.close()
    assert not wrong, f"keys not pressed/released as XTEST would: {wrong}"
