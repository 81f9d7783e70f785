"""The recorder-file reader on the real ScenarioRunner recording and on hand-built files."""

from __future__ import annotations

import struct
from pathlib import Path

import carla_recsynth as rs
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fixtures import fixture_path
from simbridge import BundleError
from simbridge.adapters.carla import (
    ActorKind,
    PacketId,
    RecorderFormatError,
    RecorderReader,
    read_recording,
)

LOG = fixture_path("carla", "DistanceToLaneCenter.log")


def _naive_positions(path: Path, actor_id: int) -> list[tuple[float, ...]]:
    """An independent decoder: one struct call per packet header and per Position record."""
    data = path.read_bytes()
    pos = 2
    n = struct.unpack_from("<H", data, pos)[0]
    pos += 2 + n + 8
    n = struct.unpack_from("<H", data, pos)[0]
    pos += 2 + n
    out = []
    while pos < len(data):
        pid, size = struct.unpack_from("<BI", data, pos)
        if pid == 6:
            count = struct.unpack_from("<H", data, pos + 5)[0]
            for k in range(count):
                rec = struct.unpack_from("<I6f", data, pos + 7 + 28 * k)
                if rec[0] == actor_id:
                    out.append(rec[1:])
        pos += 5 + size
    return out


# --------------------------------------------------------------------------- real recording


def test_real_recording_summary():
    rec = read_recording(LOG)
    assert rec.header.version == 1
    assert rec.header.map_name == "Town01"
    assert rec.header.date_unix == 1637671165  # 2021-11-23, a Unix timestamp (not 1900-based)
    assert rec.n_frames == 432
    assert rec.duration_s == pytest.approx(12.53, abs=0.01)
    assert np.array_equal(rec.frames["frame"], np.arange(1, 433))
    assert np.all(np.diff(rec.frames["elapsed_s"]) > 0)
    assert rec.frames["duration_s"][-1] == -1.0  # only patched by a following frame
    # each frame's duration is the gap to the next frame's elapsed time
    assert np.allclose(rec.frames["duration_s"][1:-1], np.diff(rec.frames["elapsed_s"])[1:], atol=1e-9)
    heroes = rec.heroes()
    assert [h.type_id for h in heroes] == ["vehicle.lincoln.mkz_2017"]
    assert heroes[0].kind == ActorKind.VEHICLE
    assert rec.collisions == []
    # 0.9.13 log: ids 0-10 and 12-16, nothing newer, nothing unknown
    assert set(rec.packet_counts) == set(range(0, 11)) | set(range(12, 17))
    assert not rec.unknown_packets
    kinds = {k: sum(a.kind == k for a in rec.actors.values()) for k in ActorKind}
    assert kinds[ActorKind.TRAFFIC_LIGHT] == 36 and kinds[ActorKind.VEHICLE] == 1
    assert len(rec.traffic_lights) == 36
    for changes in rec.traffic_lights.values():
        assert np.all(np.diff(changes["t"]) > 0)
        assert np.all(changes["state"][1:] != changes["state"][:-1]) or changes.size == 1


def test_fast_path_equals_independent_decoder():
    rec = read_recording(LOG)
    hero = rec.heroes()[0]
    tr = rec.tracks[hero.id]
    naive = np.array(_naive_positions(LOG, hero.id), dtype=np.float32)
    assert tr.x_m.size == len(naive) == 431  # destroyed in the last frame: no position there
    assert np.allclose(tr.x_m, naive[:, 0] / 100.0)
    assert np.allclose(tr.y_m, naive[:, 1] / 100.0)
    assert np.allclose(tr.yaw_deg, naive[:, 5])


def test_packet_api_matches_one_pass_reader():
    rec = read_recording(LOG)
    hero = rec.heroes()[0].id
    frames = 0
    xs = []
    names = set()
    for p in RecorderReader(LOG).packets():
        names.add(p.name)
        if p.id == PacketId.FRAME_START:
            frames += 1
        elif p.id == PacketId.POSITION:
            xs.extend(p.data["x"][p.data["id"] == hero] / 100.0)
    assert frames == rec.n_frames
    assert np.allclose(xs, rec.tracks[hero].x_m)
    assert "PHYSICS_CONTROL" in names and "TRAFFIC_LIGHT_TIME" in names


def test_small_blocks_give_the_same_result():
    big = read_recording(LOG)
    small = read_recording(LOG, block_bytes=997)
    assert small.n_frames == big.n_frames
    hero = big.heroes()[0].id
    assert np.array_equal(small.tracks[hero].x_m, big.tracks[hero].x_m)
    assert np.array_equal(small.controls[hero], big.controls[hero])
    assert small.traffic_lights.keys() == big.traffic_lights.keys()
    for k in big.traffic_lights:
        assert np.array_equal(small.traffic_lights[k], big.traffic_lights[k])


@pytest.mark.parametrize("cut", [10, 40, 1000, 500_000, 1_712_228])
def test_truncated_real_file_names_the_offset(tmp_path, cut):
    p = tmp_path / "cut.log"
    p.write_bytes(LOG.read_bytes()[:cut])
    with pytest.raises(RecorderFormatError) as exc:
        read_recording(p)
    assert "byte " in str(exc.value) and "truncated" in str(exc.value) or "header" in str(exc.value)
    assert isinstance(exc.value, BundleError)
    assert 0 <= exc.value.offset <= cut


def test_truncated_file_can_be_read_up_to_the_cut(tmp_path):
    p = tmp_path / "cut.log"
    p.write_bytes(LOG.read_bytes()[:900_000])
    rec = read_recording(p, allow_truncated=True)
    assert 100 < rec.n_frames < 432
    assert rec.tracks[rec.heroes()[0].id].t[-1] <= rec.duration_s


def test_corrupt_size_field_names_the_packet(tmp_path):
    data = bytearray(LOG.read_bytes())
    # the first Position packet: find it by walking the headers
    pos = 34
    while data[pos] != 6:
        pos += 5 + struct.unpack_from("<I", data, pos + 1)[0]
    struct.pack_into("<I", data, pos + 1, struct.unpack_from("<I", data, pos + 1)[0] + 3)
    p = tmp_path / "bad.log"
    p.write_bytes(bytes(data))
    with pytest.raises(RecorderFormatError) as exc:
        read_recording(p)
    assert exc.value.offset == pos
    assert "POSITION" in str(exc.value)


# --------------------------------------------------------------------------- synthetic files


def _write(tmp_path: Path, data: bytes, name: str = "s.log") -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


def _two_actor_file(late: list[bytes] | None = None, unknown: bool = False) -> bytes:
    add = rs.event_add(
        [
            (10, 1, (100.0, 200.0, 50.0), 90.0, "vehicle.tesla.model3", {"role_name": "hero"}),
            (11, 2, (0.0, 0.0, 0.0), 0.0, "walker.pedestrian.0001", {"role_name": "walker"}),
            (12, 3, (500.0, 0.0, 0.0), 0.0, "traffic.traffic_light", {}),
        ]
    )
    frames = []
    for i in range(5):
        pk = [add] if i == 0 else []
        if unknown:
            pk.append(rs.packet(99, b"\x01\x02\x03"))
        pk += [
            rs.positions([(10, 100.0 + 100 * i, 200.0, 50.0, 90.0), (11, 7.0, 8.0, 9.0, 0.0)]),
            rs.tl_states([(12, 0 if i < 3 else 2)]),
            rs.anim_vehicle([(10, 0.1 * i, 0.5, 0.0)]),
        ]
        if i == 2:
            pk.append(rs.collision([(0, 10, 11), (1, 10, 0xFFFFFFFF)]))
        if late:
            pk += late
        if i == 4:
            pk.append(rs.event_del([11]))
        frames.append(pk)
    return rs.recording(frames)


def test_synthetic_tracks_controls_collisions_lights(tmp_path):
    rec = read_recording(_write(tmp_path, _two_actor_file()))
    assert rec.n_frames == 5 and rec.duration_s == pytest.approx(0.2)
    assert rec.heroes()[0].id == 10
    assert np.allclose(rec.tracks[10].x_m, [1.0, 2.0, 3.0, 4.0, 5.0])
    assert np.allclose(rec.tracks[10].y_m, 2.0) and np.allclose(rec.tracks[10].z_m, 0.5)
    assert np.allclose(rec.controls[10]["steer"], [0, 0.1, 0.2, 0.3, 0.4], atol=1e-6)
    assert [(c.actor1, c.actor2, c.t) for c in rec.collisions] == [
        (10, 11, pytest.approx(0.1)),
        (10, 0xFFFFFFFF, pytest.approx(0.1)),
    ]
    assert rec.actors[11].destroyed_t == pytest.approx(0.2)
    tl = rec.traffic_lights[12]
    assert list(tl["state"]) == [0, 2] and list(tl["t"]) == pytest.approx([0.0, 0.15])


def test_unknown_ids_are_skipped_by_size(tmp_path):
    rec = read_recording(_write(tmp_path, _two_actor_file(unknown=True)))
    assert rec.unknown_packets == {99: 5}
    assert np.allclose(rec.tracks[10].x_m, [1.0, 2.0, 3.0, 4.0, 5.0])


def test_ids_21_to_23_in_0916_order(tmp_path):
    late = [rs.wheels([(10, 4)], 21), rs.biker([(10, 3.0, 0.5)], 22), rs.door([(10, 2, True)], 23)]
    p = _write(tmp_path, _two_actor_file(late))
    rec = read_recording(p)
    assert rec.id_layout == "0.9.16"
    assert rec.extra["anim_biker"][10]["forward_speed"][0] == pytest.approx(3.0)
    assert rec.extra["vehicle_door"][10]["door"][0] == 2
    wheels = [pk.data for pk in RecorderReader(p).packets() if pk.name == "ANIM_VEHICLE_WHEELS"]
    assert len(wheels) == 5 and list(wheels[0][0]["wheels"]["rotation_deg"]) == [0.0, 10.0, 20.0, 30.0]


def test_ids_21_to_23_in_ue4_dev_2023_order(tmp_path):
    # PR #6922 builds: door 21, wheels 22, biker 23
    late = [rs.door([(10, 1, False)], 21), rs.wheels([(10, 4)], 22), rs.biker([(10, 7.0, 0.25)], 23)]
    p = _write(tmp_path, _two_actor_file(late))
    rec = read_recording(p)
    assert rec.id_layout == "ue4-dev-2023"
    assert rec.extra["anim_biker"][10]["forward_speed"][0] == pytest.approx(7.0)
    assert rec.extra["vehicle_door"][10]["door"][0] == 1


def test_not_a_recorder_file(tmp_path):
    with pytest.raises(RecorderFormatError, match="not a CARLA recorder file"):
        read_recording(_write(tmp_path, b"\x01\x00\x05\x00hello" + b"\x00" * 40))
    with pytest.raises(RecorderFormatError, match="no such file"):
        read_recording(tmp_path / "missing.log")


def test_packet_before_first_frame(tmp_path):
    data = rs.header() + rs.positions([(1, 0, 0, 0, 0)])
    with pytest.raises(RecorderFormatError, match=r"byte \d+: packet id 6 before the first FrameStart"):
        read_recording(_write(tmp_path, data))


def test_bad_event_add_string_is_named(tmp_path):
    add = rs.event_add([(1, 1, (0.0, 0.0, 0.0), 0.0, "vehicle.x", {"role_name": "hero"})])
    bad = bytearray(add)
    bad[5 + 2 + 4 + 1 + 24 + 4] = 0xFF  # type id length: now runs past the packet
    data = rs.recording([[bytes(bad)]])
    with pytest.raises(RecorderFormatError, match="EventAdd type id runs past the end"):
        read_recording(_write(tmp_path, data))


_SMALL = _two_actor_file(
    late=[rs.wheels([(10, 4)]), rs.biker([(10, 1.0, 0.5)]), rs.door([(10, 0, True)])], unknown=True
)


@settings(
    max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(st.tuples(st.integers(0, len(_SMALL) - 1), st.integers(0, 255)), min_size=1, max_size=8),
    st.integers(0, len(_SMALL)),
)
def test_fuzz_mutations_raise_only_format_errors(tmp_path, flips, cut):
    data = bytearray(_SMALL)
    for i, v in flips:
        data[i] = v
    data = bytes(data[:cut])
    p = tmp_path / "fuzz.log"
    p.write_bytes(data)
    for reader in (
        lambda: read_recording(p),
        lambda: read_recording(p, block_bytes=64),
        lambda: list(RecorderReader(p).packets()),
    ):
        try:
            reader()
        except RecorderFormatError as exc:
            assert 0 <= exc.offset <= len(data)


@settings(
    max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(min_size=0, max_size=300))
def test_fuzz_random_tail_after_a_valid_header(tmp_path, tail):
    p = tmp_path / "rand.log"
    p.write_bytes(rs.header() + tail)
    try:
        read_recording(p)
    except RecorderFormatError as exc:
        assert exc.offset <= p.stat().st_size


def test_traffic_light_fast_path_equals_the_general_path(monkeypatch):
    from simbridge.adapters.carla import _reader

    fast = read_recording(LOG)
    monkeypatch.setattr(_reader, "_tl_changes_same_layout", lambda *a, **k: None)
    general = read_recording(LOG)
    assert fast.traffic_lights.keys() == general.traffic_lights.keys()
    for k in fast.traffic_lights:
        assert np.array_equal(fast.traffic_lights[k], general.traffic_lights[k])
    assert sum(v.size for v in fast.traffic_lights.values()) > 36  # some lights do change


def test_counted_packet_without_its_count_is_an_error(tmp_path):
    data = rs.recording([[rs.packet(2, b"\x01")]])
    with pytest.raises(RecorderFormatError, match="EVENT_ADD has 1 bytes, too short for its record count"):
        read_recording(_write(tmp_path, data))


_REAL_PREFIX = LOG.read_bytes()[:30_000]


@settings(
    max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(st.tuples(st.integers(0, 29_999), st.integers(0, 255)), min_size=1, max_size=6),
    st.integers(34, 30_000),
    st.booleans(),
)
def test_fuzz_mutated_real_recording(tmp_path, flips, cut, allow):
    """Mutations of the real file's first frames (actor creation, positions, lights)."""
    data = bytearray(_REAL_PREFIX)
    for i, v in flips:
        data[i] = v
    p = tmp_path / "real_fuzz.log"
    p.write_bytes(bytes(data[:cut]))
    try:
        rec = read_recording(p, allow_truncated=allow)
        assert rec.n_frames <= 432
    except RecorderFormatError as exc:
        assert 0 <= exc.offset <= cut


def test_an_absurd_packet_size_is_not_read_into_memory(tmp_path, monkeypatch):
    from simbridge.adapters.carla import _reader

    monkeypatch.setattr(_reader, "_MAX_PACKET_BYTES", 1000)
    big = rs.packet(99, b"\x00" * 5000)  # fits the file, but over the (lowered) limit
    data = rs.recording([[rs.positions([(1, 0, 0, 0, 0)])], [big]])
    p = _write(tmp_path, data)
    with pytest.raises(RecorderFormatError, match="declares 5000 bytes of data, more than any recorder packet"):
        read_recording(p, block_bytes=256)
