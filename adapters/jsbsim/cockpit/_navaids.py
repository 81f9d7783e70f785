"""NAV1 receiver: VORs, localizers and glideslopes from FlightGear's nav.dat, and the needle
deflections an aircraft at a given position sees.

Like the airports, the stations near the catalog airports are extracted once into
`navaids.json` (`python -m simbridge.adapters.jsbsim.cockpit._navaids` regenerates it).

Conventions (canonical): localizer/VOR deviation in dots, right of course positive (the
needle then sits left), 5 dots full scale: VOR 2 deg/dot, LOC 0.5 deg/dot; glideslope dots
above the glidepath positive, 0.14 deg/dot.
"""

from __future__ import annotations

import gzip
import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from simbridge.adapters.jsbsim._airports import CATALOG_AIRPORTS, bearing_deg, distance_m, load_airport

NAV_DAT = Path("/usr/share/games/flightgear/Navaids/nav.dat.gz")
DATA_FILE = Path(__file__).with_name("navaids.json")
EXTRACT_RADIUS_NM = 60.0
NM = 1852.0
VOR_DEG_PER_DOT, LOC_DEG_PER_DOT, GS_DEG_PER_DOT = 2.0, 0.5, 0.14
FULL_SCALE_DOTS = 5.0


@dataclass(frozen=True)
class Station:
    kind: str  # VOR, LOC, GS
    ident: str
    lat_deg: float
    lon_deg: float
    elev_ft: float
    freq_mhz: float
    range_nm: float
    course_true_deg: float = 0.0  # LOC/GS: the approach course
    variation_deg: float = 0.0  # VOR: station declination, east positive
    gs_angle_deg: float = 0.0


def _wrap180(a: float) -> float:
    return (a + 180.0) % 360.0 - 180.0


def parse_nav_dat(
    path: Path = NAV_DAT, near: list[tuple[float, float]] | None = None, radius_nm: float = EXTRACT_RADIUS_NM
) -> list[dict]:
    out = []
    with gzip.open(path, "rt", encoding="latin-1") as fh:
        for line in fh:
            p = line.split()
            if len(p) < 9 or p[0] not in ("3", "4", "5", "6"):
                continue
            lat, lon = float(p[1]), float(p[2])
            if near and not any(distance_m(lat, lon, a, b) < radius_nm * NM for a, b in near):
                continue
            rec = {
                "ident": p[7],
                "lat_deg": lat,
                "lon_deg": lon,
                "elev_ft": float(p[3]),
                "freq_mhz": int(p[4]) / 100.0,
                "range_nm": float(p[5]),
            }
            if p[0] == "3":
                rec.update(kind="VOR", variation_deg=float(p[6]))
            elif p[0] in ("4", "5"):
                rec.update(kind="LOC", course_true_deg=float(p[6]) % 360.0)
            else:
                v = float(p[6])
                # the glideslope angle (deg) times 100000 plus the course (deg true)
                angle = int(v // 1000) / 100.0
                rec.update(kind="GS", gs_angle_deg=angle, course_true_deg=round(v - angle * 100000.0, 3) % 360.0)
            out.append(rec)
    return out


@lru_cache(maxsize=1)
def stations() -> tuple[Station, ...]:
    if DATA_FILE.exists():
        data = json.loads(DATA_FILE.read_text())
    elif NAV_DAT.exists():
        data = parse_nav_dat(NAV_DAT, [load_airport(a).ref_lat_lon for a in CATALOG_AIRPORTS])
    else:
        data = []
    return tuple(Station(**d) for d in data)


@dataclass
class NavReading:
    in_range: bool = False
    kind: str = ""  # VOR or LOC
    ident: str = ""
    dots: float = 0.0  # right of course positive, clamped to +-5
    to_flag: bool = False
    gs_in_range: bool = False
    gs_dots: float = 0.0  # above the glidepath positive, clamped to +-5
    course_true_deg: float = 0.0  # LOC: the approach course


def receive(freq_mhz: float, obs_deg: float, lat: float, lon: float, alt_ft: float) -> NavReading:
    """What NAV1 shows tuned to `freq_mhz` with the OBS at `obs_deg` (magnetic)."""
    best, best_d = None, float("inf")
    glideslopes: dict[str, tuple[Station, float]] = {}
    for s in stations():
        if abs(s.freq_mhz - freq_mhz) > 0.004:
            continue
        d = distance_m(lat, lon, s.lat_deg, s.lon_deg)
        if s.kind == "GS":
            if d < s.range_nm * NM:
                glideslopes[s.ident] = (s, d)
            continue
        if s.kind == "LOC":  # a localizer is received in its front course sector only
            off = _wrap180(bearing_deg(s.lat_deg, s.lon_deg, lat, lon) - (s.course_true_deg + 180.0))
            if abs(off) > 35.0:
                continue
        if d < s.range_nm * NM and d < best_d:
            best, best_d = s, d
    r = NavReading()
    if best is None:
        return r
    from_stn = bearing_deg(best.lat_deg, best.lon_deg, lat, lon)
    if best.kind == "VOR":
        radial = (from_stn - best.variation_deg) % 360.0
        dev = _wrap180(radial - obs_deg)
        if abs(dev) <= 90.0:  # FROM: on radial `obs`, right of course is clockwise
            right = dev
        else:  # TO: flying `obs` towards the station
            right = -_wrap180(radial - (obs_deg + 180.0))
            r.to_flag = True
        r.dots = max(-FULL_SCALE_DOTS, min(FULL_SCALE_DOTS, right / VOR_DEG_PER_DOT))
    else:
        off = _wrap180(from_stn - (best.course_true_deg + 180.0))
        r.dots = max(-FULL_SCALE_DOTS, min(FULL_SCALE_DOTS, -off / LOC_DEG_PER_DOT))
        r.course_true_deg = best.course_true_deg
        r.to_flag = True
        gs = glideslopes.get(best.ident)
        if gs is not None:
            s, d = gs
            angle = math.degrees(math.atan2((alt_ft - s.elev_ft) * 0.3048, max(d, 1.0)))
            r.gs_in_range = True
            r.gs_dots = max(-FULL_SCALE_DOTS, min(FULL_SCALE_DOTS, (angle - s.gs_angle_deg) / GS_DEG_PER_DOT))
    r.in_range, r.kind, r.ident = True, best.kind, best.ident
    return r


def main() -> None:
    near = [load_airport(a).ref_lat_lon for a in CATALOG_AIRPORTS]
    data = parse_nav_dat(NAV_DAT, near)
    DATA_FILE.write_text(json.dumps(data, indent=0) + "\n")
    print(f"wrote {DATA_FILE} ({len(data)} stations)")


if __name__ == "__main__":
    main()
