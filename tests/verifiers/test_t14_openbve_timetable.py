"""T14 OpenBVE timetable: bundles imported from hand-built logs.bin files, hand-worked scores.

Positions below are the train front; the recorded axle position is 2.0 m behind it.
Timetable (YAML): station 1 at 125 m dep 08:00:00 (28800 s); station 2 at 1850 m arr 08:02:30
(28950) dep 08:03:00 (28980); station 3 at 3720 m arr 08:05:45 (29145). Five items of 0.20.
"""

import pytest

from simbridge import read_bundle
from simbridge._task import load_task
from simbridge.adapters.openbve import import_logs
from simbridge import score_bundle
from openbve_logs import entries_of, logs_bin, score, trip
from synth import assert_rate_invariant, score_task
from synth import component as comp

TASK = load_task("T14")
# the black box records car 1's front axle; the train front is front_offset_m (2.0 m) ahead of it
AXLE0 = 125.0 - TASK.verifier.params["front_offset_m"]


def run(tmp_path, samples, scores=()):
    p = tmp_path / "logs.bin"
    p.write_bytes(logs_bin(entries_of(samples), list(scores)))
    return score_bundle(read_bundle(import_logs(p, tmp_path / "bundle")), TASK)


def on_time(d2=0.0, d3=0.0, late3=0):
    # stand from 28740 to 28800 (dep 1), run 1725 m in 150 s (at rest at 28950 = arr 2), stand to
    # 28980 (dep 2), run 1870 m in 165 s (+ late3): at rest at 29145 (+ late3) = arr 3
    return trip(28740.0, AXLE0, [(28800, 1725.0 + d2, 150), (28980, 1870.0 - d2 + d3, 165 + late3)])


def test_on_time_on_the_marks_full_credit(tmp_path):
    s = run(tmp_path, on_time())
    assert s.status == "scored" and s.score == pytest.approx(1.0) and s.success is True
    assert comp(s, "stop_station_2").measured == pytest.approx(0.0, abs=1e-6)
    assert comp(s, "timetable_leg_1").measured == pytest.approx(0.0)
    assert [(x.name, x.ok) for x in s.safety] == [("safe_running", True)]


def test_black_box_position_is_the_front_axle(tmp_path):
    # the axle (not the front) stops on the markers: the front is 2.0 m past each → error +2.0 m,
    # still inside ±2 m
    s = run(tmp_path, trip(28740.0, 125.0, [(28800, 1725.0, 150), (28980, 1870.0, 165)]))
    assert comp(s, "stop_station_2").measured == pytest.approx(2.0, abs=1e-6)
    assert comp(s, "stop_station_3").measured == pytest.approx(2.0, abs=1e-6)


def test_overrun_and_late_partial(tmp_path):
    # overruns station 2 by 3 m (> 2 m: 0), stops on the mark at 3 (0.2); leg 1 on time (0.2);
    # leg 2 arrives 40 s late (0); no penalties (0.2): 0.6
    s = run(tmp_path, on_time(d2=3.0, late3=40))
    assert comp(s, "stop_station_2").measured == pytest.approx(3.0, abs=1e-6)
    assert comp(s, "timetable_leg_2").measured == pytest.approx(40.0)
    assert s.score == pytest.approx(0.6)


def test_inside_tolerances_at_the_edges(tmp_path):
    # 1.9 m short at station 3 and 29 s late there: all items still earned
    s = run(tmp_path, on_time(d3=-1.9, late3=29))
    assert s.score == pytest.approx(1.0)


def test_creep_to_the_marker_counts_the_final_stand(tmp_path):
    # stops 8 m short of station 3 at 29145, leaves at 29155, creeps 8 m in 10 s, stands at the marker from 29165:
    # stop error 0 (0.2), arrival = 29165 = 20 s late, inside ±30 s → full credit
    samples = trip(28740.0, AXLE0, [(28800, 1725.0, 150), (28980, 1862.0, 165), (29155, 8.0, 10)])
    s = run(tmp_path, samples)
    assert comp(s, "stop_station_3").measured == pytest.approx(0.0, abs=1e-6)
    assert comp(s, "timetable_leg_2").measured == pytest.approx(20.0)
    assert s.score == pytest.approx(1.0)


def test_overspeed_and_emergency_brake_fail_penalties(tmp_path):
    # an overspeed record, and the emergency brake thrown at speed 60 s into leg 1: 0.8 of the
    # items, and the overspeed (a safety violation anywhere in the run) gates the score to 0
    samples = on_time()
    i = next(k for k, smp in enumerate(samples) if smp[0] == 28860.0)
    samples[i] = (samples[i][0], samples[i][1], samples[i][2], -1)
    s = run(tmp_path, samples, [score(28900.0, 900.0, -15, 1)])
    assert comp(s, "no_penalties").measured == 2
    assert s.raw_score == pytest.approx(0.8) and s.score == 0.0
    [gate] = s.safety
    assert gate.name == "safe_running" and not gate.ok and "overspeed" in gate.explanation


def test_emergency_brake_alone_costs_the_item_not_the_score(tmp_path):
    # the emergency brake at speed is not a safety violation (it is the safe reaction to one):
    # only the penalty-free item is lost, 0.8
    samples = on_time()
    i = next(k for k, smp in enumerate(samples) if smp[0] == 28860.0)
    samples[i] = (samples[i][0], samples[i][1], samples[i][2], -1)
    s = run(tmp_path, samples)
    assert s.score == pytest.approx(0.8) and s.safe


def test_never_leaving_fails(tmp_path):
    # stands at station 1 for 10 minutes: no departure, no stops at 2 and 3, and a train that
    # never reached station 2 earns no penalty-free credit either → 0
    s = run(tmp_path, trip(28740.0, AXLE0, [], tail_s=600))
    assert s.score == 0.0 and s.status == "scored"
    assert comp(s, "timetable_leg_1").explanation.startswith("dep Station 1: did not happen")


def test_missing_clock_is_unscored(tmp_path):
    samples = on_time()
    cols = {
        "t": [c - 28740.0 for c, _, _, _ in samples],
        "track_position_m": [p for _, p, _, _ in samples],
        "speed_kmh": [v * 3.6 for _, _, v, _ in samples],
        "emergency_brake": [0.0] * len(samples),
    }
    s = score_task(tmp_path, TASK, cols)
    assert s.status == "unscored" and "clock_s" in s.reason


def test_gap_is_unscored(tmp_path):
    samples = [smp for smp in on_time() if not 28900.0 <= smp[0] <= 28905.0]
    s = run(tmp_path, samples)
    assert s.status == "unscored" and "gap" in s.reason


@pytest.mark.parametrize("variant", [{}, {"d2": 3.0, "late3": 40}])
def test_resampling_invariance(tmp_path, variant):
    # the 1 Hz black box, interpolated to 10, 20 and 100 Hz, scores the same
    p = tmp_path / "logs.bin"
    p.write_bytes(logs_bin(entries_of(on_time(**variant))))
    b = read_bundle(import_logs(p, tmp_path / "bundle"))
    cols = b.signals.to_columns()
    assert_rate_invariant(tmp_path, TASK, cols, also=(score_bundle(b, TASK).score,))
