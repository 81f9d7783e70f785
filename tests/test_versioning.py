"""Every bundle records the simbridge version that wrote it and its bundle format; `verify`
shows both beside its own; a bundle of an older simbridge (the recorded POH fixtures, written
before versions were recorded) is read and re-scored as it was."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from simbridge._bundle import BUNDLE_FORMAT, BundleWriter, EpisodeInfo, read_bundle, write_manifest
from simbridge._version import installed_version
from synth import make_bundle, steep_turn
from test_cli import run

FIXTURE = Path(__file__).parent / "fixtures" / "poh" / "P15"  # recorded by an older simbridge


def test_a_bundle_written_now_records_the_version_and_the_format(tmp_path):
    b = make_bundle(tmp_path / "whole", "T09", steep_turn())  # importers, fixtures: write_bundle
    ep = json.loads((b / "episode.json").read_text())
    assert ep["simbridge_version"] == installed_version() != "" and ep["bundle_format"] == BUNDLE_FORMAT
    w = BundleWriter(tmp_path / "live", EpisodeInfo(task_id="T09"), ["bank_deg"])  # the runner's writer
    w.sample(0.0, {"bank_deg": 1.0})
    w.finish("completed", "")
    ep = json.loads((tmp_path / "live" / "episode.json").read_text())
    assert ep["simbridge_version"] == installed_version() and ep["bundle_format"] == BUNDLE_FORMAT


def test_verify_shows_who_wrote_the_bundle(tmp_path):
    make_bundle(tmp_path, "T09", steep_turn())
    code, out, err = run("verify", str(tmp_path))
    assert code == 0, err
    assert (
        f"written by simbridge {installed_version()} (bundle format {BUNDLE_FORMAT}); "
        f"scored by simbridge {installed_version()}" in out
    ), out


def test_an_older_bundle_is_read_and_rescored(tmp_path):
    old = shutil.copytree(FIXTURE, tmp_path / "P15")
    assert "simbridge_version" not in json.loads((old / "episode.json").read_text())
    assert read_bundle(old).episode.simbridge_version is None  # not invented on reading
    code, out, err = run("verify", str(old), "--json")
    assert code == 0, err
    score = json.loads(out)
    assert score["task_id"] == "P15" and score["status"] == "scored"
    code, out, err = run("verify", str(old))
    assert "written by simbridge (not recorded: written before versions were) (bundle format 1, implied)" in out


def test_a_newer_format_is_named(tmp_path):
    b = make_bundle(tmp_path, "T09", steep_turn())
    ep = json.loads((b / "episode.json").read_text())
    ep.update(bundle_format=BUNDLE_FORMAT + 1, simbridge_version="99.0.0")
    (b / "episode.json").write_text(json.dumps(ep))
    write_manifest(b)
    code, out, err = run("verify", str(b))
    assert code == 0, err
    assert "written by simbridge 99.0.0 (bundle format 2)" in out and f"format {BUNDLE_FORMAT + 1} is newer" in out
