"""The agent's folder: task inputs placed read-only, answer files collected into the end
snapshot, paths confined to the folder, every file action logged."""

from __future__ import annotations

import json
import os

import pytest

from simbridge._agent_port import AgentFiles, AgentPort, DirectClient
from simbridge._errors import SimbridgeError
from simbridge._episode_parts import agent_files, collect_answers
from simbridge._task import load_task


def test_task_inputs_are_placed_and_answer_collected(tmp_path):
    task = load_task("T15")
    files = agent_files(task, tmp_path / "home")
    load = json.loads(files.read("input/load.json"))
    assert [p["weight_lb"] for p in load["rear_passengers"]] == [190, 175]
    end: dict = {}
    collect_answers(task, files, end)
    assert end == {"answer": None}  # no file written: null, which the verifier scores as no answer
    files.write("answer.json", '{"weight_lb": 2379, "cg_in": 45.32}')
    collect_answers(task, files, end)
    assert end["answer"] == {"weight_lb": 2379, "cg_in": 45.32}
    files.write("answer.json", "2379 lb at 45.3 in")  # not JSON: kept as text, never an exception
    collect_answers(task, files, end)
    assert end["answer"] == "2379 lb at 45.3 in"


def test_tasks_without_an_answer_snapshot_collect_nothing(tmp_path):
    files = agent_files(load_task("T09"), tmp_path / "home")
    files.write("answer.json", "{}")
    end: dict = {}
    collect_answers(load_task("T09"), files, end)
    assert end == {}


@pytest.mark.parametrize("path", ["../escape.json", "/etc/passwd", "a/../../b", "", "a\\b", "x\x00y"])
def test_paths_outside_the_folder_are_refused(tmp_path, path):
    files = AgentFiles(tmp_path / "home")
    with pytest.raises(SimbridgeError, match="path"):
        files.write(path, "x")
    with pytest.raises(SimbridgeError):
        files.read(path)


def test_symlink_out_of_the_folder_is_refused(tmp_path):
    (tmp_path / "secret.txt").write_text("host file")
    files = AgentFiles(tmp_path / "home")
    os.symlink(tmp_path / "secret.txt", tmp_path / "home" / "link.txt")
    with pytest.raises(SimbridgeError, match="outside"):
        files.read("link.txt")


def test_inputs_are_read_only_and_sizes_bounded(tmp_path):
    files = agent_files(load_task("T15"), tmp_path / "home")
    before = files.read("input/load.json")
    with pytest.raises(SimbridgeError, match="read-only"):
        files.write("input/load.json", "{}")
    assert files.read("input/load.json") == before
    with pytest.raises(SimbridgeError, match="allowed"):
        files.write("big.txt", "x" * 1_000_001)
    with pytest.raises(SimbridgeError, match="no file"):
        files.read("missing.json")
    listed = {f["path"]: f["writable"] for f in files.list()}
    assert listed == {"input/load.json": False}


def test_port_file_actions_are_logged_and_refused_without_a_folder(sandbox, tmp_path):
    log: list[dict] = []
    port = AgentPort(sandbox.display, log=log.append, files=AgentFiles(tmp_path / "home"))
    bare = AgentPort(sandbox.display, log=log.append)
    try:
        c = DirectClient(port)
        assert c.write_file("notes/answer.json", "x" * 3000) == 3000
        assert c.read_file("notes/answer.json") == "x" * 3000
        assert [f["path"] for f in c.list_files()] == ["notes/answer.json"]
        w = [a for a in log if a["kind"] == "write_file"][0]
        assert w["args"]["path"] == "notes/answer.json" and w["args"]["text_chars"] == 3000
        assert len(w["args"]["text"]) < 2100  # long texts are cut in the log; the file keeps them whole
        with pytest.raises(SimbridgeError, match="no agent folder"):
            DirectClient(bare).read_file("answer.json")
    finally:
        port.close()
        bare.close()


def test_binary_inputs_are_read_as_base64(tmp_path):
    import base64

    files = agent_files(load_task("T01"), tmp_path / "home")
    [pdf] = [f["path"] for f in files.list()]
    assert pdf == "input/c172_startup_checklist.pdf"
    assert base64.b64decode(files.read(pdf, "base64")).startswith(b"%PDF")
    chart = tmp_path / "chart.png"
    chart.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    files.place_inputs([("input/chart.png", chart)])
    with pytest.raises(SimbridgeError, match="base64"):
        files.read("input/chart.png")
    assert base64.b64decode(files.read("input/chart.png", "base64")) == chart.read_bytes()
    with pytest.raises(SimbridgeError, match="encoding"):
        files.read(pdf, "latin-1")
