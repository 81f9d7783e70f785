"""Reference pilot for T15 on FlightGear's c172p: loads the aircraft in the Fuel and Payload
dialog (F9) and reports weight and CG read off that dialog into answer.json.

It uses only the agent port: screenshots, the F9 key, clicks on the dialog's sliders, and the
agent's folder (input/load.json in, answer.json out). Nothing of the simulator's state is
read. The fuel is planned like a pilot would: zero-fuel weight = the dialog's gross weight
minus the fuel it shows, fill up to the instruction's maximum weight less a margin, then read
the gross weight and CG back. Reading the dialog: the sliders are found by their orange fill; the numbers are read
with glyph templates of FlightGear's PUI font (cut from a screenshot of this dialog; the
font is a crisp bitmap, but a glyph's pixels shift by a column with its sub-pixel position,
so glyphs are matched to the nearest template, not exactly).

A click on a PUI slider puts its handle centre at the pointer, so a value is a linear
function of the pointer's x; the script measures that line with two clicks per slider and
then walks to the pixel whose displayed value is closest to the target.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from simbridge.agents import Agent, AgentResult

#: FlightGear 2020.3 PUI font (Helvetica 12 as rendered on Xvfb/Mesa): '#' = lit pixel
GLYPHS: dict[str, list[str]] = {
    ".": ["#"],
    "0": [".###.|#...#|#...#|#...#|#...#|#...#|#...#|#...#|.###."],
    "1": ["..#|###|..#|..#|..#|..#|..#|..#|..#"],
    "2": [".###.|#...#|....#|...#.|..#..|.#...|#....|#....|#####"],
    "3": [".###.|#...#|....#|..##.|....#|....#|#...#|#...#|.###."],
    "4": ["....#.|...##.|..#.#.|..#.#.|.#..#.|#...#.|######|....#.|....#."],
    "5": ["#####|#....|#....|####.|....#|....#|#...#|#...#|.###."],
    "6": [".###.|#...#|#....|#.##.|##..#|#...#|#...#|#...#|.###."],
    "7": ["#####|....#|...#.|...#.|..#..|..#..|..#..|.#...|.#...", "####|....|...#|...#|..#.|..#.|..#.|.#..|.#.."],
    "8": [".###.|#...#|#...#|.###.|#...#|#...#|#...#|#...#|.###."],
    "9": [".###.|#...#|#...#|#...#|.####|....#|....#|#...#|.###."],
}
_GRID_W = 7
#: a glyph further than this many pixels from every template is not a digit
_MAX_DIST = 5
LIT = 150  # luminance of the dialog's text (about 200) against its grey (about 95)


def _grid(rows: list[str]) -> np.ndarray:
    g = np.array([[c == "#" for c in r] for r in rows], dtype=bool)
    out = np.zeros((g.shape[0], _GRID_W), dtype=bool)
    out[:, : min(_GRID_W, g.shape[1])] = g[:, :_GRID_W]
    return out


_TEMPLATES = [(ch, _grid(v.split("|"))) for ch, vs in GLYPHS.items() for v in vs]


def classify(glyph: np.ndarray) -> str | None:
    """The digit (or '.') a lit-pixel glyph is, or None."""
    g = _grid(["".join("#" if v else "." for v in row) for row in glyph])
    best, best_d = None, _MAX_DIST + 1
    for ch, t in _TEMPLATES:
        if t.shape[0] != g.shape[0]:
            continue
        d = int(np.count_nonzero(t != g))
        if d < best_d:
            best, best_d = ch, d
    return best


def glyphs(lit: np.ndarray) -> Iterator[tuple[int, int, str | None]]:
    """The glyphs of a lit-pixel box, left to right: (first column, column after it, the digit
    or '.' it is, else None). A glyph is a run of columns with a lit pixel."""
    cols = np.asarray(lit.any(axis=0))  # per-column flags; .any(axis) is typed as maybe-scalar
    i = 0
    while i < len(cols):
        if not cols[i]:
            i += 1
            continue
        j = i
        while j < len(cols) and cols[j]:
            j += 1
        g = lit[:, i:j]
        rows = np.where(g.any(axis=1))[0]
        yield i, j, classify(g[rows[0] : rows[-1] + 1])
        i = j


def read_number(lum: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> float | None:
    """The first number in the box: glyphs left to right, digits joined while they are close."""
    text, last_end = "", None
    for i, j, ch in glyphs(lum[y0:y1, x0:x1] > LIT):
        gap = None if last_end is None else i - last_end
        if ch is None or (gap is not None and gap > 4 and text):
            if text:
                break
        else:
            text += ch
        last_end = j
    try:
        return float(text.strip("."))
    except ValueError:
        return None


@dataclass
class Slider:
    x0: int
    x1: int
    y: int

    @property
    def value_box(self) -> tuple[int, int, int, int]:
        """Where the first number right of the slider is printed (x0, y0, x1, y1)."""
        return self.x1 + 4, self.y - 8, self.x1 + 60, self.y + 8


def find_sliders(rgb: np.ndarray) -> list[Slider]:
    """PUI sliders: rows of at least 60 orange-to-brown pixels (no blue at all: fill, handle and
    border) in a run, grouped into bars."""
    r, g, b = rgb[..., 0].astype(int), rgb[..., 1].astype(int), rgb[..., 2].astype(int)
    orange = (r > 90) & (b < 20) & (r - g > 25)
    bars: list[list[int]] = []  # [y_first, y_last, x0, x1]
    for y in range(orange.shape[0]):
        xs = np.flatnonzero(orange[y])
        if xs.size < 60:
            continue
        # the longest run in the row
        splits = np.flatnonzero(np.diff(xs) > 1)
        starts = np.r_[xs[0], xs[splits + 1]]
        ends = np.r_[xs[splits], xs[-1]]
        for s, e in zip(starts, ends):
            if e - s + 1 < 60:
                continue
            for bar in bars:
                if y - bar[1] <= 1 and abs(bar[2] - s) <= 3:
                    bar[1] = y
                    bar[2], bar[3] = min(bar[2], s), max(bar[3], e)
                    break
            else:
                bars.append([y, y, int(s), int(e)])
    return [Slider(x0, x1, (y0 + y1) // 2) for y0, y1, x0, x1 in bars if y1 - y0 >= 8]


class PayloadPilot:
    """Drives the Fuel and Payload dialog through an agent-port client."""

    def __init__(self, port) -> None:
        self.port = port

    def screen(self) -> tuple[np.ndarray, np.ndarray]:
        rgb = self.port.screenshot("png").to_array()[..., ::-1]  # BGR -> RGB
        return rgb, rgb.astype(float).mean(axis=2)

    def open_dialog(self, attempts: int = 3) -> tuple[list[Slider], list[Slider]]:
        """F9, then the dialog's two slider columns: fuel tanks (left) and payload stations (right)."""
        self.port.mouse_move(640, 120)  # keyboard focus follows the pointer without a window manager
        for _ in range(attempts):
            self.port.key("F9")
            for _ in range(10):
                self.port.wait(1.0)
                sliders = find_sliders(self.screen()[0])
                if len(sliders) >= 9:
                    split = (min(s.x0 for s in sliders) + max(s.x0 for s in sliders)) / 2
                    fuel = sorted((s for s in sliders if s.x0 < split), key=lambda s: s.y)
                    payload = sorted((s for s in sliders if s.x0 >= split), key=lambda s: s.y)
                    return fuel, payload
        raise RuntimeError("the Fuel and Payload dialog did not appear after F9")

    def value(self, s: Slider) -> float | None:
        return read_number(self.screen()[1], *s.value_box)

    def click_value(self, s: Slider, x: int, settle_s: float = 6.0) -> float | None:
        """Press on the slider at x (held across frames: at a few frames per second a press and
        release inside one frame can be lost), then the displayed value once it changed and
        is steady (the live label redraws a frame or more later; at 2 fps that is a second)."""
        before = self.value(s)
        self.port.mouse_move(int(x), s.y)
        self.port.wait(0.2)
        self.port.mouse_down("left", int(x), s.y)
        self.port.wait(0.3)
        self.port.mouse_up("left", int(x), s.y)
        last, waited = None, 0.0
        while waited < settle_s:
            self.port.wait(0.5)
            waited += 0.5
            v = self.value(s)
            if v is not None and v == last and (v != before or waited >= settle_s / 2):
                return v
            last = v
        return last

    def set_slider(self, s: Slider, target: float, tol: float, max_steps: int = 8) -> float:
        """Walk the pointer to the pixel whose displayed value is closest to `target` (secant
        steps on the measured value-per-pixel line, then single pixels)."""
        seen: dict[int, float] = {}
        last = 0

        def click(x: int) -> None:
            nonlocal last
            v = self.click_value(s, x)
            if v is None:
                raise RuntimeError(f"slider at y={s.y}: value unreadable after a click at x={x}")
            seen[x], last = v, x

        click(s.x0 + (s.x1 - s.x0) // 4)
        click(s.x0 + 3 * (s.x1 - s.x0) // 4)
        for _ in range(max_steps):
            lo, hi = min(seen), max(seen)
            per_px = (seen[hi] - seen[lo]) / (hi - lo)
            if per_px <= 0:
                raise RuntimeError(f"slider at y={s.y}: values {seen} do not grow to the right")
            near = min(seen, key=lambda k: abs(seen[k] - target))
            if abs(seen[near] - target) <= tol / 2:
                break
            step = round((target - seen[near]) / per_px) or (1 if seen[near] < target else -1)
            x = max(s.x0, min(s.x1, near + step))
            if x in seen:  # the line points at a pixel already tried: try the neighbour instead
                x = max(s.x0, min(s.x1, near + (1 if seen[near] < target else -1)))
                if x in seen:
                    break
            click(x)
        best = min(seen, key=lambda k: abs(seen[k] - target))
        if best != last:
            click(best)
        return seen[best]

    def read_totals(self, fuel: list[Slider], payload: list[Slider]) -> tuple[float | None, float | None]:
        """Gross weight (the first row of the table under the sliders) and centre of gravity (its
        last row), read right of the ':' column, which starts where the payload column starts."""
        _, lum = self.screen()
        top = max(s.y for s in fuel) + 40  # below the fuel total row
        x_left, x_right = fuel[0].x1 + 90, payload[0].x0
        rows = np.asarray((lum[top : top + 160, x_left:x_right] > LIT).any(axis=1))  # per-row flags
        lines, y = [], 0
        while y < len(rows):
            if rows[y]:
                e = y
                while e < len(rows) and rows[e]:
                    e += 1
                lines.append((top + y - 2, top + e + 2))
                y = e
            else:
                y += 1
        if len(lines) < 2:
            return None, None
        first, last = lines[0], lines[-1]
        return (
            read_number(lum, x_left, first[0], x_right, first[1]),
            read_number(lum, x_left, last[0], x_right, last[1]),
        )


#: the C172 normal-category envelope (CG in, weight lb), as the POH draws it
ENVELOPE_IN_LB = ((35.0, 1450.0), (35.0, 1950.0), (41.0, 2550.0), (47.2, 2550.0), (47.2, 1450.0))
#: fuel left unused under the weight limit (slider steps, rounding of the displayed weight)
FUEL_MARGIN_LB = 12.0


def inside_envelope(cg_in: float, weight_lb: float, polygon=ENVELOPE_IN_LB) -> bool:
    """Even-odd point-in-polygon test of (cg, weight)."""
    inside = False
    for (x1, y1), (x2, y2) in zip(polygon, polygon[1:] + polygon[:1]):
        if (y1 > weight_lb) != (y2 > weight_lb):
            x_cross = x1 + (weight_lb - y1) * (x2 - x1) / (y2 - y1)
            if cg_in < x_cross:
                inside = not inside
    return inside


def task_figures(instruction: str) -> tuple[float, float, float]:
    """(pilot lb, front passenger lb, maximum weight lb) as the instruction states them."""

    def find(pattern: str) -> float:
        m = re.search(pattern, instruction, re.IGNORECASE)
        if m is None:
            raise ValueError(f"the instruction does not say {pattern!r}")
        return float(m.group(1).replace(",", ""))

    return (
        find(r"pilot\s+([\d,]+)\s*lb"),
        find(r"front passenger\s+([\d,]+)\s*lb"),
        find(r"total weight is\s*(?:≤|<=|at most)\s*([\d,]+)\s*lb"),
    )


def load_aircraft(port, instruction: str, *, fuel_lb_per_tank: float | None = None, tol_lb: float = 2.0) -> dict:
    """T15 through the dialog: payload from the instruction and input/load.json, fuel planned
    from the dialog's own zero-fuel weight (or `fuel_lb_per_tank` when given), then the gross
    weight and CG read back and written to answer.json. Returns what was set and read."""
    pilot_lb, copilot_lb, max_lb = task_figures(instruction)
    load = json.loads(port.read_file("input/load.json"))
    rear = {p["seat"]: float(p["weight_lb"]) for p in load["rear_passengers"]}
    stations = [
        pilot_lb,
        copilot_lb,
        rear["rear left"],
        rear["rear right"],
        sum(float(b["weight_lb"]) for b in load["baggage"]),
    ]
    pilot = PayloadPilot(port)
    fuel, payload = pilot.open_dialog()
    got: dict = {}
    for name, s, target in zip(("pilot", "copilot", "rear_left", "rear_right", "baggage"), payload, stations):
        got[name] = pilot.set_slider(s, target, tol_lb)
    if fuel_lb_per_tank is None:
        gross, _ = pilot.read_totals(fuel, payload)
        read = [pilot.value(s) for s in fuel[:2]]
        in_tanks = [v for v in read if v is not None]
        if gross is None or len(in_tanks) != len(read):
            raise RuntimeError("could not read the gross weight or the tank contents off the dialog")
        zero_fuel = gross - sum(in_tanks)
        fuel_lb_per_tank = max(0.0, (max_lb - zero_fuel - FUEL_MARGIN_LB) / 2)
        got["zero_fuel_lb"] = zero_fuel
    for i, s in enumerate(fuel[:2]):
        got[f"tank{i}_lb"] = pilot.set_slider(s, fuel_lb_per_tank, 4.0)
    port.wait(1.0)
    weight, cg = pilot.read_totals(fuel, payload)
    got.update(weight_lb=weight, cg_in=cg)
    got["inside"] = weight is not None and cg is not None and weight <= max_lb and inside_envelope(cg, weight)
    if weight is not None and cg is not None:
        port.write_file("answer.json", json.dumps({"weight_lb": weight, "cg_in": cg}))
    return got


class WeightBalancePilot(Agent):
    """T15 on FlightGear's c172p: loads it in the Fuel and Payload dialog (F9) and reports."""

    name = "reference:weight-balance"

    def __init__(self, fuel_lb_per_tank: float | None = None, *, check_limits: bool = True) -> None:
        """`fuel_lb_per_tank`: load this instead of planning the fuel; `check_limits`: give up
        when the read-back loading is over the weight limit or outside the envelope."""
        self.fuel_lb_per_tank = fuel_lb_per_tank
        self.check_limits = check_limits
        self.report: dict = {}

    def run(self, port, task, deadline_s: float) -> AgentResult:
        self.report = load_aircraft(port, task.instruction, fuel_lb_per_tank=self.fuel_lb_per_tank)
        summary = json.dumps(self.report)
        if self.check_limits and not self.report["inside"]:
            port.give_up(f"loading is outside the limits: {summary}")
            return "give_up"
        port.done(summary)
        return "done"
