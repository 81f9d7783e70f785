"""The command line: tasks list/show/validate and verify, including bad input (one line, exit 2)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from simbridge._cli import main
from synth import make_bundle, steep_turn


def run(*args):
    p = subprocess.run([sys.executable, "-m", "simbridge._cli", *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def test_tasks_list_and_show(capsys):
    assert main(["tasks", "list"]) == 0
    out = capsys.readouterr().out
    assert "T09" in out and "steep_turn" in out
    assert main(["tasks", "show", "T09", "--json"]) == 0
    spec = json.loads(capsys.readouterr().out)
    assert spec["verifier"]["name"] == "steep_turn" and spec["instruction"].startswith("MSFS")


def test_tasks_show_unknown():
    code, out, err = run("tasks", "show", "T77")
    assert code == 2 and "unknown task id 'T77'" in err and "Traceback" not in err


def _broken(tmp_path, text, name="T09.yaml"):
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.parametrize(
    "mutate,expect",
    [
        (
            lambda s: s.replace("difficulty: 3", "difficulty: 9"),
            "field 'difficulty': Input should be less than or equal to 5",
        ),
        (
            lambda s: s.replace(
                'weight: 0.30, kind: binary, description: "bank', 'weight: 0.40, kind: binary, description: "bank'
            ),
            "field 'partial_credit': Value error, weights add up to 1.1, not 1",
        ),
        (
            lambda s: s.replace("name: steep_turn", "name: no_such_verifier"),
            "field 'verifier': no verifier named 'no_such_verifier'",
        ),
        (
            lambda s: s.replace("bank_tol_deg: 5", "bank_tol_degrees: 5"),
            "field 'verifier': params.bank_tol_degrees: Extra inputs are not permitted",
        ),
        (lambda s: s.replace("simulator:\n  name: msfs", "simulator:\n  name: msfs2"), "field 'simulator.name'"),
        (lambda s: s.replace("id: T09", "id: T08"), "does not match the file name"),
        (lambda s: s.replace("id: T09\n", "id: [T09\n"), "not valid YAML"),
    ],
)
def test_validate_broken_yaml_names_file_and_field(tmp_path, mutate, expect):
    from simbridge._task import tasks_dir

    text = (tasks_dir() / "T09.yaml").read_text()
    p = _broken(tmp_path, mutate(text))
    code, out, err = run("tasks", "validate", str(p))
    assert code == 1
    line = [l for l in out.splitlines() if l.startswith("INVALID")][0]
    assert str(p) in line and expect in line, line


def test_validate_shipped_tasks():
    code, out, err = run("tasks", "validate")
    assert code == 0 and "0 invalid" in out, out


def test_verify_json_and_table(tmp_path):
    make_bundle(tmp_path, "T09", steep_turn())
    code, out, err = run("verify", str(tmp_path), "--json")
    assert code == 0, err
    s = json.loads(out)
    assert {"task_id", "score", "success", "status", "components", "safety"} <= set(s)
    assert s["score"] == pytest.approx(1.0) and s["status"] == "scored"
    code, out, err = run("verify", str(tmp_path))
    assert code == 0 and "bank_maintained" in out and "score 1.000" in out


@pytest.mark.parametrize(
    "setup,expect",
    [
        (lambda d: (d / "signals.csv").write_text("time,x\n0,1\n"), "no 't' column"),
        (lambda d: (d / "signals.csv").write_text("t,x\n1,1\n0,1\n"), "goes backwards"),
        (lambda d: (d / "signals.csv").write_text("t,x\n0,abc\n"), "is not a number"),
        (lambda d: (d / "signals.csv").write_bytes(b"\x89PNG\x00\x01\x02garbage"), "binary"),
        (lambda d: (d / "episode.json").write_text('{"task_id": "T42"}'), "unknown task id 'T42'"),
    ],
)
def test_verify_bad_input_one_line_exit_2(tmp_path, setup, expect):
    (tmp_path / "episode.json").write_text('{"task_id": "T09"}')
    (tmp_path / "signals.csv").write_text("t,x\n0,1\n")
    setup(tmp_path)
    code, out, err = run("verify", str(tmp_path))
    assert code == 2, (out, err)
    assert expect in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_verify_not_a_directory(tmp_path):
    code, out, err = run("verify", str(tmp_path / "nope"))
    assert code == 2 and "not a bundle directory" in err


def test_version_comes_from_the_package_metadata_and_pyproject():
    import importlib.metadata
    import tomllib
    from pathlib import Path

    import simbridge._version

    root = Path(__file__).resolve().parents[1]
    declared = tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"]
    assert "version" not in (root / "setup.py").read_text()  # one place: pyproject.toml
    assert importlib.metadata.version("simbridge") == declared == simbridge._version.__version__
    code, out, err = run("--version")
    assert code == 0 and out.strip() == f"simbridge {declared}"


def test_help_is_for_users_and_lists_every_command_and_exit_code():
    code, out, err = run("--help")
    assert code == 0 and "Each command lives in its own module" not in out
    assert out.split("\n\n")[1].startswith("Run GUI-only agent tasks")
    for command in ("run", "verify", "record", "import", "metrics", "tasks", "audit", "cleanup", "vm"):
        assert f"\n    {command} " in out, command
    codes = out[out.index("exit codes:") :]
    for rc in ("0", "1", "2", "3", "4", "5", "130"):
        assert f"\n  {rc} " in codes, rc


@pytest.mark.parametrize(
    "argv",
    [
        ["audit"],
        ["import", "carla"],
        ["import", "ksp"],
        ["import", "openbve"],
        ["import", "bridgecommand"],
        ["import", "nmea"],
        ["record"],
        ["tasks", "show"],
        ["vm", "build"],
        ["vm", "check"],
        ["cleanup"],
    ],
)
def test_every_argument_has_help(argv):
    """No bare `--task TASK` line: each option and positional explains itself."""
    from simbridge._cli import build_parser

    parser = build_parser()
    for word in argv:  # walk down to the sub-command's own parser
        sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
        parser = sub.choices[word]
    bare = [a.dest for a in parser._actions if not a.help and a.dest != "help"]
    assert bare == [], (argv, bare)


def test_provider_choices_come_from_the_providers_registry():
    from simbridge._providers import providers

    code, out, _ = run("run", "--help")
    assert code == 0 and "{" + ",".join(providers()) + "}" in out
    code, out, _ = run("audit", "--help")
    assert code == 0 and "{" + ",".join(p for p in providers() if p != "local") + "}" in out
    code, _, err = run("run", "T09", "--sim", "jsbsim", "--agent", "noop", "--provider", "nosuch")
    assert code == 2 and "invalid choice: 'nosuch'" in err


def test_a_harness_fault_exits_5_and_bad_input_exits_2(tmp_path):
    """A simulator that does not answer is the harness failing (HarnessError: 5, one line); a
    recorder asked for an unknown simulator is bad input (2)."""
    import socket

    with socket.socket() as s:  # a port nothing listens on: connection refused at once
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, out, err = run(
        "record",
        "--sim",
        "flightgear",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--seconds",
        "1",
        "--out",
        str(tmp_path / "b"),
    )
    assert code == 5, err
    assert err.strip().splitlines() == [err.strip()] and err.startswith("simbridge: harness fault: telnet 127.0.0.1:")
    code, out, err = run("record", "--sim", "nosuch", "--host", "h", "--seconds", "1", "--out", str(tmp_path / "c"))
    assert code == 2 and err.startswith("simbridge: error: record: no recorder for simulator 'nosuch'")


def test_exit_code_docs_table_is_the_module():
    """docs/cli-exit-codes.md's table is `simbridge._exit.EXIT_CODES`, row for row."""
    from simbridge._exit import EXIT_CODES, Exit, docs_table

    doc = (Path(__file__).resolve().parents[1] / "docs" / "cli-exit-codes.md").read_text(encoding="utf-8")
    start = doc.index("| code | meaning | raised by |")
    table = doc[start:].split("\n\n", 1)[0].strip()
    assert table == docs_table()
    assert [d.code for d in EXIT_CODES] == list(Exit)
    code, out, _ = run("--help")
    for d in EXIT_CODES:
        assert f"\n  {int(d.code):<4} " in out


def test_the_score_table_keeps_long_cells_apart():
    from simbridge import Component, Score

    long_tol = "within ±100 ft of the altitude at the entry of the turn"
    s = Score(
        task_id="T09",
        verifier="steep_turn",
        status="scored",
        score=1.0,
        raw_score=1.0,
        success=True,
        components=[
            Component(
                name="a_component_with_a_long_name",
                weight=1.0,
                earned=1.0,
                measured="a measured value longer than the column",
                tolerance=long_tol,
                window=(1.0, 2.0),
            )
        ],
    )
    row = next(line for line in s.table().splitlines() if line.startswith("a_component"))
    # every cell whole and two spaces before the next: nothing cut, nothing run together
    assert f"a measured value longer than the column  {long_tol}  1.0-2.0s" in row
    assert row.startswith("a_component_with_a_long_name    1.00")
