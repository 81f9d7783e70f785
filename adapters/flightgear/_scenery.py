"""Runways as FlightGear's scenery draws them.

A pilot lands on the pavement the scenery shows; a task's geometry (and so its verifier) has the
runway from apt.dat. The two come from different data: Debian's scenery was built by TerraGear
from an older apt.dat than the one FlightGear ships. This reads an airport's surfaces from its
`.btg.gz` (SimGear's binary object format, `simgear/io/sg_binobj.cxx`, versions 7 and 10) into
latitude and longitude, so the two can be compared (docs/flightgear.md, "The runway drawn").
"""

from __future__ import annotations

import gzip
import math
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simbridge import HarnessError

#: object types (sg_binobj.hxx): the bounding sphere, the vertex list, triangle primitives
_BOUNDING_SPHERE, _VERTEX_LIST, _TRIANGLE_TYPES = 0, 1, (10, 11, 12)
#: property types: the material's name, the index layout (bit flags per vertex of a primitive)
_MATERIAL, _INDEX_TYPES = 0, 1
#: index layout when an object gives none: a vertex and a texture coordinate each
_DEFAULT_INDEX_TYPES = 0x01 | 0x08
#: paved materials that are not the runway itself: its shoulders, taxiways and aprons, helipads
NOT_RUNWAY = ("shoulder", "tiedown", "heli")
#: WGS84
_A_M, _F = 6378137.0, 1 / 298.257223563


@dataclass(frozen=True)
class SceneryMesh:
    """One `.btg` object file: its vertices (degrees, metres) and, per material, the vertices
    its triangles use."""

    lat_deg: np.ndarray
    lon_deg: np.ndarray
    elev_m: np.ndarray
    vertices_by_material: dict[str, np.ndarray]

    def surface(self, prefix: str, exclude: tuple[str, ...] = NOT_RUNWAY) -> tuple[np.ndarray, np.ndarray]:
        """(lat_deg, lon_deg) of every vertex of the materials whose names start with `prefix`
        (TerraGear's paved surfaces are `pa_*`, asphalt, and `pc_*`, concrete) and contain none
        of `exclude`."""
        found = [
            v
            for name, v in self.vertices_by_material.items()
            if name.startswith(prefix) and not any(x in name for x in exclude)
        ]
        if not found:
            raise HarnessError(f"no scenery material starting {prefix!r}")
        idx = np.unique(np.concatenate(found))
        return self.lat_deg[idx], self.lon_deg[idx]


def _geodetic(xyz: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Earth-centred metres to WGS84 latitude, longitude (degrees) and height (m)."""
    e2 = _F * (2 - _F)
    x, y, z = xyz[:, 0], xyz[:, 1], xyz[:, 2]
    r = np.hypot(x, y)
    lat = np.arctan2(z, r * (1 - e2))
    for _ in range(5):  # converges to well under a millimetre
        n = _A_M / np.sqrt(1 - e2 * np.sin(lat) ** 2)
        lat = np.arctan2(z + e2 * n * np.sin(lat), r)
    n = _A_M / np.sqrt(1 - e2 * np.sin(lat) ** 2)
    return np.degrees(lat), np.degrees(np.arctan2(y, x)), r / np.cos(lat) - n


def read_btg(path: str | Path) -> SceneryMesh:
    """The vertices and the triangles' materials of a `.btg.gz` (or `.btg`)."""
    path = Path(path)
    raw = path.read_bytes()
    data = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    version, magic = struct.unpack_from("<HH", data, 0)
    if magic != 0x5347 or version not in (7, 10):
        raise HarnessError(f"{path}: not a SimGear binary object of version 7 or 10")
    wide = version >= 10
    (count,) = struct.unpack_from("<I" if wide else "<H", data, 8)
    at = 12 if wide else 10
    centre = vertices = None
    used: dict[str, list[np.ndarray]] = {}
    try:
        for _ in range(count):
            kind, n_props, n_elems = struct.unpack_from("<BII" if wide else "<BHH", data, at)
            at += 9 if wide else 5
            props: dict[int, bytes] = {}
            for _ in range(n_props):
                ptype, size = struct.unpack_from("<BI", data, at)
                props[ptype] = data[at + 5 : at + 5 + size]
                at += 5 + size
            elems = []
            for _ in range(n_elems):
                (size,) = struct.unpack_from("<I", data, at)
                elems.append(data[at + 4 : at + 4 + size])
                at += 4 + size
            if kind == _BOUNDING_SPHERE and elems:
                centre = np.array(struct.unpack_from("<ddd", elems[0], 0))
            elif kind == _VERTEX_LIST and elems:
                vertices = np.frombuffer(elems[0], dtype="<f4").reshape(-1, 3).astype(float)
            elif kind in _TRIANGLE_TYPES:
                layout = props[_INDEX_TYPES][0] if _INDEX_TYPES in props else _DEFAULT_INDEX_TYPES
                per_vertex = bin(layout).count("1")
                name = props.get(_MATERIAL, b"").decode("ascii", "replace")
                for e in elems:
                    idx = np.frombuffer(e, dtype="<u4" if wide else "<u2").reshape(-1, per_vertex)
                    used.setdefault(name, []).append(idx[:, 0].astype(np.int64))
    except (struct.error, ValueError, IndexError) as exc:
        raise HarnessError(f"{path}: truncated or malformed at byte {at}: {exc}") from None
    if centre is None or vertices is None:
        raise HarnessError(f"{path}: no bounding sphere or no vertex list")
    lat, lon, elev = _geodetic(vertices + centre)
    return SceneryMesh(lat, lon, elev, {k: np.unique(np.concatenate(v)) for k, v in used.items()})


def centreline_left_m(along_m: np.ndarray, left_m: np.ndarray, bins_m: np.ndarray) -> np.ndarray:
    """The drawn runway's centre (m left of a frame's centreline) in each bin of `bins_m` along
    it: half-way between its two edges there, the outermost vertices; NaN where none."""
    out = np.full(len(bins_m) - 1, math.nan)
    for i, (lo, hi) in enumerate(zip(bins_m[:-1], bins_m[1:])):
        inside = (along_m >= lo) & (along_m < hi)
        if inside.any():
            out[i] = (left_m[inside].min() + left_m[inside].max()) / 2.0
    return out
