"""NAV1 reception from FlightGear's nav.dat: localizer, glideslope and VOR needles."""

import math

from simbridge.adapters.jsbsim._airports import from_local_m, load_airport
from simbridge.adapters.jsbsim.cockpit._controls import Controls
from simbridge.adapters.jsbsim.cockpit._fdm import FlightModel
from simbridge.adapters.jsbsim.cockpit._navaids import receive
from simbridge.adapters.jsbsim._scenario import resolve

KSEA = load_airport("KSEA")
_, T34R = KSEA.runway_end("34R")


def on_final(nm: float, right_m: float = 0.0):
    """A point `nm` before the 34R threshold, `right_m` right of the extended centreline."""
    h = math.radians(T34R.heading_true_deg)
    back = -nm * 1852.0
    e = back * math.sin(h) + right_m * math.cos(h)
    n = back * math.cos(h) - right_m * math.sin(h)
    return from_local_m(e, n, T34R.lat_deg, T34R.lon_deg)


def test_ksea_34r_localizer_sign_and_scale():
    lat, lon = on_final(5)
    centre = receive(110.30, 0, lat, lon, 2000)
    assert centre.in_range and centre.kind == "LOC" and centre.ident == "ISEA"
    assert abs(centre.dots) < 1.0
    right = receive(110.30, 0, *on_final(5, right_m=150), 2000)
    left = receive(110.30, 0, *on_final(5, right_m=-150), 2000)
    assert right.dots > centre.dots + 1 and left.dots < centre.dots - 1
    assert receive(110.30, 0, *on_final(5, right_m=3000), 2000).dots == 5.0  # pegged


def test_glideslope_above_and_below():
    lat, lon = on_final(4)
    assert receive(110.30, 0, lat, lon, 3000).gs_dots == 5.0
    assert receive(110.30, 0, lat, lon, 700).gs_dots == -5.0
    # 2.75 deg path from the GS antenna (355 ft) at ~4.1 nm: about 1540 ft MSL
    on_path = receive(110.30, 0, lat, lon, 1540)
    assert on_path.gs_in_range and abs(on_path.gs_dots) < 1.5


def test_the_opposite_localizer_on_the_same_frequency_is_not_received_from_behind():
    lat, lon = on_final(5)
    r = receive(110.30, 180, lat, lon, 2000)
    assert r.ident == "ISEA"


def test_vor_to_from_and_out_of_range():
    # SJC VOR (114.10) seen from Palo Alto, north-west of it
    lat, lon = 37.4611, -122.115
    to = receive(114.10, 120, lat, lon, 3500)
    assert to.in_range and to.kind == "VOR" and to.to_flag
    frm = receive(114.10, 300, lat, lon, 3500)
    assert frm.in_range and not frm.to_flag
    assert not receive(114.10, 0, 47.45, -122.30, 3500).in_range  # Seattle is far from SJC
    assert not receive(113.00, 0, lat, lon, 3500).in_range


def test_nav1_needs_avionics_power_and_feeds_the_autopilot():
    sc = resolve(
        KSEA,
        position=on_final(8, right_m=500),
        heading_deg=T34R.heading_true_deg,
        alt_msl_ft=2600,
        ias_kt=90,
        engine="running",
    )
    c = Controls()
    m = FlightModel(sc, c)
    c.nav1_mhz = 110.30
    assert m.nav1().in_range
    c.avionics = 0
    for _ in range(12):
        m.step()
    assert not m.nav1().in_range
    c.avionics = 1
    for _ in range(12):
        m.step()
    assert m.nav1().dots > 2.5  # 500 m right of the centreline
    # NAV mode intercepts and tracks the localizer
    c.ap_on = c.ap_nav = c.ap_alt = 1
    c.ap_alt_target_ft = 2600
    for _ in range(120 * 60):
        m.step()
    assert m.nav1().in_range and abs(m.nav1().dots) < 1.5
