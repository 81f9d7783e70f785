"""`simbridge import ksp|openbve|bridgecommand` end to end: import, then `simbridge verify`; and the
`import` spelling of every importer."""

import json

import pytest

from simbridge import read_bundle
from simbridge._cli import main
from bc_nmea import emit, track
from ksp_saves import orbit_from, save, vessel
from openbve_logs import entries_of, logs_bin, trip


def verify_json(capsys, path):
    capsys.readouterr()
    assert main(["verify", str(path), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_ksp_import_and_verify(tmp_path, capsys):
    sma, ecc = orbit_from(78, 82)
    p = tmp_path / "persistent.sfs"
    p.write_text(save(vessel(name="Other", sma=900e3, ecc=0.0), vessel(sma=sma, ecc=ecc), active=0))
    # no --vessel: the task's vessel id ('SB Two-Stage') is used, not the active 'Other'
    assert main(["import", "ksp", str(p), "--out", str(tmp_path / "b")]) == 0
    out = verify_json(capsys, tmp_path / "b")
    assert out["task_id"] == "T19" and out["score"] == pytest.approx(1.0)


def test_openbve_import_and_verify(tmp_path, capsys):
    p = tmp_path / "logs.bin"
    p.write_bytes(logs_bin(entries_of(trip(28740.0, 123.0, [(28800, 1725.0, 150), (28980, 1870.0, 165)]))))
    assert main(["import", "openbve", str(p), "--out", str(tmp_path / "b")]) == 0
    assert verify_json(capsys, tmp_path / "b")["score"] == pytest.approx(1.0)


def test_nmea_import_and_verify(tmp_path, capsys):
    p = tmp_path / "nmea.log"
    frames = [(0, -300, -30, 90), (200, 40, -30, 90), (400, 50, -7.0, 90), (460, 50, -6.4, 90), (500, 50, -6.4, 90)]
    p.write_text(emit(track(frames, 50.36, -4.15)))
    assert main(["import", "bridgecommand", str(p), "--out", str(tmp_path / "b")]) == 0
    assert verify_json(capsys, tmp_path / "b")["score"] == pytest.approx(1.0)


def test_bad_input_is_one_line_exit_2(tmp_path, capsys):
    p = tmp_path / "logs.bin"
    p.write_bytes(b"not a black box")
    assert main(["import", "openbve", str(p), "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "byte offset 0" in err[0]
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    assert main(["import", "openbve", str(p), "--out", str(tmp_path / "full")]) == 2
    assert "refusing to overwrite" in capsys.readouterr().err


def test_import_writes_the_bundle_verify_scores(tmp_path, capsys):
    p = tmp_path / "nmea.log"
    frames = [(0, -300, -30, 90), (200, 40, -30, 90), (400, 50, -7.0, 90), (460, 50, -6.4, 90), (500, 50, -6.4, 90)]
    p.write_text(emit(track(frames, 50.36, -4.15)))
    capsys.readouterr()
    assert main(["import", "nmea", str(p), "--out", str(tmp_path / "new")]) == 0
    assert capsys.readouterr().err == ""
    assert verify_json(capsys, tmp_path / "new")["score"] == pytest.approx(1.0)
    assert len(read_bundle(tmp_path / "new").signals) > 0
