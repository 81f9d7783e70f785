"""Trace builders for T08, T11, T12, T15, T16 and T20 tests: simple kinematics, not a flight model.

Numbers the tests expect are worked out by hand from the builders' arguments. Also a tiny PDF
writer for the T20 OFP (one page of Courier text), so the committed PDF can be regenerated and
checked against its text source.
"""

from __future__ import annotations

import math
import re

import numpy as np

R_EARTH_M = 6_371_008.8
KT = 0.514444
FT = 0.3048


def local_to_latlon(east_m, north_m, lat0: float, lon0: float):
    """Inverse of primitives.latlon_to_local_m (equirectangular, small areas)."""
    lat = lat0 + np.degrees(np.asarray(north_m, dtype=float) / R_EARTH_M)
    lon = lon0 + np.degrees(np.asarray(east_m, dtype=float) / (R_EARTH_M * np.cos(np.radians((lat + lat0) / 2))))
    return lat, lon


# --------------------------------------------------------------------------- T11 engine failure

KHAF_30 = (37.50841444, -122.49527344)  # runway 30 threshold (apt.dat)
RWY30_TRUE = 317.06
MONTARA = (37.5475, -122.5137)  # inside the Montara State Beach strip
OCEAN = (37.5160, -122.5400)  # west of the coast, no landable area


def efato(
    hz: float = 100.0,
    *,
    fail_agl_ft: float = 1000.0,
    target: tuple[float, float] = MONTARA,
    glide_ias_kt: float = 68.0,
    td_vs_fpm: float = -250.0,
    crash: bool = False,
    final_bank_deg: float = 0.0,
    inject: bool = True,
    tail_s: float = 20.0,
) -> tuple[dict[str, np.ndarray], list[dict], float]:
    """Take-off from KHAF 30, climb at 74 KIAS / 700 fpm, engine failure at `fail_agl_ft`, a 3 s
    turn onto the bearing of `target`, a straight glide at `glide_ias_kt` with the sink rate that
    reaches `target`, a flare below 20 ft (sink `td_vs_fpm`, IAS bleeding 10 kt), touchdown, a
    2.5 m/s² roll-out to a stop. Returns (columns, events, failure time)."""
    dt = 1.0 / hz
    rows = []
    t, x, y, h = 0.0, 0.0, 0.0, 0.0  # x east, y north (m) from the threshold; h = AGL ft
    hdg, ias, vs, ground, crashed = RWY30_TRUE, 0.0, 0.0, 1.0, 0.0
    phase, t_fail, t_td = "roll", math.nan, math.nan
    tx, ty = (np.asarray(v).item() for v in _local(*target))
    sink_fpm, brg, hdg0 = 0.0, 0.0, 0.0
    while True:
        if phase == "roll":
            ias = min(55.0, ias + 2.75 * dt)
            if ias >= 55.0:
                phase, ground = "climb", 0.0
        elif phase == "climb":
            ias = min(74.0, ias + 2.0 * dt)
            vs = 700.0
            if h >= fail_agl_ft:
                phase, t_fail, hdg0 = "glide", t, hdg
                brg = math.degrees(math.atan2(tx - x, ty - y)) % 360
                dist = math.hypot(tx - x, ty - y)
                sink_fpm = glide_ias_kt * KT * (h - 20.0) * FT / dist * 196.85
        elif phase == "glide":
            k = min(1.0, (t - t_fail) / 3.0)
            hdg = (hdg0 + k * ((brg - hdg0 + 180) % 360 - 180)) % 360
            ias += (glide_ias_kt - ias) * min(1.0, 2.0 * dt)
            vs = -sink_fpm
            if h <= 20.0:
                phase = "flare"
        elif phase == "flare":
            ias = max(glide_ias_kt - 10.0, ias - 2.0 * dt)
            vs = td_vs_fpm
            if h <= 0.0:
                phase, t_td, h, ground = "rollout", t, 0.0, 1.0
                crashed = 1.0 if crash else 0.0
        elif phase == "rollout":
            vs = 0.0
            ias = max(0.0, ias - 2.5 / KT * dt)
            if ias == 0.0 and t - t_td > 5.0:
                phase, t_stop = "stopped", t
        elif phase == "stopped" and t - t_stop > tail_s:
            break
        bank = final_bank_deg if phase == "stopped" else 0.0
        rows.append((t, x, y, h, ias, vs, hdg, ground, crashed, bank))
        v = ias * KT
        x += v * math.sin(math.radians(hdg)) * dt
        y += v * math.cos(math.radians(hdg)) * dt
        if phase not in ("roll", "rollout", "stopped"):
            h = max(0.0, h + vs / 60.0 * dt) if phase != "climb" else h + vs / 60.0 * dt
        t += dt
    a = np.array(rows)
    lat, lon = local_to_latlon(a[:, 1], a[:, 2], *KHAF_30)
    cols = {
        "t": a[:, 0],
        "lat_deg": lat,
        "lon_deg": lon,
        "alt_agl_ft": a[:, 3],
        "ias_kt": a[:, 4],
        "gs_kt": a[:, 4],
        "vs_fpm": a[:, 5],
        "heading_true_deg": a[:, 6],
        "on_ground": a[:, 7],
        "crashed": a[:, 8],
        "bank_deg": a[:, 9],
        "pitch_deg": np.zeros(len(a)),
    }
    events = (
        [{"t": float(t_fail), "kind": "failure_injected", "data": {"system": "engine", "agl_ft": fail_agl_ft}}]
        if inject
        else []
    )
    return cols, events, float(t_fail)


def _local(lat: float, lon: float):
    from simbridge.primitives import latlon_to_local_m

    return latlon_to_local_m(lat, lon, *KHAF_30)


# --------------------------------------------------------------------------- T12 hover

KLVK_H1 = (37.6955795, -121.82042912)


def hover(
    hz: float = 20.0,
    *,
    hover_s: float = 40.0,
    skid_ft: float = 7.5,
    drift_m: float = 1.0,
    offset_m: tuple[float, float] = (0.0, 0.0),
    land_offset_m: tuple[float, float] = (0.0, 0.0),
    sensor_offset_ft: float = 3.5,
    crash_at: float | None = None,
) -> dict[str, np.ndarray]:
    """10 s on the pad, 5 s climb to `skid_ft`, `hover_s` s hovering at `offset_m` from the centre
    with a slow circular drift of `drift_m`, 5 s moving to `land_offset_m` and descending, 10 s on
    the ground. The AGL sensor reads `sensor_offset_ft` above the skids."""
    t = np.arange(0.0, 10 + 5 + hover_s + 5 + 10 + 1e-9, 1.0 / hz)
    a = t - 10.0
    b = a - 5.0 - hover_s
    h = np.where(
        a < 0,
        0.0,
        np.where(a < 5, skid_ft * a / 5, np.where(b < 0, skid_ft, np.where(b < 5, skid_ft * (1 - b / 5), 0.0))),
    )
    ground = ((a < 0) | (b >= 5)).astype(float)
    ph = 2 * np.pi * np.clip(a - 5, 0, None) / 20.0
    ex = offset_m[0] + drift_m * np.sin(ph) * ((a >= 5) & (b < 0))
    ny = offset_m[1] + drift_m * (1 - np.cos(ph)) * ((a >= 5) & (b < 0))
    k = np.clip(b / 5, 0, 1)
    east = np.where(
        b >= 0,
        offset_m[0] + k * (land_offset_m[0] - offset_m[0]),
        np.where(a < 5, offset_m[0] * np.clip(a / 5, 0, 1), ex),
    )
    north = np.where(
        b >= 0,
        offset_m[1] + k * (land_offset_m[1] - offset_m[1]),
        np.where(a < 5, offset_m[1] * np.clip(a / 5, 0, 1), ny),
    )
    lat, lon = local_to_latlon(east, north, *KLVK_H1)
    crashed = np.zeros_like(t) if crash_at is None else (t >= crash_at).astype(float)
    return {
        "t": t,
        "lat_deg": lat,
        "lon_deg": lon,
        "alt_agl_ft": h + sensor_offset_ft,
        "on_ground": ground,
        "crashed": crashed,
    }


# --------------------------------------------------------------------------- ground / cockpit traces


def ground(hz: float = 1.0, seconds: float = 60.0, **const: float) -> dict[str, np.ndarray]:
    """A parked aircraft: `on_ground` 1 plus any constant columns."""
    t = np.arange(0.0, seconds + 1e-9, 1.0 / hz)
    cols = {"t": t, "on_ground": np.ones_like(t)}
    cols.update({k: np.full_like(t, v) for k, v in const.items()})
    return cols


def radio_session(
    hz: float = 5.0,
    seconds: float = 120.0,
    *,
    start: dict[str, float],
    final: dict[str, float],
    set_at: dict[str, float],
) -> dict[str, np.ndarray]:
    """Each radio signal holds its `start` value until its `set_at` time, then the `final` one."""
    t = np.arange(0.0, seconds + 1e-9, 1.0 / hz)
    cols = {"t": t}
    for k, v0 in start.items():
        cols[k] = np.where(t < set_at.get(k, 0.0), v0, final.get(k, v0))
    return cols


# --------------------------------------------------------------------------- PDF


def _pdf_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def text_pdf(lines: list[str], *, title: str = "", font_pt: float = 8.5, leading_pt: float = 11.0) -> bytes:
    """A one-page US Letter PDF of monospaced lines (Courier), with a correct xref table."""
    body = [f"BT /F1 {font_pt:g} Tf {leading_pt:g} TL 36 756 Td"]
    body += [f"({_pdf_escape(line)}) Tj T*" for line in lines]
    body.append("ET")
    stream = "\n".join(body).encode("ascii")
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>",
        b"<< /Title (" + _pdf_escape(title).encode("ascii") + b") /Producer (simbridge) >>",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, o in enumerate(objs, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + o + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{off:010d} 00000 n \n".encode() for off in offsets)
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def pdf_lines(data: bytes) -> list[str]:
    """The text lines of a PDF written by `text_pdf` (checks the xref offsets on the way)."""
    xref = int(re.search(rb"startxref\n(\d+)", data).group(1))
    assert data[xref : xref + 4] == b"xref"
    for n, off in enumerate(re.findall(rb"(\d{10}) 00000 n", data), start=1):
        assert data[int(off) : int(off) + 8].startswith(f"{n} 0 obj".encode()), n
    m = re.search(rb"stream\n(.*?)\nendstream", data, re.S)
    out = []
    for s in re.findall(rb"\(((?:\\.|[^\\)])*)\) Tj", m.group(1)):
        out.append(re.sub(rb"\\(.)", rb"\1", s).decode("ascii"))
    return out
