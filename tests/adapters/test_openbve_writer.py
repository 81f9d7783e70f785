"""The OpenBVE black-box reader on bytes built statement by statement as OpenBVE's own writer
(`Interface.SaveLogs`, leezer3/OpenBVE BlackBox.cs:112-145; tests/openbve_logs.py `save_logs`).
No real `logs.bin` written by OpenBVE was found in public repositories (docs/importers.md)."""

import datetime as dt
import struct

import numpy as np
import pytest

from simbridge import read_bundle
from simbridge.adapters.openbve.logs import LogsError, import_logs, parse_logs
from openbve_logs import save_logs, to_binary, to_binary_local

ROUTE = "京王線 新宿〜八王子.csv"  # route file name: multi-byte UTF-8 (7-bit length = bytes, not chars)
TRAIN = "Keio 8000 series " + "x" * 120  # over 127 bytes: a two-byte length prefix


def entry(t, pos, v, a=0.0, rev=1, power=0, brake=0, brake_safety=None, power_safety=None):
    return {
        "Time": t,
        "Position": pos,
        "Speed": v,
        "Acceleration": a,
        "ReverserDriver": rev,
        "ReverserSafety": rev,
        "PowerDriver": power,
        "PowerSafety": power if power_safety is None else power_safety,
        "BrakeDriver": brake,
        "BrakeSafety": brake if brake_safety is None else brake_safety,
    }


# one second apart from 08:00:00 (Game.UpdateBlackBox), an air-brake train: emergency at start,
# release, power notch 3, lap, service, then the ATS trips the emergency brake (safety only)
ENTRIES = [
    entry(28800.0, 100.0, 0.0, brake=-1),
    entry(28801.0, 100.0, 0.0, brake=-3),
    entry(28802.0, 100.5, 1.0, 1.0, power=3),
    entry(28803.0, 102.0, 2.0, 1.0, power=3, brake=-4),
    entry(28804.0, 104.0, 1.5, -0.5, brake=-5),
    entry(28805.0, 105.2, 0.75, -0.75, brake=-5, brake_safety=-1),
]
SCORES = [(28803.5, 103.0, -50, 1), (28805.0, 105.2, 100, 7)]  # overspeed, arrived at station


def test_reads_what_the_writer_writes(tmp_path):
    # DateTime.Now at 08:00 in UTC+9 → stored as 23:00 UTC the day before, kind Local
    date = to_binary_local(dt.datetime(2026, 11, 30, 8, 0, 0), dt.timedelta(hours=9))
    assert date < 0  # LocalMask is the sign bit
    data = save_logs(ROUTE, TRAIN, date, 2, ENTRIES, SCORES, 1000)
    # sizes by hand: 12 + 2 + (1 + 34) + (2 + 137) + 8 + 2 + 4 + 6 × 38 + 4 + 2 × 22 + 4 + 8
    assert len(data) == 12 + 2 + 1 + len(ROUTE.encode()) + 2 + len(TRAIN) + 8 + 2 + 4 + 6 * 38 + 4 + 2 * 22 + 4 + 8
    p = tmp_path / "logs.bin"
    p.write_bytes(data)
    b = read_bundle(import_logs(p, tmp_path / "b"))
    start = b.snapshots["start"]
    assert start["openbve_route"] == ROUTE and start["openbve_train"] == TRAIN
    assert start["openbve_date"] == "2026-11-29T23:00:00Z"
    assert start["openbve_game_mode"] == 2 and start["openbve_game_mode_name"] == "expert"
    assert list(b.signals.t) == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert list(b.signals["track_position_m"]) == [e["Position"] for e in ENTRIES]
    assert b.signals["speed_kmh"] == pytest.approx([e["Speed"] * 3.6 for e in ENTRIES])
    assert list(b.signals["power_notch"]) == [0, 0, 3, 3, 0, 0]
    assert list(b.signals["brake_notch"]) == [-1, -3, 0, -4, -5, -5]
    assert list(b.signals["emergency_brake"]) == [1, 0, 0, 0, 0, 1]  # driver's at start, the ATS's last
    ev = [(e.t, e.data["token"], e.data["value"]) for e in b.events]
    assert ev == [(3.5, "overspeed", -50), (5.0, "arrived_at_station", 100)]
    assert b.snapshot("end", "openbve_max_score") == 1000 and b.snapshot("end", "openbve_score_total") == 50


def test_unset_names_and_unspecified_date():
    # Game.LogRouteName null → "Unknown" (:115); a DateTime of kind Unspecified reads without 'Z'
    log = parse_logs(save_logs(None, None, to_binary(dt.datetime(2026, 1, 2, 3, 4, 5)), 1, ENTRIES[:1], [], 0))
    assert (log.route, log.train, log.date, log.game_mode) == ("Unknown", "Unknown", "2026-01-02T03:04:05", 1)


def test_speed_and_acceleration_are_single_precision():
    # f32 on disk (BlackBox.cs:124-125): 1/3 m/s comes back as the nearest float32
    log = parse_logs(save_logs("r", "t", 0, 1, [entry(0.0, 0.0, 1 / 3, a=0.1)], [], 0))
    assert log.entries["speed"][0] == np.float32(1 / 3) and float(log.entries["speed"][0]) != 1 / 3
    assert log.entries["accel"][0] == np.float32(0.1)


# "openBVE_LOGS", version, "r.csv" (1 + 5 B), "t" (1 + 1 B), date, game mode → count at 32
COUNT_AT = 12 + 2 + 6 + 2 + 8 + 2
ENTRIES_AT = COUNT_AT + 4


def good() -> bytes:
    return save_logs("r.csv", "t", 0, 1, ENTRIES, SCORES, 10)


@pytest.mark.parametrize(
    "mutate,msg",
    [
        # version field (:114) of another format revision
        (lambda d: d[:12] + struct.pack("<h", 2) + d[14:], "byte offset 12: unsupported black-box version 2"),
        # an entry layout one i16 shorter (36 B): the count no longer matches the bytes
        (
            lambda d: (
                d[:ENTRIES_AT]
                + b"".join(d[ENTRIES_AT + 38 * i : ENTRIES_AT + 38 * i + 36] for i in range(6))
                + d[ENTRIES_AT + 38 * 6 :]
            ),
            "no '_fileEND' footer",
        ),
        # killed while SaveLogs rewrote the file (FileMode.Create, :108)
        (lambda d: d[:200], "truncated"),
        (lambda d: d + b"\x00", "1 unexpected bytes after the footer"),
    ],
)
def test_strict_about_version_and_record_sizes(mutate, msg):
    data = good()
    assert data[12:14] == struct.pack("<h", 1) and data[COUNT_AT:ENTRIES_AT] == struct.pack("<i", 6)
    with pytest.raises(LogsError, match=msg):
        parse_logs(mutate(data))
