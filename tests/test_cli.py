"""The command line: tasks list/show/validate and verify, including bad input (one line, exit 2)."""

import json
import subprocess
import sys

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


@pytest.mark.parametrize("mutate,expect", [
    (lambda s: s.replace("difficulty: 3", "difficulty: 9"), "field 'difficulty': Input should be less than or equal to 5"),
    (lambda s: s.replace("weight: 0.30, kind: binary, description: \"bank", "weight: 0.40, kind: binary, description: \"bank"),
     "field 'partial_credit': Value error, weights add up to 1.1, not 1"),
    (lambda s: s.replace("name: steep_turn", "name: no_such_verifier"), "field 'verifier': no verifier named 'no_such_verifier'"),
    (lambda s: s.replace("bank_tol_deg: 5", "bank_tol_degrees: 5"), "field 'verifier': params.bank_tol_degrees: Extra inputs are not permitted"),
    (lambda s: s.replace("simulator:\n  name: msfs", "simulator:\n  name: msfs2"), "field 'simulator.name'"),
    (lambda s: s.replace("id: T09", "id: T08"), "does not match the file name"),
    (lambda s: s.replace("id: T09\n", "id: [T09\n"), "not valid YAML"),
])
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


@pytest.mark.parametrize("setup,expect", [
    (lambda d: (d / "signals.csv").write_text("time,x\n0,1\n"), "no 't' column"),
    (lambda d: (d / "signals.csv").write_text("t,x\n1,1\n0,1\n"), "goes backwards"),
    (lambda d: (d / "signals.csv").write_text("t,x\n0,abc\n"), "is not a number"),
    (lambda d: (d / "signals.csv").write_bytes(b"\x89PNG\x00\x01\x02garbage"), "binary"),
    (lambda d: (d / "episode.json").write_text('{"task_id": "T42"}'), "unknown task id 'T42'"),
])
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
