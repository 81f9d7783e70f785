"""The airport the aircraft is at, from X-Plane's own apt.dat on the host.

X-Plane has no dataref for "current airport"; T08 needs one because the agent starts the flight
through X-Plane's screens. When the installation folder is known (it is, for the lockdown check)
the harness finds the airport whose runway ends lie nearest the aircraft in the install's
apt.dat (row 1/16/17 = airport header, row 100 = land runway with both ends' coordinates).
"""

from __future__ import annotations

import gzip
import math
from pathlib import Path

APT_DAT_CANDIDATES = (
    "Global Scenery/Global Airports/Earth nav data/apt.dat",
    "Resources/default scenery/default apt dat/Earth nav data/apt.dat",
)


def find_apt_dat(install_dir: str | Path) -> Path | None:
    for rel in APT_DAT_CANDIDATES:
        for p in (Path(install_dir) / rel, Path(install_dir) / (rel + ".gz")):
            if p.is_file():
                return p
    return None


def _dist_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    x = math.radians(lon2 - lon1) * math.cos(math.radians((lat1 + lat2) / 2))
    return 6_371_000 * math.hypot(x, math.radians(lat2 - lat1))


def nearest_airport(apt_dat: str | Path, lat_deg: float, lon_deg: float, *, max_m: float = 5000.0) -> str | None:
    """ICAO id of the airport with a runway end (or helipad) nearest to (lat, lon), within `max_m`."""
    path = Path(apt_dat)
    opener = gzip.open if path.suffix == ".gz" else open
    best, best_d, ident = None, max_m, None
    with opener(path, "rt", encoding="latin-1") as fh:
        for line in fh:
            code = line[:4].split(" ", 1)[0]
            if code in ("1", "16", "17"):
                parts = line.split()
                ident = parts[4] if len(parts) > 4 else None
            elif code in ("100", "102") and ident:
                parts = line.split()
                coords = [(9, 10), (18, 19)] if code == "100" else [(2, 3)]
                for i, j in coords:
                    try:
                        d = _dist_m(lat_deg, lon_deg, float(parts[i]), float(parts[j]))
                    except (IndexError, ValueError):
                        continue
                    if d < best_d:
                        best, best_d = ident, d
    return best
