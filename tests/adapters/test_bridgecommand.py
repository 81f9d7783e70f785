"""Bridge Command NMEA parsing on sentences in the simulator's exact formats, the UDP recorder,
and errors on bad input."""

import socket
import time

import numpy as np
import pytest

from simbridge import read_bundle
from simbridge.adapters.bridgecommand import (
    NmeaError,
    NmeaUdpRecorder,
    import_nmea,
    nmea_checksum,
    parse_capture,
    parse_sentence,
)
from simbridge.adapters.bridgecommand.nmea import rmc_date
from bc_nmea import emit, sentence, track, with_checksum


def test_checksum_against_published_sentences():
    # a real receiver's GGA and RMC with their checksums
    assert nmea_checksum("GPGGA,201229.00,6026.86958,N,02217.14119,E,1,08,0.96,66.1,M,18.7,M,,") == "6C"
    s = parse_sentence("$GPRMC,201230.00,A,6026.86949,N,02217.14087,E,0.689,,150722,,,A*72")
    assert s.kind == "RMC" and s.talker == "GP" and s.fields[8] == "150722"


def test_rmc_date_quirk():
    assert rmc_date("20261130") == "2026-11-30"  # Bridge Command: YYYYMMDD
    assert rmc_date("301126") == "2026-11-30"  # standard DDMMYY
    with pytest.raises(ValueError):
        rmc_date("2026113")


def test_bridge_command_sentences_parse():
    # 50°21.600'N 004°09.000'W, SOG 3.3 kt, COG 90, heading 90.5, depth 8.0
    st = dict(lat=50.36, lon=-4.15, sog_kt=3.3, cog_deg=90.0, hdg_deg=90.5, depth_m=8.0)
    rmc = sentence("RMC", tod_s=43200 + 5, date="2026-11-30", **st)
    assert rmc.startswith("$GPRMC,120005.00,A,5021.600,N,00409.000,W,3.3,90.0,20261130,,,A,S*") and rmc.endswith("\r\n")
    text = "".join(sentence(k, tod_s=43205, date="2026-11-30", **st) for k in ("RMC", "GPHDT", "DPT", "GGA"))
    rows, facts = parse_capture(text)
    assert facts["nmea_date"] == "2026-11-30"
    assert rows["lat_deg"][0] == pytest.approx(50.36) and rows["lon_deg"][0] == pytest.approx(-4.15)
    assert rows["gs_kt"][0] == 3.3 and rows["cog_deg"][0] == 90.0
    # the GGA fix shares the RMC's time: one merged row, carrying the heading and depth received since
    assert rows["heading_true_deg"][0] == 90.5 and rows["depth_m"][0] == 8.0 and rows["t"] == [0.0]
    assert facts["nmea_conflicts"] == {}


def test_capture_to_bundle_with_utc_times(tmp_path):
    states = track([(0, 0, 0, 90), (30, 30, 0, 90)], 50.36, -4.15)  # 1 m/s east for 30 s
    p = tmp_path / "nmea.log"
    p.write_text(emit(states, stamped=False), encoding="ascii")
    b = read_bundle(import_nmea(p, tmp_path / "bundle"))
    t = b.signals.t
    assert t[0] == 0 and t[-1] == pytest.approx(30.0, abs=1.0) and np.all(np.diff(t) >= 0)
    gs = b.signals["gs_kt"]
    assert np.nanmax(gs) == pytest.approx(1.9)  # 1 m/s = 1.94 kt printed "%.1f"
    counts = b.snapshot("end", "nmea_counts")
    assert counts["RMC"] > 0 and counts["HDT"] > 0 and counts["RPM"] > 0 and "VTG" not in counts


def test_stamped_capture_uses_receive_times(tmp_path):
    states = track([(0, 0, 0, 90), (10, 10, 0, 90)], 50.36, -4.15)
    rows, _ = parse_capture(emit(states))
    # fixes at the RMC, GLL and GGA steps of each 1.4 s cycle: 0.0, 0.2, 0.8, 1.4, ...
    assert rows["t"][:4] == pytest.approx([0.0, 0.2, 0.8, 1.4])


@pytest.mark.parametrize(
    "line,msg",
    [
        ("$GPHDT,90.5,T", "not an NMEA sentence"),
        ("garbage", "not an NMEA sentence"),
    ],
)
def test_bad_sentence_names_the_line(tmp_path, line, msg):
    good = with_checksum("$GPGLL,5021.600,N,00409.000,W,120000.00,A,A").strip()
    p = tmp_path / "bad.log"
    p.write_text(f"{good}\n{line}\n")
    with pytest.raises(NmeaError) as ei:
        import_nmea(p, tmp_path / "b")
    assert f"{p}: line 2:" in str(ei.value) and msg in str(ei.value)


def test_lenient_mode_skips_and_reports(tmp_path):
    good = with_checksum("$GPGLL,5021.600,N,00409.000,W,120000.00,A,A").strip()
    rows, facts = parse_capture(f"{good}\n$GPHDT,90.5,T\n", strict=False)
    assert len(rows["t"]) == 1 and facts["nmea_rejected"][0].startswith("line 2:")


def test_bad_checksum_is_dropped_and_counted_in_both_modes():
    # a sentence corrupted in transit is left out (Bridge Command's own receiver does the same,
    # NMEA.cpp:213-220), counted by its address field and flagged
    good = with_checksum("$GPGLL,5021.600,N,00409.000,W,120000.00,A,A").strip()
    for strict in (True, False):
        rows, facts = parse_capture(f"{good}\n$GPHDT,90.5,T*00\n$GPHDT,91.5,T*00\n", strict=strict)
        assert len(rows["t"]) == 1 and np.isnan(rows["heading_true_deg"][0])
        assert facts["nmea_bad_checksum"] == {"GPHDT": 2} and facts["nmea_rejected"] == []
        assert facts["flags"] == ["bad_checksum: 2 sentences dropped (GPHDT 2)"]


def test_minutes_rounded_up_to_60_are_the_next_degree():
    # 50.999995° N: f32 50.999996, minutes 59.99976 print "%06.3f" as 60.000 (NMEA.cpp:432)
    st = dict(lat=50.999995, lon=-4.15, sog_kt=0.0, cog_deg=0.0, hdg_deg=0.0, depth_m=8.0)
    rmc = sentence("RMC", tod_s=43200, date="2026-11-30", **st)
    assert ",5060.000,N," in rmc
    rows, _ = parse_capture(rmc)
    assert rows["lat_deg"][0] == pytest.approx(51.0)


def test_binary_and_empty_captures(tmp_path):
    p = tmp_path / "bin.log"
    p.write_bytes(b"$GPHDT,1.0,T*00\n\xff\xfe")
    with pytest.raises(NmeaError, match="line 2 \\(byte offset 16\\): not ASCII"):
        import_nmea(p, tmp_path / "b")
    p.write_text(with_checksum("$GPHDT,90.5,T"))
    with pytest.raises(NmeaError, match="no position fix"):
        import_nmea(p, tmp_path / "c")


def test_udp_recorder_records_datagrams(tmp_path):
    cap = tmp_path / "nmea.log"
    st = dict(lat=50.36, lon=-4.15, sog_kt=3.3, cog_deg=90.0, hdg_deg=90.0, depth_m=8.0)
    with NmeaUdpRecorder(cap, host="127.0.0.1", port=0, poll_s=0.05) as rec:
        addr = rec.address
        tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            for k in ("RMC", "RPM", "GLL"):  # RPM is two sentences in one datagram
                tx.sendto(sentence(k, tod_s=43200, date="2026-11-30", **st).encode("ascii"), addr)
                time.sleep(0.02)
            deadline = time.monotonic() + 3.0
            while rec.n_sentences < 4 and time.monotonic() < deadline:
                time.sleep(0.02)
        finally:
            tx.close()
    lines = cap.read_text().splitlines()
    assert len(lines) == 4 and lines[0].split(" ", 1)[1].startswith("$GPRMC")
    rows, _ = parse_capture(cap.read_text())
    assert len(rows["t"]) == 2 and rows["lat_deg"][1] == pytest.approx(50.36)


def test_mutated_captures_never_crash(tmp_path):
    from simbridge import SimbridgeError

    rng = np.random.default_rng(5)
    states = track([(0, 0, 0, 90), (3, 3, 0, 90)], 50.36, -4.15)
    good = emit(states, stamped=False)
    for k in range(150):
        text = list(good)
        for _ in range(3):
            text[int(rng.integers(0, len(text)))] = ",.*$0123456789ANSWEVT\n"[int(rng.integers(0, 22))]
        mutated = "".join(text)
        # the same mutation with valid checksums, so the field parsers see the damage too
        resummed = "\n".join(
            with_checksum(ln.split("*")[0]).strip() if ln.startswith("$") else ln for ln in mutated.splitlines()
        )
        for capture_text in (mutated, resummed):
            for strict in (True, False):
                try:
                    parse_capture(capture_text, strict=strict)
                except SimbridgeError:
                    pass


def test_udp_recorder_splits_a_packed_ais_datagram(tmp_path):
    # Bridge Command packs !AIVDM reports into one datagram until it passes 800 bytes
    # (NMEA.cpp:362); each sentence must become its own line with the datagram's receive time
    ais = [with_checksum(f"!AIVDM,1,1,,B,13aGhtw0R<OJf=6LgQ?Ad1FF05`{i:02d},0") for i in range(18)]
    datagram = "".join(ais)
    assert len(datagram) > 800
    cap = tmp_path / "nmea.log"
    with NmeaUdpRecorder(cap, host="127.0.0.1", port=0, poll_s=0.05) as rec:
        tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            tx.sendto(datagram.encode("ascii"), rec.address)
            deadline = time.monotonic() + 3.0
            while rec.n_sentences < len(ais) and time.monotonic() < deadline:
                time.sleep(0.02)
        finally:
            tx.close()
    recorded = cap.read_text().splitlines()
    assert [ln.split(" ", 1)[1] for ln in recorded] == [a.strip() for a in ais]
    assert len({ln.split(" ", 1)[0] for ln in recorded}) == 1


def test_mode_indicator_n_is_an_invalid_fix():
    # NMEA 2.3+: status A with mode N ("data not valid") is no fix either
    good = with_checksum("$GPGLL,5021.600,N,00409.000,W,120000.00,A,A").strip()
    rmc_n = with_checksum("$GPRMC,120001.00,A,5021.700,N,00409.000,W,0.0,0.0,301126,,,N").strip()
    gll_n = with_checksum("$GPGLL,5021.700,N,00409.000,W,120002.00,A,N").strip()
    rows, facts = parse_capture(f"{good}\n{rmc_n}\n{gll_n}\n")
    assert len(rows["t"]) == 1 and facts["nmea_invalid_fixes"] == {"RMC mode N": 1, "GLL mode N": 1}


def test_bridge_command_5_10_1_empty_times_use_the_receive_stamps(tmp_path):
    # 5.10.1 writes RMC/GGA/GLL with an empty time and date (the real line, checksum and
    # all); the recorder's receive stamps place each fix, and the bundle says so
    states = track([(0, 0, 0, 90), (10, 10, 0, 90)], 50 + 1.357 / 60, -(9 + 59.010 / 60))
    text = emit(states, version="5.10.1")
    assert "$GPRMC,.00,A," in text and "$GPGGA,.00," in text and ",.00,A,A*" in text
    one = sentence(
        "RMC",
        tod_s=0,
        date="2026-11-30",
        lat=50 + 1.357 / 60,
        lon=-(9 + 59.010 / 60),
        sog_kt=0.2,
        cog_deg=154.3,
        hdg_deg=0.0,
        depth_m=1.0,
        version="5.10.1",
    )
    assert one.strip() == "$GPRMC,.00,A,5001.357,N,00959.010,W,0.2,154.3,,,,A,S*33"
    p = tmp_path / "bc5101.nmea"
    p.write_text(text, encoding="ascii")
    b = read_bundle(import_nmea(p, tmp_path / "b"))
    assert list(b.signals.t[:4]) == pytest.approx([0.0, 0.2, 0.8, 1.4])  # the stamps of RMC, GLL, GGA, RMC
    assert np.all(np.diff(b.signals.t) > 0)
    assert b.signals["lat_deg"][0] == pytest.approx(50 + 1.357 / 60, abs=2e-5)
    assert b.signals["lon_deg"][0] == pytest.approx(-(9 + 59.010 / 60), abs=2e-5)
    flag = next(f for f in b.episode.flags if f.startswith("empty_time:"))
    n = {k: sum(1 for ln in text.splitlines() if f"$GP{k}," in ln) for k in ("RMC", "GGA", "GLL")}
    assert b.snapshot("end", "nmea_empty_time") == n and "Bridge Command 5.10.x" in flag
    assert b.snapshot("start", "nmea_date") is None  # 5.10.1 sends no date either
    # without receive stamps nothing places these fixes: a one-line error naming the file and line
    p2 = tmp_path / "unstamped.nmea"
    p2.write_text(emit(states, version="5.10.1", stamped=False), encoding="ascii")
    with pytest.raises(NmeaError, match=r"unstamped.nmea: line 1: .*empty time field.*Bridge Command 5.10.x"):
        import_nmea(p2, tmp_path / "b2")


def test_shared_epoch_merges_by_precedence_and_flags_conflicts():
    # one epoch: GGA then RMC at the same time; RMC's position 0.05' (~90 m) off: GGA's is kept,
    # the disagreement is counted, flagged and listed as an event
    st = dict(lat=50.36, lon=-4.15, sog_kt=3.3, cog_deg=90.0, hdg_deg=90.5, depth_m=8.0)
    gga = sentence("GGA", tod_s=43205, date="2026-11-30", **st)
    rmc = sentence("RMC", tod_s=43205, date="2026-11-30", **{**st, "lat": 50.36 + 0.05 / 60})
    nxt = sentence("GGA", tod_s=43206, date="2026-11-30", **st)
    rows, facts = parse_capture(gga + sentence("GPHDT", tod_s=0, date="2026-11-30", **st) + rmc + nxt)
    assert rows["t"] == [0.0, 1.0]
    assert rows["lat_deg"][0] == pytest.approx(50.36, abs=2e-5)  # GGA wins over RMC
    assert rows["gs_kt"][0] == 3.3 and rows["heading_true_deg"][0] == 90.5  # RMC's speed, HDT's heading
    assert facts["nmea_conflicts"] == {"GGA/RMC lat_deg": 1}
    assert any(f.startswith("nmea_conflict: 1 value disagree") for f in facts["flags"])
    (ev,) = facts["events"]
    assert ev["kind"] == "nmea_conflict" and ev["t"] == 0.0 and ev["data"]["kept"] == "GGA"
    assert ev["data"]["other"] == "RMC" and ev["data"]["other_value"] == pytest.approx(50.36 + 0.05 / 60, abs=2e-5)


def test_heading_precedence_hdt_over_ths_and_ths_alone():
    # $--THS (true heading and status, NMEA 4.x gyro/GNSS compasses): used when no HDT shares the
    # epoch; HDT wins when both do; status V (not valid) is not used
    st = dict(lat=50.36, lon=-4.15, sog_kt=3.3, cog_deg=90.0, hdg_deg=90.5, depth_m=8.0)
    gga = sentence("GGA", tod_s=43205, date="2026-11-30", **st)
    nxt = sentence("GGA", tod_s=43206, date="2026-11-30", **st)
    ths, ths_v = with_checksum("$HETHS,91.0,A"), with_checksum("$HETHS,120.0,V")
    hdt = with_checksum("$HEHDT,90.6,T")
    rows, facts = parse_capture(ths + gga + hdt + ths + nxt)
    assert rows["heading_true_deg"] == [91.0, 90.6]  # THS alone, then HDT over a THS 0.4° apart
    assert facts["nmea_conflicts"] == {}
    rows, _ = parse_capture(ths_v + gga)
    assert np.isnan(rows["heading_true_deg"][0])


def test_bridge_command_5_10_x_rmc_with_the_year_alone():
    # a 5.10.x RMC published with the DGHACK 2023 "A Maritime Journey" challenge (a tug off
    # Brest): empty time, and of the date only the year survived the dangling pointers
    line = "$GPRMC,.00,A,4821.984,N,00429.118,W,17.0,170.4,2023,,,A,S*09"
    assert parse_sentence(line).fields[8] == "2023"
    rows, facts = parse_capture(f"0.000 {line}\n0.100 $GPHDT,170.0,T*{nmea_checksum('GPHDT,170.0,T')}\n1.000 {line}\n")
    assert rows["t"] == [0.0, 1.0] and rows["gs_kt"] == [17.0, 17.0]
    assert rows["lat_deg"][0] == pytest.approx(48 + 21.984 / 60) and rows["lon_deg"][0] == pytest.approx(
        -(4 + 29.118 / 60)
    )
    assert facts["nmea_date"] is None and facts["nmea_empty_time"] == {"RMC": 2}
    with pytest.raises(NmeaError, match=r"date '2023' is neither"):  # a timed RMC's date must be whole
        parse_capture(
            "$GPRMC,120000.00,A,4821.984,N,00429.118,W,17.0,170.4,2023,,,A,S*00\n".replace(
                "*00", "*" + nmea_checksum("GPRMC,120000.00,A,4821.984,N,00429.118,W,17.0,170.4,2023,,,A,S")
            )
        )
