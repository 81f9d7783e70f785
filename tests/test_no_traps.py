"""No traps for a screen-driving agent (issue 29): the brief names the simulator and vehicle that
actually run (the JSBSim cockpit's six-pack C172 is no G1000, no Microsoft Flight Simulator),
catalog titles of tasks that run on several simulators name none, the one mode switch the
JSBSim cockpit lets an agent trigger (right-click / Tab: mouse yoke) is in the brief and on the
screen with its way out, and a score names coded values (transponder mode ALT, not "mode 3")."""

from __future__ import annotations

import re

import numpy as np
import pygame
import pytest

from simbridge._agent_port import make_brief
from simbridge._canonical import value_name
from simbridge._sims import session_class
from simbridge._task import load_all_tasks, load_task
from test_task_validation import SIM_WORDS, _names_other_sim


def _brief(task, sim: str) -> str:
    try:
        controls = tuple(getattr(session_class(sim), "controls", ()))
    except Exception:  # a simulator whose session needs packages this machine lacks: the text alone
        controls = ()
    return make_brief(task, sim, time_limit_s=60, lockstep=False, controls=controls).text()


def test_every_brief_names_only_the_simulator_and_vehicle_that_run():
    checked = 0
    for task in load_all_tasks().values():
        for sim in [task.simulator.name, *task.simulator.alternatives]:
            text = _brief(task, sim)
            assert not _names_other_sim(text, sim), (task.id, sim, _names_other_sim(text, sim))
            checked += 1
    assert checked >= 25
    t16 = _brief(load_task("T16"), "jsbsim")
    assert "Vehicle: Cessna 172 (c172x)." in t16 and "JSBSim cockpit" in t16 and "six-pack" in t16
    # on its home simulator the catalog's own vehicle stands
    assert "Vehicle: Cessna 172 (G1000)." in _brief(load_task("T16"), "msfs")


def test_titles_of_tasks_run_on_several_simulators_name_none():
    for task in load_all_tasks().values():
        if task.simulator.alternatives:
            hits = [s for s, rx in SIM_WORDS.items() if re.search(rx, task.title)]
            assert not hits, (task.id, task.title)


def test_the_mouse_yoke_switch_is_announced_in_the_jsbsim_brief():
    text = _brief(load_task("T09"), "jsbsim")
    [line] = [ln for ln in text.splitlines() if "mouse yoke" in ln.lower()]
    assert "right mouse button" in line and "Tab" in line
    assert "MOUSE YOKE ON" in line and "left clicks on the panel do nothing" in line and "leave it" in line


@pytest.fixture(scope="module")
def surface():
    pygame.display.init()
    pygame.font.init()
    from simbridge.adapters.jsbsim import _layout as L

    yield pygame.Surface((L.WIDTH, L.HEIGHT))
    pygame.quit()


def _lit_pixels(surf, box) -> int:
    from simbridge.adapters.jsbsim import _layout as L

    x0, y0, x1, y1 = box
    a = pygame.surfarray.array3d(surf)[x0:x1, y0:y1]  # (x, y, rgb)
    return int(np.all(a == np.array(L.LIT), axis=-1).sum())


def test_the_mouse_yoke_is_switched_by_a_right_click_shown_on_screen_and_left_by_tab(surface):
    from simbridge.adapters.jsbsim import _layout as L
    from simbridge.adapters.jsbsim.cockpit._controls import Controls
    from simbridge.adapters.jsbsim.cockpit._input import InputHandler
    from simbridge.adapters.jsbsim.cockpit._panel import Panel, Readings

    c = Controls()
    inp = InputHandler(c, has_autopilot=False)
    panel = Panel(has_autopilot=False)
    r = Readings(avionics_powered=True)
    x0, y0 = L.STATUS_XY
    box = (x0, y0 + 45, x0 + 290, y0 + 88)  # the two status lines, left of the throttle
    panel.draw(surface, r, c)
    assert _lit_pixels(surface, box) == 0  # nothing said while the mode is off

    inp.mouse_down(*L.VIEW_CENTRE, 3)  # a right-click anywhere
    assert c.mouse_yoke == 1
    panel.draw(surface, r, c)
    assert _lit_pixels(surface, box) > 200  # "MOUSE YOKE ON: panel clicks off" + the way out

    x, y = L.centre("nav1:mhz+")
    before = c.nav1_stby_mhz
    inp.mouse_down(x, y, 1)  # swallowed by the yoke, as the brief and the screen say
    inp.mouse_up(x, y, 1)
    assert c.nav1_stby_mhz == before and not inp.clicks

    inp.key_down(pygame.K_TAB, "\t", 0)
    inp.key_up(pygame.K_TAB)
    assert c.mouse_yoke == 0
    inp.mouse_down(x, y, 1)
    inp.mouse_up(x, y, 1)
    assert c.nav1_stby_mhz != before and inp.clicks == ["nav1:mhz+"]
    panel.draw(surface, r, c)
    assert _lit_pixels(surface, box) == 0


def test_coded_values_have_their_names_in_a_score(tmp_path):
    from synth import score_task
    from synth_flight_b import radio_session

    assert [value_name("xpdr_mode", v) for v in (0, 1, 2, 3, 4)] == ["OFF", "STBY", "ON", "ALT", "TEST"]
    assert value_name("magnetos", 3.0) == "BOTH" and value_name("xpdr_mode", 9) == "code 9"
    start = {"com1_mhz": 118.6, "com1_stby_mhz": 120.05, "nav1_mhz": 110.5, "xpdr_code": 1200, "xpdr_mode": 1}
    start["baro_inhg"] = 30.12
    final = {**start, "xpdr_code": 4521, "baro_inhg": 29.92}  # the code set, the mode left in STBY
    cols = radio_session(start=start, final=final, set_at={"xpdr_code": 60, "baro_inhg": 80})
    s = score_task(tmp_path, load_task("T16"), cols)
    [xpdr] = [c for c in s.components if c.name == "transponder"]
    assert xpdr.measured == "4521 STBY" and xpdr.tolerance == "4521 ALT" and xpdr.earned == 0.0
