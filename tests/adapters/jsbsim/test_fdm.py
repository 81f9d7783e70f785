"""The flight model with its C172 systems, stepped directly (no window, no pacing)."""

import pytest

from simbridge._task import load_task
from simbridge.adapters.jsbsim._airports import load_airport
from simbridge.adapters.jsbsim.cockpit._controls import Controls
from simbridge.adapters.jsbsim.cockpit._fdm import FlightModel
from simbridge.adapters.jsbsim._scenario import from_task, resolve


def run(m: FlightModel, seconds: float) -> None:
    for _ in range(int(seconds * 120)):
        m.step()


def rpm(m: FlightModel) -> float:
    return m.fdm["propulsion/engine/engine-rpm"]


def cold(aircraft="c172p"):
    sc = resolve(load_airport("KPAO"), parking="Transient Parking", engine="cold_and_dark", aircraft=aircraft)
    c = Controls()
    return FlightModel(sc, c), c


def start_engine(m, c, primes=3):
    c.master_bat = 1
    c.mixture = 1.0
    c.throttle = 0.1
    for _ in range(primes):
        c.primer_push()
    c.set_magnetos(4)
    run(m, 4)
    c.release_magnetos()
    run(m, 6)


def test_cold_and_dark_state():
    m, c = cold()
    run(m, 1)
    assert m.on_ground and not m.engine_running and not m.crashed
    assert (c.master_bat, c.magnetos, c.mixture, c.parking_brake, c.fuel_selector) == (0, 0, 0.0, 1, 3)
    assert m.fdm["velocities/vg-fps"] < 0.5


@pytest.mark.parametrize("aircraft", ["c172p", "c172x"])
def test_engine_start_through_the_controls_idles_at_700_to_1100_rpm(aircraft):
    m, c = cold(aircraft)
    start_engine(m, c)
    assert m.engine_running
    assert 700 <= rpm(m) <= 1100
    assert c.magnetos == 3  # the key sprang back from START


def test_cold_engine_does_not_start_without_priming():
    m, c = cold()
    start_engine(m, c, primes=0)
    assert not m.engine_running and rpm(m) < 100


def test_starter_needs_the_battery():
    m, c = cold()
    c.mixture, c.throttle = 1.0, 0.1
    c.primer_push()
    c.primer_push()
    c.set_magnetos(4)
    run(m, 3)
    assert rpm(m) < 10


@pytest.mark.parametrize("cut", ["fuel_selector", "magnetos", "mixture"])
def test_engine_stops_when_fuel_ignition_or_mixture_is_cut(cut):
    m, c = cold()
    start_engine(m, c)
    assert m.engine_running
    setattr(c, cut, 0)
    run(m, 15)
    assert not m.engine_running and rpm(m) < 100


def test_one_tank_is_enough():
    m, c = cold()
    start_engine(m, c)
    c.fuel_selector = 2
    run(m, 15)
    assert m.engine_running
    assert m.fdm["propulsion/tank[1]/contents-lbs"] < m.fdm["propulsion/tank[0]/contents-lbs"]


def test_t09_starts_trimmed_straight_and_level():
    c = Controls()
    m = FlightModel(from_task(load_task("T09")), c)
    assert m.has_autopilot
    run(m, 10)
    assert abs(m.fdm["attitude/phi-deg"]) < 5
    assert abs(m.fdm["position/h-sl-ft"] - 3500) < 80
    assert abs(m.fdm["velocities/vc-kts"] - 100) < 5
    assert m.engine_running and not m.on_ground and not m.crashed


def test_t09_autopilot_heading_mode_turns_to_the_bug():
    c = Controls()
    m = FlightModel(from_task(load_task("T09")), c)
    c.ap_on = c.ap_hdg = c.ap_alt = 1
    c.ap_hdg_bug_deg = (round(m.heading_mag_deg) + 60) % 360
    run(m, 40)
    err = (m.heading_mag_deg - c.ap_hdg_bug_deg + 180) % 360 - 180
    assert abs(err) < 10
    assert abs(m.fdm["position/h-sl-ft"] - 3500) < 200


def test_t02_lined_up_on_ksea_34r_engine_running():
    c = Controls()
    m = FlightModel(from_task(load_task("T02")), c)
    run(m, 1)
    assert m.on_ground and m.engine_running and not m.crashed
    assert m.crash._runways.contains(m.fdm["position/lat-geod-deg"], m.fdm["position/long-gc-deg"])
    assert abs(m.fdm["position/h-sl-ft"] - 433 - m.rest_cg_agl_ft) < 1.0


def test_crash_diving_into_the_ground():
    sc = resolve(load_airport("KPAO"), alt_msl_ft=300, ias_kt=100, heading_deg=0, engine="running")
    c = Controls()
    m = FlightModel(sc, c)
    c.elevator = 0.6  # push
    run(m, 30)
    assert m.crashed and m.crash_reason
    t = m.sim_time_s
    run(m, 1)
    assert m.sim_time_s == t  # frozen after the crash


def _roll_down_34r(m, c, seconds, at_50kt=None):
    f = m.fdm
    c.parking_brake = 0
    c.throttle = 1.0
    for i in range(int(seconds * 10)):
        err = (f["attitude/psi-deg"] - 0.34 + 180) % 360 - 180
        c.rudder = max(-1.0, min(1.0, -0.1 * err - 0.03 * f["velocities/r-rad_sec"] * 57.3))
        if at_50kt and f["velocities/vc-kts"] > 50:
            at_50kt(c)
        run(m, 0.1)
        if m.crashed:
            return


def test_rudder_steers_and_a_takeoff_from_34r_is_possible():
    c = Controls()
    m = FlightModel(from_task(load_task("T02")), c)

    def rotate(c):
        c.elevator = max(-1.0, min(1.0, 0.05 * (m.fdm["attitude/theta-deg"] - 8)))
        c.aileron = max(-1.0, min(1.0, -0.05 * m.fdm["attitude/phi-deg"]))

    _roll_down_34r(m, c, 45, rotate)
    assert not m.crashed, m.crash_reason
    assert m.fdm["position/h-agl-ft"] - m.rest_cg_agl_ft > 150
    assert abs((m.fdm["attitude/psi-deg"] - 0.34 + 180) % 360 - 180) < 15


def test_crash_wing_into_the_ground_on_the_takeoff_roll():
    c = Controls()
    m = FlightModel(from_task(load_task("T02")), c)

    def full_right_aileron(c):
        c.aileron, c.elevator = 1.0, -0.2

    _roll_down_34r(m, c, 40, full_right_aileron)
    assert m.crashed
    assert "struck" in m.crash_reason or "bank" in m.crash_reason


def test_a_restart_after_shutdown_needs_priming_again_while_cold():
    m, c = cold()
    start_engine(m, c)
    assert m.engine_running
    c.mixture = 0.0  # idle cut-off
    run(m, 10)
    assert not m.engine_running
    c.mixture = 1.0
    c.set_magnetos(4)
    run(m, 4)
    c.release_magnetos()
    run(m, 3)
    oil_cold = m.fdm["propulsion/engine/oil-temperature-degF"] < 75
    assert m.engine_running != oil_cold  # a cold engine needs the primer again, a warm one does not
