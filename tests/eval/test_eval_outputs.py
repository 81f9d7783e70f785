"""`simbridge eval` leaves screen.mp4 in each attempt's bundle that ended in an agent outcome,
as `simbridge run` does, without touching the score; a problem there is one line, never a failure."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from report.bundles import build_t09
from simbridge._verify import manifest_problems, verify_path
from simbridge._eval._attempt import finish_attempt_outputs


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_t09(tmp_path_factory.mktemp("eval-out") / "attempt-1")


def test_agent_outcome_gets_screen_mp4_and_keeps_its_score(built: Path, tmp_path: Path) -> None:
    b = tmp_path / "attempt-1"
    shutil.copytree(built, b)
    before = json.loads((b / "score.json").read_text())
    said: list[str] = []
    mp4 = finish_attempt_outputs(b, "completed", said.append)
    assert said == []
    assert mp4 == b / "screen.mp4" and mp4.stat().st_size > 1000
    assert mp4.read_bytes()[4:8] == b"ftyp"  # an MP4 container
    assert manifest_problems(b) == []  # re-sealed: verify still accepts the bundle
    again = verify_path(b).model_dump(mode="json")
    assert again["score"] == before["score"] and again["success"] == before["success"]
    assert json.loads((b / "score.json").read_text()) == before


def test_harness_fault_attempt_is_not_encoded(built: Path, tmp_path: Path) -> None:
    b = tmp_path / "attempt-1"
    shutil.copytree(built, b)
    said: list[str] = []
    assert finish_attempt_outputs(b, "harness_error", said.append) is None
    assert not (b / "screen.mp4").exists() and said == []


def test_problem_is_one_line_and_not_raised(built: Path, tmp_path: Path) -> None:
    b = tmp_path / "attempt-1"
    shutil.copytree(built, b)
    (b / "actions.jsonl").write_text("tampered\n")  # no longer matches manifest.json
    said: list[str] = []
    assert finish_attempt_outputs(b, "timeout", said.append) is None
    assert len(said) == 1 and "\n" not in said[0]
    assert said[0].startswith("attempt-1: no screen.mp4:") and "manifest" in said[0]
    assert not (b / "screen.mp4").exists()
