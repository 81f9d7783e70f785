"""Issue 42, NMEA: no silent wrong value from the files people bring. Each class of the issue on
a fixture excerpt (tests/fixtures/nmea/README.md: formats and sources), expected values read
off the raw lines with plain string splits here; and a property test: shuffling, repeating
and dropping sentences of a clean capture gives rows that are a subset of the clean rows."""

import math
import random

import numpy as np
import pytest

from simbridge import read_bundle
from simbridge.adapters.bridgecommand import NmeaError, import_nmea, parse_capture
from simbridge._cli import main
from bc_nmea import with_checksum
from fixtures import fixture_path


def text(name: str) -> str:
    return fixture_path("nmea", name).read_text(encoding="ascii")


def fields(line: str) -> list[str]:
    return line.split("*")[0].split(",")


def ddmm(value: str) -> float:
    """Degrees from an NMEA ddmm.mmm / dddmm.mmm field: the minutes are the two digits before the point."""
    whole, _, dec = value.lstrip("-").partition(".")
    return int(whole[:-2] or 0) + float(f"{whole[-2:]}.{dec}") / 60


def sod(hhmmss: str) -> float:
    return int(hhmmss[:2]) * 3600 + int(hhmmss[2:4]) * 60 + float(hhmmss[4:])


# --- 1. a dropped out-of-order RMC changes nothing -------------------------------------------


def test_late_rmc_is_dropped_before_it_touches_the_row():
    # multiplexer_late_rmc.log: at 10:15:10 a copy of the 10:15:02 RMC arrives between the GGA
    # and the GLL of that second (~25 m behind at 6.3 kt). It must be dropped and counted, and
    # the 10:15:10 row keeps the GGA's position and the 10:15:10 RMC's speed.
    raw = text("multiplexer_late_rmc.log").splitlines()
    late = raw.index(next(ln for ln in raw if ln.startswith("$GPRMC,101502")), 20)
    assert raw[late - 1].startswith("$GPGGA,101510") and raw[late + 1].startswith("$GPGLL")
    rows, facts = parse_capture("\n".join(raw), "late.log")
    assert facts["nmea_time_backwards"] == {"RMC time": 1}
    assert rows["t"] == [float(k) for k in range(20)]
    gga = fields(raw[late - 1])
    rmc10 = fields(next(ln for ln in raw if ln.startswith("$GPRMC,101510")))
    assert rows["lat_deg"][10] == pytest.approx(ddmm(gga[2]), abs=1e-9)
    assert rows["lon_deg"][10] == pytest.approx(ddmm(gga[4]), abs=1e-9)
    assert rows["gs_kt"][10] == float(rmc10[7])
    rmc11 = fields(next(ln for ln in raw if ln.startswith("$GPRMC,101511")))
    assert rows["gs_kt"][11] == float(rmc11[7]) and rows["lat_deg"][11] == pytest.approx(ddmm(rmc11[3]), abs=1e-9)
    assert facts["events"] == [] and facts["nmea_conflicts"] == {}


def test_conflict_event_names_the_value_really_kept():
    # a GLL 50 m off the GGA in one epoch, after a late RMC: the event says GGA was kept, with
    # the value the row holds
    gga = with_checksum("$GPGGA,101510.00,5410.01711,N,01205.00621,E,1,09,0.9,3.1,M,38.2,M,,")
    late = with_checksum("$GPRMC,101502.00,A,5410.00342,N,01205.00124,E,6.5,12.0,140624,,,A")
    gll = with_checksum("$GPGLL,5410.04411,N,01205.00621,E,101510.00,A,A")
    first = with_checksum("$GPGGA,101509.00,5410.01540,N,01205.00560,E,1,09,0.9,3.1,M,38.2,M,,")
    rows, facts = parse_capture(first + gga + late + gll)
    (ev,) = facts["events"]
    assert ev["data"]["kept"] == "GGA" and ev["data"]["other"] == "GLL"
    assert ev["data"]["kept_value"] == rows["lat_deg"][-1] == pytest.approx(54 + 10.01711 / 60)


# --- 2, 3. dates -------------------------------------------------------------------------------


def test_zda_two_digit_year_is_a_real_year(tmp_path):
    # navico_zda_two_digit_year.log: $GPZDA,083015,16,04,14,, — 16 April 2014, not the year 14
    b = read_bundle(import_nmea(fixture_path("nmea", "navico_zda_two_digit_year.log"), tmp_path / "b"))
    assert b.snapshot("start", "nmea_date") == "2014-04-16"
    _, facts = parse_capture(
        with_checksum("$GPZDA,235959,31,12,99,,") + with_checksum("$GPGLL,5954.1234,N,01042.5,E,235959,A,A")
    )
    assert facts["nmea_date"] == "1999-12-31"
    with pytest.raises(NmeaError, match=r"line 1: ZDA date '31,02,2014' is not a calendar date"):
        parse_capture(
            with_checksum("$GPZDA,120000,31,02,2014,,") + with_checksum("$GPGLL,5954.1,N,01042.5,E,120000,A,A")
        )


@pytest.mark.parametrize("strict", [True, False])
def test_capture_across_midnight_starts_on_its_first_date(tmp_path, strict):
    # garmin_midnight.log: a Garmin's hhmmss times (no decimals) from 23:59:50 on 08 Mar 2019 to
    # 00:00:10 on the 9th, through 000000 — midnight, not an empty time — in either mode
    raw = text("garmin_midnight.log").splitlines()
    rmc = [fields(ln) for ln in raw if ln.startswith("$GPRMC")]
    assert "000000" in [f[1] for f in rmc]
    rows, facts = parse_capture("\n".join(raw), strict=strict)
    assert rows["t"] == [float(k) for k in range(len(rmc))]
    assert facts["nmea_date"] == "2019-03-08" and facts["nmea_end_date"] == "2019-03-09"
    assert facts["flags"] == [] and facts["nmea_empty_time"] == {}
    i = [f[1] for f in rmc].index("000000")
    assert rows["lat_deg"][i] == pytest.approx(ddmm(rmc[i][3])) and rows["lon_deg"][i] == pytest.approx(
        -ddmm(rmc[i][5])
    )
    b = read_bundle(import_nmea(fixture_path("nmea", "garmin_midnight.log"), tmp_path / "b", strict=strict))
    assert b.snapshot("start", "nmea_date") == "2019-03-08" and np.all(np.diff(b.signals.t) == 1.0)


def test_start_date_is_the_first_date_even_when_it_arrives_after_midnight():
    # the first date arrives in a ZDA after midnight: the first row (23:59:59) was the day before
    fix = [with_checksum(f"$GPGGA,{t},4337.4521,N,07016.1234,W,1,08,1.1,12.3,M,,,,") for t in ("235959", "000000")]
    zda = with_checksum("$GPZDA,000000,09,03,2019,,")
    later = with_checksum("$GPRMC,000001,A,4337.4521,N,07016.1234,W,0.0,0.0,311202,,W")  # a clock jump later on
    _, facts = parse_capture(fix[0] + fix[1] + zda + later)
    assert facts["nmea_date"] == "2019-03-08" and facts["nmea_end_date"] == "2002-12-31"


def test_late_fix_across_midnight_is_dropped_but_a_long_gap_is_not():
    fix = lambda t: with_checksum(f"$GPGLL,4337.4521,N,07016.1234,W,{t},A,A")  # noqa: E731
    # 23:59:58 arriving after 00:00:01: from the day before, dropped
    rows, facts = parse_capture(fix("235959") + fix("000001") + fix("235958") + fix("000002"))
    assert rows["t"] == [0.0, 2.0, 3.0] and facts["nmea_time_backwards"] == {"GLL time": 1}
    # a logger paused from 08:00 to 21:00 the same day: a gap, not the day before
    rows, facts = parse_capture(fix("080000") + fix("080001") + fix("210000") + fix("210001"))
    assert rows["t"] == [0.0, 1.0, 46800.0, 46801.0] and facts["flags"] == []


def test_a_twelve_hour_clock_continues_and_is_flagged():
    fixes = [
        with_checksum(f"$GPGLL,4337.4521,N,07016.1234,W,{t},A,A") for t in ("115958", "115959", "000000", "000001")
    ]
    rows, facts = parse_capture("".join(fixes))
    assert rows["t"] == [0.0, 1.0, 2.0, 3.0]
    assert any(f.startswith("twelve_hour_clock: ") for f in facts["flags"])


# --- 4. degree digits --------------------------------------------------------------------------


def test_four_digit_longitude_is_degrees_then_minutes():
    # short_longitude_logger.log: `4808.1234,N,1142.5722,E` is 11°42.5722′ E (near Munich), not 114.04°
    raw = text("short_longitude_logger.log")
    rows, facts = parse_capture(raw)
    assert rows["lon_deg"][0] == pytest.approx(11 + 42.5722 / 60) and rows["lat_deg"][0] == pytest.approx(
        48 + 8.1234 / 60
    )
    assert facts["flags"] == []
    # zero padding of the degrees is not a digit too many: 050°12.7908′ N
    rows, _ = parse_capture(with_checksum("$GPGLL,05012.7908,N,0000806.8796,W,130711.00,A,A"))
    assert rows["lat_deg"][0] == pytest.approx(50 + 12.7908 / 60) and rows["lon_deg"][0] == pytest.approx(
        -(8 + 6.8796 / 60)
    )


def test_signed_longitude_with_its_hemisphere(tmp_path):
    # dashcam_signed_longitude.log: `-0214.41467156,W` — a signed value whose sign agrees with its
    # hemisphere: 2°14.41467156′ W = −2.2402°
    raw = text("dashcam_signed_longitude.log").splitlines()
    b = read_bundle(import_nmea(fixture_path("nmea", "dashcam_signed_longitude.log"), tmp_path / "b"))
    want = [-ddmm(fields(ln)[5]) for ln in raw if ln.startswith("$GPRMC")]
    assert list(b.signals["lon_deg"]) == pytest.approx(want) and want[0] == pytest.approx(-2.24024, abs=1e-5)
    # a minus sign with E contradicts the hemisphere: refused in one line, naming field and line
    bad = raw[0].split("*")[0].replace(",W,", ",E,")
    with pytest.raises(NmeaError) as ei:
        parse_capture(with_checksum(bad), "cam.nmea")
    msg = str(ei.value)
    assert "\n" not in msg and msg.startswith("cam.nmea: line 1: RMC longitude '-0214.41467156' is negative")
    assert "--lenient" in msg


@pytest.mark.parametrize(
    "body,what",
    [
        ("$GPRMC,120000.00,A,12345.000,N,01150.2,E,0.0,0.0,010922,,,A", "RMC latitude '12345.000' has 3 degree digits"),
        ("$GPGGA,120000.00,5730.1,N,123456.78,E,1,08,1.0,1.0,M,,,,", "GGA longitude '123456.78' has 4 degree digits"),
        ("$GPGLL,5730.1,E,01150.2,E,120000.00,A,A", "GLL latitude hemisphere 'E' is not N or S"),
    ],
)
def test_too_many_degree_digits_or_a_wrong_hemisphere_is_refused(body, what):
    with pytest.raises(NmeaError, match=rf"line 1: {what}"):
        parse_capture(with_checksum(body))


# --- 9. strict errors say what --lenient would skip; no raw Python text -----------------------


def test_ignorable_lines_strict_names_each_and_lenient_skips_them(tmp_path, capsys):
    # ais_receiver_ignorable_lines.log: a line cut at the start, an AIS line with the receiver's
    # time after the checksum, an unchecksummed proprietary $PGRMZ, a one-digit checksum
    raw = text("ais_receiver_ignorable_lines.log").splitlines()
    expected = {
        1: "does not start with '$' or '!'",
        3: "text ',1662033601' after the checksum",
        5: "no '*hh' checksum",
        6: "a one-digit checksum",
    }
    for no, why in expected.items():
        keep = [ln for i, ln in enumerate(raw, start=1) if i == no or not (i in expected)]
        with pytest.raises(NmeaError) as ei:
            parse_capture("\n".join(keep), "ais.log")
        line_no = keep.index(raw[no - 1]) + 1
        msg = str(ei.value)
        assert msg.startswith(f"ais.log: line {line_no}: not an NMEA sentence (") and why in msg
        assert "--lenient would skip this line" in msg and "\n" not in msg
    p = fixture_path("nmea", "ais_receiver_ignorable_lines.log")
    assert main(["import", "nmea", str(p), "--out", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "line 1:" in err[0] and "--lenient" in err[0]
    assert main(["import", "nmea", str(p), "--out", str(tmp_path / "l"), "--lenient"]) == 0
    b = read_bundle(tmp_path / "l")
    assert b.episode.flags == ["lenient_parse: 4 lines skipped"] and len(b.signals.t) == 3
    assert [r.split(":")[0] for r in b.snapshot("end", "nmea_rejected")] == [f"line {n}" for n in expected]


@pytest.mark.parametrize(
    "body,what",
    [
        (
            "$GPRMC,120000.00,A,5730.1,N,01150.2,E,08N,0.0,010922,,,A",
            "RMC field 7 (speed over ground) '08N' is not a number",
        ),
        ("$HEHDT,1O1.5,T", "HDT field 1 (true heading) '1O1.5' is not a number"),
        ("$SDDPT,nan,,", "DPT field 1 (depth) 'nan' is not a number"),
        ("$GPGLL,5730.1,N,01150.2,E,12OOOO,A,A", "time '12OOOO' is not hhmmss"),
        ("$GPZDA,120000,1a,09,2022,,", "ZDA date '1a,09,2022' is not dd,mm,yyyy"),
    ],
)
def test_field_errors_are_one_line_naming_the_field(body, what):
    good = with_checksum("$GPGLL,5730.1,N,01150.2,E,115959.00,A,A")
    with pytest.raises(NmeaError) as ei:
        parse_capture(good + with_checksum(body), "x.log")
    msg = str(ei.value)
    assert msg.startswith(f"x.log: line 2: {what}") and "could not convert" not in msg and "invalid literal" not in msg
    rows, facts = parse_capture(good + with_checksum(body), strict=False)
    assert facts["nmea_rejected"][0].startswith(f"line 2: {what}")


# --- property: shuffled, repeated and dropped sentences never mix epochs ----------------------


def moving_capture() -> str:
    """A clean 1 Hz capture of a ship turning at 7 kt: RMC, GGA and GLL per second with one
    position each (printed like a u-blox receiver: 5 decimals of minutes), across midnight."""
    out = []
    lat, lon = 54.0, 10.0
    for k in range(40):
        tod = (86400 - 20 + k) % 86400
        hms = f"{tod // 3600:02d}{tod % 3600 // 60:02d}{tod % 60:02d}.00"
        cog = (30.0 + 4.0 * k) % 360
        gs = 7.0 + 0.1 * (k % 5)
        lat += gs * 0.514444 * math.cos(math.radians(cog)) / 111_120
        lon += gs * 0.514444 * math.sin(math.radians(cog)) / (111_120 * math.cos(math.radians(lat)))
        la = f"{int(lat):02d}{(lat - int(lat)) * 60:08.5f}"
        lo = f"{int(lon):03d}{(lon - int(lon)) * 60:08.5f}"
        date = "310324" if tod >= 86400 - 20 else "010424"
        out += [
            with_checksum(f"$GPRMC,{hms},A,{la},N,{lo},E,{gs:.1f},{cog:.1f},{date},,,A"),
            with_checksum(f"$GPGGA,{hms},{la},N,{lo},E,1,10,0.8,5.0,M,40.1,M,,"),
            with_checksum(f"$GPGLL,{la},N,{lo},E,{hms},A,A"),
        ]
    return "".join(out)


@pytest.mark.parametrize("clean_text", [moving_capture(), None], ids=["moving-across-midnight", "navika-100"])
def test_mutated_captures_give_a_subset_of_the_clean_rows(clean_text):
    if clean_text is None:  # a real receiver's capture: RMC, GGA, GLL with one time and position each second
        clean_text = "\n".join(
            ln
            for ln in text("navika-100-fix.log").splitlines()
            if ln.startswith("$") and ln[3:6] in ("RMC", "GGA", "GLL")
        )
        day0 = None
    else:
        day0 = "2024-03-31"
    sentences = [ln for ln in clean_text.splitlines() if ln]
    rows, facts = parse_capture(clean_text)
    assert facts["flags"] == [] and len(rows["t"]) == len(sentences) // 3
    if day0 is None:
        day0 = facts["nmea_date"]

    def keyed(r, f):
        start = f["nmea_start_utc_s"] + (0.0 if f["nmea_date"] == day0 else 86400.0)
        return [
            (round(start + t, 3), r["lat_deg"][i], r["lon_deg"][i], r["gs_kt"][i], r["cog_deg"][i])
            for i, t in enumerate(r["t"])
        ]

    clean = {row[0]: row for row in keyed(rows, facts)}
    rng = random.Random(42)
    checked = 0
    for it in range(400):
        mutated = list(sentences)
        op = it % 4
        if op in (0, 3):  # shuffle a window (a multiplexer's reordering) or everything
            lo = rng.randrange(len(mutated))
            hi = len(mutated) if op == 3 else min(len(mutated), lo + rng.randint(2, 12))
            window = mutated[lo:hi]
            rng.shuffle(window)
            mutated[lo:hi] = window
        if op in (1, 3):  # repeat sentences, now or later
            for _ in range(rng.randint(1, 8)):
                i = rng.randrange(len(mutated))
                mutated.insert(rng.randrange(i, len(mutated) + 1), mutated[i])
        if op in (2, 3):  # drop sentences
            for _ in range(rng.randint(1, len(mutated) // 3)):
                mutated.pop(rng.randrange(len(mutated)))
        if not mutated:
            continue
        try:
            r, f = parse_capture("\n".join(mutated))
        except NmeaError as exc:  # every fix dropped: the only refusal allowed
            assert "no position fix" in str(exc)
            continue
        got = keyed(r, f)
        assert all(b[0] > a[0] for a, b in zip(got, got[1:]))
        prev = (math.nan, math.nan)
        for t, lat, lon, gs, cog in got:
            want = clean[t]  # KeyError: a time that is in no clean row
            # the position is the epoch's own (every fix carries one): never another epoch's
            assert (lat, lon) == (want[1], want[2]), (it, t)
            # speed and course (RMC only) are this epoch's, or carried unchanged from the row before
            assert (
                (gs, cog) == (want[3], want[4])
                or (gs, cog) == prev
                or (math.isnan(gs) and math.isnan(prev[0]) and math.isnan(cog) and math.isnan(prev[1]))
            ), (it, t)
            prev = (gs, cog)
        checked += len(got)
    assert checked > 2000


def test_late_rmc_in_a_stamped_capture_is_dropped_too():
    # the same late copy recorded with receive stamps (NmeaUdpRecorder): its stamp is new, its own
    # UTC time 8 s old — at the stamp it would put the ship 25 m back
    raw = [ln for ln in text("multiplexer_late_rmc.log").splitlines() if not ln.startswith("$HEHDT")]
    stamped = "\n".join(f"{0.25 * i:.3f} {ln}" for i, ln in enumerate(raw))
    rows, facts = parse_capture(stamped)
    assert facts["nmea_time_backwards"] == {"RMC time": 1}
    i = next(i for i, ln in enumerate(raw) if i > 20 and ln.startswith("$GPRMC,101502"))
    stale = ddmm(fields(raw[i])[3])
    after = [lat for t, lat in zip(rows["t"], rows["lat_deg"]) if t >= 0.25 * (i - 1)]
    assert len(after) == len(raw) - i  # from the GGA before it, every sentence is a row but the late one
    assert all(lat > stale + 1e-4 for lat in after)  # no row goes back 25 m
