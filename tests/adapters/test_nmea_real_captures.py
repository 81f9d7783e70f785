"""The NMEA importer on real captures from marine equipment (gpsd's test logs, see
tests/fixtures/nmea/README.md). Expected values are read off the raw lines with plain string
splits here, not with the importer's parser."""

import json
import math

import numpy as np
import pytest

from simbridge import read_bundle
from simbridge.adapters.bridgecommand import import_nmea, parse_capture
from fixtures import fixture_path


def lines(name: str) -> list[str]:
    return [ln.strip() for ln in fixture_path("nmea", name).read_text(encoding="utf-8").splitlines()]


def fields(line: str) -> list[str]:
    return line.split("*")[0].split(",")


def fix_epochs(raw: list[str]) -> list[str]:
    """The distinct UTC times of the position sentences, in order, steps back left out: one row each."""
    out: list[str] = []
    latest = -1.0
    for ln in raw:
        if not ln.startswith("$") or ln[3:6] not in ("RMC", "GGA", "GLL"):
            continue
        f = fields(ln)
        tod = f[5] if ln[3:6] == "GLL" else f[1]
        sec = int(tod[:2]) * 3600 + int(tod[2:4]) * 60 + float(tod[4:])
        if sec > latest:
            out.append(tod)
            latest = sec
    return out


def capture(name: str):
    return parse_capture(fixture_path("nmea", name).read_text(encoding="utf-8"), name)


def test_ship_ais_transponder(tmp_path):
    # Saab R4: first fix is the GLL 5012.790800 N 00806.879600 W; gyro heading 4.0 (HEHDT), ROT 0.0
    raw = lines("saab-r4.log")
    b = read_bundle(import_nmea(fixture_path("nmea", "saab-r4.log"), tmp_path / "b"))
    assert b.signals["lat_deg"][0] == pytest.approx(50 + 12.7908 / 60)
    assert b.signals["lon_deg"][0] == pytest.approx(-(8 + 6.8796 / 60))
    rmc = [fields(ln) for ln in raw if ln.startswith("$GPRMC")]
    assert np.nanmax(b.signals["gs_kt"]) == max(float(f[7]) for f in rmc)
    hdg = b.signals["heading_true_deg"]
    assert set(hdg[np.isfinite(hdg)]) == {float(fields(ln)[1]) for ln in raw if ln.startswith("$HEHDT")}
    counts = b.snapshot("end", "nmea_counts")
    assert counts["AIS"] == sum(ln.startswith("!AI") for ln in raw)  # !AIVDO own ship + !AIVDM others
    assert counts["proprietary"] == sum(ln.startswith("$PFEC") for ln in raw)
    assert b.snapshot("start", "nmea_date") == "2011-06-01"  # RMC 010611 (DDMMYY)
    # RMC, GGA and GLL share each second: one row per epoch, never a repeated time
    assert len(b.signals.t) == len(fix_epochs(raw)) and b.episode.flags == []
    assert np.all(np.diff(b.signals.t) > 0)
    # UTC 130711 … last fix: times in whole seconds from the first
    last = [fields(ln) for ln in raw if ln.startswith("$GPRMC")][-1][1]
    assert b.signals.t[-1] == (int(last[:2]) * 3600 + int(last[2:4]) * 60 + float(last[4:])) - (13 * 3600 + 7 * 60 + 11)


def test_powerboat_clock_stepping_back_is_dropped_and_counted():
    # "Time goes backward 194124 to 194111": fixes stamped before 19:41:24 after it are left out
    raw = [ln for ln in lines("humminbird-M37.log") if ln.startswith("$")]
    rows, facts = capture("humminbird-M37.log")
    assert np.all(np.diff(rows["t"]) >= 0)
    times, latest, dropped = [], -1.0, 0
    for ln in raw:
        f = fields(ln)
        tod = {"RMC": f[1], "GGA": f[1], "GLL": f[5] if len(f) > 5 else ""}.get(ln[3:6])
        if not tod:
            continue
        s = int(tod[:2]) * 3600 + int(tod[2:4]) * 60 + float(tod[4:])
        if s < latest:
            dropped += 1
        else:
            latest = s
            times.append(s)
    assert dropped > 0 and sum(facts["nmea_time_backwards"].values()) == dropped
    assert rows["t"] == [s - times[0] for s in times]
    assert facts["flags"] == [
        f"time_backwards: {dropped} fixes dropped "
        f"({', '.join(f'{k} {v}' for k, v in sorted(facts['nmea_time_backwards'].items()))})"
    ]
    depth = [float(fields(ln)[1]) for ln in raw if ln.startswith("$INDPT")]
    assert set(rows["depth_m"]) <= set(depth)


def test_gps_compass_without_fix_counts_invalid_fixes():
    raw = lines("hemi.log")
    gga = [fields(ln) for ln in raw if ln.startswith("$GPGGA")]
    no_fix = sum(f[6] in ("", "0") for f in gga)
    rows, facts = capture("hemi.log")
    assert no_fix == 194 and facts["nmea_invalid_fixes"] == {"GGA fix quality 0": no_fix}
    assert len(rows["t"]) == len(gga) - no_fix
    # empty $GPHDT,,T while searching gives no heading; the first heading after the fix is real
    hdt = [fields(ln)[1] for ln in raw if ln.startswith("$GPHDT") and fields(ln)[1]]
    assert hdt and float(hdt[-1]) in set(rows["heading_true_deg"])


def test_malformed_sentence_is_a_bad_checksum(tmp_path):
    # line 19: "$GPGGA,030130$GPGLL,…*41" — the GLL's checksum over a run-together GGA
    raw = lines("triton400.log")
    assert raw[18].startswith("$GPGGA,030130$GPGLL")
    b = read_bundle(import_nmea(fixture_path("nmea", "triton400.log"), tmp_path / "b"))
    assert b.snapshot("end", "nmea_bad_checksum") == {"GPGGA": 1}
    assert "bad_checksum: 1 sentences dropped (GPGGA 1)" in b.episode.flags
    assert len(b.signals.t) == len(fix_epochs(raw[:18] + raw[19:]))  # one row per epoch, the broken line left out


# the zeus' first epoch has GGA and GLL: GGA's position is kept (docs/importers.md: precedence)
@pytest.mark.parametrize("name,talker", [("sounder.log", "$ECGLL"), ("bundg_zeus_9.log", "$GPGGA")])
def test_other_marine_receivers(tmp_path, name, talker):
    read_bundle(import_nmea(fixture_path("nmea", name), tmp_path / "b"))  # strict: the '²' in a comment is fine
    raw = lines(name)
    rows, facts = capture(name)
    first = fields(next(ln for ln in raw if ln.startswith(talker)))
    lat_at = {"GLL": 1, "GGA": 2, "RMC": 3}[talker[3:6]]
    lat = float(first[lat_at][:2]) + float(first[lat_at][2:]) / 60
    assert lat in [pytest.approx(v) for v in rows["lat_deg"][:3]]
    assert facts["flags"] == [] and all(math.isfinite(v) for v in rows["lon_deg"])
    if name == "bundg_zeus_9.log":  # yacht under way: SOG from RMC, depth from SDDPT
        assert np.nanmax(rows["gs_kt"]) == max(float(fields(ln)[7]) for ln in raw if ln.startswith("$GPRMC"))
        assert set(rows["depth_m"]) - {math.nan} <= {float(fields(ln)[1]) for ln in raw if ln.startswith("$SDDPT")} | {
            math.nan
        }


def test_ten_hz_gps_imu_gga_and_rmc_share_epochs(tmp_path, capsys):
    # OxTS GPS/IMU (rst39.log): GGA at 10 Hz, RMC each whole second with the GGA's time
    # (204133.00 twice): one row per epoch, RMC's speed on the shared ones; import then verify
    from simbridge._cli import main

    raw = lines("rst39.log")
    shared = {fields(ln)[1] for ln in raw if ln.startswith("$GPRMC")} & {
        fields(ln)[1] for ln in raw if ln.startswith("$GPGGA")
    }
    assert len(shared) >= 3  # the pattern the test is about
    assert main(["import", "bridgecommand", str(fixture_path("nmea", "rst39.log")), "--out", str(tmp_path / "b")]) == 0
    b = read_bundle(tmp_path / "b")
    t = np.asarray(b.signals.t)
    epochs = fix_epochs(raw)
    assert len(t) == len(epochs) and np.all(np.diff(t) > 0)
    assert t == pytest.approx([round(float(e) - float(epochs[0]), 2) for e in epochs])
    i = epochs.index("204133.00")
    rmc = next(fields(ln) for ln in raw if ln.startswith("$GPRMC,204133.00"))
    assert b.signals["gs_kt"][i] == float(rmc[7]) and b.signals["cog_deg"][i] == float(rmc[8])
    assert b.signals["lat_deg"][i] == pytest.approx(42 + 5.735585 / 60)
    assert b.episode.flags == [] and b.snapshot("end", "nmea_conflicts") == {}
    capsys.readouterr()
    assert main(["verify", str(tmp_path / "b"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["data_quality"]["duplicates_dropped"] == 0 and out["data_quality"]["time_gaps"] == []
    assert not any("repeat" in f for f in out["flags"])


def test_one_hz_receiver_rmc_gga_gll_in_every_epoch(tmp_path):
    # Navika-100 (navika-100-fix.log): RMC, GGA and GLL carry the same time and position each
    # second; VTG and ZDA too
    raw = lines("navika-100-fix.log")
    b = read_bundle(import_nmea(fixture_path("nmea", "navika-100-fix.log"), tmp_path / "b"))
    rmc = [fields(ln) for ln in raw if ln.startswith("$GPRMC")]
    assert len(b.signals.t) == len(rmc) == len(fix_epochs(raw))
    assert list(b.signals.t) == list(range(len(rmc)))
    assert list(b.signals["cog_deg"]) == [float(f[8]) for f in rmc]
    assert b.episode.flags == [] and b.snapshot("start", "nmea_date") == "2016-04-21"
