"""Reading FlightGear's tooltips (the c172p's `set-tooltip` labels: `Squawk: 1200`, `Mode: ON`,
`Altimeter In Hg: 30.12`) from a screenshot.

A tooltip is a grey, slightly warm box with white anti-aliased text, drawn below and right of
where the pointer first rested. The box is found as the tallest block of rows that carry a long
run of box-coloured pixels near the pointer; its last word is cut into glyphs at empty columns
and each glyph is matched to the nearest template (cut from real screenshots of this build,
`_fg_glyph_data.py`), which tolerates the one-column shifts of sub-pixel text placement.
"""

from __future__ import annotations

import cv2
import numpy as np

from simbridge.adapters.flightgear.pilots._glyph_data import TOOLTIP_GLYPHS

TEXT_LUM = 120  # text is about 180-210 on a box of 25-75
_MIN_BOX_W = 50
_GRID_W = 9
_MAX_DIST = 14


def _box_mask(rgb: np.ndarray) -> np.ndarray:
    """Pixels that look like a tooltip box: its warm grey background, its border or its text."""
    r, g, b = (rgb[..., i].astype(int) for i in range(3))
    lum = (r + g + b) / 3
    bg = (lum >= 22) & (lum <= 100) & (r - b >= 3) & (r - b <= 22) & (abs(g - b) <= 6)
    return bg | (lum > TEXT_LUM)


def find_box(rgb: np.ndarray, px: int, py: int) -> tuple[int, int, int, int] | None:
    """(x0, y0, x1, y1) of the tooltip box below/right of the pointer at (px, py), or None."""
    h, w = rgb.shape[:2]
    X0, X1, Y0, Y1 = max(0, px - 60), min(w, px + 320), max(0, py), min(h, py + 80)
    # the box is a little translucent: close the holes what is behind it leaves in a row
    mask = cv2.morphologyEx(
        _box_mask(rgb[Y0:Y1, X0:X1]).astype(np.uint8), cv2.MORPH_CLOSE, np.ones((1, 15), np.uint8)
    ).astype(bool)
    runs: list[tuple[int, int] | None] = []
    for row in mask:
        xs = np.flatnonzero(np.diff(np.r_[0, row.astype(np.int8), 0]))
        best = None
        for s, e in zip(xs[::2], xs[1::2]):
            if e - s >= _MIN_BOX_W and (best is None or e - s > best[1] - best[0]):
                best = (int(s), int(e))
        runs.append(best)
    blocks: list[tuple[int, int]] = []
    y = 0
    while y < len(runs):
        if runs[y] is None:
            y += 1
            continue
        e = y
        while e + 1 < len(runs) and runs[e + 1] is not None:
            e += 1
        blocks.append((y, e))
        y = e + 1
    blocks = [b for b in blocks if 16 <= b[1] - b[0] + 1 <= 40]
    if not blocks:
        return None
    y0, y1 = max(blocks, key=lambda b: b[1] - b[0])
    xs0 = int(np.median([runs[y][0] for y in range(y0, y1 + 1)]))  # type: ignore[index]
    xs1 = int(np.median([runs[y][1] for y in range(y0, y1 + 1)]))  # type: ignore[index]
    return X0 + xs0, Y0 + y0, X0 + xs1, Y0 + y1 + 1


def words(rgb: np.ndarray, box: tuple[int, int, int, int]) -> list[list[np.ndarray]]:
    """The box's text line as words of glyphs (boolean arrays of the line's full height)."""
    x0, y0, x1, y1 = box
    lum = rgb[y0 + 2 : y1 - 2, x0 + 3 : x1 - 3].astype(float).mean(axis=2)
    lit = lum > TEXT_LUM
    rows = np.flatnonzero(lit.any(axis=1))
    if rows.size == 0:
        return []
    line = lit[rows[0] : rows[-1] + 1]
    cols = np.r_[0, line.any(axis=0).astype(np.int8), 0]
    edges = np.flatnonzero(np.diff(cols))
    out: list[list[np.ndarray]] = []
    last_end = None
    for s, e in zip(edges[::2], edges[1::2]):
        if last_end is None or s - last_end >= 4:
            out.append([])
        out[-1].append(line[:, s:e])
        last_end = e
    return out


def trim(g: np.ndarray) -> np.ndarray:
    """A glyph without the empty rows under it (the line's descender space) and above it."""
    rows = np.flatnonzero(g.any(axis=1))
    return g[rows[0] : rows[-1] + 1] if rows.size else g


def _grid(g: np.ndarray, height: int) -> np.ndarray:
    out = np.zeros((height, _GRID_W), dtype=bool)
    hh, ww = min(height, g.shape[0]), min(_GRID_W, g.shape[1])
    out[height - hh :, :ww] = g[g.shape[0] - hh :, :ww]  # bottom-aligned: '.' sits on the baseline
    return out


def _parse(rows: str) -> np.ndarray:
    return np.array([[c == "#" for c in r] for r in rows.split("|")], dtype=bool)


_TEMPLATES = [(ch, _parse(v)) for ch, vs in TOOLTIP_GLYPHS.items() for v in vs]


def classify(glyph: np.ndarray) -> str | None:
    """The character a glyph is (nearest template of about the same width), or None."""
    glyph = trim(glyph)
    best, best_d = None, _MAX_DIST + 1
    for ch, t in _TEMPLATES:
        if abs(t.shape[1] - glyph.shape[1]) > 2:
            continue
        hgt = max(t.shape[0], glyph.shape[0])
        d = int(np.count_nonzero(_grid(t, hgt) != _grid(glyph, hgt)))
        if d < best_d:
            best, best_d = ch, d
    return best


def read_value(rgb: np.ndarray, px: int, py: int) -> str | None:
    """The last word of the tooltip shown near the pointer (its value), or None if there is
    no tooltip or a glyph matches no template."""
    box = find_box(rgb, px, py)
    if box is None:
        return None
    ws = words(rgb, box)
    if not ws:
        return None
    chars = [classify(g) for g in ws[-1]]
    return None if any(c is None for c in chars) else "".join(chars)  # type: ignore[arg-type]
