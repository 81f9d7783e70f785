"""The bands the report draws are the ones the verifier judged against: each verifier records
them (`VerifyContext.band`), the Score carries them, the page draws `bands_for(score)`.

Expected numbers are worked out from the synthetic builders' arguments and the task YAML."""

import pytest

from simbridge._report._bands import Band, bands_for, families
from simbridge._score import Score
from simbridge._task import load_task
from synth import score_task, steep_turn
from synth_flight_a import ils_approach, takeoff_hold

T09, T02 = load_task("T09"), load_task("T02")


def _by_signal(bands: list[Band]) -> dict[str, Band]:
    return {b.signal: b for b in bands}


def test_steep_turn_bands_left_turn(tmp_path):
    cols = steep_turn(alt_ft=3000.0, ias_kt=95.0)
    s = score_task(tmp_path, T09, cols)
    b = _by_signal(bands_for(s))
    # left turn: bank is negative, 45±5 → -50..-40, over the bank component's window
    assert (b["bank_deg"].lo, b["bank_deg"].hi) == (-50.0, -40.0)
    bank_win = next(c.window for c in s.components if c.name == "bank_maintained")
    assert (b["bank_deg"].t0, b["bank_deg"].t1) == bank_win
    # entry altitude 3000 ft ±100, entry airspeed 95 kt ±10, over the maneuver window
    assert b["alt_msl_ft"].lo == pytest.approx(2900.0) and b["alt_msl_ft"].hi == pytest.approx(3100.0)
    assert b["ias_kt"].lo == pytest.approx(85.0) and b["ias_kt"].hi == pytest.approx(105.0)
    alt_win = next(c.window for c in s.components if c.name == "altitude_held")
    assert (b["alt_msl_ft"].t0, b["alt_msl_ft"].t1) == alt_win
    assert alt_win[0] < bank_win[0] < bank_win[1] < alt_win[1]


def test_steep_turn_band_uses_the_entry_value_not_the_nominal(tmp_path):
    # entered at 3300 ft and 100 kt, not at any nominal value: the bands are the entry's ± tolerance
    s = score_task(tmp_path, T09, steep_turn(alt_ft=3300.0, ias_kt=100.0))
    b = _by_signal(bands_for(s))
    assert (b["alt_msl_ft"].lo, b["alt_msl_ft"].hi) == (pytest.approx(3200.0), pytest.approx(3400.0))
    assert b["alt_msl_ft"].label == "entry 3300 ±100 ft"
    assert (b["ias_kt"].lo, b["ias_kt"].hi) == (pytest.approx(90.0), pytest.approx(110.0))


def test_bands_travel_with_the_score_json(tmp_path):
    s = score_task(tmp_path, T09, steep_turn())
    again = Score.model_validate_json(s.model_dump_json())
    assert again.bands == s.bands and len(again.bands) == 3


def test_a_band_on_an_undeclared_signal_is_refused():
    from simbridge.verifier import VerifyContext

    ctx = VerifyContext(bundle=None, task=T09, p=None, band_signals=("bank_deg",))  # type: ignore[arg-type]
    ctx.band("bank_deg", -40.0, -50.0, 1.0, 2.0, label="x")
    assert (ctx.bands[0].lo, ctx.bands[0].hi) == (-50.0, -40.0)
    with pytest.raises(ValueError, match="ias_kt"):
        ctx.band("ias_kt", 80.0, 90.0)


def test_steep_turn_right_turn_band_is_positive(tmp_path):
    right = T09.model_copy(
        update={"verifier": T09.verifier.model_copy(update={"params": {**T09.verifier.params, "direction": "right"}})}
    )
    cols = steep_turn(direction="right")
    s = score_task(tmp_path, right, cols)
    b = _by_signal(bands_for(s))
    assert (b["bank_deg"].lo, b["bank_deg"].hi) == (40.0, 50.0)


def test_steep_turn_without_a_turn_has_no_bands(tmp_path):
    cols = steep_turn(bank_deg=0.0)
    s = score_task(tmp_path, T09, cols)
    assert all(c.window is None for c in s.components)
    assert bands_for(s) == []


def test_takeoff_hold_bands_over_the_hold_window(tmp_path):
    cols = takeoff_hold(hold_s=30)
    s = score_task(tmp_path, T02, cols)
    b = _by_signal(bands_for(s))
    assert (b["heading_mag_deg"].lo, b["heading_mag_deg"].hi) == (330.0, 350.0)
    assert (b["alt_msl_ft"].lo, b["alt_msl_ft"].hi) == (2900.0, 3100.0)
    assert (b["ias_kt"].lo, b["ias_kt"].hi) == (85.0, 95.0)
    hold = next(c.window for c in s.components if c.name == "hold_window")
    t_hold = 30.0 + (3000 - 433) / 700 * 60  # the builder's hold start
    assert hold[0] == pytest.approx(t_hold, abs=0.11)
    assert all((x.t0, x.t1) == hold for x in b.values())


def test_takeoff_hold_without_hold_window_runs_from_liftoff(tmp_path):
    s = score_task(tmp_path, T02, takeoff_hold(hold_ias=97))  # never in tolerance: no hold window
    take = next(c.window for c in s.components if c.name == "takeoff")
    bands = bands_for(s)
    assert bands and all(x.t0 == take[0] and x.t1 is None for x in bands)


def test_family_without_extractor_gets_no_bands():
    # radios judge the final frequencies, not a signal over a window
    t16 = load_task("T16")
    assert t16.verifier.name not in families()
    assert bands_for(Score(task_id="T16", verifier=t16.verifier.name, status="scored")) == []


def test_ils_bands_at_the_gate_and_the_disconnect(tmp_path):
    t10 = load_task("T10")
    s = score_task(tmp_path, t10, ils_approach(disconnect_agl=200.0))
    b = _by_signal(bands_for(s))
    t_gate = 60.0 + (4000 - 500) / 700 * 60  # the builder's descent through 500 ft AGL
    t_disc = 60.0 + (4000 - 200) / 700 * 60
    for sig in ("loc_dev_dots", "gs_dev_dots"):
        assert (b[sig].lo, b[sig].hi) == (-1.0, 1.0)
        assert b[sig].t0 == b[sig].t1 == pytest.approx(t_gate, abs=0.11)
    assert (b["alt_agl_ft"].lo, b["alt_agl_ft"].hi) == (150.0, 250.0)
    assert b["alt_agl_ft"].t0 == pytest.approx(t_disc, abs=0.11)


def test_ils_never_disconnected_band_spans_the_episode(tmp_path):
    t10 = load_task("T10")
    s = score_task(tmp_path, t10, ils_approach(disconnect_agl=None))
    b = _by_signal(bands_for(s))
    assert (b["alt_agl_ft"].t0, b["alt_agl_ft"].t1) == (None, None)


def test_engine_failure_glide_band_over_the_glide(tmp_path):
    from synth_flight_b import efato

    t11 = load_task("T11")
    cols, ev, _ = efato(fail_agl_ft=1000)
    s = score_task(tmp_path, t11, cols, events=ev)
    (b,) = bands_for(s)
    glide = next(c.window for c in s.components if c.name == "best_glide")
    assert (b.signal, b.lo, b.hi, (b.t0, b.t1)) == ("ias_kt", 63.0, 73.0, glide)
    assert b.label == "best glide 63-73 KIAS"


# ---------------------------------------------------------------- every time-series family

#: verifier families whose criteria are not "a recorded signal within a band over a window",
#: with why (a new family must be added to one list or the other: the test below says so)
NO_BAND = {
    "engine_start": "a sequence of switch states and events, judged in order",
    "landing": "touchdown values (sink rate, position) at one instant, drawn as events on the track",
    "carla_route": "route progress and distance off the route",
    "carla_parking": "the final pose in the bay",
    "carla_pedestrian": "distances to a pedestrian and collision events",
    "sim_setup": "the final cockpit state",
    "openbve_timetable": "arrival and departure times at stations",
    "weight_balance": "a filled-in document",
    "radios": "the final radio frequencies",
    "bc_berthing": "the hull's contact with the berth face and speeds at berthing",
    "ksp_orbit": "the final orbit",
    "fmc_setup": "the final FMC state",
}


def test_every_task_family_has_bands_or_a_reason():
    from pathlib import Path

    tasks_dir = Path(__file__).resolve().parents[2] / "tasks"
    ids = sorted(p.stem for p in tasks_dir.glob("T*.yaml") if "@" not in p.stem)
    names = {load_task(i).verifier.name for i in ids}
    assert len(ids) >= 20
    assert not set(families()) & set(NO_BAND)
    assert names <= set(families()) | set(NO_BAND), sorted(names - set(families()) - set(NO_BAND))
    # the time-series families of the catalog, each with a test in this file
    assert names & set(families()) == {
        "steep_turn",
        "takeoff_hold",
        "engine_failure",
        "ils_approach",
        "hover",
        "traffic_pattern",
        "carla_lane_keep",
        "fms_nav",
    }


def test_hover_band_is_shifted_by_the_pad_reading(tmp_path):
    from synth_flight_b import hover

    t12 = load_task("T12")
    cols = hover(sensor_offset_ft=3.5)
    s = score_task(tmp_path, t12, cols)
    (b,) = bands_for(s)
    # the verifier judges skid height 5..10 ft = AGL − 3.5 ft read on the pad: AGL 8.5..13.5
    assert (b.signal, b.lo, b.hi) == ("alt_agl_ft", pytest.approx(8.5), pytest.approx(13.5))
    assert (b.t0, b.t1) == next(c.window for c in s.components if c.name == "hover_window")
    # the skids climb 0 → 7.5 ft from 10 s to 15 s: 5 ft (the band's floor) at 13.3 s
    assert b.t0 == pytest.approx(10.0 + 5.0 * 5.0 / 7.5, abs=0.06)


def test_traffic_pattern_band_is_msl_on_downwind(tmp_path):
    from synth_flight_a import traffic_pattern

    t05 = load_task("T05")
    s = score_task(tmp_path, t05, traffic_pattern(downwind_agl_ft=1000.0))
    (b,) = bands_for(s)
    # field elevation 7 ft (runway 31 in T05's geometry) + 1000 ± 100 ft
    assert (b.signal, b.lo, b.hi) == ("alt_msl_ft", 907.0, 1107.0)
    assert (b.t0, b.t1) == next(c.window for c in s.components if c.name == "altitude_discipline")


def test_lane_keep_speed_band_over_the_window(tmp_path):
    from synth_driving import highway

    t18 = load_task("T18")
    s = score_task(tmp_path, t18, highway(10.0), events=())
    (b,) = bands_for(s)
    assert (b.signal, b.lo, b.hi) == ("speed_kmh", 85.0, 95.0)
    # 0 → 90 km/h over 20 s reaches 85 km/h at 18.9 s; the window is 120 s from there
    assert b.t0 == pytest.approx(20 * 85 / 90, abs=0.11) and b.t1 == pytest.approx(b.t0 + 120, abs=1e-6)


def test_fms_altitude_target_band_over_the_final_hold(tmp_path):
    from synth_flight_a import PLAN, fms_flight

    t04 = load_task("T04")
    cols = fms_flight()
    s = score_task(tmp_path, t04, cols, snapshots={"start": {"fms_legs": []}, "end": {"fms_legs": PLAN}})
    # the target selector's band and the aircraft's own altitude band, both over the final hold
    b, b_alt = bands_for(s)
    assert (b.signal, b.lo, b.hi) == ("ap_alt_target_ft", 7490.0, 7510.0)
    assert (b_alt.signal, b_alt.lo, b_alt.hi) == ("alt_msl_ft", 7400.0, 7600.0)
    win = next(c.window for c in s.components if c.name == "altitude_target")
    assert (
        (b.t0, b.t1) == win == (b_alt.t0, b_alt.t1)
        and win[1] == pytest.approx(float(cols["t"][-1]))
        and win[1] - win[0] == pytest.approx(5.0, abs=0.3)
    )
