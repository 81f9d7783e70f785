"""T08 X-Plane setup: date/time, manual weather, scheduled failure, airport and aircraft."""

import copy

import pytest

from simbridge._task import load_task
from synth import component as comp
from synth import score_task
from synth_flight_b import ground

TASK = load_task("T08")
# 2026-12-21 is day 355 of the year, 354 counted from 0 (X-Plane's local_date_days);
# the snapshot is read 95 s after the flight started at 16:30:00 -> local_time_s 59,495
GOOD = {
    "local_date_days": 354,
    "local_time_s": 16 * 3600 + 30 * 60 + 95,
    "flight_elapsed_s": 95,
    "weather": {
        "mode": "manual",
        "wind_layers": [
            {"alt_msl_ft": 3000, "dir_degt": 280, "speed_kt": 22},
            {"alt_msl_ft": 20, "dir_degt": 270, "speed_kt": 15},
        ],
        "cloud_layers": [
            {"coverage_pct": 75, "type": "stratus", "base_msl_ft": 1520},
            {"coverage": "few", "base_msl_ft": 9000},
        ],
        "visibility_m": 8046.7,
    },
    "failures": [
        {"system": "vacuum_pump", "trigger": {"kind": "agl_ft", "value": 2000}, "failed": False},
        {"system": "engine_1", "trigger": {"kind": "always_working"}},
    ],
    "airport": "KBOS",
    "aircraft": "Aircraft/Laminar Research/Cessna 172 SP/Cessna_172SP.acf",
}


def score(tmp_path, end):
    return score_task(tmp_path, TASK, ground(seconds=95), snapshots={"end": end})


def with_(**changes):
    end = copy.deepcopy(GOOD)
    for path, value in changes.items():
        node = end
        keys = path.split("__")
        for k in keys[:-1]:
            node = node[int(k)] if k.isdigit() else node[k]
        last = keys[-1]
        if value is None:
            del node[last]
        else:
            node[int(last) if last.isdigit() else last] = value
    return end


def test_everything_set_full_credit(tmp_path):
    # 0.25 + 0.35 + 0.30 + 0.10 = 1.0 (surface wind is the lowest layer; BKN 75% at 1,500 ft AGL)
    s = score(tmp_path, GOOD)
    assert s.status == "scored" and s.score == pytest.approx(1.0) and s.success is True
    assert comp(s, "time_date").measured == "12-21 16:30"


def test_wrong_time_and_msl_failure_trigger(tmp_path):
    # 17:30 (60 min off, -0.25) and the failure armed at 2,000 ft MSL instead of AGL (-0.30):
    # 0.35 + 0.10 = 0.45
    s = score(
        tmp_path,
        with_(
            local_time_s=17 * 3600 + 30 * 60 + 95,
            failures=[{"system": "vacuum_pump", "trigger": {"kind": "msl_ft", "value": 2000}}],
        ),
    )
    assert s.score == pytest.approx(0.45) and s.success is False


def test_scattered_clouds_fail_weather(tmp_path):
    # 40% cover = scattered, not broken -> weather (0.35) lost: 1 - 0.35 = 0.65
    s = score(tmp_path, with_(weather__cloud_layers__0__coverage_pct=40))
    assert s.score == pytest.approx(0.65)
    assert "oktas" in comp(s, "weather").measured


def test_cloud_base_msl_vs_agl_and_visibility_in_sm(tmp_path):
    # base 1,650 ft MSL = 1,630 AGL (within 200 ft), visibility given in sm: still full credit
    s = score(
        tmp_path,
        with_(weather__cloud_layers__0__base_msl_ft=1650, weather__visibility_m=None, weather__visibility_sm=5.0),
    )
    assert s.score == pytest.approx(1.0)


def test_extra_failure_armed(tmp_path):
    # the engine also armed to fail: the failure item is lost -> 0.70
    end = with_()
    end["failures"][1]["trigger"] = {"kind": "mtbf", "value": 100}
    s = score(tmp_path, end)
    assert s.score == pytest.approx(0.70)
    assert "engine_1" in comp(s, "failure_scheduled").measured


def test_defaults_left_everywhere_earn_nothing(tmp_path):
    # real weather, today's date, no failure, a different airport and aircraft -> 0
    end = with_(
        local_date_days=100,
        local_time_s=9 * 3600,
        weather__mode="real",
        failures=[],
        airport="KSEA",
        aircraft="Aircraft/Laminar Research/Boeing 737-800/b738.acf",
    )
    s = score(tmp_path, end)
    assert s.status == "scored" and s.score == 0.0


def test_without_flight_elapsed_the_window_widens_by_the_run(tmp_path):
    # 16:31:35 with no flight start time: accepted within 10 min + the 95 s recording
    s = score(tmp_path, with_(flight_elapsed_s=None))
    assert comp(s, "time_date").earned == 1


def test_missing_snapshot_is_unscored(tmp_path):
    s = score(tmp_path, with_(failures=None))
    assert s.status == "unscored" and "failures" in s.reason
    (tmp_path / "b").mkdir()
    s = score(tmp_path / "b", with_(weather__cloud_layers=None))
    assert s.status == "unscored" and "weather" in s.reason
