"""Reading the c172p's KX 165 (COM1/NAV1) display in FlightGear's default cockpit view at
1280x800: red, italic, about 8 px high digits at fixed screen positions (the aircraft is parked
and the view is not moved). Each digit slot is matched to the nearest template by squared
difference over one-pixel shifts; the templates are the mean red-excess of real screenshots of
NAV1 standby showing 100.00 ... 199.99 (every digit in every slot).
"""

from __future__ import annotations

import numpy as np

Y0, Y1 = 440, 450
#: x of the left edge of each digit slot after the leading '1' (hundreds digit), per field
SLOTS: dict[str, list[int]] = {
    "com": [936, 942, 950, 955, 961],
    "com_stby": [979, 984, 992, 998, 1004],
    "nav": [1022, 1028, 1036, 1042],
    "nav_stby": [1059, 1065, 1072, 1078],
}
#: where the decimal point falls: digits before it (after the leading '1')
_INT_DIGITS = 2
_TEMPLATE_TEXT = {
    "0": "0000000|0025620|1255441|1352441|0331420|0421310|1522611|1623621|1686211|0000010",
    "1": "0000000|0000000|0000240|0000360|0000340|0001430|0003630|0005620|0001100|0000010",
    "2": "0000000|0027620|0013540|0001540|0135730|0366520|0530000|1520011|2575101|0000010",
    "3": "0000000|0036630|1013451|1001451|0145630|0157720|0003600|0004510|1476311|0000010",
    "4": "0000000|0000000|0240340|0360450|0485640|0377720|0002520|0004620|0001110|0000010",
    "5": "0000000|0025620|0255310|0452100|0575310|0466610|0002610|0002620|1487411|0000010",
    "6": "0000000|0036530|0165310|0263100|0385300|1578511|1523511|2505512|3688412|0000010",
    "7": "0000000|0026620|0013540|0001540|0000530|0001520|0001620|0003520|0002210|0000010",
    "8": "0000000|0037740|1255451|1363451|1576631|1678721|1623611|2614512|3687412|0000010",
    "9": "0000000|0026520|0254640|0362550|0485640|0377730|0002520|0004420|0487310|0000010",
}
TEMPLATES = {d: np.array([[int(c) * 10.0 for c in row] for row in t.split("|")]) for d, t in _TEMPLATE_TEXT.items()}
#: a slot this dim has no digit (display dark or blank)
_MIN_LIT = 120.0


def red_excess(rgb: np.ndarray) -> np.ndarray:
    """How much redder than grey each pixel is: the display's lit segments."""
    a = rgb.astype(int)
    return np.clip(a[..., 0] - (a[..., 1] + a[..., 2]) // 2, 0, None).astype(float)


def read_digit(rx: np.ndarray, x: int) -> str | None:
    """The digit in the slot starting at x, or None if the slot is dark."""
    best, best_d = None, float("inf")
    for dx in (-1, 0, 1):
        p = rx[Y0:Y1, x - 1 + dx : x + 6 + dx]
        if p.sum() < _MIN_LIT:
            continue
        for d, t in TEMPLATES.items():
            dist = float(((p - t) ** 2).sum())
            if dist < best_d:
                best, best_d = d, dist
    return best


def read_field(rgb: np.ndarray, field: str) -> float | None:
    """The frequency a KX 165 field shows (MHz), or None if any digit is unreadable."""
    rx = red_excess(rgb)
    ds = [read_digit(rx, x) for x in SLOTS[field]]
    if any(d is None for d in ds):
        return None
    s = "1" + "".join(ds[:_INT_DIGITS]) + "." + "".join(ds[_INT_DIGITS:])  # type: ignore[arg-type]
    return float(s)


def read_all(rgb: np.ndarray) -> dict[str, float | None]:
    """All four fields: com, com_stby, nav, nav_stby."""
    return {f: read_field(rgb, f) for f in SLOTS}
