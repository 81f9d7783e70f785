"""Bridge Command NMEA output generated with the exact formats of bridgecommand/bc @ 527f26b3
`src/NMEA.cpp` (one sentence per 100 ms, round-robin in `enum NMEAMessage` order, checksummed,
CR LF; line numbers in adapters/bridgecommand/nmea.py) from a keyframed own-ship track in
metres east/north of a reference point."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

R_EARTH_M = 6_371_008.8
ORDER = ["RMC", "GPROT", "GLL", "RSA", "RPM", "GPHDT", "HEROT", "TTM", "GGA", "ZDA", "DTM", "HEHDT", "TIROT", "DPT"]


def checksum(body: str) -> str:
    c = 0
    for ch in body.encode("ascii"):
        c ^= ch
    return f"{c:02X}"


def with_checksum(msg: str) -> str:
    """NMEA::addChecksum: XOR of every character after the first, '*', 2 hex digits, CR LF."""
    return f"{msg}*{checksum(msg[1:])}\r\n"


def _fmt_lat_lon(lat: float, lon: float) -> tuple[str, str, str, str]:
    """NMEA.cpp:407-426 and :432: lat/lon held as irr::f32, minutes = (x − (int)x)·60 in f32,
    printed "%02u%06.3f" / "%03u%06.3f" (minutes close to 60 print as 60.000)."""
    lat32, lon32 = np.float32(lat), np.float32(lon)
    ns, ew = ("S" if lat32 < 0 else "N"), ("W" if lon32 < 0 else "E")
    lat32, lon32 = np.abs(lat32), np.abs(lon32)
    lat_min = (lat32 - np.float32(int(lat32))) * np.float32(60)
    lon_min = (lon32 - np.float32(int(lon32))) * np.float32(60)
    return (f"{int(lat32):02d}{float(lat_min):06.3f}", ns, f"{int(lon32):03d}{float(lon_min):06.3f}", ew)


def sentence(
    kind: str,
    *,
    tod_s: float,
    date: str,
    lat: float,
    lon: float,
    sog_kt: float,
    cog_deg: float,
    hdg_deg: float,
    depth_m: float,
    rot: float = 0.0,
    rudder: float = 0.0,
    version: str = "5.11",
) -> str:
    """One message. version "5.10.1": the release whose time and date strings are empty
    (dangling `c_str()` pointers in NMEA::updateNMEA, bridgecommand/bc v5.10.1 src/NMEA.cpp
    :381-390, fixed in 049157fb for 5.10.3): `$GPRMC,.00,A,…,,,,A,S`, `$GPGGA,.00,…`,
    `$GPGLL,…,.00,A,A`, `$RAZDA,.00,,,,00,00`."""
    hh, mm, ss = int(tod_s // 3600), int(tod_s % 3600 // 60), int(tod_s % 60)
    hms = f"{hh:02d}{mm:02d}{ss:02d}"
    la, ns, lo, ew = _fmt_lat_lon(lat, lon)
    y, mo, d = date[0:4], date[5:7], date[8:10]
    if version == "5.10.1":
        hms = y = mo = d = ""
    msg = {
        "RMC": f"$GPRMC,{hms}.00,A,{la},{ns},{lo},{ew},{sog_kt:.1f},{cog_deg:.1f},{y}{mo}{d},,,A,S",
        "GPROT": f"$GPROT,{rot:.1f},A",
        "GLL": f"$GPGLL,{la},{ns},{lo},{ew},{hms}.00,A,A",
        "RSA": f"$IIRSA,{rudder:.1f},A,,V",
        "RPM": None,
        "GPHDT": f"$GPHDT,{hdg_deg:.1f},T",
        "HEROT": f"$HEROT,{rot:.1f},A",
        "TTM": None,  # no ARPA tracks: nothing sent
        "GGA": f"$GPGGA,{hms}.00,{la},{ns},{lo},{ew},1,12,0.0,0.0,M,0.0,M,,",
        "ZDA": f"$RAZDA,{hms}.00,{d},{mo},{y},00,00",
        "DTM": "$RADTM,W84,,,,,,,",
        "HEHDT": f"$HEHDT,{hdg_deg:.1f},T",
        "TIROT": f"$TIROT,{rot:.1f},A",
        "DPT": f"$SDDPT,{depth_m:.1f},,",
    }[kind]
    if kind == "RPM":  # two sentences in one datagram
        return "".join(with_checksum(f"$IIRPM,S,{i + 1},{r},100,A") for i, r in enumerate((120, 120)))
    return "" if msg is None else with_checksum(msg)


def track(
    keyframes: Sequence[tuple[float, float, float, float]],
    lat0: float,
    lon0: float,
    *,
    hz: float = 10.0,
    depth_m: float | Sequence[tuple[float, float]] = 8.0,
) -> list[tuple[float, dict]]:
    """(t, state) every 1/hz s along keyframes (t, east_m, north_m, heading_deg), linear between
    them; SOG/COG from each segment's velocity. depth: constant or keyframes (t, depth_m)."""
    out = []
    t_end = keyframes[-1][0]
    n = int(round(t_end * hz))
    for i in range(n + 1):
        t = i / hz
        j = max(k for k in range(len(keyframes) - 1) if keyframes[k][0] <= t) if t < t_end else len(keyframes) - 2
        (ta, ea, na, ha), (tb, eb, nb, hb) = keyframes[j], keyframes[j + 1]
        f = (t - ta) / (tb - ta)
        e, nn, h = ea + (eb - ea) * f, na + (nb - na) * f, ha + (hb - ha) * f
        ve, vn = (eb - ea) / (tb - ta), (nb - na) / (tb - ta)
        sog = math.hypot(ve, vn) / 0.514444
        cog = math.degrees(math.atan2(ve, vn)) % 360
        lat = lat0 + math.degrees(nn / R_EARTH_M)
        lon = lon0 + math.degrees(e / (R_EARTH_M * math.cos(math.radians(lat0))))
        if isinstance(depth_m, (int, float)):
            dep = float(depth_m)
        else:
            dep = next(dv for dt_, dv in reversed(list(depth_m)) if dt_ <= t)
        out.append((t, dict(lat=lat, lon=lon, sog_kt=sog, cog_deg=cog, hdg_deg=h % 360, depth_m=dep)))
    return out


def emit(
    states: list[tuple[float, dict]],
    *,
    tod0_s: float = 12 * 3600.0,
    date: str = "2026-11-30",
    stamped: bool = True,
    version: str = "5.11",
) -> str:
    """The capture text: one sentence per 100 ms step in Bridge Command's round-robin order;
    stamped = prefixed by the receive time, as NmeaUdpRecorder writes."""
    lines = []
    for k, (t, st) in enumerate(states):
        text = sentence(ORDER[k % len(ORDER)], tod_s=tod0_s + t, date=date, version=version, **st)
        for s in text.split("\r\n"):
            if s:
                lines.append(f"{t:.3f} {s}" if stamped else s)
    return "\n".join(lines) + "\n"
