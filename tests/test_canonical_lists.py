"""The aircraft's signal list is declared once (simbridge/_canonical.py: FLIGHT and its
AIRCRAFT_STATE); the flight adapters' lists derive from it."""

from simbridge._canonical import AIRCRAFT_STATE, FLIGHT, flight_signals


def test_aircraft_state_is_flight_names_in_flight_order():
    names = list(FLIGHT)
    assert set(AIRCRAFT_STATE) <= set(FLIGHT)
    assert sorted(AIRCRAFT_STATE, key=names.index) == list(AIRCRAFT_STATE)
    assert flight_signals({"crashed", "lat_deg", "not_a_signal"}) == ("lat_deg", "crashed")


def test_flight_adapters_derive_their_lists():
    from simbridge.adapters.flightgear._mapping import SIGNALS, CanonicalMapper
    from simbridge.adapters.msfs._session import BASE_SIGNALS as MSFS_BASE
    from simbridge.adapters.xplane._tasks import BASE_SIGNALS as XPLANE_BASE

    produced = CanonicalMapper()({"lat_deg": 21.3})
    assert set(SIGNALS) == set(produced) and SIGNALS == flight_signals(produced)
    assert set(AIRCRAFT_STATE) <= set(SIGNALS)
    assert tuple(XPLANE_BASE[: len(AIRCRAFT_STATE)]) == AIRCRAFT_STATE
    assert tuple(MSFS_BASE) == AIRCRAFT_STATE
