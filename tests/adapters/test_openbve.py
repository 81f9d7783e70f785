"""OpenBVE logs.bin reader on byte-exact hand-built files, and its errors on bad input."""

import struct

import numpy as np
import pytest

from simbridge import read_bundle
from simbridge.adapters.openbve import LogsError, import_logs, read_logs
from openbve_logs import dotnet_string, entry, logs_bin, score


def write(tmp_path, data, name="logs.bin"):
    p = tmp_path / name
    p.write_bytes(data)
    return p


def test_layout_sizes_and_fields(tmp_path):
    route = "東京-新宿 " + "x" * 140  # > 127 bytes: a 2-byte length prefix
    ents = [entry(28800.0, 125.0, 0.0, brake=-1), entry(28801.0, 125.4, 0.8, accel=0.8, power=3)]
    data = logs_bin(ents, [score(28900.0, 900.0, -12, 1)], route=route, mode=2, max_score=777)
    # 12 + 2 + (2 + len(route utf-8)) + (1 + 9) + 8 + 2 + 4 + 2×38 + 4 + 22 + 4 + 8
    assert len(data) == 12 + 2 + 2 + len(route.encode()) + 1 + 9 + 8 + 2 + 4 + 76 + 4 + 22 + 4 + 8
    assert dotnet_string("a" * 200)[:2] == bytes([0xC8, 0x01])
    log = read_logs(write(tmp_path, data))
    assert log.route == route and log.train == "EMU 6-car" and log.game_mode == 2 and log.max_score == 777
    assert log.date == "2026-11-30T08:00:00"
    assert list(log.entries["position"]) == [125.0, 125.4]
    assert log.entries["brake_driver"][0] == -1 and log.entries["power_driver"][1] == 3
    assert log.scores["value"][0] == -12 and log.scores["token"][0] == 1


def test_import_to_bundle(tmp_path):
    ents = [entry(28800.0 + i, 100.0 + 10 * i, 10.0, brake=(-1 if i == 2 else 0)) for i in range(5)]
    p = write(tmp_path, logs_bin(ents, [score(28803.0, 130.0, -5, 1), score(28804.0, 140.0, 20, 10)]))
    b = read_bundle(import_logs(p, tmp_path / "bundle"))
    assert list(b.signals.t) == [0, 1, 2, 3, 4]
    assert b.signals["clock_s"][0] == 28800.0
    assert np.allclose(b.signals["speed_kmh"], 36.0)
    assert list(b.signals["emergency_brake"]) == [0, 0, 1, 0, 0]
    ev = b.events_of("openbve_score")
    assert [(e.t, e.data["token"], e.data["value"]) for e in ev] == [
        (3.0, "overspeed", -5),
        (4.0, "perfect_stop_bonus", 20),
    ]
    assert b.snapshot("start", "openbve_route") == "Commuter Line.csv"


@pytest.mark.parametrize(
    "mutate,msg",
    [
        (lambda d: b"openBVE_LOGX" + d[12:], "byte offset 0: not an OpenBVE black-box file"),
        (lambda d: d[:12] + struct.pack("<h", 2) + d[14:], "byte offset 12: unsupported black-box version 2"),
        (lambda d: d[:-20], "truncated"),
        (lambda d: d[:-8] + b"_fileENX", "no '_fileEND' footer"),
        (lambda d: d + b"\x00", "1 unexpected bytes after the footer"),
    ],
)
def test_bad_files_name_the_offset(tmp_path, mutate, msg):
    good = logs_bin([entry(1.0, 2.0, 3.0)])
    p = write(tmp_path, mutate(good))
    with pytest.raises(LogsError) as ei:
        read_logs(p)
    assert str(p) in str(ei.value) and "byte offset" in str(ei.value) and msg in str(ei.value)


def test_impossible_count_is_caught_before_reading(tmp_path):
    data = bytearray(logs_bin([entry(1.0, 2.0, 3.0)]))
    off = 12 + 2 + len(dotnet_string("Commuter Line.csv")) + len(dotnet_string("EMU 6-car")) + 8 + 2
    data[off : off + 4] = struct.pack("<i", 10**8)
    with pytest.raises(LogsError, match=f"byte offset {off}: 100000000 black-box entry records of 38 B do not fit"):
        read_logs(write(tmp_path, bytes(data)))


def test_empty_black_box_cannot_import(tmp_path):
    with pytest.raises(LogsError, match="no black-box entries"):
        import_logs(write(tmp_path, logs_bin([])), tmp_path / "b")


def test_random_junk_never_crashes(tmp_path):
    rng = np.random.default_rng(7)
    good = logs_bin([entry(float(i), float(i), 1.0) for i in range(20)], [score(3.0, 3.0, -1, 1)])
    for k in range(200):
        data = bytearray(good)
        for _ in range(3):
            data[int(rng.integers(0, len(data)))] = int(rng.integers(0, 256))
        cut = int(rng.integers(0, len(data) + 1))
        try:
            read_logs(write(tmp_path, bytes(data[:cut]), f"f{k}.bin"))
        except LogsError:
            pass
