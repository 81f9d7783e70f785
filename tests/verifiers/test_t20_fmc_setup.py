"""T20 737 FMC preflight: full, partial and failing fixtures with hand-worked scores, and the OFP
document checked against the verifier's parameters."""

import copy
import re

import numpy as np
import pytest

from simbridge._task import load_task, tasks_dir
from simbridge.verifiers.fmc_setup import normalise_legs
from synth import component as comp
from synth import score_task, with_gap
from synth_flight_b import ground, pdf_lines, text_pdf

TASK = load_task("T20")
P = TASK.verifier.params
LEGS_16L = [
    "RW16L",
    "(1000)",
    "CAVOB",
    "RENBE",
    "RICHR",
    "EMRLD",
    "HAROB",
    "ERAVE",
    "EASON",
    "ENVIE",
    "ETCHY",
    "MLBEC",
    "BGGLO",
    "LOZIT",
    "BDEGA",
    "CORKK",
    "BRIXX",
    "RW28L",
]
FMS = {
    "origin": "KSEA",
    "destination": "KSFO",
    "legs": LEGS_16L,
    "zfw_lb": 124000,
    "fuel_lb": 17300,
    "cost_index": 35,
    "cruise_alt_ft": 35000,
    "v1_kt": 142,
    "vr_kt": 145,
    "v2_kt": 151,
}
AFDS = {"lnav": 1, "vnav": 1}


def score(tmp_path, fms=FMS, afds=AFDS, cols=None):
    end = {"fms": fms, "afds": afds}
    end = {k: v for k, v in end.items() if v is not None}
    cols = cols if cols is not None else ground(hz=2, seconds=600)
    return score_task(tmp_path, TASK, cols, snapshots={"end": end})


def fms(**changes):
    out = copy.deepcopy(FMS)
    out.update(changes)
    return out


def test_ofp_pdf_is_its_text_source_and_matches_the_params():
    inputs = tasks_dir() / "inputs" / "T20"
    lines = (inputs / "ofp.txt").read_text().splitlines()
    data = (inputs / "ofp.pdf").read_bytes()
    assert pdf_lines(data) == lines
    assert data == text_pdf(lines, title="OFP SB220 KSEA-KSFO")
    text = "\n".join(lines)
    log = [
        ln.split()[0]
        for ln in lines[lines.index(next(ln for ln in lines if ln.startswith("NAV LOG"))) + 1 :]
        if ln.strip() and not ln.startswith("WEIGHTS")
    ]
    log = log[: log.index("KSFO/28L") + 1]
    assert [f for f in log if f in P["route_fixes"]] == P["route_fixes"]
    assert f"ZERO FUEL WT         {P['zfw_lb']:,}" in text and f"BLOCK FUEL                    {P['fuel_lb']:,}" in text
    assert f"COST INDEX {P['cost_index']}" in text and "CRZ FL350" in text
    # the fuel and weight arithmetic of the OFP adds up
    fuel = {
        k: int(v.replace(",", ""))
        for k, v in re.findall(
            r"^(TRIP KSFO|CONTINGENCY 5PCT|ALTERNATE KOAK|FINAL RESERVE|EXTRA|TAKEOFF FUEL|TAXI|BLOCK FUEL)\s.*?([\d,]+)$",
            text,
            re.M,
        )
    }
    assert (
        sum(fuel[k] for k in ("TRIP KSFO", "CONTINGENCY 5PCT", "ALTERNATE KOAK", "FINAL RESERVE", "EXTRA"))
        == fuel["TAKEOFF FUEL"]
    )
    assert fuel["TAKEOFF FUEL"] + fuel["TAXI"] == fuel["BLOCK FUEL"] == P["fuel_lb"]
    assert P["zfw_lb"] + fuel["TAKEOFF FUEL"] == 140_940 and 140_940 - fuel["TRIP KSFO"] == 130_540


def test_normalise_drops_conditional_legs_and_merges_discontinuities():
    legs = [
        "RW16L",
        "(1000)",
        "HAROB",
        "DISCONTINUITY",
        {"ident": "", "discontinuity": True},
        "erave",
        "ERAVE",
        "VECTORS",
    ]
    assert normalise_legs(legs) == ["HAROB", "DISCO", "ERAVE"]


def test_everything_set_full_credit(tmp_path):
    s = score(tmp_path)
    assert s.status == "scored" and s.score == pytest.approx(1.0) and s.success is True


def test_other_runway_sid_and_airway_expansion_are_accepted(tmp_path):
    # runway 34R's HAROB6 legs and an extra Q1 fix from a newer nav cycle: still the OFP route -> 1.0
    legs = [
        "RW34R",
        "DODVE",
        "WUREL",
        "ATOME",
        "BREMM",
        "HAROB",
        "ERAVE",
        "EASON",
        "NEWFX",
        "ENVIE",
        "ETCHY",
        "MLBEC",
        "LOZIT",
        "BDEGA",
        "CORKK",
        "BRIXX",
    ]
    assert score(tmp_path, fms(legs=legs)).score == pytest.approx(1.0)


def test_discontinuity_and_vnav_not_armed(tmp_path):
    # a route discontinuity left between ETCHY and MLBEC (-0.40) and VNAV off (-0.20):
    # 0.20 performance + 0.20 V-speeds = 0.40
    legs = LEGS_16L[:11] + ["DISCONTINUITY"] + LEGS_16L[11:]
    s = score(tmp_path, fms(legs=legs), {"lnav": 1, "vnav": 0})
    assert s.score == pytest.approx(0.40) and s.success is False
    assert "discontinuity" in comp(s, "route").measured


def test_extra_direct_fix_and_wrong_cost_index(tmp_path):
    # a DCT to RBL inserted between ETCHY and MLBEC is not the OFP route (-0.40);
    # CI 50 instead of 35 (-0.20): V-speeds + LNAV/VNAV = 0.40
    legs = LEGS_16L[:11] + ["RBL"] + LEGS_16L[11:]
    s = score(tmp_path, fms(legs=legs, cost_index=50))
    assert s.score == pytest.approx(0.40)
    assert "RBL" in comp(s, "route").measured


def test_vspeeds_missing_and_fuel_far_off(tmp_path):
    # V2 not set (-0.20), fuel 14,000 vs 17,300 (-0.20): 0.40 + 0.20 = 0.60
    s = score(tmp_path, fms(v2_kt=None, fuel_lb=14000))
    assert s.score == pytest.approx(0.60)


def test_cruise_altitude_as_flight_level_string(tmp_path):
    assert score(tmp_path, fms(cruise_alt_ft="FL350")).score == pytest.approx(1.0)


def test_untouched_fmc_earns_nothing(tmp_path):
    blank = {
        "origin": "",
        "destination": "",
        "legs": [],
        "zfw_lb": None,
        "fuel_lb": 17300,
        "cost_index": None,
        "cruise_alt_ft": None,
        "v1_kt": None,
        "vr_kt": None,
        "v2_kt": None,
    }
    s = score(tmp_path, blank, {"lnav": 0, "vnav": 0})
    assert s.status == "scored" and s.score == 0.0


def test_taking_off_is_a_safety_violation(tmp_path):
    cols = ground(hz=2, seconds=600)
    cols["on_ground"] = np.where((cols["t"] > 500) & (cols["t"] < 560), 0.0, 1.0)
    s = score(tmp_path, cols=cols)
    assert s.raw_score == pytest.approx(1.0) and s.score == 0.0 and s.success is False
    assert s.safety[0].first_violation_t == pytest.approx(500.5)


def test_gap_makes_not_airborne_undecidable(tmp_path):
    cols = ground(hz=2, seconds=600)
    s = score(tmp_path, cols=with_gap(cols, 200, 260))
    assert s.status == "unscored" and "gap" in s.reason


def test_missing_snapshot_is_unscored(tmp_path):
    s = score(tmp_path, afds=None)
    assert s.status == "unscored" and "afds" in s.reason
    (tmp_path / "b").mkdir()
    s = score(tmp_path / "b", fms=None)
    assert s.status == "unscored" and "fms" in s.reason
