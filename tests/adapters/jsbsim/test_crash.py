import math

from simbridge.adapters.jsbsim._airports import from_local_m, load_airport
from simbridge.adapters.jsbsim.cockpit._crash import CrashDetector, GroundState, RunwayArea

KPAO = load_airport("KPAO")
_, END31 = KPAO.runway_end("31")
_H = math.radians(END31.heading_true_deg)
ON_RWY = from_local_m(300 * math.sin(_H), 300 * math.cos(_H), END31.lat_deg, END31.lon_deg)  # 300 m down 31
OFF_RWY = (37.4530, -122.1100)


def _gs(**kw):
    base = dict(
        lat_deg=ON_RWY[0],
        lon_deg=ON_RWY[1],
        gear_contact=True,
        structure_contact=False,
        sink_fpm=0.0,
        bank_deg=0.0,
        gs_kt=0.0,
    )
    base.update(kw)
    return GroundState(**base)


def test_runway_area():
    area = RunwayArea(KPAO)
    assert area.contains(*ON_RWY)
    assert not area.contains(*OFF_RWY)


def test_gentle_landing_is_not_a_crash():
    d = CrashDetector(RunwayArea(KPAO))
    for _ in range(10):
        assert d.update(_gs(gear_contact=False, sink_fpm=300, gs_kt=60)) is None
    assert d.update(_gs(sink_fpm=100, gs_kt=58)) is None


def test_hard_touchdown():
    d = CrashDetector(RunwayArea(KPAO))
    d.update(_gs(gear_contact=False, sink_fpm=1500, gs_kt=60))
    assert "hard touchdown" in d.update(_gs(sink_fpm=200, gs_kt=60))


def test_fast_off_runway_and_taxi_off_runway():
    d = CrashDetector(RunwayArea(KPAO))
    assert d.update(_gs(lat_deg=OFF_RWY[0], lon_deg=OFF_RWY[1], gs_kt=10)) is None  # taxiing on the ramp
    assert "off the runway" in d.update(_gs(lat_deg=OFF_RWY[0], lon_deg=OFF_RWY[1], gs_kt=45))


def test_bank_on_ground_and_latch():
    d = CrashDetector(RunwayArea(KPAO))
    assert "bank" in d.update(_gs(bank_deg=25, gs_kt=40))
    assert "bank" in d.update(_gs())  # latched
