"""Episode bundle reading/writing: validation, gaps, crash safety, manifest."""

import json
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from simbridge import BundleError, BundleWriter, EpisodeInfo, read_bundle, write_bundle
from simbridge._verify import manifest_problems


def _csv(d, text, episode='{"task_id": "T09"}'):
    (d / "episode.json").write_text(episode)
    (d / "signals.csv").write_text(textwrap.dedent(text).lstrip())
    return d


def test_csv_and_parquet_roundtrip(tmp_path):
    cols = {"t": [0.0, 0.5, 1.0], "alt_msl_ft": [100, 110, np.nan], "on_ground": [1, 0, 0]}
    for fmt in ("csv", "parquet"):
        d = tmp_path / fmt
        write_bundle(
            d,
            {"task_id": "T09"},
            cols,
            events=[{"t": 0.5, "kind": "crash"}],
            snapshots={"start": {"com1_mhz": 118.6}},
            fmt=fmt,
        )
        b = read_bundle(d)
        assert b.signals.t.tolist() == [0.0, 0.5, 1.0]
        assert np.isnan(b.signals["alt_msl_ft"][2])
        assert b.events[0].kind == "crash"
        assert b.snapshot("start", "com1_mhz") == 118.6
        assert manifest_problems(d) == []


def test_missing_t_column(tmp_path):
    _csv(tmp_path, "time,alt\n0,1\n")
    with pytest.raises(BundleError, match="no 't' column"):
        read_bundle(tmp_path)


def test_time_backwards_names_row(tmp_path):
    _csv(tmp_path, "t,alt\n0,1\n1,1\n0.5,1\n")
    with pytest.raises(BundleError, match=r"goes backwards at row 3 \(1 -> 0.5\)"):
        read_bundle(tmp_path)


def test_non_numeric_value_names_column_and_line(tmp_path):
    _csv(tmp_path, "t,alt_msl_ft\n0,1\n1,high\n")
    with pytest.raises(BundleError, match=r"column 'alt_msl_ft', line 3: value 'high' is not a number"):
        read_bundle(tmp_path)


def test_binary_junk(tmp_path):
    (tmp_path / "episode.json").write_text('{"task_id": "T09"}')
    (tmp_path / "signals.csv").write_bytes(os.urandom(2000) + b"\x00")
    with pytest.raises(BundleError, match="binary"):
        read_bundle(tmp_path)
    (tmp_path / "signals.csv").unlink()
    (tmp_path / "signals.parquet").write_bytes(b"PAR1" + os.urandom(500))
    with pytest.raises(BundleError, match="Parquet"):
        read_bundle(tmp_path)


def test_bad_episode_json(tmp_path):
    _csv(tmp_path, "t\n0\n", episode="{not json")
    with pytest.raises(BundleError, match="episode.json"):
        read_bundle(tmp_path)
    _csv(tmp_path, "t\n0\n", episode='{"task": "T09"}')
    with pytest.raises(BundleError, match="task_id"):
        read_bundle(tmp_path)


def test_unknown_task_id(tmp_path):
    _csv(tmp_path, "t\n0\n", episode='{"task_id": "T99"}')
    with pytest.raises(BundleError, match="unknown task id 'T99'"):
        read_bundle(tmp_path, known_task_ids=["T09"])


def test_gaps_detected(tmp_path):
    _csv(tmp_path, "t,x\n0,1\n0.1,1\n0.2,1\n3.0,1\n3.1,1\n")
    b = read_bundle(tmp_path)
    assert b.signals.gaps(0.5) == [(0.2, 3.0)]
    assert b.signals.gaps(5.0) == []


def test_value_gaps_per_signal_include_the_ends(tmp_path):
    _csv(tmp_path, "t,x,y\n0,,1\n0.4,,1\n0.8,1,1\n1.2,,1\n1.6,,1\n2.0,,\n2.4,1,\n")
    s = read_bundle(tmp_path).signals
    assert s.value_gaps("x", 0.5) == [(0.0, 0.8), (0.8, 2.4)]
    assert s.value_gaps("y", 0.5) == [(1.6, 2.4)]
    assert s.value_gaps("y", 1.0) == [] and s.gaps(0.5) == []


@pytest.mark.parametrize("status", ["agent_disconnected", "agent_quit", "timeout", "sim_crashed"])
def test_episode_statuses_and_sim_end(tmp_path, status):
    _csv(tmp_path, "t\n0\n", episode=json.dumps({"task_id": "T09", "status": status, "sim_end_s": 12.5}))
    ep = read_bundle(tmp_path).episode
    assert ep.status == status and ep.sim_end_s == 12.5
    _csv(tmp_path, "t\n0\n", episode='{"task_id": "T09", "status": "agent_lost"}')
    with pytest.raises(BundleError, match="field 'status'"):
        read_bundle(tmp_path)


def test_empty_and_partial_last_line(tmp_path):
    _csv(tmp_path, "")
    with pytest.raises(BundleError, match="empty"):
        read_bundle(tmp_path)
    (tmp_path / "signals.csv").write_text("t,x\n0,1\n0.1,2\n0.2,")  # writer killed mid-line
    b = read_bundle(tmp_path)
    assert b.signals.t.tolist() == [0.0, 0.1]


def test_events_bad_line(tmp_path):
    _csv(tmp_path, "t\n0\n")
    (tmp_path / "events.jsonl").write_text('{"t": 1, "kind": "crash"}\n{"t": "x"}\n{"t": 2, "kind": "y"}\n')
    with pytest.raises(BundleError, match="event 2"):
        read_bundle(tmp_path)


def test_writer_finish_converts_to_parquet_and_manifest(tmp_path):
    w = BundleWriter(tmp_path, EpisodeInfo(task_id="T09"), ["alt_msl_ft", "on_ground"])
    for i in range(100):
        w.sample(i * 0.02, {"alt_msl_ft": 1000 + i, "on_ground": False})
    w.event(1.0, "crash", {"why": "test"})
    w.action({"t_wall": 0.0, "t": 0.5, "kind": "key", "args": {"key": "a"}})
    w.finish("completed")
    assert (tmp_path / "signals.parquet").exists() and not (tmp_path / "signals.csv").exists()
    b = read_bundle(tmp_path)
    assert len(b.signals) == 100 and b.episode.status == "completed"
    assert b.signals["on_ground"][0] == 0.0 and len(b.actions) == 1
    assert json.loads((tmp_path / "manifest.json").read_text())["files"]["signals.parquet"]["sha256"]
    with pytest.raises(BundleError, match="refusing to overwrite"):
        BundleWriter(tmp_path, EpisodeInfo(task_id="T09"), ["x"])


WRITER_SCRIPT = """
import sys, time
from simbridge import BundleWriter, EpisodeInfo
w = BundleWriter(sys.argv[1], EpisodeInfo(task_id="T09"), ["bank_deg", "alt_msl_ft", "ias_kt", "heading_mag_deg", "autopilot_on"], flush_interval_s=0.2)
i = 0
print("ready", flush=True)
while True:
    w.sample(i * 0.02, {"bank_deg": 0, "alt_msl_ft": 3500, "ias_kt": 100, "heading_mag_deg": 90, "autopilot_on": 0})
    i += 1
    time.sleep(0.002)
"""


def test_kill_9_leaves_a_readable_unscored_bundle(tmp_path):
    """A runner killed with SIGKILL mid-episode: the bundle reads up to the last flush and
    verify reports it unscored (status 'running'), never a score."""
    from simbridge._cli import main

    proc = subprocess.Popen([sys.executable, "-c", WRITER_SCRIPT, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    import time

    time.sleep(1.5)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    b = read_bundle(tmp_path)
    assert b.episode.status == "running" and len(b.signals) > 50
    from simbridge import score_bundle
    from simbridge import load_task

    s = score_bundle(b, load_task("T09"))
    assert s.status == "unscored" and "did not finish" in s.reason
    assert main(["verify", str(tmp_path), "--json"]) == 0


def test_renamed_signal_is_read_under_its_new_name():
    # `ap_alt_m` (apoapsis) was renamed `apoapsis_m` beside the autopilot's `ap_alt`; old bundles still read
    from simbridge._signals import Signals

    s = Signals(np.array([0.0, 1.0]), {"ap_alt_m": np.array([80e3, 81e3])})
    assert "apoapsis_m" in s and "ap_alt_m" not in s
    assert list(s["apoapsis_m"]) == [80e3, 81e3]
    both = Signals(np.array([0.0]), {"ap_alt_m": np.array([1.0]), "apoapsis_m": np.array([2.0])})
    assert both["apoapsis_m"][0] == 2.0  # the new name wins when both are there


@pytest.mark.parametrize(
    "content,expect_episode,expect_score",
    [
        ("{not json", "episode.json: line 1: not valid JSON", "score.json: line 1: not valid JSON"),
        ("  \n", "episode.json: empty file, not episode.json", "score.json: empty file, not a score file"),
        ("[" * 100_000, "episode.json nested too deeply to read", "a score file nested too deeply to read"),
    ],
)
def test_broken_episode_json_is_one_line_like_a_broken_score(tmp_path, content, expect_episode, expect_score):
    """episode.json and score.json are read by one helper: the same failures read the same way."""
    from simbridge._metrics import read_score_file

    (tmp_path / "episode.json").write_text(content)
    with pytest.raises(BundleError) as exc:
        read_bundle(tmp_path)
    assert expect_episode in str(exc.value) and "\n" not in str(exc.value)
    (tmp_path / "score.json").write_text(content)
    with pytest.raises(BundleError) as score_exc:
        read_score_file(tmp_path / "score.json")
    assert expect_score in str(score_exc.value) and "\n" not in str(score_exc.value)


def test_status_groups_are_one_table():
    """Every status is `running`, an agent outcome or a harness fault, exactly one of them; the
    bundle reader accepts exactly these."""
    from simbridge import _status

    assert set(_status.STATUSES) == {"running"} | _status.AGENT_OUTCOMES | _status.HARNESS_FAULTS
    assert not _status.AGENT_OUTCOMES & _status.HARNESS_FAULTS
    assert _status.AGENT_ENDED < _status.AGENT_OUTCOMES and "completed" not in _status.AGENT_ENDED
    assert EpisodeInfo.model_fields["status"].annotation == _status.EpisodeStatus


def test_simulator_fields_of_old_bundles_are_read_into_sim_info(tmp_path):
    """episode.json of older bundles carried X-Plane's `rref_packets`/`dropped_late` and CARLA's
    `map` at the top level: they are read into `sim_info`, and the bundle scores as before."""
    from synth import steep_turn

    from simbridge import load_task, score_bundle

    cols = steep_turn()
    new = write_bundle(tmp_path / "new", EpisodeInfo(task_id="T09", sim_info={"version": "12"}), cols)
    old = write_bundle(tmp_path / "old", EpisodeInfo(task_id="T09", sim_info={"version": "12"}), cols)
    raw = json.loads((old / "episode.json").read_text())
    raw.update(rref_packets=1234, dropped_late=2, map="Town01")
    (old / "episode.json").write_text(json.dumps(raw))
    ep = read_bundle(old).episode
    assert ep.sim_info == {"rref_packets": 1234, "dropped_late": 2, "map": "Town01", "version": "12"}
    assert ep.extra == {} and "map" not in ep.model_dump()
    again = EpisodeInfo.model_validate_json(ep.model_dump_json())
    assert again == ep  # written back in this version's layout, read the same
    spec = load_task("T09")
    s_old = score_bundle(read_bundle(old), spec)
    s_new = score_bundle(read_bundle(new), spec)
    assert s_old.status == s_new.status == "scored"
    assert (s_old.score, s_old.success) == (s_new.score, s_new.success)
    assert [c.model_dump() for c in s_old.components] == [c.model_dump() for c in s_new.components]
