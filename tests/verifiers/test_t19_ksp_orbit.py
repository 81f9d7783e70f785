"""T19 KSP orbit: bundles imported from hand-built saves, with hand-worked scores.

Weights: reach space 0.20, stable orbit 0.30, circularity 0.50 (share of the orbit at 75-85 km).
"""

import math

import pytest

from simbridge import read_bundle
from simbridge._task import load_task
from simbridge.adapters.ksp import import_saves
from simbridge import score_bundle
from ksp_saves import orbit_from, save, vessel
from synth import component as comp
from synth import score_task

TASK = load_task("T19")


def score_saves(tmp_path, *texts):
    paths = []
    for i, text in enumerate(texts):
        p = tmp_path / f"save{i}.sfs"
        p.write_text(text)
        paths.append(p)
    return score_bundle(read_bundle(import_saves(paths, tmp_path / "bundle", vessel="SB Two-Stage")), TASK)


def test_circular_80_km_full_credit(tmp_path):
    sma, ecc = orbit_from(78, 82)
    s = score_saves(tmp_path, save(vessel(alt=79500.0, sma=sma, ecc=ecc)))
    assert s.status == "scored" and s.score == pytest.approx(1.0) and s.success is True
    assert s.safety == []  # "debug menu disabled" is lockdown


def test_eccentric_orbit_partial(tmp_path):
    # 71 × 89 km: reached space 0.2, stable 0.3 worth the share in the band. a = 680 km,
    # e = 9/680: the band is cos E in [−5/9, 5/9], share = (π − 2·acos(5/9)) / π = 0.37499 (the
    # e·sin E terms cancel) → 0.2 + (0.3 + 0.5) × 0.37499 = 0.49999
    sma, ecc = orbit_from(71, 89)
    s = score_saves(tmp_path, save(vessel(alt=88000.0, sma=sma, ecc=ecc)))
    share = (math.pi - 2 * math.acos(5 / 9)) / math.pi
    assert comp(s, "circularity").measured == pytest.approx(share, abs=1e-4)
    assert s.score == pytest.approx(0.2 + 0.8 * share, abs=1e-4)
    assert s.success is False


def test_high_orbit_stable_but_outside_band(tmp_path):
    # 90 × 110 km: stable, never in 75-85 km: any stable orbit is not part of the asked one, the
    # stable item is worth the share in the band (0) → 0.2 (was 0.5)
    sma, ecc = orbit_from(90, 110)
    s = score_saves(tmp_path, save(vessel(alt=100000.0, sma=sma, ecc=ecc)))
    assert s.score == pytest.approx(0.2)


def test_suborbital_after_reaching_space(tmp_path):
    # an earlier save at 72 km on the way up, the last one falling back (PeA −300 km, ApA 74 km):
    # reached space 0.2; not stable 0; circularity only for a stable orbit 0 → 0.2
    sma1, ecc1 = orbit_from(-300, 74)
    s = score_saves(
        tmp_path,
        save(vessel(sit="SUB_ORBITAL", alt=72000.0, sma=sma1, ecc=ecc1), ut=1500.0),
        save(vessel(sit="SUB_ORBITAL", alt=30000.0, sma=sma1, ecc=ecc1), ut=1700.0),
    )
    assert comp(s, "reach_space").measured == 72000
    assert s.score == pytest.approx(0.2)


def test_destroyed_vessel_fails(tmp_path):
    # only debris left in the final save: the rocket is not intact → 0
    s = score_saves(
        tmp_path,
        save(vessel(name="SB Two-Stage Debris", type="Debris", sit="SUB_ORBITAL", alt=2000.0, sma=300e3, ecc=0.9)),
    )
    assert s.status == "scored" and s.score == 0.0
    assert "not intact" in s.explanation


def test_wrong_body_is_not_stable(tmp_path):
    # around the Mun (REF 2) with a fine-looking orbit: reach space only → 0.2
    sma, ecc = orbit_from(78, 82)
    s = score_saves(tmp_path, save(vessel(alt=480e3, sma=sma, ecc=ecc, ref=2)))  # alt on that Mun orbit
    assert s.score == pytest.approx(0.2)


def test_missing_snapshot_is_unscored(tmp_path):
    s = score_task(tmp_path, TASK, {"t": [0.0], "alt_m": [80000.0]})
    assert s.status == "unscored" and "ksp_vessel" in s.reason


def test_snapshot_without_orbit_is_unscored(tmp_path):
    s = score_task(
        tmp_path,
        TASK,
        {"t": [0.0], "alt_m": [80000.0]},
        snapshots={"end": {"ksp_vessel": {"name": "SB Two-Stage", "situation": "ORBITING"}}},
    )
    assert s.status == "unscored" and "no usable orbit" in s.reason
