"""A focused OpenDRIVE reader: the lane-centre geometry CARLA's `Map.get_waypoint` works on,
shared by the CARLA importer and the embedded drive simulator (one lane code for both, so a
CARLA-scored trajectory and a drive one mean the same): `read_opendrive`, `LaneLocator` (nearest
driving-lane centre and signed offset), `RoadMarks` (the lane markings' types).

Why not a PyPI package: `pyOpenDRIVE` needs Python >= 3.12; `pyxodr` pulls matplotlib, shapely,
lxml and rich for what is a few hundred lines here. This reader covers what lane keeping and
red-light checks need, tested against Town01: planView geometry (line, arc, spiral, poly3,
paramPoly3), laneOffset, lane sections and lane widths, junction membership, signals.

Coordinates: OpenDRIVE is right-handed (x east, y north, heading counter-clockwise). CARLA
builds its world from the same file with y negated (left-handed: x forward, y right, z up;
yaw clockwise seen from above), so every point returned here is already in CARLA's frame:
`x_carla = x_odr`, `y_carla = -y_odr`, `yaw_carla = -hdg_odr`.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simbridge import BundleError


class OpenDriveError(BundleError):
    """An OpenDRIVE map cannot be read: names the file and the element."""


#: OpenDRIVE signal type of a traffic light (country OpenDRIVE)
TRAFFIC_LIGHT_TYPE = "1000001"


@dataclass
class _Geometry:
    s: float
    x: float
    y: float
    hdg: float
    length: float
    kind: str
    params: dict[str, float]


@dataclass
class _Lane:
    id: int
    type: str
    #: width records: (sOffset, a, b, c, d)
    widths: list[tuple[float, float, float, float, float]]


@dataclass
class _Section:
    s: float
    left: list[_Lane]
    right: list[_Lane]


@dataclass
class Road:
    id: int
    length: float
    junction: int
    geometries: list[_Geometry]
    lane_offsets: list[tuple[float, float, float, float, float]]
    sections: list[_Section]


@dataclass
class Signal:
    id: str
    road: int
    s: float
    t: float
    type: str
    orientation: str
    name: str
    #: position in CARLA's frame, metres
    x_m: float = 0.0
    y_m: float = 0.0


@dataclass
class LaneSamples:
    """Dense samples of every lane centre of the chosen lane types, in CARLA's frame.

    `yaw_deg` is the direction of travel (right lanes along s, left lanes against it), as a
    CARLA waypoint's transform has it.
    """

    x_m: np.ndarray
    y_m: np.ndarray
    yaw_deg: np.ndarray
    width_m: np.ndarray
    road: np.ndarray
    lane: np.ndarray
    junction: np.ndarray
    s_m: np.ndarray


@dataclass
class OpenDriveMap:
    path: Path
    roads: dict[int, Road]
    signals: list[Signal] = field(default_factory=list)

    def reference_line(self, road_id: int, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """x, y, heading (radians) of a road's reference line at `s`, in OpenDRIVE's own frame."""
        return _eval_plan_view(self.roads[road_id], np.asarray(s, dtype=float))

    def lane_samples(self, *, step_m: float = 0.25, lane_types: tuple[str, ...] = ("driving",)) -> LaneSamples:
        parts: dict[str, list[np.ndarray]] = {k: [] for k in LaneSamples.__dataclass_fields__}
        for road in self.roads.values():
            n = max(2, int(math.ceil(road.length / step_m)) + 1)
            s = np.linspace(0.0, road.length, n)
            x, y, hdg = _eval_plan_view(road, s)
            offset = _poly_at(road.lane_offsets, s, 0.0)
            bounds = [sec.s for sec in road.sections[1:]] + [math.inf]
            for sec, s_end in zip(road.sections, bounds):
                m = (s >= sec.s - 1e-9) & (s < s_end) if math.isfinite(s_end) else (s >= sec.s - 1e-9)
                if not m.any():
                    continue
                ss, ds = s[m], s[m] - sec.s
                for side, lanes in ((1, sec.left), (-1, sec.right)):
                    inner = np.zeros(ss.size)
                    for lane in sorted(lanes, key=lambda ln: abs(ln.id)):
                        w = _width_at(lane.widths, ds)
                        t = offset[m] + side * (inner + w / 2.0)
                        inner = inner + w
                        if lane.type not in lane_types:
                            continue
                        px = x[m] - np.sin(hdg[m]) * t
                        py = y[m] + np.cos(hdg[m]) * t
                        travel = hdg[m] if side < 0 else hdg[m] + math.pi
                        parts["x_m"].append(px)
                        parts["y_m"].append(-py)
                        parts["yaw_deg"].append(-np.degrees(travel))
                        parts["width_m"].append(w)
                        parts["road"].append(np.full(ss.size, road.id))
                        parts["lane"].append(np.full(ss.size, lane.id))
                        parts["junction"].append(np.full(ss.size, road.junction))
                        parts["s_m"].append(ss)
        if not parts["x_m"]:
            raise OpenDriveError(f"{self.path}: no lanes of type {', '.join(lane_types)}")
        cols = {k: np.concatenate(v) for k, v in parts.items()}
        cols["yaw_deg"] = (cols["yaw_deg"] + 180.0) % 360.0 - 180.0
        return LaneSamples(**cols)


# --------------------------------------------------------------------------- parsing


def _f(el: ET.Element, name: str, where: str, default: float | None = None) -> float:
    v = el.get(name)
    if v is None:
        if default is not None:
            return default
        raise OpenDriveError(f"{where}: <{el.tag}> has no '{name}'")
    try:
        return float(v)
    except ValueError:
        raise OpenDriveError(f"{where}: <{el.tag} {name}={v!r}> is not a number") from None


def lane_map(path: str | Path, step_m: float) -> LaneSamples:
    """The driving lanes' centre samples of an OpenDRIVE file every `step_m` (an `AdapterSpec`'s
    `lane_map`: what the report draws under a driving track)."""
    return read_opendrive(path).lane_samples(step_m=step_m)


def read_opendrive(path: str | Path) -> OpenDriveMap:
    path = Path(path)
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as exc:
        raise OpenDriveError(f"{path}: not a readable OpenDRIVE file: {exc}") from None
    if root.tag != "OpenDRIVE":
        raise OpenDriveError(f"{path}: root element is <{root.tag}>, expected <OpenDRIVE>")
    roads: dict[int, Road] = {}
    signals: list[Signal] = []
    for r in root.findall("road"):
        where = f"{path}: road {r.get('id')}"
        try:
            rid = int(r.get("id", ""))
        except ValueError:
            raise OpenDriveError(f"{where}: road id is not an integer") from None
        geoms = []
        for g in r.findall("planView/geometry"):
            kinds = [c for c in g]
            if not kinds:
                raise OpenDriveError(f"{where}: <geometry> without a shape")
            shape = kinds[0]
            params = {k: float(v) for k, v in shape.attrib.items() if _is_number(v)}
            if shape.tag == "paramPoly3":
                params["normalized"] = 1.0 if shape.get("pRange", "normalized") == "normalized" else 0.0
            if shape.tag not in ("line", "arc", "spiral", "poly3", "paramPoly3"):
                raise OpenDriveError(f"{where}: geometry shape <{shape.tag}> is not supported")
            geoms.append(
                _Geometry(
                    _f(g, "s", where),
                    _f(g, "x", where),
                    _f(g, "y", where),
                    _f(g, "hdg", where),
                    _f(g, "length", where),
                    shape.tag,
                    params,
                )
            )
        if not geoms:
            raise OpenDriveError(f"{where}: no planView geometry")
        offsets = [
            (
                _f(o, "s", where),
                _f(o, "a", where, 0.0),
                _f(o, "b", where, 0.0),
                _f(o, "c", where, 0.0),
                _f(o, "d", where, 0.0),
            )
            for o in r.findall("lanes/laneOffset")
        ]
        sections = []
        for sec in r.findall("lanes/laneSection"):

            def lanes(side: str) -> list[_Lane]:
                out = []
                for ln in sec.findall(f"{side}/lane"):
                    widths = [
                        (
                            _f(w, "sOffset", where),
                            _f(w, "a", where),
                            _f(w, "b", where, 0.0),
                            _f(w, "c", where, 0.0),
                            _f(w, "d", where, 0.0),
                        )
                        for w in ln.findall("width")
                    ]
                    out.append(_Lane(int(ln.get("id", "0")), ln.get("type", "none"), widths))
                return out

            sections.append(_Section(_f(sec, "s", where), lanes("left"), lanes("right")))
        sections.sort(key=lambda s: s.s)
        road = Road(
            rid,
            _f(r, "length", where),
            int(r.get("junction", "-1")),
            sorted(geoms, key=lambda g: g.s),
            sorted(offsets),
            sections,
        )
        roads[rid] = road
        for sg in r.findall("signals/signal"):
            signals.append(
                Signal(
                    sg.get("id", ""),
                    rid,
                    _f(sg, "s", where),
                    _f(sg, "t", where, 0.0),
                    sg.get("type", ""),
                    sg.get("orientation", ""),
                    sg.get("name", ""),
                )
            )
    if not roads:
        raise OpenDriveError(f"{path}: no <road> elements")
    m = OpenDriveMap(path, roads, signals)
    for sig in signals:
        x, y, h = m.reference_line(sig.road, np.array([min(max(sig.s, 0.0), m.roads[sig.road].length)]))
        sig.x_m = float(x[0] - math.sin(h[0]) * sig.t)
        sig.y_m = -float(y[0] + math.cos(h[0]) * sig.t)
    return m


def _is_number(v: str) -> bool:
    try:
        float(v)
        return True
    except ValueError:
        return False


# --------------------------------------------------------------------------- geometry


def _poly_at(records: list[tuple[float, float, float, float, float]], s: np.ndarray, default: float) -> np.ndarray:
    """Piecewise cubic a + b ds + c ds^2 + d ds^3 where each record starts at its s."""
    out = np.full(s.shape, default, dtype=float)
    if not records:
        return out
    starts = np.array([r[0] for r in records])
    idx = np.searchsorted(starts, s + 1e-9, side="right") - 1
    for i, (s0, a, b, c, d) in enumerate(records):
        m = idx == i
        if m.any():
            ds = s[m] - s0
            out[m] = a + ds * (b + ds * (c + ds * d))
    return out


def _width_at(widths: list[tuple[float, float, float, float, float]], ds: np.ndarray) -> np.ndarray:
    return _poly_at(sorted(widths), ds, 0.0)


def _eval_plan_view(road: Road, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    starts = np.array([g.s for g in road.geometries])
    idx = np.clip(np.searchsorted(starts, s + 1e-9, side="right") - 1, 0, len(starts) - 1)
    x = np.empty(s.shape)
    y = np.empty(s.shape)
    h = np.empty(s.shape)
    for i, g in enumerate(road.geometries):
        m = idx == i
        if m.any():
            x[m], y[m], h[m] = _eval_geometry(g, np.clip(s[m] - g.s, 0.0, g.length))
    return x, y, h


def _eval_geometry(g: _Geometry, ds: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    c, sn = math.cos(g.hdg), math.sin(g.hdg)
    if g.kind == "line":
        return g.x + c * ds, g.y + sn * ds, np.full(ds.shape, g.hdg)
    if g.kind == "arc":
        k = g.params.get("curvature", 0.0)
        if abs(k) < 1e-12:
            return g.x + c * ds, g.y + sn * ds, np.full(ds.shape, g.hdg)
        h = g.hdg + k * ds
        return g.x + (np.sin(h) - sn) / k, g.y - (np.cos(h) - c) / k, h
    if g.kind == "spiral":
        k0, k1 = g.params.get("curvStart", 0.0), g.params.get("curvEnd", 0.0)
        rate = (k1 - k0) / g.length if g.length > 0 else 0.0
        return _integrate_heading(g, ds, lambda u: g.hdg + k0 * u + 0.5 * rate * u * u)
    # poly3 / paramPoly3: local u, v polynomials, rotated by hdg
    p = g.params
    if g.kind == "poly3":

        def uv(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return q, p.get("a", 0) + q * (p.get("b", 0) + q * (p.get("c", 0) + q * p.get("d", 0)))
    else:

        def uv(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            u = p.get("aU", 0) + q * (p.get("bU", 0) + q * (p.get("cU", 0) + q * p.get("dU", 0)))
            v = p.get("aV", 0) + q * (p.get("bV", 0) + q * (p.get("cV", 0) + q * p.get("dV", 0)))
            return u, v

    # map arc length ds to the curve parameter by integrating the curve's speed on a fine grid
    n = max(64, int(g.length / 0.05) + 1)
    pmax = 1.0 if (g.kind == "paramPoly3" and p.get("normalized", 1.0)) else g.length
    q = np.linspace(0.0, pmax, n)
    u, v = uv(q)
    seg = np.hypot(np.diff(u), np.diff(v))
    arclen = np.concatenate([[0.0], np.cumsum(seg)])
    qs = np.interp(ds, arclen, q) if g.kind == "paramPoly3" else np.interp(ds, arclen, u)
    u, v = uv(qs)
    eps = 1e-6 * pmax
    u2, v2 = uv(qs + eps)
    hl = np.arctan2(v2 - v, u2 - u)
    return g.x + c * u - sn * v, g.y + sn * u + c * v, g.hdg + hl


def _integrate_heading(g: _Geometry, ds: np.ndarray, heading) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = max(64, int(g.length / 0.02) + 1)
    u = np.linspace(0.0, g.length, n)
    h = heading(u)
    du = np.diff(u)
    xs = np.concatenate([[0.0], np.cumsum(0.5 * (np.cos(h[1:]) + np.cos(h[:-1])) * du)])
    ys = np.concatenate([[0.0], np.cumsum(0.5 * (np.sin(h[1:]) + np.sin(h[:-1])) * du)])
    return g.x + np.interp(ds, u, xs), g.y + np.interp(ds, u, ys), heading(ds)


# --------------------------------------------------------------------------- lanes
# Where a vehicle is on the map: nearest driving-lane centre and signed offset from it.
#
# This is what ScenarioRunner's example metric `srunner/metrics/examples/distance_to_lane_center.py`
# computes with `Map.get_waypoint(location)` (nearest driving lane centre): the vector from the
# waypoint to the vehicle, projected on the waypoint's right vector, its sign taken from
# `forward.x * a.y - forward.y * a.x`.
#
# Sign: that metric's comment says "left side is positive", but in CARLA's left-handed frame
# (y to the right) its cross product is positive when the vehicle is to the *right* of the lane
# centre. The canonical `lane_offset_m` is left positive, so it is the metric's value negated:
# `lane_offset_m = -(a . right)`. `scenario_runner_offset_m` returns the metric's own value.


#: beyond the nearest driving lane's edge by more than this (a shoulder, a verge) is off the road
OFF_ROAD_BEYOND_EDGE_M = 3.5


@dataclass
class LanePosition:
    """Per query point: the nearest lane-centre sample and the offset from it."""

    lane_id: np.ndarray
    road_id: np.ndarray
    junction_id: np.ndarray
    lane_width_m: np.ndarray
    #: signed distance to the lane centre, metres, left of the direction of travel positive
    lane_offset_m: np.ndarray
    #: distance to the nearest lane-centre sample (large when off the road)
    distance_m: np.ndarray
    lane_yaw_deg: np.ndarray

    @property
    def scenario_runner_offset_m(self) -> np.ndarray:
        """The value distance_to_lane_center.py reports (positive to the right in CARLA)."""
        return -self.lane_offset_m

    def canonical(self, offset_range_m: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
        """(lane_id, lane_offset_m) as canonical signals. Off the mapped road (the point more
        than OFF_ROAD_BEYOND_EDGE_M outside the nearest driving lane's edge) a sample stays a
        scored sample, never a gap: lane 0 (no driving lane, which a lane-keeping verifier counts
        as another lane) and the offset clipped into `offset_range_m` — a car driven far off the
        road is the driver's failure, not a recording fault."""
        off_road = np.abs(self.lane_offset_m) > self.lane_width_m / 2.0 + OFF_ROAD_BEYOND_EDGE_M
        lane_id = np.where(off_road, 0, self.lane_id).astype(float)
        offset = np.where(off_road, np.clip(self.lane_offset_m, *offset_range_m), self.lane_offset_m)
        return lane_id, offset


class LaneLocator:
    def __init__(self, odr: OpenDriveMap, *, step_m: float = 0.25) -> None:
        self.map = odr
        self.samples: LaneSamples = odr.lane_samples(step_m=step_m)
        self._xy = np.column_stack([self.samples.x_m, self.samples.y_m])
        try:
            from scipy.spatial import cKDTree

            self._tree = cKDTree(self._xy)
        except ImportError:  # scipy is optional: fall back to a chunked brute-force search
            self._tree = None

    def _nearest(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        q = np.column_stack([x, y])
        if self._tree is not None:
            d, i = self._tree.query(q)
            return np.asarray(d), np.asarray(i)
        idx = np.empty(len(q), np.int64)
        dist = np.empty(len(q))
        step = 16  # 16 queries x the map's samples at a time: a few MB
        for lo in range(0, len(q), step):
            blk = q[lo : lo + step]
            d2 = (blk[:, None, 0] - self._xy[None, :, 0]) ** 2 + (blk[:, None, 1] - self._xy[None, :, 1]) ** 2
            k = d2.argmin(1)
            idx[lo : lo + step] = k
            dist[lo : lo + step] = np.sqrt(d2[np.arange(len(blk)), k])
        return dist, idx

    def locate(self, x_m: np.ndarray, y_m: np.ndarray) -> LanePosition:
        """Positions in CARLA's frame (metres) -> lane, road, junction and signed offset."""
        x_m = np.asarray(x_m, dtype=float)
        y_m = np.asarray(y_m, dtype=float)
        s = self.samples
        dist, i = self._nearest(x_m, y_m)
        yaw = np.radians(s.yaw_deg[i])
        ax, ay = x_m - s.x_m[i], y_m - s.y_m[i]
        # CARLA right vector of a yaw (left-handed, y right): (-sin yaw, cos yaw)
        right = -ax * np.sin(yaw) + ay * np.cos(yaw)
        return LanePosition(s.lane[i], s.road[i], s.junction[i], s.width_m[i], -right, dist, s.yaw_deg[i])


# --------------------------------------------------------------------------- markings


def carla_marking(odr_type: str) -> str:
    """OpenDRIVE roadMark type -> CARLA's LaneMarkingType name ("solid solid" -> "SolidSolid")."""
    t = odr_type.strip().lower()
    if t in ("", "none"):
        return "NONE"
    return "".join(w.capitalize() for w in t.split())


class RoadMarks:
    """Each lane's outer-border roadMark types along s: (road, lane) -> sorted [(s, type)]."""

    def __init__(self, xodr: Path) -> None:
        self.marks: dict[tuple[int, int], list[tuple[float, str]]] = {}
        try:
            root = ET.parse(xodr).getroot()
        except (OSError, ET.ParseError) as exc:
            raise OpenDriveError(f"{xodr}: not a readable OpenDRIVE file: {exc}") from None
        for road in root.findall("road"):
            rid = int(road.get("id", "0"))
            for sec in road.findall("lanes/laneSection"):
                s0 = float(sec.get("s", "0"))
                for lane in sec.iter("lane"):
                    lid = int(lane.get("id", "0"))
                    for rm in lane.findall("roadMark"):
                        s = s0 + float(rm.get("sOffset", "0"))
                        self.marks.setdefault((rid, lid), []).append((s, rm.get("type", "none")))
        for v in self.marks.values():
            v.sort()

    def at(self, road: int, lane: int, s: float) -> str:
        """The CARLA marking name of a lane's outer border at `s` ("NONE" when unmarked)."""
        seq = self.marks.get((road, lane))
        if not seq:
            return "NONE"
        i = max(0, bisect_right([m[0] for m in seq], s + 1e-6) - 1)
        return carla_marking(seq[i][1])

    def crossed(self, road: int, lane: int, s: float, side: str) -> str:
        """The marking on the `side` (of the direction of travel) border of a lane: the left
        border is the outer border of the next lane towards the centre line, the right one the
        lane's own outer border."""
        if side == "left":
            return self.at(road, lane - (1 if lane > 0 else -1), s)
        return self.at(road, lane, s)
