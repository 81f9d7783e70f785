"""The bundle-integrity campaign as tests: seeded mutations of a sealed bundle that scores 0.000,
each read through `simbridge verify`, `simbridge metrics` and the report's episode page, each
asserting its class of outcome:

- clean error: exit 2 and one line naming the file (verify, metrics); the page refuses too;
- unscored: the bundle is shown but not scored (report marks it UNVERIFIED);
- flagged: scored, the same score as the truth, and a flag says what was wrong;
- scored unchanged: the mutation cannot change what is shown.

Never, for any case: a score other than the truth's (0.000), or a traceback.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path

import pytest

from simbridge._bundle import bundle_file, read_bounded, write_manifest
from simbridge._cli import main
from simbridge._verify import checked_score
from simbridge._errors import BundleError
from synth import make_bundle, steep_turn

EV = [{"t": 1.0, "kind": "note", "data": {"text": "roll in"}}]
CLEAN_ERROR, UNSCORED, FLAGGED, UNCHANGED = "clean error", "unscored", "flagged", "scored unchanged"
#: verify refuses it; metrics never counts it (a note names it), whatever its score.json says
NOT_COUNTED = "not counted"


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    """A sealed failing bundle (0.000: a 20° bank for a 45° steep turn) with its verified
    score.json, and a sealed passing one (1.000) from another run, whose files a forger borrows."""
    root = tmp_path_factory.mktemp("campaign")
    bad = make_bundle(root / "fail", "T09", steep_turn(bank_deg=20), fmt="parquet", agent="a", trial=1, events=EV)
    good = make_bundle(root / "pass", "T09", steep_turn(), fmt="parquet", agent="a", trial=2, events=EV)
    for b in (bad, good):
        (b / "home").mkdir()
        (b / "home" / "notes.txt").write_text("the agent's notes\n")
        write_manifest(b)
        assert main(["verify", str(b), "--write"]) == 0
        write_manifest(b)  # sealed with its score and its folder
    return bad, good


def _forge_score(b: Path, rng: random.Random, **over) -> None:
    s = json.loads((b / "score.json").read_text())
    s.update(score=1.0, raw_score=1.0, success=True, **over)
    (b / "score.json").write_text(json.dumps(s))


def _mutations(good: Path):
    """name -> (mutate(bundle, rng), expected class)."""

    def forged(b, rng):
        _forge_score(b, rng)

    def forged_resealed(b, rng):
        _forge_score(b, rng)
        write_manifest(b)

    def forged_other_task(b, rng):
        _forge_score(b, rng, task_id="T01")
        if rng.random() < 0.5:
            write_manifest(b)

    def link_signals(b, rng):
        (b / "signals.parquet").unlink()
        (b / "signals.parquet").symlink_to(good / "signals.parquet")
        if rng.random() < 0.5:
            write_manifest(b)  # resealing does not help: the link is not hashed, it is refused

    def link_anywhere(b, rng):
        where = rng.choice(["home/secret", "screen.mp4", "frames/000001.png", "sub/dir/x"])
        (b / where).parent.mkdir(parents=True, exist_ok=True)
        (b / where).symlink_to(rng.choice(["/etc/passwd", str(good / "signals.parquet"), "/dev/zero"]))

    def link_folder(b, rng):
        (b / "home").rename(b / "home.real")
        (b / "home").symlink_to(b / "home.real")

    def fifo(b, rng):
        os.mkfifo(b / rng.choice(["events.jsonl.fifo", "home/pipe"]))

    def bit_flip(b, rng):
        name = rng.choice(["signals.parquet", "episode.json", "events.jsonl", "home/notes.txt"])
        data = bytearray((b / name).read_bytes())
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)
        (b / name).write_bytes(bytes(data))

    def added_file(b, rng):
        (b / rng.choice(["extra.csv", "home/new.txt"])).write_text("t\n0\n")

    def task_id_swapped(b, rng):
        ep = json.loads((b / "episode.json").read_text())
        (b / "episode.json").write_text(json.dumps({**ep, "task_id": "T01"}))

    def manifest_gone(b, rng):
        (b / "manifest.json").unlink()

    def score_gone(b, rng):
        (b / "score.json").unlink()

    def deep_episode(b, rng):
        depth = rng.choice([5_000, 100_000])
        (b / "episode.json").write_text('{"task_id": "T09", "x": ' + "[" * depth + "]" * depth + "}")
        write_manifest(b)

    def episode_gone_forged(b, rng):
        _forge_score(b, rng)
        (b / "episode.json").unlink()
        if rng.random() < 0.5:
            (b / "episode.json").mkdir()  # a folder where the file was
        if rng.random() < 0.5:
            write_manifest(b)

    def score_garbage(b, rng):
        (b / "score.json").write_bytes(rng.choice([b"{nope", b"\x00\xff" * 10, b"[]", b'{"score": 1.0}']))

    return {
        "forged score.json": (forged, FLAGGED),
        "forged score.json, resealed": (forged_resealed, FLAGGED),
        "forged score.json naming another task": (forged_other_task, FLAGGED),
        "signals.parquet linked to a passing run": (link_signals, CLEAN_ERROR),
        "a symlink anywhere": (link_anywhere, CLEAN_ERROR),
        "a folder replaced by a symlink": (link_folder, CLEAN_ERROR),
        "a FIFO in the bundle": (fifo, CLEAN_ERROR),
        "a bit flipped in a hashed file": (bit_flip, CLEAN_ERROR),
        "a file added after sealing": (added_file, CLEAN_ERROR),
        "episode.json's task id changed": (task_id_swapped, CLEAN_ERROR),
        "manifest.json removed": (manifest_gone, CLEAN_ERROR),
        "score.json removed": (score_gone, UNCHANGED),
        "episode.json nested 5k/100k deep, resealed": (deep_episode, CLEAN_ERROR),
        "score.json not a score": (score_garbage, FLAGGED),
        "episode.json removed or a folder, score.json forged": (episode_gone_forged, NOT_COUNTED),
    }


CASES = [(name, seed) for name in _mutations(Path("/")) for seed in range(3)]


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("name, seed", CASES, ids=[f"{n}-{s}" for n, s in CASES])
def test_mutated_bundle_outcome_class(sources, tmp_path, capsys, name, seed):
    bad, good = sources
    b = tmp_path / "run" / "ep"
    shutil.copytree(bad, b, symlinks=True)
    mutate, expected = _mutations(good)[name]
    mutate(b, random.Random(f"{name}/{seed}"))
    capsys.readouterr()

    # verify
    code = main(["verify", str(b), "--json"])
    out, err = capsys.readouterr()
    if expected in (CLEAN_ERROR, NOT_COUNTED):
        assert code == 2 and out == "", out
        assert str(b) in _one_line(err)
    else:
        assert code == 0, err
        s = json.loads(out)
        assert s["status"] == "scored" and s["score"] == 0.0 and s["success"] is False and s["task_id"] == "T09"
        assert ("score_json_disagrees" in s["flags"]) == (expected == FLAGGED)

    # metrics (re-verifies; the task id is episode.json's)
    code = main(["metrics", "--json", f"x={b.parent}"])
    out, err = capsys.readouterr()
    if expected == CLEAN_ERROR:
        assert code == 2 and out == "" and _one_line(err)
    elif expected == NOT_COUNTED:  # never "as stored": named, left out, nothing else to count
        assert code == 2 and out == "" and "Traceback" not in err
        assert f"not counted: {b}: " in err and "its score.json is not used" in err, err
    elif expected == UNCHANGED and name == "score.json removed":
        assert code == 0, err  # an episode without score.json is counted unscored, never 1.0
        [sr] = [r for r in json.loads(out) if r["metric"] == "sr" and r["task_id"] is None]
        assert sr["n_unscored"] == 1 and sr["n_trials"] == 0
    elif name == "score.json not a score":
        # metrics reads every score.json it counts: a broken one is an input error naming it
        assert code == 2 and f"{b}/score.json" in _one_line(err)
    else:
        assert code == 0, err
        rows = json.loads(out)
        assert {r["task_id"] for r in rows} == {None, "T09"}
        [sgo] = [r for r in rows if r["metric"] == "sgo" and r["task_id"] is None]
        assert sgo["value"] == 0.0 and sgo["n_trials"] == 1

    # the report's episode page: never a number from score.json, never a linked file
    try:
        checked = checked_score(b)
    except BundleError as exc:
        assert expected in (CLEAN_ERROR, NOT_COUNTED), exc
        assert "\n" not in str(exc)
        return
    if expected == CLEAN_ERROR:
        # the page may show a tampered recording only unscored and marked unverified
        assert not checked.verified and checked.score.status == "unscored"
        assert checked.score.reason.startswith("unverified:")
    else:
        assert checked.verified and checked.score.score == 0.0 and checked.score.task_id == "T09"


def test_report_page_of_a_forged_bundle_shows_the_rescored_value(sources, tmp_path):
    from simbridge._report import load_episode

    bad, _good = sources
    b = tmp_path / "ep"
    shutil.copytree(bad, b)
    _forge_score(b, random.Random(0))
    write_manifest(b)
    view = load_episode(b)
    assert view.score.score == 0.0 and "score_json_disagrees" in view.score.flags
    assert "score.json disagrees" in view.score_source


def test_report_page_of_an_unsealed_completed_bundle_is_unverified(sources, tmp_path):
    from simbridge._report import load_episode

    bad, _good = sources
    b = tmp_path / "ep"
    shutil.copytree(bad, b)
    _forge_score(b, random.Random(0))
    (b / "manifest.json").unlink()
    view = load_episode(b)
    assert view.score.status == "unscored" and view.score_source.startswith("UNVERIFIED")


def test_report_refuses_a_linked_screen_video(sources, tmp_path, capsys):
    bad, _good = sources
    secret = tmp_path / "secret.mp4"
    secret.write_bytes(b"not for raters")
    b = tmp_path / "ep"
    shutil.copytree(bad, b)
    (b / "screen.mp4").symlink_to(secret)
    assert main(["report", str(b), "--out", str(tmp_path / "page.html")]) == 2
    assert "screen.mp4: is a symbolic link" in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "page.html").exists()


def test_bundle_file_serves_only_the_bundles_own_regular_files(sources, tmp_path):
    bad, good = sources
    b = tmp_path / "ep"
    shutil.copytree(bad, b)
    assert bundle_file(b, "home/notes.txt") == b / "home" / "notes.txt"
    (b / "screen.mp4").symlink_to(good / "signals.parquet")
    (b / "frames").symlink_to(tmp_path)
    os.mkfifo(b / "pipe")
    for name, why in [
        ("screen.mp4", "is a symbolic link"),
        ("frames/x.png", "is a symbolic link"),
        ("pipe", "is a FIFO"),
        ("home", "is a directory"),
        ("../pass/signals.parquet", "not a file name inside the bundle"),
        ("/etc/passwd", "not a file name inside the bundle"),
        ("nothing.txt", "no such file"),
    ]:
        with pytest.raises(BundleError, match=why):
            bundle_file(b, name)
    link = tmp_path / "via-link"
    link.symlink_to(b)  # the bundle folder itself may be reached through a link
    assert bundle_file(link, "episode.json") == link / "episode.json"


@pytest.mark.parametrize("special", ["/dev/zero", "/dev/null-dir"])
def test_bounded_reads_refuse_devices_and_big_files(tmp_path, special):
    if special == "/dev/zero":
        with pytest.raises(BundleError, match="not a regular file \\(a character device\\)"):
            read_bounded(Path("/dev/zero"), "a log", 1 << 20)
    else:
        big = tmp_path / "big.json"
        big.write_bytes(b" " * 2048)
        with pytest.raises(BundleError, match="2048 bytes, more than the 1024 bytes"):
            read_bounded(big, "a score", 1024)
        with pytest.raises(BundleError, match="is a directory"):
            read_bounded(tmp_path, "a score", 1024)


def test_suite_page_marks_trusted_scores_unverified(sources, tmp_path):
    from simbridge._report import write_suite_report

    bad, _good = sources
    shutil.copytree(bad, tmp_path / "run" / "ep")
    _forge_score(tmp_path / "run" / "ep", random.Random(0))
    checked = (write_suite_report(tmp_path / "run", tmp_path / "a.html", episodes=False)).read_text()
    assert 'id="unverified"' not in checked
    trusted = write_suite_report(tmp_path / "run", tmp_path / "b.html", trust_scores=True, episodes=False)
    assert "<b>UNVERIFIED</b>: 1 of 1 scores are score.json as stored" in trusted.read_text()
