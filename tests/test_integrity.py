"""`simbridge verify` checks manifest.json before scoring: a tampered bundle is refused, naming the file."""

from __future__ import annotations

import json
import random

import pytest

from simbridge import BundleError, BundleWriter, EpisodeInfo
from simbridge._cli import main
from simbridge._verify import verify_path
from synth import make_bundle, steep_turn


@pytest.fixture(scope="module")
def cols():
    return steep_turn()


def verify(capsys, *args):
    capsys.readouterr()
    code = main(["verify", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_intact_bundle_scores(tmp_path, cols, capsys):
    b = make_bundle(tmp_path / "b", "T09", cols, fmt="parquet")
    code, out, err = verify(capsys, b, "--json")
    assert code == 0, err
    s = json.loads(out)
    assert s["score"] == pytest.approx(1.0) and "manifest_ignored" not in s["flags"]


def test_tampered_signals_refused_naming_the_file(tmp_path, cols, capsys):
    b = make_bundle(tmp_path / "b", "T09", cols, fmt="csv")
    text = (b / "signals.csv").read_text()
    (b / "signals.csv").write_text(text.replace("3500.0", "3400.0", 1))  # still parses, still scores
    code, out, err = verify(capsys, b)
    assert code == 2 and out == ""
    assert one_line_error(err).endswith(f"{b}/signals.csv: sha256 does not match manifest.json")


def test_missing_listed_file_refused(tmp_path, cols, capsys):
    b = make_bundle(tmp_path / "b", "T09", cols, events=[{"t": 1.0, "kind": "note"}])
    (b / "events.jsonl").unlink()
    code, _, err = verify(capsys, b)
    assert code == 2 and f"{b}/events.jsonl: listed in manifest.json but missing" in one_line_error(err)


def test_extra_file_refused(tmp_path, cols, capsys):
    b = make_bundle(tmp_path / "b", "T09", cols)
    (b / "signals.parquet").write_bytes(b"")  # a second signals file that would shadow the CSV
    code, _, err = verify(capsys, b)
    assert code == 2 and f"{b}/signals.parquet: not listed in manifest.json" in one_line_error(err)


def test_missing_manifest_refused_then_ignored_with_flag(tmp_path, cols, capsys):
    b = make_bundle(tmp_path / "b", "T09", cols)
    (b / "manifest.json").unlink()
    code, _, err = verify(capsys, b)
    assert code == 2 and "no manifest.json" in one_line_error(err) and "--ignore-manifest" in err
    code, out, err = verify(capsys, b, "--json", "--ignore-manifest")
    assert code == 0, err
    s = json.loads(out)
    assert s["status"] == "scored" and "manifest_ignored" in s["flags"]
    assert "manifest ignored" in s["explanation"] and "no manifest.json" in s["explanation"]


def test_ignore_manifest_on_tampered_file_flags_and_explains(tmp_path, cols, capsys):
    b = make_bundle(tmp_path / "b", "T09", cols)
    (b / "episode.json").write_text(json.dumps({"task_id": "T09", "agent": "edited"}))
    code, out, err = verify(capsys, b, "--json", "--ignore-manifest")
    assert code == 0, err
    s = json.loads(out)
    assert s["flags"] == ["manifest_ignored"]
    assert "episode.json: sha256 does not match manifest.json" in s["explanation"]
    code, out, _ = verify(capsys, b, "--ignore-manifest")
    assert "FLAGS: manifest_ignored" in out


def test_bit_flipped_parquet_is_always_refused(tmp_path, cols):
    """Every single-bit flip of signals.parquet is refused by its sha256, whether or not the
    damaged file would still parse (some flips change the score silently otherwise)."""
    b = make_bundle(tmp_path / "b", "T09", cols, fmt="parquet")
    original = (b / "signals.parquet").read_bytes()
    rng = random.Random(12)
    for _ in range(40):
        data = bytearray(original)
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)
        (b / "signals.parquet").write_bytes(bytes(data))
        with pytest.raises(BundleError, match="signals.parquet: sha256 does not match manifest.json"):
            verify_path(b)
    (b / "signals.parquet").write_bytes(original)
    assert verify_path(b).score == pytest.approx(1.0)


def test_running_bundle_has_no_manifest_and_is_unscored(tmp_path, capsys):
    w = BundleWriter(tmp_path / "b", EpisodeInfo(task_id="T09"), ["bank_deg"])
    w.sample(0.0, {"bank_deg": 0.0})
    w.flush()  # killed here: no finish(), so no manifest
    code, out, err = verify(capsys, tmp_path / "b", "--json")
    assert code == 0, err
    s = json.loads(out)
    assert s["status"] == "unscored" and "did not finish" in s["reason"]


def test_write_keeps_the_manifest_valid_and_refuses_a_directory(tmp_path, cols, capsys):
    b = make_bundle(tmp_path / "b", "T09", cols)
    assert verify(capsys, b, "--write")[0] == 0
    assert json.loads((b / "score.json").read_text())["score"] == pytest.approx(1.0)
    assert verify(capsys, b)[0] == 0  # score.json is re-derived, not part of the hashed record
    (b / "score.json").unlink()
    (b / "score.json").mkdir()
    code, _, err = verify(capsys, b, "--write")
    assert code == 2 and f"{b}/score.json: is a directory" in one_line_error(err)


def test_episode_flags_are_carried_into_the_score(tmp_path, cols, capsys):
    b = make_bundle(tmp_path / "b", "T09", cols, flags=["imported", "truncated_import"])
    code, out, _ = verify(capsys, b, "--json")
    assert code == 0
    assert json.loads(out)["flags"][:2] == ["imported", "truncated_import"]
