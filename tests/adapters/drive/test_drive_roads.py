"""Road geometry of the embedded driving simulator, checked against the SUMO net's own XML."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from simbridge.adapters.drive import layout
from simbridge.adapters.drive.world._roads import LAYER_STOP, RoadGeometry
from simbridge.adapters.drive.world._scene import carla_xy

MAPS = Path(__file__).resolve().parents[3] / "adapters" / "drive" / "maps"


@pytest.fixture(scope="module")
def town04_net(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Town04's SUMO net, made by the simulator's own cached converter into a temporary cache."""
    from simbridge.adapters.drive.world import _net

    cache = tmp_path_factory.mktemp("drive-cache")
    mp = pytest.MonkeyPatch()
    mp.setenv("SIMBRIDGE_DRIVE_CACHE", str(cache))
    try:
        return _net.net_path("Town04")
    finally:
        mp.undo()


def _resample(line: np.ndarray, step_m: float) -> np.ndarray:
    cum = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(line, axis=0).T))])
    s = np.arange(0.0, cum[-1] + 1e-9, step_m)
    return np.column_stack([np.interp(s, cum, line[:, 0]), np.interp(s, cum, line[:, 1])])


def _expected(net_xml: Path) -> dict[str, object]:
    """What the geometry must hold, read independently from the XML: drivable lanes, tl-controlled
    lanes, inner lane boundaries, and edges with / without a reverse edge between the same nodes."""
    root = ET.parse(net_xml).getroot()
    offset = tuple(float(v) for v in root.find("location").get("netOffset").split(","))  # type: ignore[union-attr]
    edges = {}
    for e in root.iter("edge"):
        if e.get("function") in ("internal", "walkingarea", "crossing"):
            continue
        drive = [ln for ln in e.iter("lane") if "passenger" not in (ln.get("disallow") or "").split()]
        drive = [ln for ln in drive if not ln.get("allow") or "passenger" in ln.get("allow", "").split()]
        if drive:
            edges[e.get("id")] = (e.get("from"), e.get("to"), drive)
    nodes = {(f, t) for f, t, _ in edges.values()}
    tl_lanes = {
        f"{c.get('from')}_{c.get('fromLane')}"
        for c in root.iter("connection")
        if c.get("tl") and c.get("from") in edges
    }
    with_reverse = sum(1 for f, t, _ in edges.values() if (t, f) in nodes)
    return {
        "offset": offset,
        "edges": edges,
        "lanes": sum(len(d) for _, _, d in edges.values()),
        "tl_lanes": tl_lanes,
        "broken": sum(len(d) - 1 for _, _, d in edges.values()),
        "double": with_reverse // 2,
        "solid": len(edges) + (len(edges) - with_reverse),
        "junction_shapes": sum(
            1 for j in root.iter("junction") if j.get("type") != "internal" and len((j.get("shape") or "").split()) >= 3
        ),
    }


@pytest.fixture(scope="module")
def town03() -> tuple[RoadGeometry, dict[str, object]]:
    net = MAPS / "Town03.net.xml"
    return RoadGeometry.from_net(net), _expected(net)


@pytest.fixture(scope="module")
def town04(town04_net: Path) -> tuple[RoadGeometry, dict[str, object]]:
    exp = _expected(town04_net)
    exp["path"] = town04_net
    return RoadGeometry.from_net(town04_net, town="Town04"), exp


def town04_path(exp: dict[str, object]) -> Path:
    path = exp["path"]
    assert isinstance(path, Path)
    return path


@pytest.mark.parametrize("which", ["town03", "town04"])
def test_counts_match_the_net(which: str, request: pytest.FixtureRequest) -> None:
    geo, exp = request.getfixturevalue(which)
    assert len(geo.lanes) == exp["lanes"]
    assert {s.lane_id for s in geo.stop_lines} == exp["tl_lanes"]
    assert len(geo.stop_lines) == len(exp["tl_lanes"]) > 10
    assert len(geo.junctions) == exp["junction_shapes"]
    assert sum(1 for layer, _, _ in geo.polygons if layer == LAYER_STOP) == len(geo.stop_lines)


def test_town03_markings_follow_the_rule(town03: tuple[RoadGeometry, dict[str, object]]) -> None:
    """The shipped Town03 net has no OpenDRIVE origins: broken white inside a direction, double
    yellow between directions, solid white at outer edges, one marking per boundary."""
    geo, exp = town03
    kinds = Counter(m.kind for m in geo.markings)
    assert kinds["broken_white"] == exp["broken"] > 0
    assert kinds["double_yellow"] == exp["double"] > 0
    assert kinds["solid_white"] == exp["solid"]
    assert set(kinds) == {"broken_white", "double_yellow", "solid_white"}
    assert all(m.odr_type == "" for m in geo.markings)


def test_town04_markings_are_the_opendrive_road_marks(town04: tuple[RoadGeometry, dict[str, object]]) -> None:
    """Each lane's right border, at its middle, carries the roadMark the simulator's lane-invasion
    events report there (the host's own OpenDRIVE reader, adapters/drive/_mapping.RoadMarks)."""
    from simbridge.adapters.drive._mapping import RoadMarks

    geo, exp = town04
    odr = RoadMarks(MAPS / "Town04.xodr")
    lengths = {r.get("id"): float(r.get("length")) for r in ET.parse(MAPS / "Town04.xodr").getroot().iter("road")}
    orig = {
        ln.get("id"): ln.find("param[@key='origId']").get("value")  # type: ignore[union-attr]
        for e in ET.parse(town04_path(exp)).getroot().iter("edge")
        for ln in e.iter("lane")
        if ln.find("param[@key='origId']") is not None
    }
    dense = [_resample(m.xy_m, 0.5) for m in geo.markings]
    pts = np.concatenate(dense)
    owner = np.concatenate([[i] * len(p) for i, p in enumerate(dense)])
    checked = 0
    for lane in geo.lanes:
        road, lane_no = orig[lane.lane_id].split()[0].rsplit("_", 1)
        s_mid = lengths[road] / 2
        seq = odr.marks.get((int(road), int(lane_no)), [])
        if any(abs(s - s_mid) < 10 for s, _ in seq):
            continue  # the mark changes near the middle
        c = lane.centre_xy_m
        cum = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(c, axis=0).T))])
        i = int(np.searchsorted(cum, cum[-1] / 2)) - 1
        d = (c[i + 1] - c[i]) / np.hypot(*(c[i + 1] - c[i]))
        mid = np.array([np.interp(cum[-1] / 2, cum, c[:, 0]), np.interp(cum[-1] / 2, cum, c[:, 1])])
        border = mid + np.array([-d[1], d[0]]) * lane.width_m / 2  # right of heading in CARLA's frame
        dist = np.hypot(*(pts - border).T)
        if dist.min() > 0.6:
            continue
        want = odr.crossed(int(road), int(lane_no), s_mid, "right")
        assert geo.markings[owner[int(dist.argmin())]].odr_type == want, lane.lane_id
        checked += 1
    assert checked > 100
    kinds = Counter(m.kind for m in geo.markings)
    assert kinds["broken_white"] > 0 and kinds["solid_white"] > 0 and kinds["none"] > 0


def test_lanes_are_in_carla_metres(town03: tuple[RoadGeometry, dict[str, object]]) -> None:
    geo, exp = town03
    offset = exp["offset"]
    assert geo.net_offset == offset
    edges = exp["edges"]
    for lane in geo.lanes[:40]:
        xml_lane = next(ln for ln in edges[lane.edge_id][2] if ln.get("id") == lane.lane_id)  # type: ignore[index]
        sx, sy = (float(v) for v in xml_lane.get("shape").split()[0].split(",")[:2])
        assert tuple(lane.centre_xy_m[0]) == pytest.approx(carla_xy(sx, sy, offset), abs=1e-6)  # type: ignore[arg-type]
        assert lane.width_m == pytest.approx(float(xml_lane.get("width", "3.2")))


def test_stop_lines_sit_across_their_lane_end(town03: tuple[RoadGeometry, dict[str, object]]) -> None:
    geo, _ = town03
    lanes = {ln.lane_id: ln for ln in geo.lanes}
    for stop in geo.stop_lines:
        lane = lanes[stop.lane_id]
        end = lane.centre_xy_m[-1]
        centre = stop.xy_m.mean(axis=0)
        assert math.dist(centre, end) == pytest.approx(layout.STOP_LINE_DEPTH_M / 2, abs=0.05)
        across = math.dist(stop.xy_m[1], stop.xy_m[2])
        assert across == pytest.approx(lane.width_m, abs=0.01)


def test_broken_markings_lie_between_their_lanes(town03: tuple[RoadGeometry, dict[str, object]]) -> None:
    geo, _ = town03
    lanes = {ln.lane_id: ln for ln in geo.lanes}
    for m in geo.markings:
        if m.kind != "broken_white":
            continue
        a, b = (lanes[i] for i in m.lane_ids)
        mid = m.xy_m[len(m.xy_m) // 2]
        da = np.hypot(*(a.centre_xy_m - mid).T).min()
        db = np.hypot(*(b.centre_xy_m - mid).T).min()
        assert da == pytest.approx(a.width_m / 2, abs=0.35)
        assert db == pytest.approx(b.width_m / 2, abs=0.35)


def test_grid_returns_every_polygon_near_a_point(town03: tuple[RoadGeometry, dict[str, object]]) -> None:
    geo, _ = town03
    radius = 90.0
    x0, y0, x1, y1 = geo.bounds_m
    for qx, qy in [(x0 + 30, y0 + 40), ((x0 + x1) / 2, (y0 + y1) / 2), (x1 - 10, y1 - 60)]:
        cells = geo.cells_within(qx, qy, radius)
        found = sum(len(c.starts) for c in cells)
        near = sum(1 for _, _, p in geo.polygons if np.hypot(p[:, 0] - qx, p[:, 1] - qy).min() <= radius)
        in_cells = 0
        for c in cells:
            d = np.hypot(c.pts_xy_m[:, 0] - qx, c.pts_xy_m[:, 1] - qy)
            in_cells += int((np.minimum.reduceat(d, c.starts) <= radius).sum())
        assert in_cells == near > 0
        assert found < len(geo.polygons)  # the index does cull


def test_bad_net_files_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such SUMO network file"):
        RoadGeometry.from_net(tmp_path / "missing.net.xml")
    bad = tmp_path / "bad.net.xml"
    bad.write_text("<net><edge id='x'>")
    with pytest.raises(ValueError, match=r"bad\.net\.xml: not a readable SUMO network"):
        RoadGeometry.from_net(bad)


def test_gather_returns_the_cells_polygons_from_the_flat_arrays(town03: tuple[RoadGeometry, dict[str, object]]) -> None:
    geo, _ = town03
    cells = sorted(geo.cells.values(), key=lambda c: c.first_polygon)
    picked = cells[::3] + cells[1:4]  # non-contiguous and contiguous runs, out of order, cell 3 twice
    pts, counts, layers, ids = geo.gather(picked)
    picked = list({c.first_polygon: c for c in picked}.values())
    assert len(ids) == len(set(ids.tolist())) == sum(len(c.counts) for c in picked)
    want_pts = np.concatenate([c.pts_xy_m for c in sorted(picked, key=lambda c: c.first_polygon)])
    assert np.array_equal(pts, want_pts)
    assert np.array_equal(layers, np.concatenate([c.layer for c in sorted(picked, key=lambda c: c.first_polygon)]))
    assert counts.sum() == len(pts)
    all_pts, all_counts, _, all_ids = geo.gather(list(geo.cells.values()))
    assert len(all_ids) == len(geo.polygons) and len(all_pts) == sum(len(p) for _, _, p in geo.polygons)
    assert geo.gather([])[1].size == 0


def _distance_to_polyline(p: np.ndarray, line: np.ndarray) -> float:
    a, b = line[:-1], line[1:]
    ab = b - a
    f = np.clip(((p - a) * ab).sum(1) / np.maximum((ab * ab).sum(1), 1e-12), 0.0, 1.0)
    return float(np.hypot(*(a + f[:, None] * ab - p).T).min())


def test_t18_start_straight_through_the_interchange_keeps_lane_2_s_markings(
    town04: tuple[RoadGeometry, dict[str, object]],
) -> None:
    """Town04's interchange at CARLA x 66-128 m on T18's start straight is a junction, whose
    connecting road's roadMarks in the xodr are broken white between lanes: both borders of lane
    -2 are painted there, where the lane centre and width come from the xodr (not the net)."""
    from simbridge.adapters.drive.world._net import xodr_path
    from simbridge.adapters.kit.opendrive import LaneLocator, read_opendrive

    geo, _ = town04
    loc = LaneLocator(read_opendrive(xodr_path("Town04")))
    broken = [m.xy_m for m in geo.markings if m.kind == "broken_white"]
    for x in range(96, 129, 4):
        pos = loc.locate(np.array([float(x)]), np.array([13.4]))
        assert int(pos.lane_id[0]) == -2 and int(pos.junction_id[0]) != -1  # inside the junction
        y_c, half = 13.4 - float(pos.lane_offset_m[0]), float(pos.lane_width_m[0]) / 2
        for y in (y_c - half, y_c + half):
            d = min(_distance_to_polyline(np.array([x, y]), ln) for ln in broken)
            assert d < 0.3, f"no broken line {d:.2f} m from lane -2's border at x={x}, y={y:.2f}"


def test_t18_highway_bend_in_junction_1593_keeps_lane_2_s_markings(
    town04: tuple[RoadGeometry, dict[str, object]],
) -> None:
    """The highway loop bends 90 deg at 54 m radius inside junction 1593 (connecting road 1602,
    the only way on from road 37, which SUMO calls a right turn), where T18's two minutes at
    90 km/h end: lane -2's borders are painted through the bend as on the road either side."""
    from simbridge.adapters.drive.world._net import xodr_path
    from simbridge.adapters.kit.opendrive import read_opendrive

    geo, _ = town04
    s = read_opendrive(xodr_path("Town04")).lane_samples(step_m=1.0)
    bend = (s.road == 1602) & (s.lane == -2)
    assert bend.sum() > 30 and set(s.junction[bend]) == {1593}
    broken = [m.xy_m for m in geo.markings if m.kind == "broken_white"]
    for i in np.flatnonzero(bend)[5:-5:4]:
        yaw, half = np.radians(s.yaw_deg[i]), float(s.width_m[i]) / 2
        right = np.array([-np.sin(yaw), np.cos(yaw)])  # CARLA's right of the direction of travel
        for side in (-1.0, 1.0):
            p = np.array([s.x_m[i], s.y_m[i]]) + side * half * right
            d = min(_distance_to_polyline(p, ln) for ln in broken)
            # the painted line follows SUMO's internal-lane polyline of the arc (~0.35 m off it
            # at most); the next lane's line is 3.5 m away
            assert d < 0.5, f"no broken line {d:.2f} m from lane -2's border at ({p[0]:.1f}, {p[1]:.1f})"
