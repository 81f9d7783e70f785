"""KSP save importer and T19 verifier on real saves written by KSP 1.1.3, 1.2.2, 1.3.0, 1.4.3 and
1.7.3 (tests/fixtures/ksp/README.md: sources). Expected altitudes are worked out here from the
numbers in each vessel's ORBIT block (SMA, ECC) and the body's radius, not taken from the code."""

import math

import pytest

from simbridge import SimbridgeError, read_bundle
from simbridge._task import load_task
from simbridge.adapters.ksp import SaveError, import_saves, read_save
from simbridge import score_bundle
from fixtures import fixture_path
from synth import component as comp

TASK = load_task("T19")
KERBIN_R_M, MINMUS_R_M = 600_000.0, 60_000.0
BAND_LO_R_M, BAND_HI_R_M = KERBIN_R_M + 75_000.0, KERBIN_R_M + 85_000.0


def ksp(name: str):
    return fixture_path("ksp", name)


def score(tmp_path, save_name: str, vessel: str):
    return score_bundle(read_bundle(import_saves([ksp(save_name)], tmp_path / "b", vessel=vessel)), TASK)


def mean_anomaly(ecc_anomaly: float, ecc: float) -> float:
    return ecc_anomaly - ecc * math.sin(ecc_anomaly)


def ecc_anomaly_at(r_m: float, sma_m: float, ecc: float) -> float:
    # r = a(1 − e cos E)
    return math.acos((1 - r_m / sma_m) / ecc)


@pytest.mark.parametrize(
    "name,n_vessels,situations,refs",
    [
        ("ksp143_stock_career.sfs", 15, {"SPLASHED", "SUB_ORBITAL", "ORBITING", "FLYING", "LANDED"}, {1, 3}),
        ("ksp130_modded_career_cut.sfs", 28, {"ORBITING", "ESCAPING", "LANDED"}, {0, 1, 2, 3}),
        ("ksp122_career_prelaunch.sfs", 1, {"PRELAUNCH"}, {1}),
        ("ksp173_caveman_kilo_escaping.sfs", 4, {"ORBITING", "SPLASHED", "ESCAPING"}, {1, 9, 12}),
        ("ksp113_rp0_modded_career.sfs", 0, set(), set()),
    ],
)
def test_every_real_save_reads(name, n_vessels, situations, refs):
    s = read_save(ksp(name))
    assert len(s.vessels) == n_vessels
    assert {v.situation for v in s.vessels} == situations
    assert {v.ref for v in s.vessels} == refs
    assert all(v.problem is None for v in s.vessels)


def test_in_band_station_full_credit(tmp_path):
    # MIKE (1.7.3, "Circularized MIKE to 80x80"): SMA = 679877.14386126411, ECC = 0.00046124436380707949
    sma, ecc = 679877.14386126411, 0.00046124436380707949
    v = read_save(ksp("ksp173_caveman_mike_80x80.sfs")).vessel("MIKE")
    assert v.pe_alt_m == pytest.approx(sma * (1 - ecc) - KERBIN_R_M)  # 79 563.6 m
    assert v.ap_alt_m == pytest.approx(sma * (1 + ecc) - KERBIN_R_M)  # 80 190.7 m
    s = score(tmp_path, "ksp173_caveman_mike_80x80.sfs", "MIKE")
    assert s.status == "scored" and s.score == pytest.approx(1.0) and s.success is True


def test_near_band_probe_partial_credit(tmp_path):
    # KILO (1.7.3, "in low Kerbin orbit"): PeA 74.95 km just under the band, ApA 75.20 km inside it.
    # Time in band: r ≥ 675 km from E1 = acos((1 − 675 km / a) / e) to E = π (apoapsis), both halves.
    sma, ecc = 675075.72026828397, 0.00018469723564571282
    v = read_save(ksp("ksp173_caveman_kilo_lko.sfs")).vessel("KILO")
    assert v.pe_alt_m == pytest.approx(sma * (1 - ecc) - KERBIN_R_M)
    assert v.ap_alt_m == pytest.approx(sma * (1 + ecc) - KERBIN_R_M)
    assert 74_900 < v.pe_alt_m < 75_000 < v.ap_alt_m < 75_300
    share = (math.pi - mean_anomaly(ecc_anomaly_at(BAND_LO_R_M, sma, ecc), ecc)) / math.pi  # 0.7075
    s = score(tmp_path, "ksp173_caveman_kilo_lko.sfs", "KILO")
    assert comp(s, "circularity").measured == pytest.approx(share, abs=1e-5)
    # the stable-orbit item is worth the share of the orbit in the asked band, as circularity
    assert s.score == pytest.approx(0.2 + (0.3 + 0.5) * share, abs=1e-5) and s.success is False


def test_far_from_band_capture_orbit(tmp_path):
    # KILO just captured (1.7.3): PeA 74.7 km, ApA 7 775 km. In the band only while passing
    # between r = 675 km and 685 km near periapsis.
    sma, ecc = 4525128.6637996798, 0.85088887199912544
    v = read_save(ksp("ksp173_caveman_kilo_capture.sfs")).vessel("KILO")
    assert v.pe_alt_m == pytest.approx(sma * (1 - ecc) - KERBIN_R_M)
    assert v.ap_alt_m == pytest.approx(sma * (1 + ecc) - KERBIN_R_M)
    e1, e2 = ecc_anomaly_at(BAND_LO_R_M, sma, ecc), ecc_anomaly_at(BAND_HI_R_M, sma, ecc)
    share = (mean_anomaly(e2, ecc) - mean_anomaly(e1, ecc)) / math.pi
    assert 0 < share < 0.005  # 0.29 %
    s = score(tmp_path, "ksp173_caveman_kilo_capture.sfs", "KILO")
    # stable, but worth only its share in the asked band: a capture orbit is not the 80 km orbit
    assert comp(s, "stable_orbit").earned == pytest.approx(share, abs=1e-6)
    assert comp(s, "circularity").measured == pytest.approx(share, rel=1e-4)
    assert s.score == pytest.approx(0.2 + 0.8 * share, abs=1e-5)


def test_escaping_hyperbola(tmp_path):
    # KILO arriving from Jool (1.7.3): SMA = −773336.9768168244, ECC = 3.8488263251588362 →
    # r_pe = a(1 − e) = 2 203 082 m; no apoapsis. In space, not in orbit: 0.2.
    sma, ecc = -773336.9768168244, 3.8488263251588362
    v = read_save(ksp("ksp173_caveman_kilo_escaping.sfs")).vessel("KILO")
    assert v.situation == "ESCAPING" and v.ap_alt_m is None and v.period_s is None
    assert v.pe_alt_m == pytest.approx(sma * (1 - ecc) - KERBIN_R_M)
    s = score(tmp_path, "ksp173_caveman_kilo_escaping.sfs", "KILO")
    assert s.status == "scored" and s.score == pytest.approx(0.2)
    assert comp(s, "reach_space").earned == 1 and comp(s, "stable_orbit").earned == 0


def test_orbit_of_another_body(tmp_path):
    # Acorn MiD C00 Capsule around Minmus (REF 3, R = 60 km): SMA = 86911.694767267269,
    # ECC = 0.017975312185976037 → PeA 25.35 km, ApA 28.47 km above Minmus; not Kerbin: 0.2
    sma, ecc = 86911.694767267269, 0.017975312185976037
    v = read_save(ksp("ksp130_modded_career_cut.sfs")).vessel("Acorn MiD C00 Capsule")
    assert v.body == "Minmus"
    assert v.pe_alt_m == pytest.approx(sma * (1 - ecc) - MINMUS_R_M)
    assert v.ap_alt_m == pytest.approx(sma * (1 + ecc) - MINMUS_R_M)
    s = score(tmp_path, "ksp130_modded_career_cut.sfs", "Acorn MiD C00 Capsule")
    assert s.score == pytest.approx(0.2) and "orbiting Minmus (body 3)" in comp(s, "stable_orbit").explanation


def test_landed_vessel_with_nan_orbit_is_scored_no_orbit(tmp_path):
    # 'Minmus Science' LANDED on Minmus: `SMA = NaN`, `ECC = 1` — the vessel has no orbit. The save
    # reads (the other 14 vessels are not in the way) and the flight scores 0 with the reason.
    v = read_save(ksp("ksp143_stock_career.sfs")).vessel("Minmus Science")
    assert v.sma_m is None and v.pe_alt_m is None and v.situation == "LANDED"
    assert "no orbit" in v.no_orbit and "SMA = NaN" in v.no_orbit and "LANDED" in v.no_orbit
    s = score(tmp_path, "ksp143_stock_career.sfs", "Minmus Science")
    assert s.status == "scored" and s.score == 0.0
    assert "no orbit" in comp(s, "stable_orbit").explanation


def test_prelaunch_vessel_scores_zero(tmp_path):
    # Mapleseed Mk1 PRELAUNCH at 70.4 m (1.2.2): ORBIT SMA = 300817.66, ECC = 0.99479855947802565
    # → PeA = a(1 − e) − R ≈ −598 435 m, deep inside Kerbin; never left the ground: 0
    sma, ecc = 300817.65595004556, 0.99479855947802565
    v = read_save(ksp("ksp122_career_prelaunch.sfs")).vessel("Mapleseed Mk1")
    assert v.pe_alt_m == pytest.approx(sma * (1 - ecc) - KERBIN_R_M)
    s = score(tmp_path, "ksp122_career_prelaunch.sfs", "Mapleseed Mk1")
    assert s.status == "scored" and s.score == 0.0


def test_only_debris_left_is_not_intact(tmp_path):
    # 'Munar Explorer Tourist' is gone; four pieces of 'Munar Explorer Tourist Debris' remain
    s = score(tmp_path, "ksp143_stock_career.sfs", "Munar Explorer Tourist")
    assert s.status == "scored" and s.score == 0.0 and "not intact" in s.explanation


def test_vessel_absent_from_a_modded_save_is_named(tmp_path):
    with pytest.raises(SimbridgeError, match=r"no vessel named 'SB Two-Stage'.*vessels: none"):
        import_saves([ksp("ksp113_rp0_modded_career.sfs")], tmp_path / "b", vessel="SB Two-Stage")


def test_bad_number_matters_only_for_the_named_vessel(tmp_path):
    # a real save with one unrelated vessel's SMA damaged still reads; naming that vessel fails
    # with the line of the bad value
    text = ksp("ksp173_caveman_kilo_lko.sfs").read_text()
    bad = text.replace("SMA = 675074.51310818875", "SMA = 6750x4.5", 1)  # Jebediah Kerman's ORBIT
    assert bad != text
    p = tmp_path / "persistent.sfs"
    p.write_text(bad)
    assert read_save(p).vessel("KILO").pe_alt_m == pytest.approx(74951.0356, abs=0.01)
    with pytest.raises(SaveError, match=r"vessel 'Jebediah Kerman': line \d+: ORBIT.SMA = '6750x4.5' is not a number"):
        read_save(p).vessel("Jebediah Kerman")


def test_duplicate_names_need_the_active_vessel(tmp_path):
    # two copies of MIKE: the active one is meant; when neither is active, which one is unknowable
    text = ksp("ksp173_caveman_mike_80x80.sfs").read_text()
    start = text.index("\t\tVESSEL\n\t\t{\n")
    end = text.index("\t\tVESSEL\n\t\t{\n", start + 1)
    dup = text[:end] + text[start:end] + text[end:]
    p = tmp_path / "dup.sfs"
    p.write_text(dup)
    assert read_save(p).vessel("MIKE").active
    p.write_text(dup.replace("activeVessel = 0", "activeVessel = 2", 1))
    with pytest.raises(SaveError, match=r"2 vessels are named 'MIKE'"):
        read_save(p).vessel("MIKE")
