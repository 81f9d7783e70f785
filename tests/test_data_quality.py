"""The data-quality contract (simbridge._signals, docs/scoring-data-quality.md): one regression
test per way the bad-input campaign got a wrong score silently, on the T09 steep turn.

The steep_turn() builder at 20 Hz: straight and level to 10 s, roll in at 10°/s to 45° (13 s),
hold to 44.95 s, roll out, level again; the entry (last wings-level sample) is t = 10.45 s,
index 209. A clean turn scores 1.0; losing altitude costs altitude_held (0.30).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from simbridge import read_bundle
from simbridge._errors import BundleError, Unscorable
from simbridge._signals import Signals, check_quality
from simbridge._task import load_task
from simbridge import primitives as P
from simbridge import score_bundle
from synth import component, make_bundle, score_task, steep_turn

TASK = load_task("T09")
HZ = 20
I_ENTRY = 209  # t = 10.45 s


def score(tmp_path, cols, **ep):
    return score_task(tmp_path, TASK, cols, **ep)


def at(cols, t0, t1):
    return (cols["t"] >= t0) & (cols["t"] <= t1)


def with_alt_excursion(cols, t0=25.0, t1=30.0, ft=500.0):
    out = dict(cols)
    out["alt_msl_ft"] = np.where(at(cols, t0, t1), cols["alt_msl_ft"] + ft, cols["alt_msl_ft"])
    return out


def nan_where(cols, name, mask):
    out = dict(cols)
    out[name] = np.where(mask, np.nan, cols[name])
    return out


# --------------------------------------------------------------------------- NaN is a gap, not data


def test_excursion_replaced_by_nan_is_unscored_not_full_credit(tmp_path):
    base = with_alt_excursion(steep_turn())
    assert score(tmp_path / "a", base).score == pytest.approx(0.70)  # the excursion costs altitude_held
    hidden = nan_where(base, "alt_msl_ft", at(base, 25.0, 30.0))
    s = score(tmp_path / "b", hidden)
    assert s.status == "unscored" and s.score is None
    assert "alt_msl_ft" in s.reason and "24.95-30.05" in s.reason
    q = s.data_quality.signals["alt_msl_ft"]
    assert q.missing == 101 and q.gaps == [pytest.approx((24.95, 30.05))]
    assert any(f.startswith("data: alt_msl_ft: 101 missing") for f in s.flags)


def test_autopilot_nan_after_first_row_does_not_pass_the_safety_gate(tmp_path):
    cols = steep_turn(autopilot=1.0)
    cols["autopilot_on"][1:] = np.nan  # engaged at row 0, unknown after
    s = score(tmp_path / "a", cols)
    # the one valid sample shows the autopilot on: a violation, decided; the gate scores it 0
    # though the gap in a signal read leaves the turn itself undecidable
    assert s.status == "scored" and s.score == 0.0 and s.safety[0].ok is False
    assert s.safety[0].first_violation_t == 0.0 and "not judged" in s.explanation
    assert s.raw_score is None and "score 0.000 (before safety gate: not judged)" in s.table()
    cols = steep_turn(autopilot=0.0)
    cols["autopilot_on"][1:] = np.nan
    s = score(tmp_path / "b", cols)
    assert s.status == "unscored" and "autopilot_on" in s.reason and "autopilot off" in s.reason


@pytest.mark.parametrize("name", ["bank_deg", "alt_msl_ft"])
def test_nan_during_the_turn_is_unscored(tmp_path, name):
    cols = nan_where(steep_turn(), name, at(steep_turn(), 20.0, 35.0))
    s = score(tmp_path, cols)
    assert s.status == "unscored" and name in s.reason


def test_nan_at_the_entry_sample_is_bridged_and_flagged_not_zero(tmp_path):
    cols = steep_turn()
    assert cols["t"][I_ENTRY] == pytest.approx(10.45)
    cols["alt_msl_ft"] = cols["alt_msl_ft"].copy()
    cols["alt_msl_ft"][I_ENTRY] = np.nan
    s = score(tmp_path, cols)
    alt = component(s, "altitude_held")
    assert alt.earned == 1.0 and alt.measured == pytest.approx(0.0)
    assert s.score == pytest.approx(1.0)
    assert s.data_quality.signals["alt_msl_ft"].bridged == 1
    assert "data: alt_msl_ft: 1 missing of 1161 samples; 1 in short runs bridged from neighbours" in s.flags


def test_nan_run_over_the_entry_is_unscored(tmp_path):
    cols = nan_where(steep_turn(), "alt_msl_ft", at(steep_turn(), 10.0, 11.0))
    s = score(tmp_path, cols)
    assert s.status == "unscored" and "alt_msl_ft" in s.reason


def test_short_nan_run_never_hides_a_violation_seen_next_to_it(tmp_path):
    cols = steep_turn(autopilot=1.0)
    cols["autopilot_on"][100:104] = np.nan  # 0.2 s: bridged from neighbours that show it engaged
    s = score(tmp_path, cols)
    assert s.safety[0].ok is False and s.score == 0.0


def test_clean_recording_has_no_data_flags(tmp_path):
    s = score(tmp_path, steep_turn())
    assert s.score == pytest.approx(1.0) and s.flags == []
    assert s.data_quality.clean and s.data_quality.samples_total == 1161
    assert "DATA:" not in s.table()


# --------------------------------------------------------------------------- physical ranges


def test_out_of_range_sample_is_missing_counted_and_reported(tmp_path):
    cols = steep_turn()
    cols["ias_kt"] = cols["ias_kt"].copy()
    cols["ias_kt"][600] = 5000.0  # one garbage sample mid-turn: would fail airspeed_held
    s = score(tmp_path, cols)
    assert s.score == pytest.approx(1.0)
    q = s.data_quality.signals["ias_kt"]
    assert q.out_of_range == 1 and q.missing == 0 and q.bridged == 1
    assert any("ias_kt: 1 out of range" in f for f in s.flags)
    assert "DATA: 1 bad or missing sample(s) in 1 signal(s)" in s.table()


def test_boolean_outside_zero_one_is_bad(tmp_path):
    cols = steep_turn()
    cols["autopilot_on"] = np.full_like(cols["t"], 0.5)
    s = score(tmp_path, cols)
    assert s.status == "unscored" and "autopilot_on (1161 sample(s) out of range)" in s.reason


def test_heading_over_360_is_bad():
    t = np.arange(5) * 0.1
    c = check_quality(Signals(t, {"heading_mag_deg": [10, 10, 400, 10, 10.0], "bank_deg": [0, -181, 0, 0, 0.0]}), 0.5)
    assert c.quality.signals["heading_mag_deg"].out_of_range == 1
    assert c.quality.signals["bank_deg"].out_of_range == 1
    assert c.signals["heading_mag_deg"][2] == pytest.approx(10.0)


# --------------------------------------------------------------------------- glitches and segmentation


@pytest.mark.parametrize("wobble", [0.0, -150.0])
def test_one_glitched_bank_sample_does_not_split_the_turn(tmp_path, wobble):
    base = steep_turn(hz=50, alt_wobble_ft=wobble)
    glitched = dict(base)
    glitched["bank_deg"] = base["bank_deg"].copy()
    glitched["bank_deg"][1400] = 0.0  # t = 28 s, mid-turn
    a, b = score(tmp_path / "a", base), score(tmp_path / "b", glitched)
    assert a.score == pytest.approx(1.0 if wobble == 0 else 0.7)
    assert b.score == pytest.approx(a.score)
    assert component(b, "rollout_heading").earned == 1.0


def test_glitch_never_bridged_for_a_tolerance_check():
    t = np.arange(100) * 0.1
    x = np.full(100, 45.0)
    x[50] = 0.0
    assert P.fraction_in_band(t, x, 40, 50) < 1.0
    assert P.held_throughout(t, x > 30)[0] is False
    assert len(P.runs(t, x > 30)) == 2 and len(P.segments(t, x > 30)) == 1


# --------------------------------------------------------------------------- time axis, minimum recording


def test_every_t_zero_is_unscored(tmp_path):
    cols = dict(steep_turn())
    cols["t"] = np.zeros_like(cols["t"])
    s = score(tmp_path, cols)
    assert s.status == "unscored" and "does not advance" in s.reason and "1161 rows" in s.reason


@pytest.mark.parametrize("rows", [1, 2])
def test_one_row_or_one_repeated_row_is_unscored(tmp_path, rows):
    c = steep_turn()
    cols = {k: np.repeat(v[:1], rows) for k, v in c.items()}
    s = score(tmp_path, cols)
    assert s.status == "unscored" and "one sample" in s.reason


@pytest.mark.parametrize("status", ["completed", "timeout", "agent_quit", "agent_disconnected"])
def test_an_ending_at_t0_in_lockstep_scores_zero(tmp_path, status):
    """`done` (or give_up, a disconnect) at t = 0 in lockstep: the runner records one sample and
    sim_end_s 0. The agent's own ending is scored 0 and counted, never unscored."""
    c = steep_turn()
    s = score(tmp_path, {k: v[:1] for k, v in c.items()}, status=status, sim_end_s=0.0)
    assert s.status == "scored" and s.score == 0.0 and not s.success, s.reason
    assert all(x.earned == 0.0 for x in s.components) and status in s.explanation
    # no samples at all (the agent ended before the recorder's first row)
    s = score(tmp_path, {k: v[:0] for k, v in c.items()}, status=status, sim_end_s=0.0)
    assert s.status == "scored" and s.score == 0.0 and not s.success, s.reason


@pytest.mark.parametrize("status", ["completed", "agent_quit"])
def test_one_sample_of_a_long_episode_stays_unscored(tmp_path, status):
    """One sample but the simulator ran on to 120 s: the recording lost the episode (the
    harness's fault), whoever ended it; never a 0 for the agent."""
    c = steep_turn()
    s = score(tmp_path, {k: v[:1] for k, v in c.items()}, status=status, sim_end_s=120.0)
    assert s.status == "unscored"


@pytest.mark.parametrize("status", ["agent_quit", "agent_disconnected"])
def test_an_agent_that_ends_the_episode_at_once_scores_zero_not_unscored(tmp_path, status):
    """One sample because the agent gave up (or went away) at once: its own failure, scored 0."""
    c = steep_turn()
    s = score(tmp_path, {k: v[:1] for k, v in c.items()}, status=status)
    assert s.status == "scored" and s.score == 0.0 and not s.success
    assert {x.name for x in s.components} == {cr.name for cr in TASK.partial_credit}
    assert all(x.earned == 0.0 for x in s.components) and status in s.explanation


def test_repeated_time_with_different_values_is_unscored(tmp_path):
    cols = {k: v.copy() for k, v in steep_turn().items()}
    cols["t"][300] = cols["t"][299]
    s = score(tmp_path, cols)
    assert s.status == "unscored" and "row 301" in s.reason and "t=14.95" in s.reason


def test_exact_duplicate_rows_are_dropped_and_counted(tmp_path):
    c = steep_turn()
    cols = {k: np.repeat(v, 2) for k, v in c.items()}
    s = score(tmp_path, cols)
    assert s.score == pytest.approx(1.0)
    assert s.data_quality.duplicates_dropped == 1161 and "data: 1161 duplicate row(s) dropped" in s.flags


def test_backwards_time_is_a_bundle_error(tmp_path):
    cols = {k: v.copy() for k, v in steep_turn().items()}
    cols["t"][300] = 1.0
    with pytest.raises(BundleError, match="goes backwards at row 301"):
        read_bundle(make_bundle(tmp_path, "T09", cols))


@pytest.mark.parametrize("status", ["agent_quit", "agent_disconnected", "timeout"])
def test_agent_that_gives_up_after_2_s_is_scored_zero(tmp_path, status):
    c = steep_turn()
    short = {k: v[c["t"] <= 2.0] for k, v in c.items()}
    s = score(tmp_path, short, status=status)
    assert s.status == "scored" and s.score == 0.0


@pytest.mark.parametrize("status", ["sim_crashed", "harness_error"])
def test_harness_faults_are_unscored(tmp_path, status):
    s = score(tmp_path, steep_turn(), status=status)
    assert s.status == "unscored" and "harness fault" in s.reason


def test_recording_short_of_the_episode_span_is_unscored(tmp_path):
    c = steep_turn()
    short = {k: v[c["t"] <= 30.0] for k, v in c.items()}
    s = score(tmp_path / "a", short, sim_end_s=58.0)
    assert s.status == "unscored" and "ends at t=30.00 s" in s.reason and "58.00 s" in s.reason
    assert score(tmp_path / "b", c, sim_end_s=58.0).score == pytest.approx(1.0)


# --------------------------------------------------------------------------- heading-aware resampling


def test_resample_interpolates_heading_across_north():
    s = Signals(np.array([0.0, 0.02]), {"heading_mag_deg": np.array([0.1, 359.9]), "ias_kt": np.array([100.0, 104.0])})
    r = s.resample(200)
    h = r["heading_mag_deg"]
    assert r.t.size == 5
    assert np.all(np.abs(P.angle_diff(h, 0.0)) <= 0.1 + 1e-9), h  # not 108.5, 216.8, 325.2
    assert np.all((h >= 0) & (h < 360))
    assert r["ias_kt"] == pytest.approx([100, 101, 102, 103, 104])


def test_resample_keeps_the_plus_minus_180_convention():
    s = Signals(np.array([0.0, 1.0]), {"yaw_deg": np.array([179.0, -179.0]), "bank_deg": np.array([-10.0, 10.0])})
    r = s.resample(2)
    assert r["yaw_deg"][1] == pytest.approx(-180.0)  # through 180, wrapped into [-180, 180)
    assert r["bank_deg"][1] == pytest.approx(0.0)


def test_resampled_turn_through_north_scores_like_the_original(tmp_path):
    base = steep_turn(hz=100)  # 5° entry heading, a left turn: crosses north at once
    r = Signals(base["t"], {k: v for k, v in base.items() if k != "t"}).resample(20)
    s = score(tmp_path, r.to_columns())
    assert s.score == pytest.approx(1.0)


# --------------------------------------------------------------------------- deeply nested JSON


@pytest.mark.parametrize("name", ["events.jsonl", "snapshots.json", "episode.json", "actions.jsonl"])
def test_deeply_nested_json_is_a_one_line_bundle_error(tmp_path, name):
    path = make_bundle(tmp_path, "T09", steep_turn())
    deep = "[" * 100_000 + "]" * 100_000
    text = {
        "events.jsonl": '{"t": 1, "kind": "x", "data": {"a": %s}}\n',
        "snapshots.json": '{"start": {"a": %s}}',
        "episode.json": '{"task_id": "T09", "isolation": {"a": %s}}',
        "actions.jsonl": '{"a": %s}\n',
    }[name] % deep
    (path / name).write_text(text)
    with pytest.raises(BundleError) as exc:
        read_bundle(path)
    msg = str(exc.value)
    assert name in msg and "nested too deeply" in msg and "\n" not in msg


def test_score_with_data_quality_round_trips_through_json(tmp_path):
    cols = nan_where(steep_turn(), "ias_kt", at(steep_turn(), 20.0, 20.1))
    s = score(tmp_path, cols)
    from simbridge._score import Score

    back = Score.model_validate(json.loads(s.model_dump_json()))
    assert back.data_quality == s.data_quality and back.flags == s.flags
    assert score_bundle(read_bundle(make_bundle(tmp_path / "x", "T09", cols)), TASK).data_quality == s.data_quality


def test_constraint_narrowed_to_its_signals_ignores_gaps_elsewhere(tmp_path):
    from simbridge.verifier import VerifyContext

    cols = nan_where(steep_turn(), "ias_kt", at(steep_turn(), 20.0, 35.0))
    b = read_bundle(make_bundle(tmp_path, "T09", cols))
    ctx = VerifyContext(bundle=b, task=TASK, p=None)
    ctx.sig("ias_kt")
    ap = ctx.sig("autopilot_on")
    assert ctx.throughout("autopilot_off", ~(ap > 0.5), "autopilot off", signals=("autopilot_on",)) is True
    with pytest.raises(Unscorable, match="ias_kt"):
        ctx.throughout("autopilot_off", ~(ap > 0.5), "autopilot off")  # conservative default: any signal read
    with pytest.raises(Unscorable, match="undecidable"):
        ctx.throughout("x", np.ones(ctx.t.size, dtype=bool), "x", signals=("not_recorded",))


# --------------------------------------------------------------------------- empty columns nobody reads


def with_empty_nav_columns(cols):
    """What a jsbsim T09 recording carries: localizer/glideslope columns with no value at all."""
    out = dict(cols)
    out["loc_dev_dots"] = np.full(cols["t"].size, np.nan)
    out["gs_dev_dots"] = np.full(cols["t"].size, np.nan)
    return out


def test_empty_columns_t09_never_reads_are_not_bad_data(tmp_path):
    s = score(tmp_path, with_empty_nav_columns(steep_turn()))
    assert s.status == "scored" and s.score == pytest.approx(1.0)
    assert s.data_quality.absent == ["gs_dev_dots", "loc_dev_dots"]
    assert s.data_quality.signals == {} and s.data_quality.clean
    assert not [f for f in s.flags if "dev_dots" in f] and "bad or missing" not in s.table()


def test_an_empty_column_the_verifier_asks_for_is_still_flagged(tmp_path, monkeypatch):
    """The same recording, with the steep-turn verifier also asking for the localizer (opt)."""
    import dataclasses

    from simbridge import verifier as registry

    plain = registry.get("steep_turn")

    def also_localizer(ctx):
        assert ctx.opt("loc_dev_dots") is None  # asked for, and there is no valid sample of it
        return plain.fn(ctx)

    from simbridge.registry import REGISTRY, Entry

    patched = Entry("verifier", "steep_turn", dataclasses.replace(plain, fn=also_localizer), "test")
    monkeypatch.setitem(REGISTRY._entries["verifier"], "steep_turn", patched)
    s = score(tmp_path, with_empty_nav_columns(steep_turn()))
    assert s.status == "scored" and s.data_quality.absent == ["gs_dev_dots"]
    assert s.data_quality.signals["loc_dev_dots"].missing == s.data_quality.samples_total
    assert [f for f in s.flags if f.startswith("data: loc_dev_dots:")] and not [f for f in s.flags if "gs_dev" in f]


def test_a_partly_empty_column_nobody_reads_is_not_reported(tmp_path):
    """A half-empty column is data trouble only for a verifier that reads it; T09 never does."""
    cols = with_empty_nav_columns(steep_turn())
    cols["loc_dev_dots"] = np.where(cols["t"] < 5.0, 0.1, np.nan)
    s = score(tmp_path, cols)
    assert s.status == "scored" and s.score == pytest.approx(1.0)
    assert s.data_quality.absent == ["gs_dev_dots"] and s.data_quality.signals == {}
    assert not [f for f in s.flags if "dev_dots" in f]


# --------------------------------------------------------------------------- only what the verifier reads


@pytest.mark.parametrize(
    ("name", "read"),
    [("bank_deg", True), ("alt_msl_ft", True), ("lat_deg", False), ("gs_kt", False), ("on_ground", False)],
)
def test_a_nan_stretch_matters_only_in_a_signal_the_verifier_reads(tmp_path, name, read):
    """The same 5 s of NaN mid-turn: unscored (with a note) in a signal T09's verifier reads;
    no note, no unscored and the full score in a recorded column it never reads."""
    cols = steep_turn()
    cols.setdefault(name, np.zeros_like(cols["t"]) if name == "on_ground" else np.full_like(cols["t"], 47.0))
    cols = nan_where(cols, name, at(cols, 25.0, 30.0))
    s = score(tmp_path, cols)
    if read:
        assert s.status == "unscored" and name in s.reason
        assert s.data_quality.signals[name].missing == 101
        assert [f for f in s.flags if f.startswith(f"data: {name}: 101 missing")]
    else:
        assert s.status == "scored" and s.score == pytest.approx(1.0)
        assert name not in s.data_quality.signals and name not in s.data_quality.absent
        assert not [f for f in s.flags if name in f] and s.data_quality.clean


def test_an_out_of_range_column_nobody_reads_is_not_reported(tmp_path):
    cols = steep_turn()
    cols["lat_deg"] = np.full_like(cols["t"], 47.0)
    cols["lat_deg"][100:110] = 500.0  # garbage, but T09 judges no position
    s = score(tmp_path, cols)
    assert s.status == "scored" and s.score == pytest.approx(1.0) and s.data_quality.clean
    cols["bank_deg"] = cols["bank_deg"].copy()
    cols["bank_deg"][100:102] = 500.0  # the same garbage in a signal it reads: counted and bridged
    s = score(tmp_path / "b", cols)
    assert s.data_quality.signals["bank_deg"].out_of_range == 2 and "lat_deg" not in s.data_quality.signals


def test_check_on_read_checks_a_column_when_it_is_first_read():
    t = np.arange(5) * 0.1
    raw = Signals(t, {"heading_mag_deg": [10, 10, 400, 10, 10.0], "bank_deg": [0, -181, 0, 0, 0.0]})
    c = check_quality(raw, 0.5, on_read=True)
    assert c.quality.signals == {}  # nothing read yet
    assert c.signals["heading_mag_deg"][2] == pytest.approx(10.0)
    assert list(c.quality.signals) == ["heading_mag_deg"] and c.quality.signals["heading_mag_deg"].out_of_range == 1
    dq = c.report(["bank_deg"])  # what the task declares is checked and reported even if unread
    assert list(dq.signals) == ["heading_mag_deg", "bank_deg"] and dq.signals["bank_deg"].out_of_range == 1
    eager = check_quality(raw, 0.5)
    assert eager.quality.signals == dq.signals
