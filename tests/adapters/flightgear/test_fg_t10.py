"""T10@PHNL's coupled ILS approach on the real FlightGear, flown by its GUI-only reference pilot
(`adapters/flightgear/pilots/_ils.py`) through `simbridge run`, in real time: the briefing strip
read from the agent's folder, the KAP 140 engaged and set to APR, NAV1 and the OBS set by mouse
on the panel, the approach speed kept with the throttle keys, the autopilot disconnected at the
decision altitude read off the altimeter. One trial on a seed the benchmark sweep does not use
(its own FlightGear launch, as the other reference-pilot episodes of this folder)."""

from __future__ import annotations

import pytest
from conftest import have_flightgear
from support.flightgear import reference_episode

pytestmark = [
    pytest.mark.flightgear,
    pytest.mark.slow,
    pytest.mark.display,
    pytest.mark.skipif(not have_flightgear(), reason="needs FlightGear (apt-get install flightgear) and Xvfb"),
]


def test_t10_phnl_reference_pilot_flies_the_coupled_ils_to_decision_height(tmp_path):
    result, kinds = reference_episode(tmp_path, "T10@PHNL", seed=9)
    s = result.score
    assert s is not None and s.status == "scored", s
    report = "; ".join(f"{c.name} {c.earned:g} ({c.measured}, {c.explanation})" for c in s.components)
    assert s.success and s.score is not None and s.score >= 0.9, report
    assert s.safe, s.safety
    # GUI only: the brief and the briefing strip, screenshots, pointer moves, presses, wheel
    # clicks on the knobs, the throttle keys
    allowed = {
        "task",
        "read_file",
        "screenshot",
        "mouse_move",
        "mouse_down",
        "mouse_up",
        "scroll",
        "key",
        "wait",
        "done",
    }
    assert kinds <= allowed, kinds
    assert {"screenshot", "mouse_down", "scroll"} <= kinds, kinds
