"""Airport geometry for the embedded simulator: runways, field elevation and parking spots.

The data comes from FlightGear's `apt.dat.gz` (X-Plane format, runway lines `100`, startup
lines `15`/`1300`). Reading the 27 MB file takes seconds, so the airports the catalog uses are
extracted once into `airports.json` next to this module (`python -m
simbridge.adapters.jsbsim._airports` regenerates it); unknown airports fall back to apt.dat.
"""

from __future__ import annotations

import gzip
import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TypedDict

APT_DAT = Path("/usr/share/games/flightgear/Airports/apt.dat.gz")
DATA_FILE = Path(__file__).with_name("airports.json")
CATALOG_AIRPORTS = ("KSEA", "KPAO", "KSFO", "KHAF", "KBOS", "PHJR", "PHNL")
EARTH_RADIUS_M = 6_371_008.8
#: magnetic variation, degrees east (WMM 2025, rounded); magnetic = true - variation
MAG_VAR_EAST_DEG = {"KSEA": 15.2, "KPAO": 12.9, "KSFO": 12.9, "KHAF": 13.0, "KBOS": -14.0, "PHJR": 9.4, "PHNL": 9.4}
M_TO_FT = 3.280839895


@dataclass(frozen=True)
class RunwayEnd:
    """One end of a runway: the aircraft lines up at `lat/lon` (after `displaced_m`)."""

    ident: str
    lat_deg: float
    lon_deg: float
    displaced_m: float
    heading_true_deg: float


@dataclass(frozen=True)
class Runway:
    width_m: float
    ends: tuple[RunwayEnd, RunwayEnd]

    @property
    def length_m(self) -> float:
        a, b = self.ends
        return distance_m(a.lat_deg, a.lon_deg, b.lat_deg, b.lon_deg)


@dataclass(frozen=True)
class Parking:
    name: str
    lat_deg: float
    lon_deg: float
    heading_true_deg: float


@dataclass(frozen=True)
class Airport:
    icao: str
    name: str
    elevation_ft: float
    runways: tuple[Runway, ...]
    parkings: tuple[Parking, ...]

    @property
    def ref_lat_lon(self) -> tuple[float, float]:
        """A reference point: the mean of the runway thresholds."""
        pts = [(e.lat_deg, e.lon_deg) for r in self.runways for e in r.ends]
        return sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)

    def runway_end(self, ident: str) -> tuple[Runway, RunwayEnd]:
        for rwy in self.runways:
            for end in rwy.ends:
                if end.ident == ident:
                    return rwy, end
        known = ", ".join(e.ident for r in self.runways for e in r.ends)
        raise KeyError(f"{self.icao}: no runway {ident!r} (known: {known})")

    def parking(self, name: str | None) -> Parking:
        """The parking spot whose name contains `name` (case-insensitive); the first one if None."""
        if not self.parkings:
            raise KeyError(f"{self.icao}: no parking positions in apt.dat")
        if not name:
            return self.parkings[0]
        key = name.lower().replace("_", " ")
        for p in self.parkings:
            if p.name.lower() == key:
                return p
        for p in self.parkings:
            if key in p.name.lower():
                return p
        words = set(key.split())
        scored = sorted(self.parkings, key=lambda p: -len(words & set(p.name.lower().split())))
        if words & set(scored[0].name.lower().split()):
            return scored[0]
        raise KeyError(f"{self.icao}: no parking {name!r} (known: {', '.join(p.name for p in self.parkings)})")


def distance_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(math.sqrt(a))


def bearing_deg(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dl = math.radians(lon2 - lon1)
    y = math.sin(dl) * math.cos(p2)
    x = math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl)
    return math.degrees(math.atan2(y, x)) % 360.0


def to_local_m(lat: float, lon: float, ref_lat: float, ref_lon: float) -> tuple[float, float]:
    """Flat-earth east/north metres from a reference point (fine within a few tens of km)."""
    north = math.radians(lat - ref_lat) * EARTH_RADIUS_M
    east = math.radians(lon - ref_lon) * EARTH_RADIUS_M * math.cos(math.radians(ref_lat))
    return east, north


def from_local_m(east: float, north: float, ref_lat: float, ref_lon: float) -> tuple[float, float]:
    lat = ref_lat + math.degrees(north / EARTH_RADIUS_M)
    lon = ref_lon + math.degrees(east / (EARTH_RADIUS_M * math.cos(math.radians(ref_lat))))
    return lat, lon


def _reciprocal(ident: str) -> str:
    num = "".join(c for c in ident if c.isdigit())
    side = {"L": "R", "R": "L", "C": "C"}.get(ident[len(num) :], "")
    return f"{(int(num) + 17) % 36 + 1:02d}{side}" if num else ident


class _EndRecord(TypedDict):
    """One runway end as stored in airports.json (the RunwayEnd fields)."""

    ident: str
    lat_deg: float
    lon_deg: float
    displaced_m: float
    heading_true_deg: float


class _RunwayRecord(TypedDict):
    width_m: float
    ends: list[_EndRecord]


class _ParkingRecord(TypedDict):
    name: str
    lat_deg: float
    lon_deg: float
    heading_true_deg: float


class _AirportRecord(TypedDict):
    """One airport as stored in airports.json: the shape parse_apt_dat writes and _build reads."""

    icao: str
    name: str
    elevation_ft: float
    runways: list[_RunwayRecord]
    parkings: list[_ParkingRecord]


def parse_apt_dat(path: Path = APT_DAT, wanted: tuple[str, ...] = CATALOG_AIRPORTS) -> dict[str, _AirportRecord]:
    """Raw records of the wanted airports from apt.dat (X-Plane 10/11 format)."""
    out: dict[str, _AirportRecord] = {}
    cur: _AirportRecord | None = None
    with gzip.open(path, "rt", encoding="latin-1") as fh:
        for line in fh:
            p = line.split()
            if not p:
                continue
            code = p[0]
            if code in ("1", "16", "17"):
                cur = None
                if len(p) > 4 and p[4] in wanted:
                    cur = {
                        "icao": p[4],
                        "name": " ".join(p[5:]),
                        "elevation_ft": float(p[1]),
                        "runways": [],
                        "parkings": [],
                    }
                    out[p[4]] = cur
                elif len(out) == len(wanted):
                    break
            elif cur is None:
                continue
            elif code == "100":
                e1, e2 = p[8:17], p[17:26]
                ends: list[_EndRecord] = []
                for e, other in ((e1, e2), (e2, e1)):
                    lat, lon = float(e[1]), float(e[2])
                    hdg = bearing_deg(lat, lon, float(other[1]), float(other[2]))
                    ends.append(
                        {
                            "ident": e[0],
                            "lat_deg": lat,
                            "lon_deg": lon,
                            "displaced_m": float(e[3]),
                            "heading_true_deg": round(hdg, 2),
                        }
                    )
                for a, b in ((ends[0], ends[1]), (ends[1], ends[0])):
                    if not any(ch.isdigit() for ch in a["ident"]):  # apt.dat has 'xxx' for KPAO 13
                        a["ident"] = _reciprocal(b["ident"])
                cur["runways"].append({"width_m": float(p[1]), "ends": ends})
            elif code in ("15", "1300"):
                name = " ".join(p[4:]) if code == "15" else " ".join(p[6:])
                cur["parkings"].append(
                    {"name": name, "lat_deg": float(p[1]), "lon_deg": float(p[2]), "heading_true_deg": float(p[3])}
                )
    return out


def _runway(rec: _RunwayRecord) -> Runway:
    first, second = rec["ends"]  # a runway line always has exactly two ends
    return Runway(rec["width_m"], (RunwayEnd(**first), RunwayEnd(**second)))


def _build(rec: _AirportRecord) -> Airport:
    runways = tuple(_runway(r) for r in rec["runways"])
    parkings = tuple(Parking(**p) for p in rec["parkings"])
    return Airport(rec["icao"], rec["name"], rec["elevation_ft"], runways, parkings)


@lru_cache(maxsize=None)
def load_airport(icao: str) -> Airport:
    """The airport `icao` from the shipped extract, else from apt.dat. Raises KeyError if unknown."""
    icao = icao.upper()
    if DATA_FILE.exists():
        data = json.loads(DATA_FILE.read_text())
        if icao in data:
            return _build(data[icao])
    if APT_DAT.exists():
        data = parse_apt_dat(APT_DAT, (icao,))
        if icao in data:
            return _build(data[icao])
    raise KeyError(f"unknown airport {icao!r} (not in {DATA_FILE.name} nor {APT_DAT})")


def main() -> None:
    data = parse_apt_dat()
    DATA_FILE.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {DATA_FILE} ({', '.join(sorted(data))})")


if __name__ == "__main__":
    main()
