import math

import pytest

from simbridge._canonical import is_canonical
from simbridge.adapters.xplane import _mapping as m


def test_every_row_is_a_canonical_signal():
    assert all(is_canonical(name) for name in m.TABLE)
    assert {"engine2_rpm", "engine2_running"} <= set(m.TABLE)


def test_unit_conversions():
    raw = {
        "sim/flightmodel/position/elevation": 914.4,  # m -> 3000 ft
        "sim/flightmodel/position/y_agl": 3.048,  # m -> 10 ft
        "sim/flightmodel/position/groundspeed": 51.444,  # m/s -> 100 kt
        "sim/flightmodel/position/mag_psi": -20.0,  # wraps to 340
        "sim/cockpit2/radios/actuators/nav1_frequency_hz": 11030.0,  # 10 kHz units
        "sim/cockpit2/radios/actuators/com1_frequency_hz_833": 118275.0,  # kHz (8.33 spacing)
        "sim/cockpit2/radios/actuators/transponder_code": 4521.0,
        "sim/cockpit2/fuel/fuel_tank_selector": 3.0,  # X-Plane right -> canonical 2
        "sim/cockpit2/autopilot/nav_status": 1.0,  # armed is not active
        "sim/cockpit2/autopilot/altitude_hold_status": 2.0,
        "sim/flightmodel2/gear/deploy_ratio[0]": 0.5,
        "sim/cockpit2/radios/indicators/nav1_hdef_dots_pilot": 1.5,
        "sim/flightmodel/engine/ENGN_running[1]": 1.0,
    }
    rows = m.select(
        [
            "alt_msl_ft",
            "alt_agl_ft",
            "gs_kt",
            "heading_mag_deg",
            "nav1_mhz",
            "com1_mhz",
            "xpdr_code",
            "fuel_selector",
            "ap_nav",
            "ap_alt",
            "gear_down",
            "loc_dev_dots",
            "engine2_running",
            "ias_kt",
        ]
    )
    v = m.to_canonical(rows, raw)
    assert v["alt_msl_ft"] == pytest.approx(3000.0)
    assert v["alt_agl_ft"] == pytest.approx(10.0)
    assert v["gs_kt"] == pytest.approx(100.0, abs=1e-3)
    assert v["heading_mag_deg"] == 340.0
    assert v["nav1_mhz"] == 110.30
    assert v["com1_mhz"] == 118.275
    assert v["xpdr_code"] == 4521
    assert v["fuel_selector"] == 2
    assert (v["ap_nav"], v["ap_alt"]) == (0.0, 1.0)
    assert v["gear_down"] == 0.0
    assert v["loc_dev_dots"] == -1.5
    assert v["engine2_running"] == 1.0
    assert "ias_kt" not in v  # missing input -> left out, recorded as null


def test_fuel_selector_centre_has_no_canonical_value():
    assert math.isnan(m.fuel_selector(2.0))
    assert [m.fuel_selector(x) for x in (0, 1, 3, 4)] == [0, 1, 2, 3]


def test_bcd_and_radians_helpers():
    assert m.bcd16_to_code(0x4521) == 4521
    assert m.bcd16_to_code(0x7700) == 7700
    assert m.rad_to_deg(math.pi / 2) == pytest.approx(90.0)


def test_unknown_signal_raises():
    with pytest.raises(KeyError, match="lane_id"):
        m.select(["lane_id"])


def test_subscription_list_carries_clock_and_pause_once():
    names = m.datarefs_for(m.select(["lat_deg", "lat_deg"]))
    assert names == [m.CLOCK_DATAREF, m.PAUSED_DATAREF, "sim/flightmodel/position/latitude"]
