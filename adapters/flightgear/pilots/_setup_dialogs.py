"""Reference pilot for T08@PHJR: sets the airport, the clock, the weather and an armed failure
through FlightGear 2020.3's own PUI dialogs (Location → Select Airport, Environment → Time
Settings and Weather, Equipment → System Failures), at 1280x800, by mouse and keyboard only.

Finding things: the menubar's items sit where gui/menubar.xml puts them (a drop-down row every
28 px); a dialog is found by its orange input fields (the same colour test as the Fuel and
Payload sliders), and each button or label by its offset from those fields, measured on this
FlightGear's screens. Reading: the Time Settings dialog's live clock labels and the fields'
digits with the PUI font's glyph templates. Nothing of the simulator's state is read.

Three of FlightGear's habits shape the order:

- Go To Airport keeps the clock, the weather and the failure settings, but is done first so
  that nothing later depends on it.
- The Time Settings dialog writes the date with the hour it read when it was opened
  (timeofday.xml `tod_setdate`), so the clock is warped first and the dialog opened again
  before the date is typed. The date fields are UTC: a local 16:30 at UTC−10 is 02:30 UTC the
  next day.
- The weather scenario combo opens its list upwards, and at the dialog's place the top two
  entries (Live data, Manual input) are above the screen: the dialog is dragged down first.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from simbridge.agents import Agent, AgentResult
from simbridge.adapters.flightgear.pilots._weight_balance import LIT, glyphs

if TYPE_CHECKING:
    from simbridge import TaskSpec
    from simbridge.agent import AgentPortClient

#: menubar titles' centres (x) at y = MENU_Y, and the drop-down's first row
MENU_X = {"location": 99, "environment": 230, "equipment": 304}
MENU_Y, ITEM_Y0, ITEM_DY = 14, 42, 28
#: (menu, row) of each dialog's item in FlightGear 2020.3's gui/menubar.xml
ITEMS = {
    "airport": ("location", 1),
    "weather": ("environment", 0),
    "time": ("environment", 2),
    "failures": ("equipment", 10),
}
#: a PUI combo list row, and the gap from the list's bottom row to the combo
COMBO_ROW_DY, COMBO_LIST_GAP = 28, 29
#: FlightGear's weather scenarios, in the combo's order (Environment/environment.xml)
MANUAL_INPUT_ROW, WEATHER_ROWS = 1, 17
#: Time Settings' Time Warp: clock seconds per second each + adds (timeofday.xml, step 30)
WARP_S_PER_CLICK = 30
#: seconds of warping a phase aims at, and the most clicks it makes
WARP_PHASE_S, WARP_MAX_CLICKS = 12.0, 40


@dataclass(frozen=True)
class Box:
    """An orange PUI input field or combo on the screen (pixels, inclusive)."""

    x0: int
    y0: int
    x1: int
    y1: int

    @property
    def y(self) -> int:
        return (self.y0 + self.y1) // 2


def orange_boxes(rgb: np.ndarray, min_w: int = 60, min_h: int = 15) -> list[Box]:
    """PUI input fields and combos: the bounding boxes of connected orange areas (their text
    cuts the rows, so a field is one component, not one run), top to bottom, left to right."""
    r, g, b = (rgb[..., i].astype(int) for i in range(3))
    orange = (r > 90) & (b < 20) & (r - g > 25)
    boxes: list[list[int]] = []  # [x0, y0, x1, y1] per component
    parent: list[int] = []

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    prev: list[tuple[int, int, int]] = []  # (x0, x1, component) on the row above
    for y in range(orange.shape[0]):
        xs = np.flatnonzero(orange[y])
        row: list[tuple[int, int, int]] = []
        if xs.size:
            cuts = np.flatnonzero(np.diff(xs) > 1)
            for s0, e0 in zip(np.r_[xs[0], xs[cuts + 1]], np.r_[xs[cuts], xs[-1]]):
                s0, e0 = int(s0), int(e0)
                ids = {root(c) for a, z, c in prev if a <= e0 and z >= s0}
                if ids:
                    c = min(ids)
                    for o in ids - {c}:
                        parent[o] = c
                else:
                    c = len(boxes)
                    boxes.append([s0, y, e0, y])
                    parent.append(c)
                row.append((s0, e0, c))
                bx = boxes[c]
                bx[0], bx[1], bx[2], bx[3] = min(bx[0], s0), min(bx[1], y), max(bx[2], e0), y
        prev = row
    merged: dict[int, list[int]] = {}
    for i, bx in enumerate(boxes):
        m = merged.setdefault(root(i), list(bx))
        m[0], m[1], m[2], m[3] = min(m[0], bx[0]), min(m[1], bx[1]), max(m[2], bx[2]), max(m[3], bx[3])
    out = [Box(*m) for m in merged.values() if m[2] - m[0] + 1 >= min_w and m[3] - m[1] + 1 >= min_h]
    return sorted(out, key=lambda bx: (bx.y0, bx.x0))


@dataclass(frozen=True)
class Setup:
    """What the instruction asks for."""

    airport: str
    local: dt.datetime
    utc_offset_h: float
    wind_dir_deg: int
    wind_kt: int
    cloud_word: str
    cloud_base_agl_ft: int
    visibility_sm: float
    mtbf_s: int

    @property
    def utc(self) -> dt.datetime:
        return self.local - dt.timedelta(hours=self.utc_offset_h)

    @property
    def metar(self) -> str:
        cover = {"few": "FEW", "scattered": "SCT", "broken": "BKN", "overcast": "OVC"}[self.cloud_word]
        vis = f"{self.visibility_sm:g}"
        return (
            f"{self.airport} {self.utc:%d%H%M}Z {self.wind_dir_deg:03d}{self.wind_kt:02d}KT {vis}SM "
            f"{cover}{round(self.cloud_base_agl_ft / 100):03d} 22/16 Q1015"
        )


def told(instruction: str) -> Setup:
    """The setup the instruction states (T08@PHJR's wording); ValueError naming what is missing."""
    text = instruction.replace(",", "").replace("−", "-")

    def find(pattern: str, what: str) -> re.Match[str]:
        m = re.search(pattern, text, re.IGNORECASE)
        if m is None:
            raise ValueError(f"the instruction does not state {what}")
        return m

    day = find(r"date to (\d{4})-(\d{2})-(\d{2}) at (\d{1,2}):(\d{2})", "the date and time")
    offset = find(r"UTC\s*([+-]\d+(?:\.\d+)?)", "the UTC offset")
    wind = find(r"wind (\d{1,3})° at (\d+) kt", "the wind")
    cloud = find(r"(few|scattered|broken|overcast) clouds at (\d+) ft AGL", "the clouds")
    vis = find(r"visibility (\d+(?:\.\d+)?) sm", "the visibility")
    mtbf = find(r"\((\d+) s\)", "the MTBF in seconds")
    airport = find(r"move the aircraft to ([A-Z0-9]{3,4})", "the airport")
    y, mo, d, h, mi = (int(g) for g in day.groups())
    return Setup(
        airport=airport.group(1),
        local=dt.datetime(y, mo, d, h, mi),
        utc_offset_h=float(offset.group(1)),
        wind_dir_deg=int(wind.group(1)),
        wind_kt=int(wind.group(2)),
        cloud_word=cloud.group(1).lower(),
        cloud_base_agl_ft=int(cloud.group(2)),
        visibility_sm=float(vis.group(1)),
        mtbf_s=int(mtbf.group(1)),
    )


#: a field's text (68, 0, 0) against its orange (luminance about 100)
FIELD_TEXT_LUM = 60


def read_digits(lum: np.ndarray, x0: int, y0: int, x1: int, y1: int, *, dark: bool = False) -> str:
    """The digits in the box, left to right (other glyphs, such as ':', skipped): light text on
    the dialog's grey, or `dark` text on an orange field."""
    box = lum[y0:y1, x0:x1]
    lit = box < FIELD_TEXT_LUM if dark else box > LIT
    return "".join(ch for _, _, ch in glyphs(lit) if ch is not None and ch != ".")


def _signed_s(d: int) -> int:
    """A clock difference in seconds, in (-12 h, 12 h]."""
    return (d + 43199) % 86400 - 43199


def clock_s(text: str) -> int | None:
    """Seconds of the day from a label's six digits (hhmmss)."""
    if len(text) != 6:
        return None
    h, m, s = int(text[:2]), int(text[2:4]), int(text[4:])
    return h * 3600 + m * 60 + s if h < 24 and m < 60 and s < 60 else None


class DialogPilot:
    """Menus, fields and buttons of FlightGear's PUI dialogs through an agent-port client."""

    def __init__(self, port: "AgentPortClient") -> None:
        self.port = port

    def screen(self) -> tuple[np.ndarray, np.ndarray]:
        rgb = self.port.screenshot("png").to_array()[..., ::-1]
        return rgb, rgb.astype(float).mean(axis=2)

    def fields(self) -> list[Box]:
        """The orange input fields and combos on the screen, top to bottom, left to right."""
        return orange_boxes(self.screen()[0])

    def open(self, dialog: str, n_fields: int, attempts: int = 3) -> list[Box]:
        """Open a dialog from the menubar; its fields once at least `n_fields` show."""
        menu, row = ITEMS[dialog]
        for _ in range(attempts):
            self.port.click(MENU_X[menu], MENU_Y)
            self.port.wait(0.8)
            self.port.click(MENU_X[menu] + 20, ITEM_Y0 + ITEM_DY * row)
            for _ in range(8):
                self.port.wait(0.5)
                got = self.fields()
                if len(got) >= n_fields:
                    return got
        raise RuntimeError(f"the {dialog} dialog did not open from the menubar")

    def type_into(self, f: Box, text: str, *, clear: int = 12, y: int | None = None, enter: bool = True) -> None:
        """Click into a field (at its right end, on row `y` of a text box), delete what it
        holds, type `text` (and Return)."""
        self.port.click(f.x1 - 6, f.y if y is None else y)
        self.port.wait(0.3)
        self.port.key("End")
        for n in range(clear, 0, -100):  # the port taps a key at most 100 times a call
            self.port.key("BackSpace", repeat=min(n, 100))
        self.port.type(text, press_enter=enter)
        self.port.wait(0.5)

    def field_digits(self, f: Box) -> str:
        return read_digits(self.screen()[1], f.x0 + 2, f.y - 8, f.x1 - 2, f.y + 8, dark=True)

    # -- Location → Select Airport
    def goto_airport(self, icao: str) -> None:
        airport = self.open("airport", 3)[0]  # the Airport: field, top left
        self.type_into(airport, icao, enter=False)
        self.port.click(airport.x1 + 44, airport.y)  # Search
        self.port.wait(2.0)
        self.port.click(airport.x0 + 15, airport.y + 34)  # the list's first match
        self.port.wait(1.5)
        self.port.click(airport.x0 + 274, airport.y + 607)  # Go To Airport
        self.port.wait(15.0)  # the reposition and its scenery

    # -- Environment → Time Settings
    def clock(self, year_field: Box) -> tuple[int | None, int | None]:
        """(UTC, local) seconds of the day off the dialog's live labels."""
        lum = self.screen()[1]
        x0, x1 = year_field.x0 + 150, year_field.x0 + 230
        utc = clock_s(read_digits(lum, x0, year_field.y + 30, x1, year_field.y + 46))
        local = clock_s(read_digits(lum, x0, year_field.y + 53, x1, year_field.y + 69))
        return utc, local

    def local_clock(self, year: Box, tries: int = 5) -> int:
        for _ in range(tries):
            local = self.clock(year)[1]
            if local is not None:
                return local
            self.port.wait(0.3)
        raise RuntimeError("the Time Settings dialog's local clock is unreadable")

    def warp_to(self, year: Box, target_s: int, tol_s: int = 120, phases: int = 6) -> int:
        """Warp the clock with Time Warp + (or -) until the local label is within `tol_s` of
        `target_s`. Each click adds 30 clock seconds per second; a phase picks enough clicks
        for about WARP_PHASE_S of warping, stops (Reset) once the clock is within 1.5 s of
        warping of the target or past it, and the next phase takes what is left, slower."""
        buttons = {+1: (year.x0 + 268, year.y + 237), -1: (year.x0 + 45, year.y + 237)}
        reset = (year.x0 + 156, year.y + 237)
        local = self.local_clock(year)
        for _ in range(phases):
            err = _signed_s(target_s - local)
            if abs(err) <= tol_s:
                return local
            clicks = int(min(WARP_MAX_CLICKS, max(1, round(abs(err) / (WARP_S_PER_CLICK * WARP_PHASE_S)))))
            rate = WARP_S_PER_CLICK * clicks
            way = 1 if err > 0 else -1
            for _ in range(clicks):
                self.port.click(*buttons[way])
                self.port.wait(0.05)
            for _ in range(int(4 * WARP_PHASE_S) + 40):
                self.port.wait(0.25)
                now = self.clock(year)[1]
                if now is None:
                    continue
                left = _signed_s(target_s - now) * way
                if left <= 1.5 * rate:
                    break
            self.port.click(*reset)
            self.port.wait(1.0)
            local = self.local_clock(year)
        if abs(_signed_s(target_s - local)) > tol_s:
            raise RuntimeError(f"the clock did not come within {tol_s} s of the target ({local} s of the day)")
        return local

    def set_time(self, s: Setup) -> dict:
        year, month, day = self.open("time", 3)[:3]
        target = s.local.hour * 3600 + s.local.minute * 60
        local = self.warp_to(year, target)
        close = (year.x0 + 216, year.y + 288)
        self.port.click(*close)
        self.port.wait(1.0)
        # opened again so that the date is written with the warped hour
        year, month, day = self.open("time", 3)[:3]
        utc_day = s.utc.date()
        self.type_into(year, str(utc_day.year))
        self.port.click(month.x1 + 11, month.y)  # the combo's arrow: the months list opens upwards
        self.port.wait(1.0)
        row = 11 - (utc_day.month - 1)  # rows counted up from December, the list's bottom
        self.port.click(month.x0 + 30, month.y - COMBO_LIST_GAP - COMBO_ROW_DY * row)
        self.port.wait(1.0)
        self.type_into(day, f"{utc_day.day:02d}")
        got = {"local_s": local, "year": self.field_digits(year), "day": self.field_digits(day)}
        self.port.click(*close)
        self.port.wait(1.0)
        return got

    # -- Environment → Weather
    def set_weather(self, s: Setup) -> None:
        fields = self.open("weather", 2)
        combo = fields[0]
        drag = 110  # room above the combo for all 17 rows of its list
        self.port.drag([[combo.x0 - 100, combo.y - 304], [combo.x0 - 100, combo.y - 304 + drag]], duration_s=0.6)
        self.port.wait(1.0)
        combo = self.fields()[0]
        self.port.click(combo.x1 + 11, combo.y)
        self.port.wait(1.0)
        bottom = combo.y - COMBO_LIST_GAP
        self.port.click(combo.x0 + 40, bottom - COMBO_ROW_DY * (WEATHER_ROWS - 1 - MANUAL_INPUT_ROW))
        self.port.wait(1.5)
        metar = self.fields()[1]  # the dialog is laid out again around the METAR field
        self.type_into(metar, s.metar, clear=120, y=metar.y0 + 18, enter=False)  # its first line
        self.port.click(metar.x0 + 154, metar.y + 110)  # OK
        self.port.wait(1.5)

    # -- Equipment → System Failures
    def arm_vacuum(self, s: Setup) -> str:
        vacuum = self.open("failures", 12)[0]  # Vacuum System's MTBF, the table's first field
        self.type_into(vacuum, str(s.mtbf_s))
        got = self.field_digits(vacuum)
        self.port.click(vacuum.x0 - 65, vacuum.y + 278)  # OK
        self.port.wait(1.0)
        return got


class FlightGearSetupPilot(Agent):
    """T08@PHJR: airport, clock, weather and an armed vacuum failure through FlightGear's dialogs."""

    name = "reference:flightgear-setup"

    def __init__(self) -> None:
        self.report: dict = {}

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        s = told(task.instruction)
        p = DialogPilot(port)
        p.goto_airport(s.airport)
        self.report["time"] = p.set_time(s)
        p.set_weather(s)
        self.report["mtbf"] = p.arm_vacuum(s)
        self.report["metar"] = s.metar
        port.done(repr(self.report))
        return "done"
