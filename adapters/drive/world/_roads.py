"""The road network as flat ground polygons in CARLA metres, built once per town from a SUMO net.

SUMO nets made from OpenDRIVE by netconvert keep lanes, junction shapes and traffic-light
connections but not OpenDRIVE's roadMark types. When the net's lanes carry their OpenDRIVE origin
(`origId` "road_lane", netconvert --output.original-names, as the simulator's converter makes
them) and the town's .xodr is at hand, each lane boundary is painted as the town's roadMark says
along s (type solid / broken / solid solid / ..., colour white / yellow; a lane's roadMark is its
outer border, the centre lane's the line between the directions). Otherwise markings follow the
usual rule: broken white between lanes of one direction, double solid yellow between the two
directions of a road (an edge whose reverse edge joins the same nodes), solid white at the road's
outer edges. Nets without sidewalk lanes (CARLA's towns) get a kerb strip and a sidewalk outside
each outer edge. Stop lines sit at the end of every lane with a traffic-light-controlled
connection.

The polygons are binned in a square grid (`GRID_CELL_M`) so the view transforms only the cells near
the eye each frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
import re
import xml.etree.ElementTree as ET

import numpy as np
import numpy.typing as npt

from simbridge.adapters.drive import layout
from simbridge.adapters.drive.world._scene import carla_xy

#: "<pattern>_<colour>" (pattern solid, broken, double = solid solid, double_broken, solid_broken,
#: broken_solid; colour white, yellow), or "curb" / "none" (nothing painted)
MarkingKind = str
FloatArray = npt.NDArray[np.float64]

GRID_CELL_M = 64.0
#: draw order of ground layers (lower first)
LAYER_SIDEWALK, LAYER_KERB, LAYER_ASPHALT, LAYER_MARKING, LAYER_STOP = 0, 1, 2, 3, 4
_MAX_SEGMENT_M = 8.0
_SEGMENTS_PER_POLYGON = 4


@dataclass(frozen=True)
class Lane:
    """A drivable lane: SUMO ids, width and centre line (CARLA metres, in the driving direction)."""

    lane_id: str
    edge_id: str
    index: int
    width_m: float
    centre_xy_m: FloatArray


@dataclass(frozen=True)
class Marking:
    """A painted line along a lane boundary (CARLA metres); `lane_ids` are the lanes it separates."""

    kind: MarkingKind
    xy_m: FloatArray
    lane_ids: tuple[str, ...]
    #: the OpenDRIVE roadMark type in CARLA's LaneMarkingType names ("Broken", "SolidSolid",
    #: "NONE"); "" when the kind comes from the rule, not the town's OpenDRIVE file
    odr_type: str = ""


@dataclass(frozen=True)
class StopLine:
    """The stop line across a traffic-light-controlled lane's end."""

    lane_id: str
    tl_id: str
    xy_m: FloatArray  # (4, 2) quad


@dataclass(frozen=True)
class Junction:
    junction_id: str
    xy_m: FloatArray


@dataclass
class GridCell:
    """The ground polygons whose centroid falls in one grid cell, flattened for vectorised transforms."""

    pts_xy_m: FloatArray  # (n_points, 2)
    starts: npt.NDArray[np.intp]  # first point of each polygon
    counts: npt.NDArray[np.intp]
    layer: npt.NDArray[np.intp]
    rgb: list[tuple[int, int, int]]
    #: largest distance from the cell centre to any of its points (for culling by distance)
    radius_m: float
    centre_xy_m: tuple[float, float]
    #: where the cell's polygons and points start in RoadGeometry's flat arrays (cells are contiguous)
    first_polygon: int = 0
    first_point: int = 0


@dataclass
class RoadGeometry:
    """Everything drawn on the ground of one town, plus the structures tests and the world may query."""

    town: str
    net_offset: tuple[float, float]
    lanes: list[Lane]
    markings: list[Marking]
    stop_lines: list[StopLine]
    junctions: list[Junction]
    #: all ground polygons: (layer, rgb, (n, 2) CARLA metres)
    polygons: list[tuple[int, tuple[int, int, int], FloatArray]]
    bounds_m: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    cells: dict[tuple[int, int], GridCell] = field(default_factory=dict)
    #: every polygon, cell after cell: points, point counts, layers, colours
    flat_pts_xy_m: FloatArray = field(default_factory=lambda: np.zeros((0, 2)))
    flat_counts: npt.NDArray[np.intp] = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    flat_layer: npt.NDArray[np.intp] = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    flat_rgb: list[tuple[int, int, int]] = field(default_factory=list)

    @classmethod
    def from_net(cls, net_xml: Path, town: str | None = None, xodr: Path | None = None) -> RoadGeometry:
        """Read a SUMO .net.xml once and build the ground polygons in CARLA metres. The town is
        the file name's "TownNN" unless given; its roadMarks come from `xodr`, or from the town's
        shipped .xodr when the net's lanes carry their OpenDRIVE origin."""
        import sumolib  # type: ignore[import-untyped]

        net_xml = Path(net_xml)
        if not net_xml.is_file():
            raise FileNotFoundError(f"{net_xml}: no such SUMO network file")
        try:
            net = sumolib.net.readNet(str(net_xml), withInternal=True)
        except Exception as exc:  # sumolib raises bare xml/SAX errors
            raise ValueError(f"{net_xml}: not a readable SUMO network ({exc})") from exc
        offset = tuple(float(v) for v in net.getLocationOffset())
        if town is None:
            m = re.match(r"(Town\d+)", net_xml.name)
            town = m.group(1) if m else net_xml.name.split(".")[0]
        marks = None
        has_orig = any(ln.getParam("origId") for e in net.getEdges() for ln in e.getLanes())
        if xodr is None and has_orig:
            xodr = _shipped_xodr(town)
        if xodr is not None and has_orig:
            marks = OdrMarks(Path(xodr))
        return _build(net, (offset[0], offset[1]), town, marks)

    def gather(
        self, cells: list[GridCell]
    ) -> tuple[FloatArray, npt.NDArray[np.intp], npt.NDArray[np.intp], npt.NDArray[np.intp]]:
        """The cells' polygons as one set of arrays (points, counts, layers, polygon ids into
        flat_rgb), sliced from the flat arrays run by run (neighbouring cells are contiguous)."""
        runs: list[list[int]] = []  # [first polygon, end polygon, first point, end point]
        for c in sorted({c.first_polygon: c for c in cells}.values(), key=lambda c: c.first_polygon):
            p0, q0 = c.first_polygon, c.first_point
            p1, q1 = p0 + len(c.counts), q0 + len(c.pts_xy_m)
            if runs and runs[-1][1] == p0:
                runs[-1][1], runs[-1][3] = p1, q1
            else:
                runs.append([p0, p1, q0, q1])
        if not runs:
            empty = np.zeros(0, dtype=np.intp)
            return np.zeros((0, 2)), empty, empty, empty
        if len(runs) == 1:
            p0, p1, q0, q1 = runs[0]
            ids = np.arange(p0, p1, dtype=np.intp)
            return self.flat_pts_xy_m[q0:q1], self.flat_counts[p0:p1], self.flat_layer[p0:p1], ids
        ids = np.concatenate([np.arange(r[0], r[1], dtype=np.intp) for r in runs])
        pts = np.concatenate([self.flat_pts_xy_m[r[2] : r[3]] for r in runs])
        return pts, self.flat_counts[ids], self.flat_layer[ids], ids

    def cells_within(self, x_m: float, y_m: float, radius_m: float) -> list[GridCell]:
        """Grid cells that may hold a polygon point within `radius_m` of (x_m, y_m)."""
        out = []
        r_cells = int(math.ceil((radius_m + GRID_CELL_M) / GRID_CELL_M))
        ci, cj = int(math.floor(x_m / GRID_CELL_M)), int(math.floor(y_m / GRID_CELL_M))
        for i in range(ci - r_cells, ci + r_cells + 1):
            for j in range(cj - r_cells, cj + r_cells + 1):
                cell = self.cells.get((i, j))
                if cell is None:
                    continue
                d = math.hypot(cell.centre_xy_m[0] - x_m, cell.centre_xy_m[1] - y_m)
                if d - cell.radius_m <= radius_m:
                    out.append(cell)
        return out


# -- OpenDRIVE road marks ------------------------------------------------------------------------

_PATTERNS = {
    "solid": "solid",
    "broken": "broken",
    "solid solid": "double",
    "broken broken": "double_broken",
    "solid broken": "solid_broken",
    "broken solid": "broken_solid",
    "botts dots": "broken",
    "curb": "curb",
}


def carla_marking_name(odr_type: str) -> str:
    """OpenDRIVE roadMark type -> CARLA's LaneMarkingType name ("solid solid" -> "SolidSolid")."""
    t = odr_type.strip().lower()
    return "NONE" if t in ("", "none") else "".join(w.capitalize() for w in t.split())


def marking_kind(odr_type: str, colour: str) -> MarkingKind:
    pattern = _PATTERNS.get(odr_type.strip().lower(), "none")
    if pattern in ("none", "curb"):
        return pattern
    return f"{pattern}_{'yellow' if colour.strip().lower() == 'yellow' else 'white'}"


def _shipped_xodr(town: str) -> Path | None:
    """The town's OpenDRIVE file beside the shipped maps, unless its SUMO net is not made from it."""
    from simbridge.adapters.drive.world import _net

    if town not in _net.TOWNS or town in _net.SHIPPED_NETS:
        return None
    path = _net.xodr_path(town)
    return path if path.is_file() else None


class OdrMarks:
    """Each OpenDRIVE lane's roadMarks along its road: (road, lane) -> [(s_from, type, colour)]."""

    def __init__(self, xodr: Path) -> None:
        try:
            root = ET.parse(xodr).getroot()
        except (OSError, ET.ParseError) as exc:
            raise ValueError(f"{xodr}: not a readable OpenDRIVE file ({exc})") from exc
        self.length_m: dict[str, float] = {}
        self.marks: dict[tuple[str, int], list[tuple[float, str, str]]] = {}
        for road in root.iter("road"):
            rid = road.get("id", "")
            self.length_m[rid] = float(road.get("length", "0"))
            for sec in road.findall("lanes/laneSection"):
                s0 = float(sec.get("s", "0"))
                for lane in sec.iter("lane"):
                    key = (rid, int(lane.get("id", "0")))
                    seq = self.marks.setdefault(key, [])
                    rms = lane.findall("roadMark")
                    if not rms:  # a lane without a roadMark is unmarked in this section
                        seq.append((s0, "none", "white"))
                    for rm in rms:
                        seq.append(
                            (s0 + float(rm.get("sOffset", "0")), rm.get("type", "none"), rm.get("color", "white"))
                        )
        for v in self.marks.values():
            v.sort(key=lambda m: m[0])

    def border(self, orig_id: str, side: str) -> list[tuple[float, float, str, str]] | None:
        """Intervals (s0, s1, type, colour) of the mark on a lane's `side` ("right" = its own
        outer border, "left" = the next lane towards the centre line's) in the lane's direction of
        travel as fractions 0..1 of its length; None when the lane is unknown."""
        m = re.fullmatch(r"(.+)_(-?\d+)", orig_id.split()[0]) if orig_id else None
        if m is None:
            return None
        road, lane = m.group(1), int(m.group(2))
        length = self.length_m.get(road)
        if not length:
            return None
        mark_lane = lane if side == "right" else lane - (1 if lane > 0 else -1)
        seq = self.marks.get((road, mark_lane))
        if not seq:
            return None
        out = []
        for i, (s, t, c) in enumerate(seq):
            s1 = seq[i + 1][0] if i + 1 < len(seq) else length
            if s1 - s <= 1e-6:
                continue
            f0, f1 = max(0.0, s / length), min(1.0, s1 / length)
            # right lanes (id < 0) travel along +s, left lanes against it
            out.append((f0, f1, t, c) if lane < 0 else (1.0 - f1, 1.0 - f0, t, c))
        out.sort()
        return out


def _sub_polyline(line: FloatArray, a0: float, a1: float) -> FloatArray:
    """The part of a polyline between arc fractions a0 < a1 of its length."""
    seg = np.hypot(*np.diff(line, axis=0).T)
    cum = np.concatenate([[0.0], np.cumsum(seg)])
    total = cum[-1]
    s0, s1 = a0 * total, a1 * total
    inner = line[(cum > s0) & (cum < s1)]
    start = [np.interp(s0, cum, line[:, 0]), np.interp(s0, cum, line[:, 1])]
    end = [np.interp(s1, cum, line[:, 0]), np.interp(s1, cum, line[:, 1])]
    return np.vstack([start, inner, end]) if len(inner) else np.array([start, end])


# -- construction --------------------------------------------------------------------------------


def _densify(pts: FloatArray, max_seg_m: float = _MAX_SEGMENT_M) -> FloatArray:
    """Insert points so no segment is longer than max_seg_m (culling and clipping stay local)."""
    out = [pts[0]]
    for a, b in zip(pts[:-1], pts[1:], strict=True):
        n = max(1, int(math.ceil(float(np.hypot(*(b - a))) / max_seg_m)))
        for k in range(1, n + 1):
            out.append(a + (b - a) * (k / n))
    return np.array(out, dtype=np.float64)


def _dedupe(pts: FloatArray) -> FloatArray:
    keep = np.ones(len(pts), dtype=bool)
    keep[1:] = np.hypot(*(np.diff(pts, axis=0).T)) > 1e-3
    return pts[keep]


def _offset(pts: FloatArray, dist_m: float) -> FloatArray:
    """The polyline shifted `dist_m` to its LEFT in SUMO's right-handed frame (miter joins, capped)."""
    d = np.diff(pts, axis=0)
    seg_len = np.hypot(d[:, 0], d[:, 1])[:, None]
    n = np.column_stack([-d[:, 1], d[:, 0]]) / np.maximum(seg_len, 1e-9)
    vn = np.empty_like(pts)
    vn[0], vn[-1] = n[0], n[-1]
    if len(pts) > 2:
        m = n[:-1] + n[1:]
        m_len = np.hypot(m[:, 0], m[:, 1])[:, None]
        m = m / np.maximum(m_len, 1e-9)
        cos_half = np.sum(m * n[1:], axis=1, keepdims=True)
        vn[1:-1] = m / np.maximum(cos_half, 0.5)
    return pts + vn * dist_m


def _strip(left: FloatArray, right: FloatArray, per_polygon: int = _SEGMENTS_PER_POLYGON) -> list[FloatArray]:
    """Polygons covering the band between two polylines with the same vertex count, each spanning
    up to `per_polygon` segments (fewer, larger polygons draw faster; short ones cull better)."""
    out = []
    for i in range(0, len(left) - 1, per_polygon):
        j = min(i + per_polygon, len(left) - 1) + 1
        out.append(np.concatenate([left[i:j], right[i:j][::-1]]))
    return out


def _line_quads(line: FloatArray, width_m: float) -> list[FloatArray]:
    return _strip(_offset(line, width_m / 2), _offset(line, -width_m / 2))


def _dashes(line: FloatArray, width_m: float) -> list[FloatArray]:
    """Broken-line dashes along a polyline: BROKEN_DASH_M on, BROKEN_GAP_M off, from its start."""
    seg = np.diff(line, axis=0)
    seg_len = np.hypot(seg[:, 0], seg[:, 1])
    cum = np.concatenate([[0.0], np.cumsum(seg_len)])
    period = layout.BROKEN_DASH_M + layout.BROKEN_GAP_M
    quads = []
    s = layout.BROKEN_GAP_M / 2
    while s + layout.BROKEN_DASH_M <= cum[-1]:
        a = np.array([np.interp(s, cum, line[:, 0]), np.interp(s, cum, line[:, 1])])
        e = s + layout.BROKEN_DASH_M
        b = np.array([np.interp(e, cum, line[:, 0]), np.interp(e, cum, line[:, 1])])
        quads.extend(_line_quads(np.array([a, b]), width_m))
        s += period
    return quads


def _to_carla(pts: FloatArray, offset: tuple[float, float]) -> FloatArray:
    x, y = carla_xy(pts[:, 0], pts[:, 1], offset)  # type: ignore[arg-type]
    return np.column_stack([x, y]).astype(np.float64)


def _build(net: object, offset: tuple[float, float], town: str, marks: OdrMarks | None = None) -> RoadGeometry:
    lanes: list[Lane] = []
    markings: list[Marking] = []
    stop_lines: list[StopLine] = []
    junctions: list[Junction] = []
    polys: list[tuple[int, tuple[int, int, int], FloatArray]] = []

    def add(layer: int, rgb: tuple[int, int, int], sumo_pts: FloatArray) -> None:
        polys.append((layer, rgb, _to_carla(sumo_pts, offset)))

    def paint(
        border: FloatArray,
        inward: float,
        intervals: list[tuple[float, float, str, str]],
        lane_ids: tuple[str, ...],
        from_odr: bool,
    ) -> None:
        """Paint a lane boundary piece by piece; `inward` (+1 left, -1 right, 0 centred) keeps an
        outer edge's paint on the asphalt."""
        for f0, f1, odr_type, colour in intervals:
            line = border if (f0, f1) == (0.0, 1.0) else _sub_polyline(border, f0, f1)
            if len(line) < 2 or float(np.hypot(*(line[-1] - line[0]))) < 0.05 and len(line) == 2:
                continue
            kind = marking_kind(odr_type, colour)
            name = carla_marking_name(odr_type) if from_odr else ""
            pattern = kind.rsplit("_", 1)[0] if kind not in ("none", "curb") else kind
            rgb = layout.MARK_YELLOW if kind.endswith("_yellow") else layout.MARK_WHITE
            two = pattern in ("double", "double_broken", "solid_broken", "broken_solid")
            shift = inward * (layout.MARKING_WIDTH_M + (layout.DOUBLE_GAP_M / 2 if two else 0.0))
            centre = _offset(line, shift) if shift else line
            markings.append(Marking(kind, _to_carla(centre, offset), lane_ids, name))
            if pattern in ("none", "curb"):
                continue
            if two:
                first, second = {
                    "double": ("solid", "solid"),
                    "double_broken": ("broken", "broken"),
                    "solid_broken": ("solid", "broken"),
                    "broken_solid": ("broken", "solid"),
                }[pattern]
                lines = [
                    (_offset(centre, layout.DOUBLE_GAP_M / 2), first),
                    (_offset(centre, -layout.DOUBLE_GAP_M / 2), second),
                ]
            else:
                lines = [(centre, pattern)]
            for ln_pts, style in lines:
                quads = (
                    _dashes(ln_pts, layout.MARKING_WIDTH_M)
                    if style == "broken"
                    else _line_quads(ln_pts, layout.MARKING_WIDTH_M)
                )
                for q in quads:
                    add(LAYER_MARKING, rgb, q)

    edges = [e for e in net.getEdges() if e.getFunction() not in ("internal", "walkingarea", "crossing")]  # type: ignore[attr-defined]
    by_nodes = {(e.getFromNode().getID(), e.getToNode().getID()): e for e in edges}
    centre_drawn: set[frozenset[str]] = set()
    for edge in edges:
        drive = [ln for ln in edge.getLanes() if ln.allows("passenger")]
        walk = [ln for ln in edge.getLanes() if not ln.allows("passenger") and ln.allows("pedestrian")]
        for ln in walk:
            c = _densify(_dedupe(np.array(ln.getShape(), dtype=np.float64)[:, :2]))
            if len(c) >= 2:
                polys.extend((LAYER_SIDEWALK, layout.SIDEWALK, q) for q in _strip_carla(c, ln.getWidth(), offset))
        if not drive:
            continue
        drive.sort(key=lambda ln: ln.getIndex())
        shapes = []
        for ln in drive:
            c = _densify(_dedupe(np.array(ln.getShape(), dtype=np.float64)[:, :2]))
            shapes.append(c)
            lanes.append(Lane(ln.getID(), edge.getID(), ln.getIndex(), ln.getWidth(), _to_carla(c, offset)))
        if any(len(c) < 2 for c in shapes):
            continue
        base, w0 = shapes[0], drive[0].getWidth()
        total_w = sum(ln.getWidth() for ln in drive)
        right = _offset(base, -w0 / 2)
        left = _offset(base, total_w - w0 / 2)
        for q in _strip(left, right):
            add(LAYER_ASPHALT, layout.ASPHALT, q)
        # lane boundaries, right to left: the outer right edge, those between lanes, the left edge
        # (the centre line to the opposite direction, drawn once per pair, or an outer edge)
        reverse = by_nodes.get((edge.getToNode().getID(), edge.getFromNode().getID()))
        ids = [ln.getID() for ln in drive]
        orig = [ln.getParam("origId") or "" for ln in drive]
        acc = w0 / 2
        for k in range(1, len(drive)):
            line = _offset(base, acc)
            acc += drive[k].getWidth()
            odr = marks.border(orig[k], "right") if marks is not None else None
            paint(line, 0.0, odr or [(0.0, 1.0, "broken", "white")], (ids[k - 1], ids[k]), odr is not None)
        odr = marks.border(orig[0], "right") if marks is not None else None
        paint(right, 1.0, odr or [(0.0, 1.0, "solid", "white")], (ids[0],), odr is not None)
        if not walk:
            _kerb(right, -1.0, add)
        odr = marks.border(orig[-1], "left") if marks is not None else None
        if reverse is not None:
            pair = frozenset((edge.getID(), reverse.getID()))
            if pair not in centre_drawn:
                centre_drawn.add(pair)
                rev_ids = tuple(ln.getID() for ln in reverse.getLanes() if ln.allows("passenger"))[-1:]
                paint(left, 0.0, odr or [(0.0, 1.0, "solid solid", "yellow")], (ids[-1], *rev_ids), odr is not None)
        else:
            paint(left, -1.0, odr or [(0.0, 1.0, "solid", "white")], (ids[-1],), odr is not None)
            _kerb(left, 1.0, add)
        # stop lines at traffic-light-controlled lane ends
        for ln, c in zip(drive, shapes, strict=True):
            tls = sorted({con.getTLSID() for con in ln.getOutgoing() if con.getTLSID()})
            if not tls:
                continue
            end, prev = c[-1], c[-2]
            d = (end - prev) / max(float(np.hypot(*(end - prev))), 1e-9)
            back = end - d * layout.STOP_LINE_DEPTH_M
            n = np.array([-d[1], d[0]]) * ln.getWidth() / 2
            quad = np.array([back + n, end + n, end - n, back - n])
            stop_lines.append(StopLine(ln.getID(), tls[0], _to_carla(quad, offset)))
            add(LAYER_STOP, layout.STOP_LINE, quad)
    if marks is not None:
        _paint_through_junctions(net, edges, marks, paint)
    for node in net.getNodes():  # type: ignore[attr-defined]
        shape = node.getShape()
        if len(shape) >= 3:
            pts = np.array(shape, dtype=np.float64)[:, :2]
            junctions.append(Junction(node.getID(), _to_carla(pts, offset)))
            add(LAYER_ASPHALT, layout.ASPHALT, pts)
    geo = RoadGeometry(town, offset, lanes, markings, stop_lines, junctions, polys)
    _index(geo)
    return geo


def _paint_through_junctions(net: object, edges: list[Any], marks: OdrMarks, paint: Any) -> None:
    """Markings across a junction where a multi-lane road goes through (Town04's highway
    interchanges): the internal lanes of those through connections are lanes of one OpenDRIVE
    connecting road whose roadMarks say how they are marked, so they are painted as a road's
    lanes are (no kerbs, no stop lines; turns and single-lane connections stay bare). A
    connection is through when SUMO calls it straight, or when it is the only way on from its
    road: Town04's highway loop bends 90 deg at 54 m radius inside junction 1593 (connecting
    road 1602, four lanes, broken white between them), which SUMO calls a right turn, and CARLA
    paints it as the highway it is."""
    straight: set[str] = set()
    for edge in edges:
        outgoing = edge.getOutgoing()
        only_way = len(outgoing) == 1
        for conns in outgoing.values():
            straight.update(
                c.getViaLaneID() for c in conns if (c.getDirection() == "s" or only_way) and c.getViaLaneID()
            )
    for edge in net.getEdges():  # type: ignore[attr-defined]
        if edge.getFunction() != "internal":
            continue
        drive = sorted((ln for ln in edge.getLanes() if ln.allows("passenger")), key=lambda ln: ln.getIndex())
        orig = [ln.getParam("origId") or "" for ln in drive]
        roads = {o.rsplit("_", 1)[0] for o in orig}
        if len(drive) < 2 or "" in orig or len(roads) != 1 or not all(ln.getID() in straight for ln in drive):
            continue
        shapes = [_densify(_dedupe(np.array(ln.getShape(), dtype=np.float64)[:, :2])) for ln in drive]
        if any(len(c) < 2 for c in shapes):
            continue
        ids = [ln.getID() for ln in drive]
        base, w0 = shapes[0], drive[0].getWidth()
        acc = w0 / 2
        for k in range(1, len(drive)):
            line = _offset(base, acc)
            acc += drive[k].getWidth()
            if (odr := marks.border(orig[k], "right")) is not None:
                paint(line, 0.0, odr, (ids[k - 1], ids[k]), True)
        if (odr := marks.border(orig[0], "right")) is not None:
            paint(_offset(base, -w0 / 2), 1.0, odr, (ids[0],), True)
        if (odr := marks.border(orig[-1], "left")) is not None:
            paint(_offset(base, acc), -1.0, odr, (ids[-1],), True)


def _strip_carla(c: FloatArray, width_m: float, offset: tuple[float, float]) -> list[FloatArray]:
    return [_to_carla(q, offset) for q in _strip(_offset(c, width_m / 2), _offset(c, -width_m / 2))]


def _kerb(border: FloatArray, side: float, add: object) -> None:
    """Kerb strip and sidewalk outside a road border (side +1 = to the left, -1 = to the right)."""
    kerb_out = _offset(border, side * layout.KERB_WIDTH_M)
    walk_out = _offset(border, side * (layout.KERB_WIDTH_M + layout.SIDEWALK_WIDTH_M))
    for q in _strip(kerb_out, border) if side > 0 else _strip(border, kerb_out):
        add(LAYER_KERB, layout.KERB, q)  # type: ignore[operator]
    for q in _strip(walk_out, kerb_out) if side > 0 else _strip(kerb_out, walk_out):
        add(LAYER_SIDEWALK, layout.SIDEWALK, q)  # type: ignore[operator]


def _index(geo: RoadGeometry) -> None:
    """Bin the polygons by centroid into GRID_CELL_M cells, each flattened into arrays."""
    bins: dict[tuple[int, int], list[int]] = {}
    all_pts = np.concatenate([p for _, _, p in geo.polygons]) if geo.polygons else np.zeros((1, 2))
    geo.bounds_m = (
        float(all_pts[:, 0].min()),
        float(all_pts[:, 1].min()),
        float(all_pts[:, 0].max()),
        float(all_pts[:, 1].max()),
    )
    for k, (_, _, p) in enumerate(geo.polygons):
        cx, cy = p.mean(axis=0)
        bins.setdefault((int(math.floor(cx / GRID_CELL_M)), int(math.floor(cy / GRID_CELL_M))), []).append(k)
    first_polygon = first_point = 0
    order: list[int] = []
    for key in sorted(bins):
        idx = bins[key]
        order.extend(idx)
        pts = np.concatenate([geo.polygons[k][2] for k in idx])
        counts = np.array([len(geo.polygons[k][2]) for k in idx], dtype=np.intp)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.intp)
        centre = ((key[0] + 0.5) * GRID_CELL_M, (key[1] + 0.5) * GRID_CELL_M)
        radius = float(np.hypot(pts[:, 0] - centre[0], pts[:, 1] - centre[1]).max())
        geo.cells[key] = GridCell(
            pts,
            starts,
            counts,
            np.array([geo.polygons[k][0] for k in idx], dtype=np.intp),
            [geo.polygons[k][1] for k in idx],
            radius,
            centre,
            first_polygon,
            first_point,
        )
        first_polygon += len(idx)
        first_point += len(pts)
    if order:
        geo.flat_pts_xy_m = np.concatenate([geo.polygons[k][2] for k in order])
        geo.flat_counts = np.array([len(geo.polygons[k][2]) for k in order], dtype=np.intp)
        geo.flat_layer = np.array([geo.polygons[k][0] for k in order], dtype=np.intp)
        geo.flat_rgb = [geo.polygons[k][1] for k in order]
