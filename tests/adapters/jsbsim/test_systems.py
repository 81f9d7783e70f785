"""The C172 systems' numbers in the flight model itself (no window): electrical loads and the
battery, an open door's drag, carb heat's cost, the stall warning."""

from __future__ import annotations

import pytest

from simbridge.adapters.jsbsim._airports import load_airport
from simbridge.adapters.jsbsim._scenario import resolve
from simbridge.adapters.jsbsim.cockpit._controls import Controls
from simbridge.adapters.jsbsim.cockpit._fdm import FlightModel
from simbridge.adapters.jsbsim.cockpit._systems import LOADS_A, battery_open_volts


def _cruise(configuration: dict | None = None) -> tuple[Controls, FlightModel]:
    sc = resolve(load_airport("KPAO"), alt_msl_ft=4000, ias_kt=100, heading_deg=0, engine="running")
    sc.configuration = configuration or {}
    c = Controls()
    m = FlightModel(sc, c)
    c.ap_on = c.ap_alt = c.ap_hdg = 1  # level, so speed and rpm settle
    return c, m


def _fly(m: FlightModel, seconds: float) -> None:
    for _ in range(round(seconds * 120)):
        m.step()


def test_the_battery_voltage_falls_as_it_discharges_and_collapses_when_flat():
    volts = [battery_open_volts(soc) for soc in (1.0, 0.8, 0.5, 0.2, 0.1, 0.0)]
    assert volts == sorted(volts, reverse=True)
    assert volts[0] < 24.5 < 28.0  # on the battery alone the LOW VOLTS light is on
    assert volts[-1] < 20.0  # a flat battery cannot hold the avionics


def test_every_switched_load_shows_on_the_ammeter_with_the_alternator_off_line():
    c, m = _cruise()
    m.set_serviceable("alternator", False)
    c.avionics = c.beacon = 0
    _fly(m, 1.0)
    base = -m.sys.ammeter_amps
    assert base == pytest.approx(LOADS_A["base"])
    for name in ("avionics", "beacon", "nav_lights", "strobe", "landing_light", "taxi_light", "pitot_heat"):
        setattr(c, name, 1)
        _fly(m, 0.2)
        assert -m.sys.ammeter_amps == pytest.approx(base + LOADS_A[name]), name
        setattr(c, name, 0)
    assert m.sys.low_volts_light and m.sys.bus_volts < 24.5


def test_the_alternator_recharges_the_battery_the_start_used():
    c, m = _cruise()
    m.sys.battery_soc = 0.8  # as after a long crank
    _fly(m, 1.0)
    assert m.sys.bus_volts == 28.0 and m.sys.ammeter_amps > 5.0 and not m.sys.low_volts_light
    soc = m.sys.battery_soc
    _fly(m, 30.0)
    assert m.sys.battery_soc > soc


def test_an_open_door_costs_a_few_knots():
    _, closed = _cruise()
    _, opened = _cruise()
    opened.set_serviceable("door", False)
    _fly(closed, 90.0)
    _fly(opened, 90.0)
    loss = closed.fdm["velocities/vc-kts"] - opened.fdm["velocities/vc-kts"]
    assert 1.5 < loss < 10.0


def test_carb_heat_costs_some_rpm_and_no_ice_forms_under_it():
    c, m = _cruise({"carb_heat": True})
    m.set_serviceable("carb_ice", False)
    _fly(m, 20.0)
    with_heat = m.fdm["propulsion/engine/engine-rpm"]
    assert m.sys.carb_ice == 0.0
    c.carb_heat = 0
    _fly(m, 10.0)
    assert 0.0 < m.sys.carb_ice < 0.2
    c2, m2 = _cruise()
    _fly(m2, 20.0)
    assert 30.0 < m2.fdm["propulsion/engine/engine-rpm"] - with_heat < 150.0


def test_the_stall_warning_comes_on_near_the_stalling_angle_of_attack_only():
    c, m = _cruise()
    _fly(m, 20.0)
    assert not m.stall_warning  # cruise
    c.ap_on = c.ap_alt = c.ap_hdg = 0
    c.elevator = -1.0  # the yoke snatched full back
    alpha = None
    for _ in range(10 * 120):
        m.step()
        if m.stall_warning:
            alpha = m.fdm["aero/alpha-deg"]
            break
    # JSBSim's impending stall: above 85 % of the c172x's stalling angle (0.28 rad, 16 deg)
    assert alpha is not None and 13.0 < alpha < 17.0


@pytest.mark.parametrize(("flaps_deg", "on_ground"), [(30.0, False), (10.0, False), (10.0, True), (0.0, False)])
def test_configured_flaps_are_in_place_at_the_start_and_a_jam_at_once_keeps_them_there(flaps_deg, on_ground):
    """A task's `configuration.flaps_deg` is where the flaps ARE at the start, not where the lever
    points while they travel (P18's failure 1 s in jammed them near 5° instead of 30°)."""
    airborne = {"alt_msl_ft": 1500, "ias_kt": 65, "heading_deg": 300}
    where = {"runway": "30", "on_ground": True} if on_ground else airborne
    sc = resolve(load_airport("KHAF"), engine="running", **where)
    sc.configuration = {"flaps_deg": flaps_deg}
    m = FlightModel(sc, Controls())
    assert m.flaps_deg == pytest.approx(flaps_deg, abs=0.01)
    vs0 = m.fdm["velocities/h-dot-fps"]
    _fly(m, 0.5)
    m.set_serviceable("flaps", False)
    _fly(m, 5.0)
    assert m.flaps_deg == pytest.approx(flaps_deg, abs=0.01)
    if not on_ground:  # trimmed with the flaps it has: no balloon or dive when the episode starts
        assert abs(vs0) < 2.0
