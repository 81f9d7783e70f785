"""The eval directory's lock file (`DIR/.eval.lock`) is opened without following links: a
symlink (or a hard link, a FIFO, a directory) planted there is refused with one line, exit 2,
and the file it points to is never written (issue 43: `eval --resume` wrote its pid through a
symlinked lock into whatever file it named)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from simbridge._cli import main
from simbridge._eval._driver import LOCK_FILE, lock_eval_dir
from simbridge._eval._suite import SuiteError

SUITE = """
name: lockrun
max_time_limit_s: 3
frame_hz: 0
matrix:
  - {tasks: [T09], sims: [jsbsim], agents: [noop], trials: 1}
"""


@pytest.fixture
def victim(tmp_path) -> Path:
    v = tmp_path / "victim.txt"
    v.write_text("precious\n")
    return v


def _refused(capsys, out: Path, suite: Path, says: str) -> None:
    capsys.readouterr()
    assert main(["eval", str(suite), "--out", str(out), "--resume"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and says in err and "Traceback" not in err, err
    assert LOCK_FILE in err


def test_a_symlinked_lock_is_refused_and_its_target_untouched(tmp_path, victim, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / LOCK_FILE).symlink_to(victim)
    with pytest.raises(SuiteError, match="symbolic link"):
        lock_eval_dir(out)
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE)
    _refused(capsys, out, suite, "symbolic link")
    assert victim.read_text() == "precious\n"
    assert (out / LOCK_FILE).is_symlink()  # left for the operator to look at


def test_a_dangling_symlink_creates_nothing_at_its_target(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    target = tmp_path / "elsewhere" / "created-through-link"
    target.parent.mkdir()
    (out / LOCK_FILE).symlink_to(target)
    with pytest.raises(SuiteError, match="symbolic link"):
        lock_eval_dir(out)
    assert not target.exists()


def test_a_hard_link_to_another_file_is_refused(tmp_path, victim):
    out = tmp_path / "out"
    out.mkdir()
    os.link(victim, out / LOCK_FILE)
    with pytest.raises(SuiteError, match="2 hard links"):
        lock_eval_dir(out)
    assert victim.read_text() == "precious\n"


def test_a_fifo_or_directory_as_the_lock_is_refused_without_blocking(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / LOCK_FILE)
    box: list[BaseException] = []

    def take() -> None:
        try:
            lock_eval_dir(out)
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            box.append(exc)

    t = threading.Thread(target=take, daemon=True)
    t.start()
    t.join(10)
    assert not t.is_alive(), "opening a FIFO lock blocked"
    assert len(box) == 1 and isinstance(box[0], SuiteError) and "not a regular file" in str(box[0])
    other = tmp_path / "out2"
    (other / LOCK_FILE).mkdir(parents=True)
    with pytest.raises(SuiteError, match="cannot write there"):
        lock_eval_dir(other)


def test_a_regular_lock_is_created_then_reused(tmp_path):
    out = tmp_path / "fresh"
    fh = lock_eval_dir(out)
    try:
        assert (out / LOCK_FILE).read_text().strip() == str(os.getpid())
    finally:
        fh.close()
    fh = lock_eval_dir(out)  # a resume reopens the same file
    fh.close()
    assert not (out / LOCK_FILE).is_symlink() and os.stat(out / LOCK_FILE).st_nlink == 1
