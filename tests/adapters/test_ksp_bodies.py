"""KSP issue 30: every measured value uses the radius of the body the orbit is around (stock
system), a save from a solar system that is not stock is unscored with the reason, and a save
holding the asked name only as debris says so. Real saves from tests/fixtures/ksp/ (README:
sources); the non-stock saves are a real save edited here, as each test says. Expected numbers
are worked out from the ORBIT block and the KSP wiki's body radii, not taken from the code."""

import pytest

from simbridge import SimbridgeError, read_bundle
from simbridge._task import load_task
from simbridge.adapters.ksp import import_saves, read_save
from simbridge import score_bundle
from fixtures import fixture_path
from ksp_saves import save, vessel
from synth import component as comp

TASK = load_task("T19")
# KSP wiki, "Celestial body" pages (stock 1.x): equatorial radii
R = {"Sun": 261_600_000.0, "Mun": 200_000.0, "Minmus": 60_000.0, "Gilly": 13_000.0, "Kerbin": 600_000.0}


def ksp(name):
    return fixture_path("ksp", name)


def scored(tmp_path, paths, vessel_name, task=TASK):
    return score_bundle(read_bundle(import_saves(paths, tmp_path / "b", vessel=vessel_name, force=True)), task)


def test_minmus_and_sun_orbits_use_their_own_radius(tmp_path):
    # ksp130_modded_career_cut.sfs: 'Acorn MiD C00 Capsule' ORBITING Minmus (REF 3),
    # SMA 86911.694767267269, ECC 0.017975312185976037 → PeA = a(1−e) − 60 km ≈ 25.35 km
    sma, ecc = 86911.694767267269, 0.017975312185976037
    s = read_save(ksp("ksp130_modded_career_cut.sfs"))
    v = s.vessel("Acorn MiD C00 Capsule")
    assert v.body == "Minmus" and v.pe_alt_m == pytest.approx(sma * (1 - ecc) - R["Minmus"])
    sc = scored(tmp_path, [ksp("ksp130_modded_career_cut.sfs")], "Acorn MiD C00 Capsule")
    c = comp(sc, "stable_orbit")
    assert sc.status == "scored" and c.earned == 0.0  # around Minmus, the task wants Kerbin
    assert c.measured == pytest.approx(sma * (1 - ecc) - R["Minmus"], abs=0.1) and c.measured > 0  # stored to 0.1 m
    assert "Minmus" in c.explanation and "PeA 25.3 km" in c.explanation
    # probe 'Pistachio Dumpster DeF' ORBITING the Sun (REF 0): SMA 26794490859.738739, ECC 0.49239483034202874
    sma, ecc = 26794490859.738739, 0.49239483034202874
    sc = scored(tmp_path, [ksp("ksp130_modded_career_cut.sfs")], "Pistachio Dumpster DeF")
    assert comp(sc, "stable_orbit").measured == pytest.approx(
        sma * (1 - ecc) - R["Sun"], rel=1e-5
    )  # stored to 6 digits


@pytest.mark.parametrize(("ref", "body"), [(2, "Mun"), (13, "Gilly")])
def test_mun_station_and_gilly_relay_report_their_altitude(tmp_path, ref, body):
    # the examples: a Mun station at 79.9 km periapsis, a Gilly relay (hand-built save)
    pe, ap = 79_900.0, 90_000.0
    rp, ra = R[body] + pe, R[body] + ap
    p = tmp_path / "s.sfs"
    p.write_text(save(vessel(name="Relay", alt=85_000.0, sma=(rp + ra) / 2, ecc=(ra - rp) / (ra + rp), ref=ref)))
    v = read_save(p).vessel("Relay")
    assert v.body == body and v.pe_alt_m == pytest.approx(pe) and v.ap_alt_m == pytest.approx(ap)
    c = comp(scored(tmp_path, [p], "Relay"), "stable_orbit")
    assert c.measured == pytest.approx(pe, abs=0.1) and c.earned == 0.0 and body in c.explanation


def _kopernicus(text: str) -> str:
    # the real KSP 1.7.3 save's LoaderInfo is empty; give it the entries an RSS install writes
    # (names as in ksp113_rp0_modded_career.sfs, a real RSS/RP-0 save)
    edited = text.replace(
        "\tLoaderInfo\n\t{\n\t}",
        "\tLoaderInfo\n\t{\n\t\tKopernicus v1.0.0.0 = True\n\t\tRealSolarSystem v0.11.4.0 = True\n\t}",
        1,
    )
    assert edited != text
    return edited


def test_kopernicus_save_is_unscored_with_the_reason(tmp_path):
    p = tmp_path / "rss.sfs"
    p.write_text(_kopernicus(ksp("ksp173_caveman_mike_80x80.sfs").read_text()))
    s = read_save(p)
    assert "Kopernicus" in s.non_stock and "RealSolarSystem" in s.non_stock
    assert s.vessel("MIKE").pe_alt_m is None  # no stock radius applies
    b = read_bundle(import_saves([p], tmp_path / "b", vessel="MIKE"))
    assert "non_stock_system" in b.episode.flags
    assert b.snapshot("end", "ksp_system")["stock"] is False
    sc = score_bundle(b, TASK)
    assert sc.status == "unscored" and "not KSP's stock solar system" in sc.reason
    assert "Kopernicus" in sc.reason
    # the unedited save is stock and scores
    assert read_save(ksp("ksp173_caveman_mike_80x80.sfs")).non_stock is None
    assert scored(tmp_path, [ksp("ksp173_caveman_mike_80x80.sfs")], "MIKE").status == "scored"


def test_rss_orbit_without_loader_info_is_caught_by_its_altitude(tmp_path):
    # MIKE moved to an RSS-sized Earth orbit (REF 1, R 6,371 km): alt 79.9 km as saved, SMA
    # 6,371 km + 80 km. With Kerbin's 600 km it would read "periapsis 5,8xx km", far above the
    # vessel's own altitude: the bodies are not stock.
    text = ksp("ksp173_caveman_mike_80x80.sfs").read_text()
    edited = text.replace("SMA = 679877.14386126411", "SMA = 6451000.0", 1)
    assert edited != text
    p = tmp_path / "rss.sfs"
    p.write_text(edited)
    b = read_bundle(import_saves([p], tmp_path / "b", vessel="MIKE"))
    why = b.snapshot("end", "ksp_system")["why"]
    assert "'MIKE'" in why and "not stock" in why and "non_stock_system" in b.episode.flags
    assert b.snapshot("end", "ksp_vessel")["pe_alt_m"] is None
    sc = score_bundle(b, TASK)
    assert sc.status == "unscored" and "MIKE" in sc.reason


def test_non_stock_task_with_its_own_body_scores(tmp_path):
    # a task set in RSS names Earth's radius and GM: then the same save is judged with them
    p = tmp_path / "rss.sfs"
    text = _kopernicus(ksp("ksp173_caveman_mike_80x80.sfs").read_text())
    p.write_text(text.replace("SMA = 679877.14386126411", "SMA = 6451000.0", 1))
    task = TASK.model_copy(deep=True)
    task.verifier.params.update(body_radius_m=6_371_000.0, body_gm_m3s2=3.986004418e14)
    sc = scored(tmp_path, [p], "MIKE", task)
    assert sc.status == "scored"
    ecc = 0.00046124436380707949  # MIKE's ECC in the save
    c = comp(sc, "stable_orbit")
    assert c.earned == 1.0 and c.measured == pytest.approx(6451000.0 * (1 - ecc) - 6_371_000.0, abs=0.1)


def test_debris_named_as_debris(tmp_path):
    # ksp143_stock_career.sfs holds four 'Munar Explorer Tourist Debris' pieces
    with pytest.raises(SimbridgeError, match=r"vessel 'Munar Explorer Tourist Debris' is debris"):
        import_saves([ksp("ksp143_stock_career.sfs")], tmp_path / "b", vessel="Munar Explorer Tourist Debris")
    p = tmp_path / "only_debris.sfs"
    p.write_text(
        save(
            vessel(name="Stage A", type="Debris", sit="SUB_ORBITAL", sma=400e3, ecc=0.6),
            vessel(name="Fairing B", type="Debris", sit="SUB_ORBITAL", sma=400e3, ecc=0.6),
        )
    )
    with pytest.raises(
        SimbridgeError, match=r"no vessel named 'Probe'.*\(vessels: none; debris: 'Fairing B', 'Stage A'\)"
    ):
        import_saves([p], tmp_path / "b2", vessel="Probe")
    with pytest.raises(SimbridgeError, match=r"vessel 'Stage A' is debris.*vessels: none; debris:"):
        import_saves([p], tmp_path / "b3", vessel="Stage A")
