"""T15 C172P weight and balance: full, partial and failing fixtures with hand-worked numbers.

Mass and balance (FlightGear c172p.xml): empty 1,467 lb at 39.06 in = 57,301.02 lb-in; pilot and
front passenger 36 in, rear seats 70 in, baggage 95 in, tanks 48 in. With the task's load:
  pilot 180 x 36 = 6,480; front 160 x 36 = 5,760; rear 190 x 70 = 13,300; rear 175 x 70 = 12,250;
  baggage 60 x 95 = 5,700  ->  zero fuel 2,232 lb, 100,791.02 lb-in.
"""

import json

import pytest

from simbridge._task import load_task, tasks_dir
from synth import component as comp
from synth import score_task
from synth_flight_b import ground

TASK = load_task("T15")
LOAD = {"pilot_lb": 180, "copilot_lb": 160, "rear_left_lb": 190, "rear_right_lb": 175, "baggage_lb": 60}
ZFW_LB, ZF_MOMENT = 2232.0, 100_791.02


def score(tmp_path, end):
    return score_task(tmp_path, TASK, ground(seconds=30), snapshots={"end": end})


def test_load_file_matches_the_task_params():
    load = json.loads((tasks_dir() / "inputs" / "T15" / "load.json").read_text())
    rear = sorted(p["weight_lb"] for p in load["rear_passengers"])
    want = TASK.verifier.params["payload_lb"]
    assert rear == sorted((want["rear_left"], want["rear_right"]))
    assert sum(b["weight_lb"] for b in load["baggage"]) == want["baggage"]


def test_loaded_to_2448_lb_full_credit(tmp_path):
    # 108 lb per tank: 216 x 48 = 10,368 -> 2,448 lb, 111,159.02 / 2,448 = 45.408 in;
    # forward limit at 2,448 lb = 35 + (2,448 - 1,950) x 6/600 = 39.98 in, aft 47.2 -> inside
    end = {"payload": LOAD, "fuel_lb": [108.0, 108.0], "answer": {"weight_lb": 2448, "cg_in": 45.41}}
    s = score(tmp_path, end)
    assert s.status == "scored" and s.score == pytest.approx(1.0) and s.success is True
    assert comp(s, "within_envelope").measured == "2448.0 lb @ 45.41 in"


def test_rear_passengers_may_swap_seats_and_fuel_in_gallons(tmp_path):
    # 18 gal per tank x 6.0 lb/gal = the same 216 lb; answer as strings -> still 1.0
    load = {**LOAD, "rear_left_lb": 175, "rear_right_lb": 190}
    end = {"payload": load, "fuel_gal": [18.0, 18.0], "answer": {"Total weight": "2,448 lb", "CG (in)": "45.4"}}
    assert score(tmp_path, end).score == pytest.approx(1.0)


def test_full_tanks_overweight_but_answer_right(tmp_path):
    # full tanks 2 x 129.43 = 258.86 lb: 2,490.86 lb > 2,450 (-0.30);
    # CG (100,791.02 + 12,425.28) / 2,490.86 = 45.453 in, reported correctly: raw 0.40 + 0.30 =
    # 0.70, but the instruction's limit is the goal (primary): 0
    end = {"payload": LOAD, "fuel_lb": [129.43, 129.43], "answer": {"weight_lb": 2491, "cg_in": 45.45}}
    s = score(tmp_path, end)
    assert s.score == 0.0 and s.raw_score == pytest.approx(0.70) and s.success is False
    assert comp(s, "within_envelope").earned == 0


def test_wrong_cg_in_the_answer(tmp_path):
    # loading right (0.40 + 0.30) but CG reported 45.2 vs 45.41 (> 0.1 in): 0.70
    end = {"payload": LOAD, "fuel_lb": [108.0, 108.0], "answer": {"weight_lb": 2448, "cg_in": 45.2}}
    assert score(tmp_path, end).score == pytest.approx(0.70)


def test_aft_cg_out_of_envelope_under_max_weight(tmp_path):
    # no front passenger, 300 lb in each rear seat, 150 lb baggage, no fuel (payload wrong):
    # 1,467 + 180 + 600 + 150 = 2,397 lb <= 2,450, but 57,301.02 + 6,480 + 42,000 + 14,250 =
    # 120,031.02 lb-in -> CG 50.08 in, aft of 47.2: outside. Answer right for that loading: raw
    # 0.30, the limit (primary) failed -> 0
    load = {**LOAD, "copilot_lb": 0, "rear_left_lb": 300, "rear_right_lb": 300, "baggage_lb": 150}
    end = {"payload": load, "fuel_lb": [0.0, 0.0], "answer": {"weight_lb": 2397, "cg_in": 50.08}}
    s = score(tmp_path, end)
    assert comp(s, "within_envelope").measured == "2397.0 lb @ 50.08 in"
    assert comp(s, "within_envelope").earned == 0
    assert s.score == 0.0 and s.raw_score == pytest.approx(0.30)


def test_wrong_load_overweight_no_answer_earns_nothing(tmp_path):
    # pilot 170, rear 190 + 190, baggage 120 (payload wrong), full tanks: 2,555.86 lb (out),
    # no answer.json (null) -> 0
    end = {
        "payload": {**LOAD, "pilot_lb": 170, "rear_right_lb": 190, "baggage_lb": 120},
        "fuel_lb": [129.43, 129.43],
        "answer": None,
    }
    s = score(tmp_path, end)
    assert s.status == "scored" and s.score == 0.0
    assert comp(s, "answer_correct").measured == "no answer.json"


def test_missing_snapshots_are_unscored(tmp_path):
    s = score(tmp_path, {"fuel_lb": [108.0, 108.0], "answer": None})
    assert s.status == "unscored" and "payload" in s.reason
    (tmp_path / "b").mkdir()
    s = score(tmp_path / "b", {"payload": LOAD, "fuel_lb": [108.0, 108.0]})
    assert s.status == "unscored" and "answer" in s.reason
    (tmp_path / "c").mkdir()
    s = score(tmp_path / "c", {"payload": LOAD, "answer": None})
    assert s.status == "unscored" and "fuel" in s.reason


def test_default_loading_earns_no_envelope_credit(tmp_path):
    # nothing changed (pilot 180 alone, FlightGear's 25 % fuel = 2 x 32.33 lb): 1,711.7 lb at
    # (57,301.02 + 6,480 + 3,103.7) / 1,711.7 = 39.08 in is inside the envelope, but not with the
    # task's payload, so the planning credit is not earned: a do-nothing agent scores 0
    end = {
        "payload": {**LOAD, "copilot_lb": 0, "rear_left_lb": 0, "rear_right_lb": 0, "baggage_lb": 0},
        "fuel_lb": [32.33, 32.33],
        "answer": None,
    }
    s = score(tmp_path, end)
    env = comp(s, "within_envelope")
    assert env.earned == 0 and env.measured == "1711.7 lb @ 39.08 in"
    assert "not with the task's payload" in env.explanation
    assert s.score == 0.0
