"""One importer policy (simbridge._import_policy) for CARLA, OpenBVE, Bridge Command and KSP:
no silent overwrite, truncation and lenient parsing flagged, impossible values dropped and
counted, invalid fixes dropped, an unknown vehicle name an error naming the known ones."""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

import pytest

from simbridge import read_bundle
from simbridge._cli import main
from simbridge._verify import manifest_problems
from bc_nmea import emit, track, with_checksum
from ksp_saves import orbit_from, save, vessel
from openbve_logs import entries_of, entry, logs_bin, trip

sys.path.insert(0, str(Path(__file__).parent / "adapters" / "carla"))
import carla_recsynth as rs  # noqa: E402


def cli(capsys, *args):
    capsys.readouterr()
    code = main([*map(str, args)])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def carla_log(tmp_path: Path) -> Path:
    add = rs.event_add([(10, 1, (0.0, 0.0, 0.0), 0.0, "vehicle.tesla.model3", {"role_name": "hero"})])
    frames = [([add] if i == 0 else []) + [rs.positions([(10, 100.0 * i, 50.0, 0.0, 0.0)])] for i in range(8)]
    p = tmp_path / "r.log"
    p.write_bytes(rs.recording(frames))
    return p


def openbve_file(tmp_path: Path, bad_at: tuple[int, ...] = ()) -> tuple[Path, int]:
    entries = entries_of(trip(28740.0, 123.0, [(28800, 1725.0, 150), (28980, 1870.0, 165)]))
    for i in bad_at:  # same time, impossible position and speed (3e38 m/s = 1.08e39 km/h)
        clock = struct.unpack_from("<d", entries[i])[0]
        entries[i] = entry(clock, 1e300, 3e38)
    p = tmp_path / "logs.bin"
    p.write_bytes(logs_bin(entries))
    return p, len(entries)


def nmea_file(tmp_path: Path, extra: str = "") -> Path:
    frames = [(0, -300, -30, 90), (200, 40, -30, 90), (400, 50, -7.0, 90), (460, 50, -6.4, 90), (500, 50, -6.4, 90)]
    p = tmp_path / "nmea.log"
    p.write_text(emit(track(frames, 50.36, -4.15)) + extra)
    return p


def ksp_file(tmp_path: Path) -> Path:
    sma, ecc = orbit_from(78, 82)
    p = tmp_path / "persistent.sfs"
    p.write_text(save(vessel(name="Other", sma=900e3, ecc=0.0), vessel(sma=sma, ecc=ecc), active=0))
    return p


IMPORTS = {
    "carla": lambda tmp, out: ["import", "carla", carla_log(tmp), "--out", out],
    "openbve": lambda tmp, out: ["import", "openbve", openbve_file(tmp)[0], "--out", out],
    "nmea": lambda tmp, out: ["import", "nmea", nmea_file(tmp), "--out", out],
    "ksp": lambda tmp, out: ["import", "ksp", ksp_file(tmp), "--out", out],
}


@pytest.mark.parametrize("which", sorted(IMPORTS))
def test_every_importer_refuses_to_overwrite_unless_forced(tmp_path, capsys, which):
    out = tmp_path / "bundle"
    args = IMPORTS[which](tmp_path, out)
    assert cli(capsys, *args)[0] == 0
    (out / "marker.txt").write_text("from the first import")
    code, _, err = cli(capsys, *args)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"{out}: exists and is not empty; refusing to overwrite (--force replaces a bundle)" in err
    assert (out / "marker.txt").exists()
    code, _, err = cli(capsys, *args, "--force")
    assert code == 0, err
    assert not (out / "marker.txt").exists() and (out / "manifest.json").exists()
    assert manifest_problems(out) == []  # a complete bundle again, nothing left over from the first


@pytest.mark.parametrize("which", sorted(IMPORTS))
def test_force_never_deletes_a_directory_that_is_not_a_bundle(tmp_path, capsys, which):
    out = tmp_path / "notes"
    out.mkdir()
    (out / "thesis.tex").write_text("precious")
    code, _, err = cli(capsys, *IMPORTS[which](tmp_path, out), "--force")
    assert code == 2 and "holds no bundle (no episode.json); refusing to delete it even with --force" in err
    assert (out / "thesis.tex").read_text() == "precious"


def test_failed_forced_import_keeps_the_old_bundle(tmp_path, capsys):
    out = tmp_path / "bundle"
    p, _ = openbve_file(tmp_path)
    assert cli(capsys, "import", "openbve", p, "--out", out)[0] == 0
    p.write_bytes(b"not a black box")
    assert cli(capsys, "import", "openbve", p, "--out", out, "--force")[0] == 2
    assert read_bundle(out).episode.sim == "openbve"


def test_carla_truncation_is_flagged_in_episode_and_score(tmp_path, capsys):
    log = carla_log(tmp_path)
    log.write_bytes(log.read_bytes()[:-7])
    code, _, err = cli(capsys, "import", "carla", log, "--out", tmp_path / "strict")
    assert code == 2 and "truncated" in err
    code, out, err = cli(capsys, "import", "carla", log, "--out", tmp_path / "b", "--allow-truncated")
    assert code == 0, err
    assert "flags: imported, truncated_import" in out
    ep = read_bundle(tmp_path / "b").episode
    assert ep.flags == ["imported", "truncated_import"] and "truncated recording" in ep.status_detail
    assert 0 < read_bundle(tmp_path / "b").signals.t.size < 8
    code, out, _ = cli(capsys, "verify", tmp_path / "b", "--task", "T18", "--json")
    if code == 0:  # T18 present in this tree
        assert "truncated_import" in json.loads(out)["flags"]


def test_carla_complete_file_with_allow_truncated_is_not_flagged(tmp_path, capsys):
    code, _, _ = cli(capsys, "import", "carla", carla_log(tmp_path), "--out", tmp_path / "b", "--allow-truncated")
    assert code == 0 and read_bundle(tmp_path / "b").episode.flags == ["imported"]


def test_carla_unknown_ego_names_the_vehicles(tmp_path, capsys):
    code, _, err = cli(capsys, "import", "carla", carla_log(tmp_path), "--out", tmp_path / "b", "--ego", "77")
    assert code == 2 and "no actor with id 77 (vehicles: 10)" in err


def test_openbve_impossible_samples_are_dropped_and_counted(tmp_path, capsys):
    p, n = openbve_file(tmp_path, bad_at=(40, 41, 200))
    code, out, err = cli(capsys, "import", "openbve", p, "--out", tmp_path / "b")
    assert code == 0, err
    b = read_bundle(tmp_path / "b")
    assert b.signals.t.size == n - 3
    assert b.signals["track_position_m"].max() < 1e4 and b.signals["speed_kmh"].max() < 200
    flag = f"out_of_range: 3 of {n} samples dropped (speed_kmh 3, track_position_m 3)"
    assert b.episode.flags == [flag] and flag in out
    assert b.snapshots["end"]["openbve_bad_entries"] == 3
    code, out, _ = cli(capsys, "verify", tmp_path / "b", "--json")
    assert code == 0 and flag in json.loads(out)["flags"]


def test_openbve_all_entries_impossible_is_an_error(tmp_path, capsys):
    p = tmp_path / "logs.bin"
    p.write_bytes(logs_bin([entry(100.0, 1e300, 1.0), entry(101.0, 5.0, float("inf"))]))
    code, _, err = cli(capsys, "import", "openbve", p, "--out", tmp_path / "b")
    assert code == 2 and "all 2 black-box entries are out of range" in err


def _rmc(hms: str, status: str, lat: str, lon: str) -> str:
    return with_checksum(f"$GPRMC,{hms}.00,{status},{lat},N,{lon},W,5.0,90.0,20261130,,,A,S")


def test_nmea_invalid_fixes_and_off_globe_positions_dropped_and_counted(tmp_path, capsys):
    # after the track ends (12:08:20): four more fixes, none of which may become a sample
    extra = "".join(
        [
            "600.000 " + _rmc("120900", "V", "5021.600", "00409.000"),  # receiver: invalid
            "601.000 " + with_checksum("$GPGGA,120901.00,5021.600,N,00409.000,W,0,00,0.0,0.0,M,0.0,M,,"),  # no fix
            "602.000 " + _rmc("120902", "A", "9958.800", "00409.000"),  # latitude 99.98°
            "603.000 " + with_checksum("$GPGLL,5021.600,N,18130.000,W,120903.00,A,A"),  # longitude 181.5°
        ]
    ).replace("\r\n", "\n")
    (tmp_path / "a").mkdir()
    plain = read_bundle(_import_nmea(tmp_path / "a", nmea_file(tmp_path / "a")))
    p = nmea_file(tmp_path, extra)
    code, out, err = cli(capsys, "import", "nmea", p, "--out", tmp_path / "b")
    assert code == 0, err
    b = read_bundle(tmp_path / "b")
    assert b.signals.t.size == plain.signals.t.size  # the four extra fixes were all dropped
    assert abs(b.signals["lat_deg"]).max() <= 90 and abs(b.signals["lon_deg"]).max() <= 180
    assert b.episode.flags == [
        "invalid_fix: 2 fixes dropped (GGA fix quality 0 1, RMC status V 1)",
        "out_of_range: 2 fixes dropped (latitude outside ±90° 1, longitude outside ±180° 1)",
    ]
    assert b.snapshots["end"]["nmea_invalid_fixes"] == {"RMC status V": 1, "GGA fix quality 0": 1}
    code, out, _ = cli(capsys, "verify", tmp_path / "b", "--json")
    assert code == 0 and set(b.episode.flags) <= set(json.loads(out)["flags"])


def _import_nmea(d: Path, p: Path) -> Path:
    from simbridge.adapters.bridgecommand import import_nmea

    return import_nmea(p, d / "bundle")


def test_nmea_lenient_parse_is_flagged(tmp_path, capsys):
    p = nmea_file(tmp_path, "605.000 $GPRMC,garbage*00\n606.000 not nmea at all\n")
    code, _, err = cli(capsys, "import", "nmea", p, "--out", tmp_path / "strict")
    assert code == 2 and "line" in err
    code, _, err = cli(capsys, "import", "nmea", p, "--out", tmp_path / "b", "--lenient")
    assert code == 0, err
    # the framed sentence with a wrong checksum is dropped and counted in either mode
    assert read_bundle(tmp_path / "b").episode.flags == [
        "lenient_parse: 1 line skipped",
        "bad_checksum: 1 sentences dropped (GPRMC 1)",
    ]


def test_ksp_unknown_vessel_is_an_error_naming_the_vessels(tmp_path, capsys):
    p = ksp_file(tmp_path)
    code, _, err = cli(capsys, "import", "ksp", p, "--vessel", "Kerbal X2", "--out", tmp_path / "b")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"no vessel named 'Kerbal X2' in {p} (vessels: 'Other', 'SB Two-Stage')" in err
    assert not (tmp_path / "b").exists()
    assert cli(capsys, "import", "ksp", p, "--vessel", "Other", "--out", tmp_path / "c")[0] == 0


def test_ksp_vessel_gone_from_a_later_save_is_not_unknown(tmp_path, capsys):
    sma, ecc = orbit_from(78, 82)
    a, b = tmp_path / "a.sfs", tmp_path / "b.sfs"
    a.write_text(save(vessel(sma=sma, ecc=ecc), ut=100.0))
    b.write_text(save(vessel(name="Other"), ut=200.0))  # SB Two-Stage destroyed by then
    code, _, err = cli(capsys, "import", "ksp", a, b, "--out", tmp_path / "out")
    assert code == 0, err
    assert read_bundle(tmp_path / "out").snapshots["end"]["ksp_vessel"] is None
    code, _, err = cli(capsys, "import", "ksp", a, b, "--vessel", "Nope", "--out", tmp_path / "x")
    assert code == 2 and "in any of the 2 saves" in err


def test_ksp_vessel_that_left_only_debris_is_destroyed_not_unknown(tmp_path, capsys):
    p = tmp_path / "persistent.sfs"
    p.write_text(save(vessel(name="Kerbal X Debris", type="Debris", sit="SUB_ORBITAL", sma=300e3, ecc=0.9)))
    assert cli(capsys, "import", "ksp", p, "--vessel", "Kerbal X", "--out", tmp_path / "b")[0] == 0
    assert read_bundle(tmp_path / "b").snapshots["end"]["ksp_vessel"] is None
    code, _, err = cli(capsys, "import", "ksp", p, "--vessel", "Kerbal X2", "--out", tmp_path / "c")
    assert code == 2 and "no vessel named 'Kerbal X2'" in err
