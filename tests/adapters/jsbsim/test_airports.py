import math

import pytest

from simbridge.adapters.jsbsim._airports import APT_DAT, CATALOG_AIRPORTS, load_airport, parse_apt_dat


def test_ksea_34r_threshold_heading_and_elevation():
    apt = load_airport("KSEA")
    rwy, end = apt.runway_end("34R")
    assert apt.elevation_ft == 433
    assert end.lat_deg == pytest.approx(47.43117533)
    assert end.heading_true_deg == pytest.approx(0.34, abs=0.1)
    assert rwy.width_m == pytest.approx(46.02)
    assert 3500 < rwy.length_m < 3700  # 16L/34R is 11,900 ft


def test_kpao_unnamed_end_gets_the_reciprocal_ident():
    apt = load_airport("KPAO")
    _, end13 = apt.runway_end("13")
    _, end31 = apt.runway_end("31")
    assert abs((end13.heading_true_deg - end31.heading_true_deg) % 360 - 180) < 0.5
    assert apt.parking("transient ramp").name == "Transient Parking"


@pytest.mark.parametrize("icao", CATALOG_AIRPORTS)
def test_catalog_airports_have_runways(icao):
    apt = load_airport(icao)
    assert apt.runways and all(r.width_m > 10 for r in apt.runways)


def test_unknown_airport_is_a_keyerror():
    with pytest.raises(KeyError):
        load_airport("ZZZZ")


@pytest.mark.slow
@pytest.mark.skipif(not APT_DAT.exists(), reason="FlightGear apt.dat not installed")
def test_shipped_extract_matches_apt_dat():
    raw = parse_apt_dat(APT_DAT, ("KHAF",))["KHAF"]
    apt = load_airport("KHAF")
    assert raw["elevation_ft"] == apt.elevation_ft
    assert [e["ident"] for r in raw["runways"] for e in r["ends"]] == [e.ident for r in apt.runways for e in r.ends]
    assert math.isclose(raw["runways"][0]["ends"][0]["lat_deg"], apt.runways[0].ends[0].lat_deg)
