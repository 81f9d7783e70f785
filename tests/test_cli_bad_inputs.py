"""The CLI campaign as tests: every bad input is one line on stderr with the documented exit code
(docs/cli-exit-codes.md), never a traceback, and nothing already recorded is lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simbridge._bundle import BundleWriter, EpisodeInfo, read_json_file, write_manifest
from simbridge._cli import main
from simbridge._errors import BundleError
from synth import make_bundle, steep_turn


def run_cli(capsys, *args) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:  # argparse usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.fixture(scope="module")
def cols():
    return steep_turn()


def test_run_out_naming_a_file(tmp_path, capsys):
    f = tmp_path / "f"
    f.write_text("keep me")
    code, _, err = run_cli(capsys, "run", "T09", "--sim", "jsbsim", "--agent", "noop", "--out", f)
    assert code == 2 and one_line(err) == f"simbridge: error: --out {f}: is a file, not a directory"
    assert f.read_text() == "keep me"


@pytest.mark.parametrize("where", ["under_a_file", "proc"])
def test_run_out_that_cannot_be_written(tmp_path, capsys, where):
    if where == "under_a_file":
        (tmp_path / "f").write_text("x")
        out = tmp_path / "f" / "runs"
    else:
        out = Path(f"/proc/{os.getpid()}/runs")  # procfs: no directory can be made there
    code, _, err = run_cli(capsys, "run", "T09", "--sim", "jsbsim", "--agent", "noop", "--out", out)
    assert code == 2 and one_line(err).startswith(f"simbridge: error: --out {out}: cannot write there")


@pytest.mark.parametrize("value", ["1e308", "86401", "inf", "nan", "-1"])
def test_run_time_limit_beyond_the_documented_maximum(capsys, value):
    code, _, err = run_cli(capsys, "run", "T09", "--sim", "jsbsim", "--agent", "noop", "--time-limit", value)
    assert code == 2 and "--time-limit" in err and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("simbridge run: error: argument --time-limit")


def test_time_limit_at_the_maximum_parses():
    from simbridge._cli import build_parser

    args = build_parser().parse_args(["run", "T09", "--sim", "jsbsim", "--agent", "noop", "--time-limit", "86400"])
    assert args.time_limit == 86400.0


def test_a_csv_field_over_128_kb(tmp_path, cols, capsys):
    for where in ("header", "row"):
        b = make_bundle(tmp_path / where, "T09", cols, fmt="csv")
        lines = (b / "signals.csv").read_text().splitlines()
        huge = '"' + "9" * 200_000 + '"'
        if where == "header":
            lines[0] += "," + huge
        else:
            lines[3] = lines[3].split(",", 1)[0] + "," + huge
        (b / "signals.csv").write_text("\n".join(lines) + "\n")
        write_manifest(b)
        code, out, err = run_cli(capsys, "verify", b)
        assert code == 2 and out == "" and f"{b}/signals.csv" in one_line(err)


@pytest.mark.parametrize("depth", [2_000, 100_000])
def test_a_deeply_nested_episode_json_in_metrics(tmp_path, cols, capsys, depth):
    b = make_bundle(tmp_path / "run" / "b", "T09", cols)
    (b / "score.json").write_text("{}")
    (b / "episode.json").write_text('{"task_id": "T09", "x": ' + "[" * depth + "]" * depth + "}")
    code, out, err = run_cli(capsys, "metrics", tmp_path / "run")
    assert code == 2 and out == "" and "nested too deeply" in one_line(err)


@pytest.mark.parametrize("special", ["/dev/zero", "fifo", "dir"])
def test_special_files_where_files_are_read(tmp_path, capsys, special):
    if special == "fifo":
        p = tmp_path / "pipe"
        os.mkfifo(p)  # a read would block forever
    elif special == "dir":
        p = tmp_path
    else:
        p = Path(special)
    with pytest.raises(BundleError) as exc:
        read_json_file(p, "episode.json")
    assert "\n" not in str(exc.value) and str(p) in str(exc.value)
    t0 = time.monotonic()
    code, _, err = run_cli(capsys, "tasks", "validate", p)
    assert code in (1, 2) and "Traceback" not in err
    assert time.monotonic() - t0 < 60


def test_dev_zero_as_a_task_file_and_a_logs_bin(tmp_path):
    # in a child process with a memory cap: an unbounded read would fail the cap, not pass
    script = (
        "import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30));"
        "from simbridge._cli import main;"
        f"a = main(['tasks', 'validate', '/dev/zero']);"
        f"b = main(['import', 'openbve', '/dev/zero', '--out', {str(tmp_path / 'b')!r}]);"
        "print(a, b)"
    )
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert r.stdout.split()[-2:] == ["1", "2"], r.stderr
    assert "/dev/zero: is not a regular file (a character device)" in r.stderr + r.stdout
    assert "Traceback" not in r.stderr


def test_unreadable_bundle_file(tmp_path, cols, capsys):
    b = make_bundle(tmp_path / "b", "T09", cols)
    (b / "episode.json").unlink()
    (b / "episode.json").mkdir()  # a directory where a file belongs
    code, _, err = run_cli(capsys, "verify", b)
    assert code == 2 and "episode.json" in one_line(err)


def test_disk_full_while_sealing_is_a_harness_fault_and_marks_the_bundle(tmp_path):
    b = tmp_path / "b"
    b.mkdir()
    (b / "events.jsonl").symlink_to("/dev/full")  # every write: ENOSPC from the kernel
    w = BundleWriter(b, EpisodeInfo(task_id="T09"), ["x"], flush_interval_s=3600)
    w.sample(0.0, {"x": 1.0})
    w.event(0.5, "note", {"text": "x"})
    w.finish("completed")
    ep = json.loads((b / "episode.json").read_text())
    assert ep["status"] == "harness_error" and ep["status_detail"].startswith("disk full")
    assert "disk_full" in ep["flags"] and not (b / "manifest.json").exists()  # unscored, never sealed


def test_disk_full_reaching_the_command_line_is_exit_4(tmp_path, cols, capsys):
    b = make_bundle(tmp_path / "b", "T09", cols)
    code, _, err = run_cli(capsys, "report", b, "--out", "/dev/full")
    assert code == 4 and one_line(err).startswith("simbridge: harness fault: disk full")
    assert (b / "manifest.json").is_file()  # the bundle itself untouched


def test_report_is_linear_in_events(tmp_path, cols):
    """300 vs 3000 events: a linear page takes at most ~10× (measured 2.8×); the quadratic one
    took ~100× (300 events > 200 s). Best of two runs each, to ride out the machine's load."""
    from simbridge._report import write_episode_report

    t = cols["t"]

    def best(n: int) -> float:
        ev = [{"t": float(t[0] + (t[-1] - t[0]) * i / n), "kind": "note"} for i in range(n)]
        b = make_bundle(tmp_path / f"b{n}", "T09", cols, events=ev, fmt="parquet")
        times = []
        for k in range(2):
            t0 = time.process_time()
            write_episode_report(b, tmp_path / f"r{n}-{k}.html")
            times.append(time.process_time() - t0)
        return min(times)

    small, big = best(300), best(3000)
    assert big < 12 * small, (small, big)
