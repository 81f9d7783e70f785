"""The property tree and the property -> canonical table agree with the flight model."""

import math

import pytest

from simbridge._canonical import FLIGHT, is_canonical
from simbridge._task import load_task
from simbridge.adapters.jsbsim.cockpit._controls import Controls
from simbridge.adapters.jsbsim.cockpit._fdm import FlightModel
from simbridge.adapters.jsbsim._mapping import MAPPINGS, NOT_PRODUCED, all_paths, to_canonical
from simbridge.adapters.jsbsim.cockpit._props import PropertyTree
from simbridge.adapters.jsbsim._scenario import from_task


@pytest.fixture(scope="module")
def t09():
    c = Controls()
    m = FlightModel(from_task(load_task("T09")), c)
    for _ in range(240):
        m.step()
    return m, c, PropertyTree(m, c, {})


def _values(tree):
    return {p: float(tree.get(p)[0]) for p in all_paths()}


def test_every_mapping_is_canonical_and_covers_the_flight_vocabulary():
    names = [m.canonical for m in MAPPINGS]
    assert all(is_canonical(n) for n in names)
    assert len(set(names)) == len(names)
    assert set(FLIGHT) - set(NOT_PRODUCED) <= set(names)
    assert not set(NOT_PRODUCED) & set(names)


def test_every_mapped_path_exists_in_the_tree(t09):
    _, _, tree = t09
    for p in all_paths():
        tree.get(p)  # raises KeyError if missing


def test_published_values_match_the_fdm(t09):
    m, c, tree = t09
    f = m.fdm
    s = to_canonical(_values(tree))
    assert s["alt_msl_ft"] == pytest.approx(f["position/h-sl-ft"])
    assert s["bank_deg"] == pytest.approx(f["attitude/phi-deg"])
    assert s["pitch_deg"] == pytest.approx(f["attitude/theta-deg"])
    assert s["ias_kt"] == pytest.approx(f["velocities/vc-kts"])
    assert s["vs_fpm"] == pytest.approx(f["velocities/h-dot-fps"] * 60)
    assert s["engine_rpm"] == pytest.approx(f["propulsion/engine/engine-rpm"])
    assert s["heading_true_deg"] == pytest.approx(f["attitude/psi-deg"] % 360)
    assert (s["heading_true_deg"] - s["heading_mag_deg"]) % 360 == pytest.approx(12.9)
    assert s["lat_deg"] == pytest.approx(f["position/lat-geod-deg"])
    assert s["alt_agl_ft"] == pytest.approx(s["alt_msl_ft"] - 4.0 - m.rest_cg_agl_ft, abs=1.0)
    assert (s["on_ground"], s["crashed"], s["engine_running"]) == (0.0, 0.0, 1.0)
    assert s["throttle"] == pytest.approx(c.throttle)
    assert s["xpdr_code"] == 1200 and s["com1_mhz"] == 118.0


def test_fdm_properties_are_reachable_under_fdm_jsbsim(t09):
    m, _, tree = t09
    assert tree.get("/fdm/jsbsim/position/h-sl-ft")[0] == pytest.approx(m.fdm["position/h-sl-ft"])


@pytest.mark.parametrize("sel", [0, 1, 2, 3])
def test_fuel_selector_round_trips_through_the_tank_flags(t09, sel):
    _, c, tree = t09
    c.fuel_selector = sel
    assert to_canonical(_values(tree))["fuel_selector"] == sel
    tree.set("/consumables/fuel/tank[0]/selected", "false")
    assert c.fuel_selector == sel & 2
    tree.set("/consumables/fuel/tank[0]/selected", "true")
    tree.set("/consumables/fuel/tank[1]/selected", "true")
    assert c.fuel_selector == 3
    c.fuel_selector = 3


def test_key_start_reads_as_magnetos_start(t09):
    _, c, tree = t09
    c.starter_held = 1
    try:
        assert to_canonical(_values(tree))["magnetos"] == 4
    finally:
        c.starter_held = 0
    assert to_canonical(_values(tree))["magnetos"] == 3


def test_set_through_the_tree_moves_the_controls(t09):
    _, c, tree = t09
    tree.set("/controls/switches/master-avionics", "false")
    assert c.avionics == 0
    tree.set("/controls/switches/master-avionics", "1")
    tree.set("/instrumentation/transponder/id-code", "4521")
    assert to_canonical(_values(tree))["xpdr_code"] == 4521
    with pytest.raises(ValueError):
        tree.set("/instrumentation/transponder/id-code", "4981")  # 9 is not an octal digit
    with pytest.raises(PermissionError):
        tree.set("/sim/crashed", "1")
    with pytest.raises(KeyError):
        tree.get("/no/such/node")
    assert not math.isnan(tree.get("/engines/engine/rpm")[0])  # FlightGear's unindexed alias


def test_flightgear_c172p_aliases(t09):
    m, c, tree = t09
    assert tree.get("/engines/active-engine/rpm")[0] == tree.get("/engines/engine[0]/rpm")[0]
    tree.set("/controls/engines/current-engine/throttle", "0.5")
    assert c.throttle == 0.5
    tree.set("/sim/model/c172p/brake-parking", "1")
    assert c.parking_brake == 1
    tree.set("/instrumentation/transponder/inputs/knob-mode", "5")  # FlightGear ALT
    assert c.xpdr_mode == 3 and tree.get("/instrumentation/transponder/inputs/knob-mode")[0] == 5
    c.parking_brake = 0
