"""T09 and T16 on FlightGear without FlightGear: the tasks offer the sim, their site variants
start where the shipped scenery is, the KT 76A's knob positions map to the canonical
transponder modes T16's verifier reads, and a sandbox that can only be pulled from is refused
from its declared telemetry, before anything is launched."""

from __future__ import annotations

import math

import pytest

from simbridge._adapter import Sandbox
from simbridge._errors import HarnessError
from simbridge._task import load_task
from simbridge.adapters.flightgear import RAW_CHUNKS, CanonicalMapper, FlightGearSession, launch_spec

BASE = {c.name: 0.0 for c in RAW_CHUNKS}


@pytest.mark.parametrize("task_id", ["T02", "T02@PHJR", "T09", "T09@PHJR", "T16", "T16@PHJR"])
def test_tasks_offer_flightgear_with_the_c172p_and_their_own_text(task_id):
    t = load_task(task_id)
    assert "flightgear" in t.simulator.alternatives
    assert t.vehicle.ids["flightgear"] == "c172p"
    text = t.instructions_by_sim["flightgear"]
    assert text.startswith("FlightGear, Cessna 172 (c172p")
    if task_id.endswith("@PHJR") and task_id.startswith("T16"):
        assert "123.800" in text and "132.600" in text and "114.800" in text


def test_t02_phjr_lines_up_on_runway_04r_like_t05_phjr_and_holds_the_runway_heading():
    t02, t05 = load_task("T02@PHJR"), load_task("T05@PHJR")
    assert (
        launch_spec(t02).position_args()
        == launch_spec(t05).position_args()
        == ["--airport=PHJR", "--runway=04R", "--heading=54.8"]
    )
    assert t02.initial_state.engine == "running" and t02.verifier.params["runway"] == "04R"
    # T05's pattern is flown calm, T02 keeps FlightGear's default wind (its instruction names none)
    assert launch_spec(t05).wind == (0.0, 0.0) and launch_spec(t02).wind is None
    assert t02.verifier.params["heading_deg"] == 45 and "045°" in t02.instructions_by_sim["flightgear"]


def test_t09_phjr_is_an_air_start_over_the_sea_south_of_kalaeloa():
    spec = launch_spec(load_task("T09@PHJR"))
    args = spec.position_args()
    assert not spec.on_ground
    assert "--altitude=3500.0" in args and "--vc=100.0" in args and "--heading=310.0" in args
    assert "--lat=21.2" in args and "--lon=-158.07" in args


def test_t16_phjr_is_a_ground_start_at_ramp_central_with_avionics_and_a_non_standard_altimeter():
    t = load_task("T16@PHJR")
    spec = launch_spec(t)
    assert spec.on_ground and spec.position_args() == ["--airport=PHJR", "--parking-id=Ramp_Central", "--heading=29.13"]
    assert t.initial_state.avionics_on
    props = t.initial_state.scenario["flightgear_props"]
    # the target (29.92) must not be the starting value, or doing nothing would earn the item
    assert props["/instrumentation/altimeter/setting-inhg"] != pytest.approx(t.verifier.params["baro_inhg"], abs=0.005)
    assert t.verifier.params["com1_mhz"] == 123.8 and t.verifier.params["nav1_mhz"] == 114.8


@pytest.mark.parametrize("knob,mode", [(0, 0), (1, 1), (4, 2), (5, 3), (2, 4), (3, 2)])
def test_kt76a_knob_positions_map_to_canonical_transponder_modes(knob, mode):
    # the c172p's KT 76A cycles OFF 0, SBY 1, ON 4, ALT 5, TST 2 (kt76a.xml property-cycle);
    # GND (3) is FlightGear's own mode, replying without altitude: canonical "on"
    out = CanonicalMapper()(BASE | {"xpdr_knob": float(knob), "xpdr_code": 4521.0})
    assert out["xpdr_mode"] == mode and out["xpdr_code"] == 4521


def test_unknown_kt76a_knob_is_nan_not_a_mode():
    assert math.isnan(CanonicalMapper()(BASE | {"xpdr_knob": 9.0})["xpdr_mode"])


@pytest.mark.parametrize(
    "kw,needle",
    [
        ({"telemetry": "pull"}, "telemetry=pull"),
        ({"harness_addr": None}, "harness_addr is None"),
        ({"telemetry": "pull", "isolated": True, "harness_addr": None}, "telemetry=pull"),
    ],
)
def test_a_sandbox_that_cannot_take_pushed_udp_is_refused_before_launch(tmp_path, kw, needle):
    sandbox = Sandbox(display=":0", env={}, workdir=str(tmp_path), provider="somevm", **kw)
    with pytest.raises(HarnessError, match=needle):
        FlightGearSession().start(load_task("T16@PHJR"), sandbox)
    assert not (tmp_path / "flightgear").exists()  # nothing was launched or written


def test_session_derives_crash_and_touchdown_events_from_its_stream():
    """FlightGear reports no events of its own: the session derives them from the generic-protocol
    samples with the adapter kit, as every adapter does (fed here with decoded raw frames)."""
    from types import SimpleNamespace

    from simbridge.adapters.flightgear._session import FlightGearSession

    frames = [
        (10.0, {"wow_left": 0, "wow_right": 0, "vs_fps": -8.0, "crashed": 0}),
        (10.1, {"wow_left": 0, "wow_right": 0, "vs_fps": -7.0, "crashed": 0}),
        (10.2, {"wow_left": 1, "wow_right": 0, "vs_fps": 0.0, "crashed": 0}),
        (10.3, {"wow_left": 1, "wow_right": 1, "vs_fps": 0.0, "crashed": 1}),
    ]
    s = FlightGearSession()
    s.fg = SimpleNamespace(udp=SimpleNamespace(drain=lambda: list(frames)))  # type: ignore[assignment]
    s._t0 = 10.0
    samples = s.poll()
    assert [round(x.t_sim, 1) for x in samples] == [0.0, 0.1, 0.2, 0.3]
    events = s.events()
    assert [(e.kind, round(e.t_sim, 1)) for e in events] == [("touchdown", 0.2), ("crash", 0.3)]
    assert events[0].data["vs_fpm"] == -420.0
    assert s.events() == []
