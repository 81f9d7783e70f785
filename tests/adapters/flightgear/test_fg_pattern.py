"""The T05@PHJR reference pilot's pattern geometry (`_pattern`): its reckoned position in 04R's
frame, the headings each leg asks, the approach path and the looks out of the window on final
(also T03@PHJR's pilot, `_visual_landing`), without launching FlightGear. The
whole pilot flies in the FlightGear benchmark (`benchmarks/reference_pilots.py`)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from support.runway_frames import draw

from simbridge.adapters.flightgear.pilots._pattern import (
    AIM_PAST_M,
    BASE_PAST_M,
    DOWNWIND_OFFSET_M,
    EYE_ABOVE_WHEELS_M,
    FINAL_I_DEG_PER_M_S,
    LOOK_BANK_DEG,
    LOOK_FROM_M,
    LOOK_FT,
    LOOK_GAIN,
    FINAL_NEAR_DEG_PER_M,
    PATH_DEG,
    ROLL_STEER_DEG_PER_M,
    ROLL_STEER_MAX_DEG,
    PATTERN_AGL_FT,
    RUNWAY_TRUE_DEG,
    START_ALONG_M,
    FlightGearPatternPilot,
    heading_onto_line,
    turn_radius_m,
)
from simbridge.adapters.flightgear.pilots._steep_turn import Gauges, Reading
from simbridge.adapters.flightgear.pilots._visual_landing import (
    FLOAT_SLIP_DEG,
    LOOK_FT_MIN,
    LOOK_SEEN_BIAS_M,
    FlightGearVisualLandingPilot,
)
from simbridge.adapters.flightgear.pilots._turn_back import RUNWAY_HDG_MAG, VARIATION_DEG, FlightGearTurnBackPilot


def _at(
    along_m: float, left_m: float, leg: str = "upwind", p: FlightGearPatternPilot | None = None
) -> FlightGearPatternPilot:
    """A pilot (`p`, or T05's) whose reckoning puts it `along_m` along 04R and `left_m` left of
    its centreline."""
    p = p if p is not None else FlightGearPatternPilot()
    h = math.radians(RUNWAY_TRUE_DEG)
    p.x_m = along_m * math.sin(h) - left_m * math.cos(h)
    p.y_m = along_m * math.cos(h) + left_m * math.sin(h)
    p.leg = leg
    return p


def _hdg_diff(a: float, b: float) -> float:
    return (a - b + 180.0) % 360.0 - 180.0


@pytest.mark.parametrize(("along", "left"), [(0.0, 0.0), (1200.0, -80.0), (-2500.0, 1300.0)])
def test_the_runway_frame_is_along_and_left_of_04r(along, left):
    assert _at(along, left).along_left_m() == pytest.approx((along, left), abs=1e-6)
    # left of 04R is north-west of it: 1 km left is 1 km along 324.8° true
    p = _at(0.0, 1000.0)
    assert math.degrees(math.atan2(p.x_m, p.y_m)) % 360.0 == pytest.approx(RUNWAY_TRUE_DEG - 90.0 + 360.0)


def test_on_a_line_the_heading_is_the_lines_and_off_it_turns_toward_it():
    on = heading_onto_line(RUNWAY_TRUE_DEG, 0.0)
    assert on == pytest.approx(RUNWAY_TRUE_DEG - VARIATION_DEG)
    # 100 m left of the centreline on final: turn right toward it, 10° at 0.1°/m and 1.5° more
    # for the first 30 m (0.15°/m there)
    assert _hdg_diff(_at(-1500.0, 100.0, "final").leg_heading(), on) == pytest.approx(11.5)
    assert _hdg_diff(_at(-1500.0, -100.0, "final").leg_heading(), on) == pytest.approx(-11.5)
    assert _hdg_diff(_at(-1500.0, 10.0, "final").leg_heading(), on) == pytest.approx(1.5)
    # far off, the line's intercept is capped
    assert _hdg_diff(_at(-1500.0, 900.0, "final").leg_heading(), on) == pytest.approx(31.5)


def test_the_downwind_holds_its_line_from_either_side():
    reciprocal = (RUNWAY_TRUE_DEG + 180.0 - VARIATION_DEG) % 360.0
    assert _at(0.0, DOWNWIND_OFFSET_M, "downwind").leg_heading() == pytest.approx(reciprocal)
    # further out than the line: turn left, toward the runway (the pattern's side)
    assert _hdg_diff(_at(0.0, DOWNWIND_OFFSET_M + 150.0, "downwind").leg_heading(), reciprocal) < -10.0
    assert _hdg_diff(_at(0.0, DOWNWIND_OFFSET_M - 150.0, "downwind").leg_heading(), reciprocal) > 10.0


def test_the_crosswind_and_base_are_square_to_the_runway():
    assert _at(3000.0, 300.0, "crosswind").leg_heading() == (RUNWAY_HDG_MAG - 90.0) % 360.0
    assert _at(-1400.0, 800.0, "base").leg_heading() == RUNWAY_HDG_MAG + 90.0


def test_the_approach_path_starts_at_pattern_height_abeam_and_ends_at_the_aim_point():
    tan = math.tan(math.radians(PATH_DEG)) / 0.3048
    # abeam the threshold on the downwind: the whole rest of the pattern lies ahead (about 1,000 ft)
    rest = 2 * BASE_PAST_M + DOWNWIND_OFFSET_M + AIM_PAST_M
    assert _at(0.0, DOWNWIND_OFFSET_M, "downwind").path_ft() == pytest.approx(min(PATTERN_AGL_FT, rest * tan))
    # on the base: what is left of it and the final
    assert _at(-BASE_PAST_M, 600.0, "base").path_ft() == pytest.approx((600.0 + BASE_PAST_M + AIM_PAST_M) * tan)
    # over the threshold on final: the aim point's height
    assert _at(0.0, 0.0, "final").path_ft() == pytest.approx(AIM_PAST_M * tan)


def test_a_turn_at_the_downwinds_speed_is_about_half_a_kilometre_across():
    # 85 kt with 20° of bank: the crosswind's turn onto the downwind is led by this much
    assert turn_radius_m(85.0, 20.0) == pytest.approx(535.0, abs=2.0)


def test_the_reckoning_starts_where_flightgear_lines_the_c172p_up():
    # at the start of 04R's pavement, its displaced threshold 110 m ahead (measured: 105 m)
    assert FlightGearPatternPilot().along_left_m() == pytest.approx((START_ALONG_M, 0.0), abs=1e-6)
    assert START_ALONG_M == pytest.approx(-110.0)


def test_the_finals_integral_turns_toward_the_centreline_and_only_near_it():
    p = _at(-1500.0, 15.0, "final")
    on = heading_onto_line(RUNWAY_TRUE_DEG, 15.0)
    for step in range(1, 11):  # 10 s, 15 m left of the centreline
        p.t_dr = float(step)
        p.glide_steer(p.leg_heading(), 300.0)
    assert p.final_i_deg == pytest.approx(9 * FINAL_I_DEG_PER_M_S * 15.0)  # the first frame sets the clock
    assert _hdg_diff(p.leg_heading(), on) == pytest.approx(FINAL_NEAR_DEG_PER_M * 15.0 + p.final_i_deg)
    far = _at(-1800.0, 40.0, "final")  # not settled near the centreline yet: no integral
    for step in range(1, 11):
        far.t_dr = float(step)
        far.glide_steer(far.leg_heading(), 300.0)
    assert far.final_i_deg == 0.0


def test_the_landing_roll_keeps_the_runways_heading_in_the_pattern_and_the_flares_after_a_turn_back():
    assert _at(100.0, 0.0, "final").roll_heading(52.0) == RUNWAY_HDG_MAG
    # off the centreline the nose turns toward it, at most ROLL_STEER_MAX_DEG
    assert _at(100.0, 5.0, "final").roll_heading(52.0) == pytest.approx(RUNWAY_HDG_MAG + 5.0 * ROLL_STEER_DEG_PER_M)
    assert _at(100.0, -40.0, "final").roll_heading(52.0) == pytest.approx(RUNWAY_HDG_MAG - ROLL_STEER_MAX_DEG)
    assert FlightGearTurnBackPilot().roll_heading(230.0) == 230.0
    # T03's float turns the nose toward the centreline from 04R's own magnetic heading (T05's
    # roll holds 045)
    t03 = FlightGearVisualLandingPilot()
    h = math.radians(RUNWAY_TRUE_DEG)
    t03.x_m, t03.y_m = 100.0 * math.sin(h) - 5.0 * math.cos(h), 100.0 * math.cos(h) + 5.0 * math.sin(h)
    assert t03.along_left_m() == (pytest.approx(100.0), pytest.approx(5.0))
    from simbridge.adapters.flightgear.pilots._visual_landing import ROLL_STEER_DEG_PER_M as T03_STEER

    # ... held FLOAT_SLIP_DEG left of it against the float's slip
    on_04r = RUNWAY_TRUE_DEG - VARIATION_DEG
    assert t03.roll_heading(52.0) == pytest.approx(on_04r + 5.0 * T03_STEER - FLOAT_SLIP_DEG)
    assert _at(100.0, 0.0, "final").roll_heading(52.0) == RUNWAY_HDG_MAG == 45.0


def test_t03s_reckoning_takes_the_floats_slip_from_the_flare_and_t05s_takes_none():
    """From the flare on T03's track is taken FLOAT_SLIP_DEG right of the nose, so its nose held
    that much left of 04R's heading (`roll_heading`) reckons a float along the centreline; on the
    wheels the track is the nose's."""
    assert 0.0 < FLOAT_SLIP_DEG < 1.0
    t03, t05 = FlightGearVisualLandingPilot(), _at(-100.0, 0.0, "final")
    for p, slip in ((t03, FLOAT_SLIP_DEG), (t05, 0.0)):
        want: dict[str, int] = {}
        p.glide_power(want, "flare", 30.0)
        assert want["throttle"] == -100 and p.slip_deg == slip
        p.glide_power(want, "rollout", 0.0)
        assert p.slip_deg == 0.0
    t03.glide_power({}, "flare", 30.0)
    h = math.radians(RUNWAY_TRUE_DEG)
    t03.x_m, t03.y_m = -100.0 * math.sin(h), -100.0 * math.cos(h)  # 100 m short, on the centreline
    t03.t_dr = 0.0
    t03._reckon(
        Reading(t_s=10.0, bank_deg=0.0, sky=0.5, alt_ft=20.0, ias_kt=55.0, turned_deg=0.0), t03.roll_heading(0.0)
    )
    along, left = t03.along_left_m()
    assert along > 150.0 and left == pytest.approx(0.0, abs=1e-6)


class _WindowPort:
    """An agent port whose screen is one drawn frame (BGR, as the port's arrays are)."""

    def __init__(self, frame: np.ndarray) -> None:
        self.frame = frame[..., ::-1]
        self.shots = 0

    def screenshot(self, fmt: str, region: tuple[int, int, int, int]):
        self.shots += 1
        x0, y0, x1, y1 = region
        return SimpleNamespace(to_array=lambda: self.frame[y0:y1, x0:x1])


def _look(p: FlightGearPatternPilot, port: _WindowPort, t_s: float, h_ft: float, bank_deg: float = 0.0) -> None:
    r = Reading(t_s=t_s, bank_deg=bank_deg, sky=0.5, alt_ft=h_ft, ias_kt=70.0, turned_deg=0.0)
    p.look_out(port, r, "glide", RUNWAY_TRUE_DEG - VARIATION_DEG, h_ft)


def test_a_look_out_of_the_window_moves_the_reckoning_half_way_to_the_runway_seen():
    # the c172p 10 m right of the centreline, 50 m up, 1,000 m out; its reckoning says on it
    port = _WindowPort(draw(10.0, 50.0, 1000.0, -12.0, 0.0, 0.0))
    p = _at(-1000.0, 0.0, "final")
    h_ft = (50.0 - EYE_ABOVE_WHEELS_M) / 0.3048
    _look(p, port, 10.0, h_ft)
    assert p.along_left_m()[1] == pytest.approx(-10.0 * LOOK_GAIN, abs=1.0)
    assert p.along_left_m()[0] == pytest.approx(-1000.0, abs=0.01)  # along the runway: unchanged
    _look(p, port, 10.5, h_ft)  # not yet LOOK_EVERY_S later: no look
    assert port.shots == 1
    _look(p, port, 11.0, h_ft)
    assert p.along_left_m()[1] == pytest.approx(-10.0 * (1 - (1 - LOOK_GAIN) ** 2), abs=1.0)
    # banked beyond LOOK_BANK_DEG, or an altimeter that disagrees with the runway's width: no fix
    before = p.along_left_m()[1]
    _look(p, port, 12.0, h_ft, bank_deg=LOOK_BANK_DEG + 2.0)
    _look(p, port, 13.0, 3.0 * h_ft)
    assert p.along_left_m()[1] == before
    # on the downwind, or further out than LOOK_FROM_M: no look at all
    port.shots = 0
    _look(_at(-1000.0, 0.0, "downwind"), port, 10.0, h_ft)
    _look(_at(-LOOK_FROM_M - 100.0, 0.0, "final"), port, 10.0, h_ft)
    assert port.shots == 0


def test_near_the_threshold_t03s_look_takes_the_height_from_the_altimeter_not_the_runways_width():
    """Within 700 m of the threshold FlightGear's runway shows narrower than the chart's width
    (its markings are not grey): the sights read the offset and the height both 1.2-1.5 times the
    truth. T03's pilot scales the offset by the altimeter's height over the sight's; T05's
    pilot keeps the sight's own."""
    # 8 m right of the centreline, 25 m up, 400 m out; the grey 48 m wide for the chart's 60.96
    frame = draw(8.0, 25.0, 400.0, -3.0, 0.0, 0.0, width_m=48.0)
    h_ft = (25.0 - EYE_ABOVE_WHEELS_M) / 0.3048
    seen = {}
    for pilot in (FlightGearVisualLandingPilot(), FlightGearPatternPilot()):
        h = math.radians(RUNWAY_TRUE_DEG)
        pilot.x_m, pilot.y_m = -400.0 * math.sin(h), -400.0 * math.cos(h)
        pilot.leg, pilot.g = "final", Gauges()  # no altimeter history: its rate (the lag's lead) is 0
        _look(pilot, _WindowPort(frame), 10.0, h_ft)
        seen[pilot.name] = pilot.along_left_m()[1] / LOOK_GAIN
    # ... and T03's takes the sight's measured bias out (LOOK_SEEN_BIAS_M to the right)
    assert seen["reference:fg-visual-landing"] == pytest.approx(-8.0 - LOOK_SEEN_BIAS_M, abs=0.5)
    assert seen["reference:fg-pattern"] == pytest.approx(-8.0 * 60.96 / 48.0, abs=0.7)


def test_t03_looks_out_of_the_window_into_the_float_and_t05_stops_at_20_ft():
    """T03's looks go on down to LOOK_FT_MIN (the float's drift steered on the runway seen, not
    the reckoning alone); T05's end at LOOK_FT's 20 ft."""
    assert LOOK_FT_MIN < LOOK_FT[0] == FlightGearPatternPilot.look_ft_min
    h_ft = (LOOK_FT_MIN + LOOK_FT[0]) / 2.0
    frame = draw(3.0, h_ft * 0.3048 + EYE_ABOVE_WHEELS_M, 150.0, -3.0, 0.0, 0.0)
    shots = {}
    for pilot in (FlightGearVisualLandingPilot(), FlightGearPatternPilot()):
        h = math.radians(RUNWAY_TRUE_DEG)
        pilot.x_m, pilot.y_m = -150.0 * math.sin(h), -150.0 * math.cos(h)
        pilot.leg, pilot.g = "final", Gauges()
        port = _WindowPort(frame)
        _look(pilot, port, 10.0, h_ft)
        shots[pilot.name] = port.shots
    assert shots == {"reference:fg-visual-landing": 1, "reference:fg-pattern": 0}


def test_on_short_final_t03s_rudder_turns_the_nose_to_the_heading_asked_and_t05s_stays_centred():
    t03 = FlightGearVisualLandingPilot()
    h = math.radians(RUNWAY_TRUE_DEG)
    for along, want in ((-900.0, None), (-500.0, 2.0), (-100.0, 2.0)):
        t03.x_m, t03.y_m = along * math.sin(h), along * math.cos(h)
        assert t03.glide_rudder(4.0, 0.0) == want  # 4° left of the heading asked: right rudder
    assert t03.glide_rudder(20.0, 0.0) == 3  # within its reach
    assert t03.glide_rudder(-4.0, -4.0) == 0.0  # already turning toward it at 4°/s: damped
    assert _at(-500.0, 0.0, "final").glide_rudder(4.0, 0.0) is None  # T05 (and T11): centred
    # T05 and T11 keep the glide's aileron trim and the reading of the bank as is into the flare
    for pilot in (FlightGearPatternPilot(), FlightGearTurnBackPilot()):
        assert (pilot.flare_untrims_aileron, pilot.flare_bank_scale) == (False, 1.0)
    assert t03.flare_untrims_aileron and t03.flare_bank_scale > 1.0
    # T03's flare pitches by the trim alone; T05's and T11's move the elevator too
    assert t03.flare_by_trim and not any(p.flare_by_trim for p in (FlightGearPatternPilot(), FlightGearTurnBackPilot()))


def test_t03s_flare_raises_the_nose_by_time_and_t11s_by_the_sink():
    """T03's flare asks for the nose up at FLARE_RAMP_DEG_S while the altimeter shows a sink,
    holds it while not, never lowers it, up to FLARE_RAMP_MAX_PITCH; T11's (and T05's) law
    on the sink lowers the nose while barely sinking."""
    from simbridge.adapters.flightgear.pilots._visual_landing import FLARE_RAMP_DEG_S, FLARE_RAMP_MAX_PITCH

    t03, t11 = FlightGearVisualLandingPilot(), FlightGearTurnBackPilot()
    pitch, top = 2.0, 2.0
    for _ in range(8):  # 2 s sinking at 340 ft/min: up at the ramp's rate, however fast the sink
        pitch, top = t03.flare_pitch_next(pitch, top, -340.0, 0.25)
    assert pitch == pytest.approx(2.0 + 2.0 * FLARE_RAMP_DEG_S)
    assert t03.flare_pitch_next(pitch, top, +150.0, 0.5) == (pitch, top)  # ballooning: held, not lowered
    assert t03.flare_pitch_next(pitch, top, -30.0, 0.5) == (pitch, top)  # level: held
    assert t03.flare_pitch_next(pitch, top, -150.0, 0.5)[0] > pitch  # a slow sink: still up
    assert t03.flare_pitch_next(6.9, 6.9, -800.0, 1.0)[0] == FLARE_RAMP_MAX_PITCH
    # T11's: up at 2°/s past a 300 ft/min sink, down while climbing, at most 1.5° under its top
    assert t11.flare_pitch_next(2.0, 2.0, -340.0, 0.5) == (3.0, 3.0)
    assert t11.flare_pitch_next(5.0, 5.0, +150.0, 0.5) == (4.0, 5.0)
    assert t11.flare_pitch_next(4.0, 5.0, +150.0, 1.0)[0] == 3.5


def test_the_trim_first_flare_moves_the_elevator_only_when_the_trim_lags_far():
    """`flare_trim_first` gives the elevator asked by the trim, the elevator held, unless the
    trim lags by more than FLARE_ELEVATOR_OVER; `Controls.pitch` steps the elevator at half a
    step of lag (the flare's pitch cycled on those steps)."""
    from simbridge.adapters.flightgear.pilots._steep_turn import ELEVATOR_STEP, TRIM_STEP, Controls
    from simbridge.adapters.flightgear.pilots._turn_back import FLARE_ELEVATOR_OVER, flare_trim_first

    c = Controls(port=None)  # type: ignore[arg-type]  # positions only: no key is pressed
    c.pos.update(trim=-80, elevator=0)
    small = -0.08 - 0.03  # the trim 0.03 short of the nose-up asked
    assert flare_trim_first(c, small) == {"trim": -110, "elevator": 0}
    assert c.pitch(small)["elevator"] == -1  # the plain split steps the elevator
    far = -0.08 - (FLARE_ELEVATOR_OVER + 0.01)
    got = flare_trim_first(c, far)
    assert got["elevator"] == -1 and got["trim"] == round((far + ELEVATOR_STEP) / TRIM_STEP)
    c.pos.update(trim=-150, elevator=-1)  # a nose-down need past the reach: one step back
    assert flare_trim_first(c, -0.05 - 0.15 + FLARE_ELEVATOR_OVER + 0.01)["elevator"] == 0


def test_the_visual_landing_starts_on_the_final_5_nm_out_under_a_3_degree_path():
    p = FlightGearVisualLandingPilot()
    along, left = p.along_left_m()
    assert (p.leg, along, left) == ("final", pytest.approx(-5 * 1852.0), pytest.approx(0.0, abs=1e-6))
    tan = math.tan(math.radians(3.0))
    # the start's 1,500 ft is under the path to 250 m past the threshold (1,633 ft there)
    assert p.path_ft() == pytest.approx((5 * 1852.0 + 250.0) * tan / 0.3048)
    assert _at(0.0, 0.0, "final").path_ft() != p.path_ft()  # T05's path is its own (4°, 300 m)
    p.x_m = p.y_m = 0.0
    assert p.path_ft() == pytest.approx(250.0 * tan / 0.3048)


def test_t03s_final_crabs_against_the_slip_and_t05s_leaves_it_to_the_integral():
    """T03's final holds the nose FINAL_CRAB_DEG left of the centreline's heading, so the track
    (the slip's APPROACH_SLIP_DEG right of the nose) runs along it; T05's asks the centreline's."""
    from simbridge.adapters.flightgear.pilots._pattern import APPROACH_SLIP_DEG

    t03 = FlightGearVisualLandingPilot()
    h = math.radians(RUNWAY_TRUE_DEG)
    t03.x_m, t03.y_m = -1500.0 * math.sin(h), -1500.0 * math.cos(h)  # on the centreline
    t05 = _at(-1500.0, 0.0, "final")
    on = RUNWAY_TRUE_DEG - VARIATION_DEG
    assert _hdg_diff(t05.leg_heading(), on) == pytest.approx(0.0, abs=1e-9)
    assert _hdg_diff(t03.leg_heading(), on) == pytest.approx(-APPROACH_SLIP_DEG)
    # the reckoning moves a gliding T03 along the centreline on that heading, not off it
    t03.slip_deg, t03.t_dr = APPROACH_SLIP_DEG, 0.0
    t03._reckon(Reading(t_s=30.0, bank_deg=0.0, sky=0.5, alt_ft=300.0, ias_kt=65.0, turned_deg=0.0), t03.leg_heading())
    along, left = t03.along_left_m()
    assert along > -1500.0 + 900.0 and left == pytest.approx(0.0, abs=1e-6)


def test_t03s_final_turns_harder_toward_the_centreline_when_near_it_and_t05s_as_before():
    """Near the centreline T03's final adds FINAL_NEAR_DEG_PER_M a metre up to FINAL_NEAR_MAX_DEG
    to the intercept; T05's adds its 0.05°/m to 30 m. Far off both ask the same within 0.25°."""
    from simbridge.adapters.flightgear.pilots._visual_landing import FINAL_NEAR_MAX_DEG
    from simbridge.adapters.flightgear.pilots._visual_landing import FINAL_NEAR_DEG_PER_M as T03_NEAR

    def asked(p: FlightGearPatternPilot, left_m: float) -> float:
        _at(-1000.0, left_m, "final", p)
        return _hdg_diff(p.leg_heading(), heading_onto_line(RUNWAY_TRUE_DEG, left_m)) + p.final_crab_deg

    t03, t05 = FlightGearVisualLandingPilot(), FlightGearPatternPilot()
    for left in (-5.0, -2.0, 3.0):  # right of the centreline: negative
        assert asked(t03, left) == pytest.approx(T03_NEAR * left)
        assert asked(t05, left) == pytest.approx(FINAL_NEAR_DEG_PER_M * left)
        assert abs(asked(t03, left)) == pytest.approx(4.0 * abs(asked(t05, left)))
    assert asked(t03, -25.0) == pytest.approx(-FINAL_NEAR_MAX_DEG)
    assert asked(t05, -25.0) == pytest.approx(-FINAL_NEAR_DEG_PER_M * 25.0)
    assert abs(asked(t03, 25.0) - asked(t05, 25.0)) <= 0.25


def test_t03s_landing_rudder_integrates_a_standing_heading_error_and_t11s_does_not():
    """From the flare on T03's rudder adds ROLL_RUDDER_I steps per degree-second off the heading,
    within ROLL_RUDDER_I_MAX; T05's and T11's are proportional, as flown."""
    from simbridge.adapters.flightgear.pilots._turn_back import ROLL_RUDDER_I_MAX
    from simbridge.adapters.flightgear.pilots._visual_landing import ROLL_RUDDER_I

    t03 = FlightGearVisualLandingPilot()
    first = t03.roll_rudder(1.0, 0.0, 0.25)  # 1° left of the heading: the proportional step
    assert first == round(t03.roll_rudder_p * 1.0 + ROLL_RUDDER_I * 0.25)
    for _ in range(15):  # 4 s of it
        t03.roll_rudder(1.0, 0.0, 0.25)
    assert t03.roll_rudder_i_steps == pytest.approx(16 * 0.25 * ROLL_RUDDER_I)
    for _ in range(200):  # a big error long held: the integral stops at its reach
        t03.roll_rudder(5.0, 0.0, 0.5)
    assert t03.roll_rudder_i_steps == ROLL_RUDDER_I_MAX
    assert t03.roll_rudder(30.0, 0.0, 0.25) == t03.roll_rudder_max
    for pilot in (FlightGearPatternPilot(), FlightGearTurnBackPilot()):
        got = [pilot.roll_rudder(2.0, 0.0, 0.5) for _ in range(20)]
        assert set(got) == {round(pilot.roll_rudder_p * 2.0)} and pilot.roll_rudder_i_steps == 0.0


def test_t03s_landing_rudder_carries_the_fraction_of_a_step_that_rounding_drops():
    """Half a degree off asks 0.3 of a step: rounded alone that is never a step (T05's), carried
    from frame to frame it is a step about every third frame (T03's)."""
    t03, t05 = FlightGearVisualLandingPilot(), FlightGearPatternPilot()
    t03.roll_rudder_i = 0.0  # the proportional term alone
    asked = t03.roll_rudder_p * 0.5
    got = [t03.roll_rudder(0.5, 0.0, 0.5) for _ in range(30)]
    assert set(got) == {0, 1} and sum(got) == pytest.approx(30 * asked, abs=1.0)
    assert abs(t03.roll_rudder_carry) <= 0.5
    assert [t05.roll_rudder(0.5, 0.0, 0.5) for _ in range(30)] == [0] * 30
    # left of the heading the other way: the steps go the other way, as often
    t03.roll_rudder_carry = 0.0
    assert sum(t03.roll_rudder(-0.5, 0.0, 0.5) for _ in range(30)) == pytest.approx(-30 * asked, abs=1.0)


class _KeyPort:
    """An agent port that records the chords pressed."""

    def __init__(self) -> None:
        self.chords: list[str] = []

    def key(self, combo: str, hold_s: float = 0.0) -> None:
        self.chords.append(combo)


def test_paired_trim_keys_move_the_trim_twice_a_tap_and_t03s_flare_pairs_them():
    """keyboard.xml binds 7 and 1 to the trim as it binds Home and End (0.001 a press): pressed in
    one chord they step it twice a tap, so T03's flare moves the trim 8 steps a frame in the 4
    taps that moved it 4."""
    from simbridge.adapters.flightgear.pilots._steep_turn import Controls

    port = _KeyPort()
    c = Controls(port)  # type: ignore[arg-type]
    assert c.chord({"trim": -8, "elevator": -1}, {"trim": 8}) == 8  # one key: a tap a step
    assert port.chords == ["Down+End"] + ["End"] * 7 and c.pos["trim"] == -8
    port.chords.clear()
    c.paired.add("trim")
    assert c.chord({"trim": -16, "elevator": -1}, {"trim": 8}) == 4
    assert port.chords == ["1+End"] * 4 and c.pos["trim"] == -16
    port.chords.clear()
    assert c.chord({"trim": -19}, {"trim": 8}) == 2  # an odd count: the first key takes the extra
    assert port.chords == ["1+End", "End"] and c.pos["trim"] == -19
    assert c.chord({"trim": -11}, {"trim": 8}) == 4 and c.pos["trim"] == -11  # and up: Home and 7
    assert port.chords[-4:] == ["7+Home"] * 4
    assert FlightGearVisualLandingPilot.flare_trim_paired
    assert not any(p.flare_trim_paired for p in (FlightGearPatternPilot(), FlightGearTurnBackPilot()))


def test_t03s_flare_takes_the_torques_aileron_out_as_the_throttle_closes_and_t05s_and_t11s_keep_it():
    """The glide's aileron against the torque goes with the power: all of it at the flare's
    throttle, half at half of it, none at idle (never more than at the flare)."""
    from simbridge.adapters.flightgear.pilots._turn_back import torque_aileron

    assert torque_aileron(1.5, -51.0, -51.0) == pytest.approx(1.5)
    assert torque_aileron(1.5, -75.5, -51.0) == pytest.approx(0.75)
    assert torque_aileron(1.5, -100.0, -51.0) == 0.0
    assert torque_aileron(-1.0, -40.0, -51.0) == pytest.approx(-1.0)
    assert torque_aileron(1.0, -100.0, -100.0) == 0.0
    assert FlightGearVisualLandingPilot.flare_untrims_with_power
    assert not FlightGearTurnBackPilot.flare_untrims_with_power and not FlightGearPatternPilot.flare_untrims_with_power


def test_the_turn_back_turns_toward_the_runways_side_when_the_threshold_is_astern():
    """With the threshold within 180 - ONE_WAY_DEG of dead astern T11 turns toward the side of
    04R's centreline the runway lies on (right from its left); otherwise the error's way."""
    from simbridge.adapters.flightgear.pilots._turn_back import ONE_WAY_DEG, turn_back_sign

    assert turn_back_sign(ONE_WAY_DEG + 20.0, 90.0) == 1.0  # left of the centreline: right
    assert turn_back_sign(-(ONE_WAY_DEG + 20.0), 90.0) == 1.0  # the error's sign flips near 180°: not the way
    assert turn_back_sign(179.0, -40.0) == -1.0  # right of it: left
    assert turn_back_sign(-100.0, 90.0) == -1.0 and turn_back_sign(100.0, -90.0) == 1.0  # not astern
    p = FlightGearTurnBackPilot()
    h = math.radians(RUNWAY_HDG_MAG + VARIATION_DEG)
    p.x_m, p.y_m = 2500.0 * math.sin(h) - 90.0 * math.cos(h), 2500.0 * math.cos(h) + 90.0 * math.sin(h)
    assert p.along_left_m()[1] == pytest.approx(90.0)
    # the glide's first frame there: the threshold dead astern, the turn to the right, kept
    p.glide_steer(RUNWAY_HDG_MAG, 700.0)
    assert p.turn_sign == 1.0


def test_t11s_reckoning_takes_the_climbs_slip_and_the_default_wind_and_t05s_neither():
    """From 50 ft to the failure T11's reckoning takes the climb's CLIMB_SLIP_DEG (the track left
    of the nose), and while airborne FlightGear's default wind moves it; T05's states calm."""
    from simbridge.adapters.flightgear.pilots._turn_back import (
        CLIMB_SLIP_DEG,
        DEFAULT_WIND_FROM_DEG,
        DEFAULT_WIND_KT,
        KT_MS,
    )

    assert CLIMB_SLIP_DEG < 0.0 and FlightGearPatternPilot.reckoned_wind_kt == 0.0
    p = FlightGearTurnBackPilot()
    p.dg, p.t_dr = RUNWAY_HDG_MAG, 0.0
    shot = np.zeros((800, 1280, 3), np.uint8)
    p._engine_failed(Reading(t_s=1.0, bank_deg=0.0, sky=0.5, alt_ft=10.0, ias_kt=60.0, turned_deg=0.0), shot)
    assert p.slip_deg == 0.0 and p.along_left_m()[1] == pytest.approx(0.0, abs=1e-6)  # on the wheels: no drift
    p._engine_failed(Reading(t_s=61.0, bank_deg=0.0, sky=0.5, alt_ft=300.0, ias_kt=76.0, turned_deg=0.0), shot)
    assert p.slip_deg == CLIMB_SLIP_DEG
    # 60 s at 76 kt on 045: the slip's 2° left over about 2,350 m, and the wind's drift across
    to_left = math.sin(math.radians(DEFAULT_WIND_FROM_DEG + 180.0 - (RUNWAY_HDG_MAG + VARIATION_DEG)))
    drift_m = 60.0 * DEFAULT_WIND_KT * KT_MS * -to_left
    assert drift_m > 100.0
    slip_m = 2350.0 * math.tan(math.radians(-CLIMB_SLIP_DEG))
    assert p.along_left_m()[1] == pytest.approx(slip_m + drift_m, rel=0.05)


def test_t11s_glide_back_flies_onto_04rs_centreline_after_the_turn():
    """Turned back, T11 flies 22L's heading turned toward 04R's centreline by
    GLIDE_INTERCEPT_DEG_PER_M per metre off it (at most GLIDE_INTERCEPT_MAX_DEG), not the bearing
    of the threshold; while turning, the threshold's bearing."""
    from simbridge.adapters.flightgear.pilots._turn_back import GLIDE_INTERCEPT_DEG_PER_M, GLIDE_INTERCEPT_MAX_DEG

    back = RUNWAY_HDG_MAG + 180.0
    h = math.radians(RUNWAY_HDG_MAG + VARIATION_DEG)
    for right_m in (100.0, -50.0, 600.0):
        p = FlightGearTurnBackPilot()
        p.x_m, p.y_m = 2000.0 * math.sin(h) + right_m * math.cos(h), 2000.0 * math.cos(h) - right_m * math.sin(h)
        assert p.along_left_m()[1] == pytest.approx(-right_m)
        brg = math.degrees(math.atan2(-p.x_m, -p.y_m)) - VARIATION_DEG
        target, _, _ = p.glide_steer(back, 600.0)  # the first frame: turning
        assert _hdg_diff(target, brg) == pytest.approx(0.0, abs=1e-6)
        p.turning = False
        target, err, _ = p.glide_steer(back, 600.0)
        turn = (
            min(GLIDE_INTERCEPT_MAX_DEG, GLIDE_INTERCEPT_DEG_PER_M * right_m)
            if right_m > 0
            else GLIDE_INTERCEPT_DEG_PER_M * right_m
        )
        assert _hdg_diff(target, back) == pytest.approx(turn) and err == pytest.approx(turn)
