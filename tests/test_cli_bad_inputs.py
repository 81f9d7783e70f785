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


# --------------------------------------------------------------------------------------------
# Round three of the campaign (issue 43): each class a seeded generator over its surface, each
# case the real command in a child process under a timeout (a hang fails the test, it does not
# stall it), asserting the documented exit code and one line on stderr.

ROOT = Path(__file__).resolve().parents[1]
DIGITS = ("٣", "३", "３", "৩", "໓")  # Arabic-Indic, Devanagari, fullwidth, Bengali, Lao three


@pytest.fixture(scope="module")
def runs(tmp_path_factory, cols) -> Path:
    """A folder with one finished bundle (what `review campaign create` needs before its rubric)."""
    root = tmp_path_factory.mktemp("runs")
    make_bundle(root / "e1", "T09", cols, agent="a")
    return root


def cli(*args, timeout: float = 60, cwd: Path | None = None) -> tuple[int, str, str]:
    r = subprocess.run(
        [sys.executable, "-m", "simbridge._cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        cwd=cwd or ROOT,
    )
    return r.returncode, r.stdout, r.stderr


def usage_error(err: str) -> str:
    """argparse's error line (its usage lines come first): exactly one, no traceback."""
    lines = [x for x in err.splitlines() if "error:" in x]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


#: commands reading a path, as (argv with {p} for the path, exit code of a bad one)
PATH_COMMANDS = [
    (["verify", "{p}"], 2),
    (["metrics", "{p}"], 2),
    (["compare", "{p}", "{p}"], 2),
    (["report", "{p}"], 2),
    (["tasks", "validate", "{p}"], 2),
    (["eval", "{p}", "--out", "{tmp}/out"], 2),
    (["run", "T09", "--sim", "jsbsim", "--agent", "noop", "--out", "{p}"], 2),
    (["run", "T09", "--sim", "jsbsim", "--agent", "scripted:{p}", "--out", "{tmp}/out"], 2),
    (["import", "carla", "{p}", "--out", "{tmp}/imp"], 2),
    (["review", "import-grades", "{p}", "--db", "{tmp}/db.sqlite"], 2),
    (["guest", "--token-file", "{p}", "--listen", "127.0.0.1:0"], 2),
    (["review", "campaign", "create", "c", "{runs}", "--raters", "a", "--per-run", "1", "--rubric", "{p}",
      "--db", "{tmp}/db2.sqlite"], 2),
]  # fmt: skip


def _bad_path(tmp: Path, kind: str, rng) -> Path:
    if kind == "long_component":
        return tmp / ("n" * rng.randint(256, 900))
    if kind == "long_path":
        return tmp.joinpath(*["d" * 200] * rng.randint(21, 30))
    a, b = tmp / "loop-a", tmp / "loop-b"
    a.symlink_to(b)
    b.symlink_to(a)
    return a / "x" if rng.random() < 0.5 else a


@pytest.mark.parametrize("seed", range(len(PATH_COMMANDS)))
def test_paths_that_cannot_be_paths_are_one_line_for_every_command(tmp_path, runs, seed):
    import random

    rng = random.Random(seed)
    argv, code = PATH_COMMANDS[seed]
    kind = rng.choice(["long_component", "long_path", "loop"])
    p = _bad_path(tmp_path, kind, rng)
    got, _out, err = cli(*[a.format(p=p, tmp=tmp_path, runs=runs) for a in argv], timeout=60)
    assert got == code, (argv, kind, err[-500:])
    line = one_line(err)
    assert line.startswith("simbridge: error: ") and len(line) < 2100, line


def _special(tmp: Path, kind: str) -> Path:
    if kind == "fifo":
        p = tmp / "pipe"
        os.mkfifo(p)  # no writer: a blocking open would never return
        return p
    return tmp if kind == "dir" else Path("/dev/zero")


#: every kind of input file a command reads, as (argv with {p}, exit code)
INPUT_COMMANDS = [
    (["guest", "--token-file", "{p}", "--listen", "127.0.0.1:0"], 2),  # a token
    (["eval", "{p}", "--out", "{tmp}/out"], 2),  # a suite
    (["run", "T09", "--sim", "jsbsim", "--agent", "scripted:{p}", "--out", "{tmp}/out"], 2),  # a script
    (["review", "campaign", "create", "c", "{runs}", "--raters", "a", "--per-run", "1", "--rubric", "{p}",
      "--db", "{tmp}/db.sqlite"], 2),  # a rubric
    (["import", "carla", "{p}", "--out", "{tmp}/imp"], 2),  # an importer's input
    (["import", "openbve", "{p}", "--out", "{tmp}/imp"], 2),
    (["review", "import-grades", "{p}", "--db", "{tmp}/db.sqlite"], 2),  # a grade CSV
    (["tasks", "validate", "{p}"], 1),  # a task file (validate reports it invalid)
]  # fmt: skip


@pytest.mark.parametrize("seed", range(len(INPUT_COMMANDS)))
def test_devices_fifos_and_folders_as_input_files_never_block(tmp_path, runs, seed):
    import random

    rng = random.Random(100 + seed)
    argv, code = INPUT_COMMANDS[seed]
    for kind in rng.sample(["fifo", "zero", "dir"], 2):
        sub = tmp_path / kind
        sub.mkdir()
        p = _special(sub, kind)
        if kind == "dir" and argv[0] == "import":
            continue  # an importer may take a folder (a KSP save, a run folder)
        got, out, err = cli(*[a.format(p=p, tmp=sub, runs=runs) for a in argv], timeout=30)
        assert got == code, (argv, kind, err[-500:])
        if code == 2:
            assert str(p) in one_line(err), err
        else:
            assert "Traceback" not in err and str(p) in out


def _yaml_fault(rng) -> tuple[str, str]:
    """(a YAML text with one fault, what the error line says)."""
    kind = rng.choice(["duplicate", "bigint", "deep"])
    if kind == "duplicate":
        key = rng.choice(["name", "matrix", "actions", "id", "title"])
        return f"{key}: a\nother: 1\n{key}: b\n", f"duplicate key '{key}' (first on line 1)"
    if kind == "bigint":
        return "name: " + "7" * rng.randint(4301, 20000) + "\n", "is too long"
    depth = rng.randint(2000, 100_000)
    return "name: " + "[" * depth + "]" * depth + "\n", "nesting depth"


#: YAML a command reads, as (file name, argv with {p}, exit code)
YAML_COMMANDS = [
    ("suite.yaml", ["eval", "{p}", "--out", "{tmp}/out"], 2),
    ("T01.yaml", ["tasks", "validate", "{p}"], 1),
    ("rubric.yaml", ["review", "campaign", "create", "c", "{runs}", "--raters", "a", "--per-run", "1", "--rubric",
                     "{p}", "--db", "{tmp}/db.sqlite"], 2),
    ("script.yaml", ["run", "T09", "--sim", "jsbsim", "--agent", "scripted:{p}", "--out", "{tmp}/out"], 2),
]  # fmt: skip


@pytest.mark.parametrize("seed", range(8))
def test_yaml_with_duplicate_keys_huge_integers_or_deep_nesting_is_refused(tmp_path, runs, seed):
    import random

    rng = random.Random(200 + seed)
    name, argv, code = YAML_COMMANDS[seed % len(YAML_COMMANDS)]
    text, says = _yaml_fault(rng)
    p = tmp_path / name
    p.write_text(text)
    got, out, err = cli(*[a.format(p=p, tmp=tmp_path, runs=runs) for a in argv], timeout=60)
    assert got == code, (name, err[-500:])
    line = one_line(err) if code == 2 else next(x for x in out.splitlines() if str(p) in x)
    assert str(p) in line and "not valid YAML" in line and says in line, line


@pytest.mark.parametrize("seed", range(6))
def test_numbers_in_other_scripts_and_oversized_ones_are_refused(tmp_path, seed):
    import random

    rng = random.Random(300 + seed)
    digit = rng.choice(DIGITS)
    options = [
        (["run", "T09", "--sim", "jsbsim", "--agent", "noop", "--seed", "{n}"], "--seed"),
        (["review", "serve", str(tmp_path), "--port", "{n}"], "--port"),
        (["metrics", str(tmp_path), "-k", "{n}"], "-k"),
        (["compare", str(tmp_path), str(tmp_path), "--n-boot", "{n}"], "--n-boot"),
        (["run", "T09", "--sim", "jsbsim", "--agent", "noop", "--trials", "{n}"], "--trials"),
        (["review", "campaign", "create", "c", str(tmp_path), "--raters", "a", "--per-run", "{n}"], "--per-run"),
    ]
    argv, opt = options[seed]
    n = rng.choice([digit * rng.randint(1, 4), "1" + digit, "9" * rng.randint(4301, 6000)])
    got, out, err = cli(*[a.format(n=n) for a in argv], timeout=30)
    assert got == 2 and out == "", err[-300:]
    line = usage_error(err)
    assert f"argument {opt}:" in line and len(line) < 300, line


def test_compare_n_boot_is_bounded_and_html_must_name_a_file(tmp_path):
    got, _, err = cli("compare", tmp_path, tmp_path, "--n-boot", "1000000000")
    assert got == 2 and "must be ≤ 100000" in usage_error(err)
    got, _, err = cli("compare", tmp_path, tmp_path, "--html", tmp_path)
    assert (
        got == 2
        and one_line(err) == f"simbridge: error: --html {tmp_path}: is a directory; --html names the HTML file to write"
    )


def _task_with_variant(tmp: Path, variant: str) -> Path:
    d = tmp / "tasks"
    d.mkdir(exist_ok=True)
    p = d / "T01.yaml"
    p.write_text(_t01_without_variants() + "variants:\n" + variant)
    return p


def _t01_without_variants() -> str:
    """T01's YAML with any variants of its own taken out (the test's are appended)."""
    import yaml

    data = yaml.safe_load((ROOT / "tasks" / "T01.yaml").read_text())
    data.pop("variants", None)
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


@pytest.mark.parametrize("seed", range(6))
def test_variants_that_run_could_not_draw_are_refused_by_tasks_validate(tmp_path, seed):
    import random

    rng = random.Random(400 + seed)
    cases = [
        (f"  - {{name: h, uniform: [0, 10], step: {rng.choice(['1.0e-300', '1.0e-9', '0.0000001'])}, "
         "set: [initial_state.heading_deg]}\n", "step"),
        (f"  - {{name: h, choice: [1, 2], set: [initial_state.{rng.choice(['no_such', 'hdg', 'x_y'])}]}}\n",
         "Extra inputs are not permitted"),
        (f"  - {{name: t, choice: [60, {rng.choice(['-5', '0', '-1.0e9'])}], set: [time_limit_s]}}\n",
         "greater than 0"),
        ("  - {name: t, uniform: [-100, 100], set: [time_limit_s]}\n", "greater than 0"),
        ("  - {name: t, uniform: [0, .inf], set: [time_limit_s]}\n", "finite"),
        ("  - {name: t, choice: [1], set: [title.sub]}\n", "is not a mapping"),
    ]  # fmt: skip
    variant, says = cases[seed]
    p = _task_with_variant(tmp_path, variant)
    got, out, err = cli("tasks", "validate", p, timeout=60)
    assert got == 1 and "Traceback" not in err, err
    line = next(x for x in out.splitlines() if x.startswith("INVALID"))
    assert "'variants" in line and says in line, line


def test_a_variant_set_used_many_times_is_parsed_once_and_bounded(tmp_path, monkeypatch):
    from simbridge import _task

    d = tmp_path / "tasks"
    (d / "variants").mkdir(parents=True)
    (d / "variants" / "wind.yaml").write_text("- {name: w, choice: [1, 2], set: []}\n")
    src = _t01_without_variants()
    parsed = []
    real = _task._parse_yaml
    monkeypatch.setattr(_task, "_parse_yaml", lambda path, *a: parsed.append(path) or real(path, *a))
    (d / "T01.yaml").write_text(src + "variants:\n" + "  - use: wind\n" * 70)
    with pytest.raises(_task.TaskSpecError, match="more than 64 variants"):
        _task.load_task_file(d / "T01.yaml")
    assert parsed.count(d / "variants" / "wind.yaml") == 1
    (d / "variants" / "big.yaml").write_text("- {name: b, choice: [" + "1, " * 100_000 + "1]}\n")
    (d / "T01.yaml").write_text(src + "variants:\n  - use: big\n")
    with pytest.raises(_task.TaskSpecError, match="more than the 262144 bytes"):
        _task.load_task_file(d / "T01.yaml")


def test_a_bundle_1500_folders_deep_is_one_line(tmp_path, cols):
    from simbridge._verify import verify_path

    b = make_bundle(tmp_path / "run" / "b", "T09", cols)
    (b / "score.json").write_text(verify_path(b).model_dump_json())  # scored: metrics re-verifies it
    deep = b / "home"
    deep.mkdir()
    for _ in range(1500):  # 3,000 characters below the bundle: under PATH_MAX, over any recursion
        deep = deep / "d"
        deep.mkdir()
    try:
        for argv in (["verify", b], ["metrics", tmp_path / "run"], ["report", b, "--out", tmp_path / "r.html"]):
            got, _, err = cli(*argv, timeout=120)
            assert got == 2 and "nested more than 64 folders deep" in one_line(err), (argv, err[-400:])
    finally:  # bottom up: pytest's own clean-up (shutil.rmtree) recurses and would fail on it
        while deep != b:
            deep.rmdir()
            deep = deep.parent


def test_a_five_megabyte_message_is_cut_to_one_short_line(tmp_path):
    p = tmp_path / "suite.yaml"
    p.write_text("name: s\nmatrix:\n  - {tasks: [T" + "9" * 3_000_000 + "], sims: [jsbsim], agents: [noop]}\n")
    got, _, err = cli("eval", p, "--out", tmp_path / "o", timeout=60)
    assert got == 2 and len(one_line(err)) <= 2100 and "more characters)" in err


def test_review_serve_on_a_busy_port_is_one_line(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        got, out, err = cli("review", "serve", tmp_path, "--port", port, "--db", tmp_path / "db.sqlite", timeout=30)
    assert got == 2 and "serving" not in out + err
    assert one_line(err).startswith(f"simbridge: error: --port {port}: cannot listen on 127.0.0.1:{port}")


def _on_a_full_disk(tmp_path: Path, setup: str, argv: list[str]) -> subprocess.CompletedProcess:
    """Run the command with its files on a 1 MiB tmpfs filled up (a mount namespace of its own,
    so nothing outside the child sees the mount)."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    cmd = " ".join(str(a) for a in argv)
    script = (
        f"set -e; mount -t tmpfs -o size=1m tmpfs {mnt}; {setup}; "
        f"dd if=/dev/zero of={mnt}/filler bs=4k 2>/dev/null || true; "
        f"{sys.executable} -m simbridge._cli {cmd}"
    )
    return subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)


def test_a_full_disk_on_verify_write_and_campaign_create_is_exit_4(tmp_path, cols):
    b = make_bundle(tmp_path / "b", "T09", cols, fmt="parquet")
    write_manifest(b)
    r = _on_a_full_disk(tmp_path, f"cp -r {b} {tmp_path}/mnt/b", ["verify", tmp_path / "mnt" / "b", "--write"])
    assert r.returncode == 4, r.stderr[-500:]
    assert one_line(r.stderr).startswith("simbridge: harness fault: disk full")
    (tmp_path / "mnt").rmdir()
    runs = tmp_path / "runs"
    (runs / "e1").parent.mkdir()
    shutil_copy = f"cp -r {b} {runs}/e1"
    r = _on_a_full_disk(
        tmp_path,
        shutil_copy,
        [
            "review",
            "campaign",
            "create",
            "c",
            runs,
            "--raters",
            "a,b",
            "--per-run",
            "1",
            "--db",
            tmp_path / "mnt" / "g.sqlite",
        ],
    )
    assert r.returncode == 4, r.stderr[-500:]
    assert one_line(r.stderr).startswith("simbridge: harness fault: disk full")


def test_a_report_of_100k_events_draws_a_bounded_number(tmp_path, cols):
    from simbridge._report import write_episode_report
    from simbridge._report._plots import MAX_EVENTS_DRAWN

    t = cols["t"]
    sizes = {}
    for n in (MAX_EVENTS_DRAWN * 2, 100_000):
        ev = [{"t": float(t[0] + (t[-1] - t[0]) * i / n), "kind": "note"} for i in range(n)]
        b = make_bundle(tmp_path / f"b{n}", "T09", cols, events=ev, fmt="parquet")
        page = write_episode_report(b, tmp_path / f"r{n}.html").read_text()
        assert f"{MAX_EVENTS_DRAWN} of {n} events drawn" in page
        sizes[n] = len(page)
    assert sizes[100_000] < 1.2 * sizes[MAX_EVENTS_DRAWN * 2], sizes


class _EP:
    """An entry point as importlib.metadata gives it: a name, a value, its distribution, load()."""

    def __init__(self, dist: str, name: str, register) -> None:
        self.name, self.value, self._register = name, f"{name}_pkg:register", register
        self.dist = type("D", (), {"metadata": {"Name": dist}})()

    def load(self):
        return self._register


class _BadStr(Exception):
    def __str__(self) -> str:
        raise ValueError("no message for you")


PLUGIN_FAILURES = ["bad_str", "keyboard", "exit", "replace", "huge", "import"]


def _plugin_failure(rng, kind: str):
    """(a plug-in's register, what its one line says): each way the campaign found to escape."""

    def reg(registry):
        registry.add("agent", f"mine_{kind}", object())  # added first: must go out with the plug-in
        if kind == "bad_str":
            raise _BadStr()
        if kind == "keyboard":
            raise KeyboardInterrupt
        if kind == "exit":
            raise SystemExit(rng.choice([0, 3, 7, "bye"]))
        if kind == "replace":
            registry.add("agent", "noop", object(), replace=True)
        if kind == "huge":
            raise RuntimeError("x\n" * 2_000_000)
        if kind == "import":
            raise ImportError("no module named 'licence'")

    says = {
        "bad_str": "_BadStr: (its message cannot be shown: __str__ failed)",
        "keyboard": "KeyboardInterrupt",
        "exit": "SystemExit",
        "replace": "agent 'noop' is simbridge's own",
        "huge": "RuntimeError: x x x",
        "import": "ImportError: no module named 'licence'",
    }[kind]
    return kind, reg, says


@pytest.mark.parametrize("seed", range(8))
def test_a_failing_plugin_is_one_line_and_changes_nothing_else(monkeypatch, capsys, seed):
    import random

    from simbridge import registry as reg_mod

    rng = random.Random(500 + seed)
    kind, register, says = _plugin_failure(rng, PLUGIN_FAILURES[seed % len(PLUGIN_FAILURES)])
    builtin_noop = object()
    points = [
        _EP("simbridge", "builtin", lambda r: r.add("agent", "noop", builtin_noop)),
        _EP("bad-plugin", "bad", register),
        _EP("good-plugin", "good", lambda r: r.add("agent", "good_agent", "x:y")),
    ]
    monkeypatch.setattr(reg_mod, "_entry_points", lambda group: points)
    r = reg_mod.Registry(group="test.only")
    r.load_plugins()  # never raises, never exits
    err = capsys.readouterr().err
    [line] = [x for x in err.splitlines() if "bad_pkg:register" in x]
    assert "not loaded" in line and says in line and len(line) < 500, line
    assert r.get("agent", "noop") is builtin_noop and r.find("agent", "good_agent") is not None
    assert r.find("agent", f"mine_{kind}") is None  # all of the plug-in or nothing
    assert [b[0] for b in r.broken] == ["bad = bad_pkg:register"]


def test_tasks_validate_fails_while_a_plugin_is_not_loaded(monkeypatch, capsys):
    import argparse

    from simbridge._cli.tasks import _validate
    from simbridge._exit import Exit
    from simbridge.registry import registry

    task = Path(__file__).resolve().parents[1] / "tasks" / "P01.yaml"
    reg = registry()
    monkeypatch.setattr(reg, "broken", [])
    assert _validate(argparse.Namespace(path=task)) == Exit.OK
    assert capsys.readouterr().out.splitlines()[-1] == "1 valid, 0 invalid"
    monkeypatch.setattr(reg, "broken", [("bad = bad_pkg:register", "ImportError: no module named 'nope'")])
    assert _validate(argparse.Namespace(path=task)) == Exit.CHECK_FAILED
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "BROKEN plug-in bad = bad_pkg:register: ImportError: no module named 'nope'",
        "1 valid, 0 invalid, 1 plug-in(s) not loaded",
    ]


def test_a_slow_plugin_is_named_with_its_time(monkeypatch, capsys):
    from simbridge import registry as reg_mod

    clock = iter([0.0, 0.1, 10.0, 40.0])  # the built-in 0.1 s, the plug-in 30 s
    monkeypatch.setattr(reg_mod.time, "monotonic", lambda: next(clock))
    points = [_EP("simbridge", "builtin", lambda r: None), _EP("slow-plugin", "slow", lambda r: None)]
    monkeypatch.setattr(reg_mod, "_entry_points", lambda group: points)
    r = reg_mod.Registry(group="test.only")
    r.load_plugins()
    err = capsys.readouterr().err.strip()
    assert (
        err
        == "simbridge: note: plug-in slow_pkg:register (slow-plugin) took 30.0 s to load (every simbridge command pays it)"
    )
    assert r.load_s == {"builtin = builtin_pkg:register": pytest.approx(0.1), "slow = slow_pkg:register": 30.0}


@pytest.mark.parametrize("seed", range(3))
def test_a_fifo_or_folder_as_an_output_file_is_refused_without_blocking(tmp_path, cols, seed):
    import random

    rng = random.Random(600 + seed)
    b = make_bundle(tmp_path / "run" / "b", "T09", cols, agent="a")
    outputs = [
        (["report", b, "--out", "{p}"], "--out"),
        (["compare", f"x={tmp_path / 'run'}", f"y={tmp_path / 'run'}", "--html", "{p}"], "--html"),
        (["review", "campaign", "export", "c", "--csv", "{p}", "--db", tmp_path / "db.sqlite"], "--csv"),
    ]
    argv, opt = outputs[seed]
    kind = rng.choice(["fifo", "socket"])
    p = tmp_path / "out.html"
    if kind == "fifo":
        os.mkfifo(p)  # no reader: opening it to write would block forever
    else:
        import socket

        s = socket.socket(socket.AF_UNIX)
        s.bind(str(p))
    got, _, err = cli(*[str(a).format(p=p) for a in argv], timeout=30)
    assert got == 2 and one_line(err).endswith(
        f"{opt} {p}: is a {'FIFO' if kind == 'fifo' else 'socket'}; {opt} names a file to write"
    ), err
