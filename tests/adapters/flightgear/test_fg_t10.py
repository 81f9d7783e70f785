"""T10@PHNL's coupled ILS approach on the real FlightGear, flown by its GUI-only reference pilot
(`adapters/flightgear/pilots/_ils.py`) through `simbridge run`, in real time: the briefing strip
read from the agent's folder, the KAP 140 engaged and set to APR, NAV1 and the OBS set by mouse
on the panel, the approach speed kept with the throttle keys, the autopilot disconnected at the
decision altitude read off the altimeter. One trial on a seed the benchmark sweep does not use
(its own FlightGear launch, as the other reference-pilot episodes of this folder); the same
launch shows the variant's catalog start (in the air on the 08L localizer, the engine running,
NAV1 left where the task puts it) and that its ILS facts are real (111.70 on course 081 gives a
live localizer)."""

from __future__ import annotations

import pytest
from conftest import have_flightgear
from support.flightgear import reference_episode

from simbridge._bundle import read_bundle

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
    # the catalog start, in its first sample: 12 nm west of the 08L threshold on the centreline
    # at 4,000 ft, the engine running (the c172p `auto` state), NAV1 not yet on the ILS (tuning
    # it is the agent's job)
    sig = read_bundle(result.path).signals
    first = {k: float(sig.get(k)[0]) for k in ("on_ground", "engine_running", "engine_rpm", "alt_msl_ft", "avionics")}
    assert first["on_ground"] == 0 and first["engine_running"] == 1 and first["engine_rpm"] > 1500, first
    assert abs(first["alt_msl_ft"] - 4000) < 300 and first["avionics"] == 1, first
    assert abs(sig.get("lat_deg")[0] - 21.3252) < 0.02 and abs(sig.get("lon_deg")[0] + 158.158) < 0.03
    assert sig.get("nav1_mhz")[0] == pytest.approx(110.5) and sig.get("nav1_obs_deg")[0] == pytest.approx(0.0)
    assert sig.get("loc_dev_dots")[0] == pytest.approx(-2.5)  # no localizer on 110.50: the needle at full scale
    # the variant's ILS facts are real: on 111.70 and course 081 the localizer is live and centred
    assert sig.get("nav1_mhz")[-1] == pytest.approx(111.7) and sig.get("nav1_obs_deg")[-1] == pytest.approx(81.0)
    assert abs(sig.get("loc_dev_dots")[-1]) < 0.5
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
