"""manifest.json covers every file of a bundle, subfolders included (frames/, home/), and
`simbridge verify` refuses a bundle whose nested files were changed, added or removed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simbridge import write_bundle
from simbridge._bundle import write_manifest
from simbridge._cli import main
from simbridge._verify import manifest_problems

NESTED = ("frames/000001.png", "frames/000002.png", "home/answer.json", "home/notes/plan.txt")


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    d = tmp_path / "b"
    write_bundle(d, {"task_id": "T09"}, {"t": [0.0, 0.5, 1.0], "alt_msl_ft": [100.0, 110.0, 120.0]})
    for i, rel in enumerate(NESTED):
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_bytes(f"content {i}\n".encode())
    (d / "frames" / "000003.png.tmp").write_bytes(b"half written")
    write_manifest(d)
    return d


def test_manifest_lists_nested_files_by_relative_posix_path(bundle):
    files = json.loads((bundle / "manifest.json").read_text())["files"]
    assert set(NESTED) <= set(files)
    assert "episode.json" in files and "manifest.json" not in files
    assert not any(name.endswith(".tmp") for name in files)
    assert files["home/notes/plan.txt"]["bytes"] == len(b"content 3\n")
    assert manifest_problems(bundle) == []


@pytest.mark.parametrize("rel", NESTED)
def test_changing_a_nested_file_is_detected(bundle, rel):
    (bundle / rel).write_bytes(b"changed after the episode")
    assert manifest_problems(bundle) == [f"{bundle / rel}: sha256 does not match manifest.json"]


def test_removing_or_adding_a_nested_file_is_detected(bundle):
    (bundle / "frames" / "000002.png").unlink()
    (bundle / "home" / "notes" / "extra.txt").write_text("added later")
    assert manifest_problems(bundle) == [
        f"{bundle / 'frames/000002.png'}: listed in manifest.json but missing",
        f"{bundle / 'home/notes/extra.txt'}: not listed in manifest.json (added after the bundle was finished)",
    ]


def test_a_manifest_entry_outside_the_bundle_is_a_problem_not_a_read(bundle, tmp_path):
    (tmp_path / "outside.txt").write_text("not part of the bundle")
    man = bundle / "manifest.json"
    data = json.loads(man.read_text())
    data["files"]["../outside.txt"] = {"sha256": "0" * 64}
    man.write_text(json.dumps(data))
    assert manifest_problems(bundle) == [f"{man}: entry '../outside.txt' is not a path inside the bundle"]


def test_a_symlink_is_not_hashed_and_is_a_problem(bundle, tmp_path):
    (tmp_path / "target.txt").write_text("outside")
    (bundle / "home" / "link.txt").symlink_to(tmp_path / "target.txt")
    write_manifest(bundle)
    assert "home/link.txt" not in json.loads((bundle / "manifest.json").read_text())["files"]
    [problem] = manifest_problems(bundle)
    assert problem.startswith(f"{bundle / 'home' / 'link.txt'}: is a symbolic link")


def test_verify_refuses_a_tampered_frame_with_one_line(bundle, capsys):
    (bundle / "frames" / "000001.png").write_bytes(b"doctored")
    rc = main(["verify", str(bundle)])
    err = capsys.readouterr().err
    assert rc != 0
    assert "frames/000001.png: sha256 does not match manifest.json" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_version_1_manifest_still_verifies_its_top_level_files(bundle):
    """Bundles written before nested hashing: their unlisted frames are not a tamper alarm, but
    their top-level files are still checked."""
    man = bundle / "manifest.json"
    data = json.loads(man.read_text())
    old = {"files": {k: v for k, v in data["files"].items() if "/" not in k}}
    man.write_text(json.dumps(old))
    assert manifest_problems(bundle) == []
    (bundle / "episode.json").write_text('{"task_id": "T01"}')
    assert manifest_problems(bundle) == [f"{bundle / 'episode.json'}: sha256 does not match manifest.json"]


def test_the_manifest_declares_its_version(bundle):
    assert json.loads((bundle / "manifest.json").read_text())["version"] == 2


def test_sealing_an_added_file_hashes_only_it_and_keeps_the_rest(bundle, monkeypatch):
    """score.json after scoring and screen.mp4 after encoding are added to the sealed manifest;
    the frames already sealed are not hashed again."""
    import simbridge._bundle as B

    before = json.loads((bundle / "manifest.json").read_text())["files"]
    (bundle / "score.json").write_text('{"status": "scored"}')
    hashed: list[str] = []
    real = B._file_sha256
    monkeypatch.setattr(B, "_file_sha256", lambda p: hashed.append(p.name) or real(p))
    B.add_to_manifest(bundle, "score.json")
    after = json.loads((bundle / "manifest.json").read_text())["files"]
    assert hashed == ["score.json"]
    assert {k: v for k, v in after.items() if k != "score.json"} == before and "score.json" in after
    assert manifest_problems(bundle) == []
