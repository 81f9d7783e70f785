"""T17 Bridge Command berthing: captures in Bridge Command's own NMEA formats, imported, scored
by hand-worked expectations.

Local frame: metres east/north of the pier face's west end (50.36 N, 4.15 W); the face runs
100 m east; the berth spans 10-90 m along it, from 2 m inside it to 16 m out. The ship (60 × 12 m)
heads 090°, so its port side is 6 m north of its position: it touches the face when its position
is 6 m south of it. Bridge Command prints latitude to 0.001′ (1.853 m) from a 32-bit float
(grid 2⁻¹⁸° = 0.424 m at 50°): the reading jumps from 21.596′ (−7.41 m) to 21.597′ (−5.56 m)
when the true position passes −6.507 m (the f32 value rounds onto the grid point whose minutes
print 21.597), so contact (port side within 1.0 m) is first seen there.
"""

import numpy as np
import pytest

from simbridge import read_bundle
from simbridge._task import load_task
from simbridge.adapters.bridgecommand import import_nmea, parse_capture
from simbridge import score_bundle
from bc_nmea import emit, track
from synth import assert_rate_invariant, score_task
from synth import component as comp

TASK = load_task("T17")
LAT0, LON0 = 50.36, -4.15
APPROACH = [(0, -300, -30, 90), (200, 40, -30, 90)]  # 340 m in 200 s: 1.7 m/s = 3.3 kt, 30 m off


def capture(keyframes, depth_m=8.0, drop=None):
    text = emit(track(keyframes, LAT0, LON0, depth_m=depth_m))
    if drop:
        text = "\n".join(ln for ln in text.splitlines() if not drop[0] <= float(ln.split(" ", 1)[0]) <= drop[1]) + "\n"
    return text


def run(tmp_path, text, events=()):
    p = tmp_path / "nmea.log"
    p.write_text(text, encoding="ascii")
    b = import_nmea(p, tmp_path / "bundle")
    if events:
        with open(b / "events.jsonl", "a") as fh:
            for e in events:
                fh.write(e + "\n")
    return score_bundle(read_bundle(b), TASK)


def gentle():
    # then 200 s crabbing in: 10 m east, 23 m north (0.244 kt, 0.22 kt toward the pier), 60 s
    # creeping the last 0.6 m at 0.01 m/s (contact seen at 400 + 0.493 / 0.01 = 449.3 s, SOG
    # printed 0.0), 40 s still
    return APPROACH + [(400, 50, -7.0, 90), (460, 50, -6.4, 90), (500, 50, -6.4, 90)]


def test_gentle_berthing_full_credit(tmp_path):
    s = run(tmp_path, capture(gentle()))
    assert s.status == "scored" and s.score == pytest.approx(1.0) and s.success is True
    c = comp(s, "contact_speeds")
    assert c.window[0] == pytest.approx(449.3, abs=0.5) and c.measured.startswith("SOG 0.00 kt")
    assert [(x.name, x.ok) for x in s.safety] == [("no_allision_or_grounding", True)]


def test_hard_landing_loses_speed_item(tmp_path):
    # crabs the last 23.6 m in 30 s: 0.854 m/s = 1.66 kt (printed 1.7) at contact → 0.4 + 0 + 0.3
    # = 0.7 of the items; the contact speeds are the instruction's limits (primary): score 0
    s = run(tmp_path, capture(APPROACH + [(230, 50, -6.4, 90), (300, 50, -6.4, 90)]))
    assert comp(s, "contact_speeds").earned == 0 and comp(s, "contact_speeds").measured.startswith("SOG 1.70 kt")
    assert s.raw_score == pytest.approx(0.7) and s.score == 0.0


def test_collision_event_gates_the_score(tmp_path):
    # a collision with a buoy on the way in: the items earn 0.7, and the collision gates it to 0
    s = run(tmp_path, capture(gentle()), ['{"t": 120.0, "kind": "collision", "data": {"other": "buoy"}}'])
    assert s.raw_score == pytest.approx(0.7) and s.score == 0.0
    [gate] = s.safety
    assert not gate.ok and gate.first_violation_t == pytest.approx(120.0)


def test_never_berthing_and_grounding_fails(tmp_path):
    # stays 30 m off, stops 50 m short of the berth, runs aground (depth 0.0) at 250 s → 0
    s = run(
        tmp_path,
        capture([(0, -300, -30, 90), (200, -50, -30, 90), (300, -50, -30, 90)], depth_m=[(0, 8.0), (250, 0.0)]),
    )
    assert s.score == 0.0 and s.status == "scored"
    assert "aground at t=250" in comp(s, "no_collision").explanation


def test_missing_depth_is_unscored(tmp_path):
    rows, _ = parse_capture(capture(gentle()))
    del rows["depth_m"]
    s = score_task(tmp_path, TASK, rows)
    assert s.status == "unscored" and "depth_m" in s.reason


def test_gap_is_unscored(tmp_path):
    s = run(tmp_path, capture(gentle(), drop=(100.0, 110.0)))
    assert s.status == "unscored" and "gap" in s.reason


@pytest.mark.parametrize("frames", [gentle(), APPROACH + [(230, 50, -6.4, 90), (300, 50, -6.4, 90)]])
def test_resampling_invariance(tmp_path, frames):
    rows, _ = parse_capture(capture(frames))
    cols = {k: np.asarray(v) for k, v in rows.items()}
    ok = np.all([np.isfinite(v) for k, v in cols.items()], axis=0)
    cols = {k: v[ok] for k, v in cols.items()}  # from the first sample that has every value
    assert_rate_invariant(tmp_path, TASK, cols)
