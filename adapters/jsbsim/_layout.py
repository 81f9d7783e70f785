"""The cockpit window's fixed layout (1280 x 800 pixels, origin top-left, window at 0,0).

These positions are a contract: pilots that read the instruments from screenshot pixels and
click the panel are written against them. Change them only together with those readers.

Window
    VIEW     (0, 0, 1280, 360)   out-the-window view; screen centre (640, 180) is the boresight,
             horizontal field of view 80 deg (focal length FOCAL_PX), the horizon crosses the
             centre line at y = 180 + FOCAL_PX * tan(pitch).
    PANEL    (0, 360, 1280, 420) dark grey (40, 40, 44) instrument panel.
    READOUT  (0, 780, 1280, 20)  the panel's lower edge, black. By default nothing is printed
             there: no C172 prints its airspeed, attitude or the simulator clock in digits. Only
             a cockpit started with `--assist readout` (an assisted episode) draws the digital
             readout strip there: white DejaVu Sans Mono 14 px on black,
             8 px per character from x = 6, text rows y = 782..798; READOUT_FORMAT is the exact
             line and `readout_boxes()` gives each value's pixel box (IAS kt, indicated ALT ft,
             magnetic HDG, VS fpm, BANK and PITCH deg, RPM, THR and MIX %, FLAPS deg, T sim s):
             what the instruments indicate (IAS the airspeed indicator's, HDG the heading
             indicator's, BANK and PITCH the attitude indicator's), so a blocked pitot or a
             failed vacuum pump shows there as on the gauges.

How to read each round gauge (all faces black, every needle pure white (255, 255, 255), 4 px
wide, from the centre to 0.85 r; angles are clockwise from 12 o'clock):
    ASI   airspeed: angle = ASI_DEG_AT_0 + ias_kt * ASI_DEG_PER_KT (0..200 kt linear).
    AI    attitude: sky (70, 130, 220) above, ground (150, 95, 40) below a white boundary line
          through (cx, cy + pitch_deg * AI_PX_PER_DEG_PITCH), rotated counter-clockwise by the
          bank angle (right bank: the line's right end is higher, as in a real AI), so
          bank_deg = atan2(y_left - y_right, x_right - x_left) of two points on the line.
          A fixed orange (255, 150, 0) aircraft symbol sits at the centre (within 0.6 r); the
          orange bank pointer (a triangle from AI_BANK_POINTER[0] r to AI_BANK_POINTER[1] r)
          sits at clock angle -bank_deg; white bank marks (AI_BANK_MARKS) from 0.86 r to
          0.98 r. The horizon line is the only white inside 0.84 r.
    ALT   altimeter (indicated, Kollsman-corrected), three white hands (`alt_angles`,
          ALT_HANDS: length as a fraction of r, width px): the long needle = hundreds
          (angle = (alt_ft % 1000) * 0.36, 0.85 r, 4 px), the short needle = thousands
          (angle = (alt_ft % 10000) * 0.036, 0.55 r, 6 px) and the thin ten-thousands pointer
          (angle = (alt_ft % 100000) * 0.0036, 2 px to 0.9 r, ending in a white wedge from
          0.88 r to 0.97 r, the only white beyond 0.86 r). The Kollsman setting is printed in
          the window (cx-22, cy+26, 44, 15) under the centre (e.g. "29.92"), drawn over the
          hands; the air is ISA, so 29.92 makes the indicated altitude the true altitude.
    TC    turn coordinator: white wing bar through the centre (to TC_WING_FRAC r either side,
          a white disc of 7 px at the centre), tilted by turn_rate_dps * TC_DEG_PER_DPS
          (standard rate 3 deg/s = 20 deg tilt, right turn = clockwise, TC_MAX_TILT_DEG at
          most); slip ball (white disc, radius 7) in the tube TC_TUBE at y = cy + 0.55 r,
          x offset = lateral g * TC_BALL_PX_PER_G (22 px at most).
    HI    heading indicator: a white needle points at the current magnetic heading
          (angle = heading_mag_deg), the card is fixed (N at the top); the heading bug
          (autopilot HDG, c172x) is an orange needle to 0.95 r under the white one.
    VSI   vertical speed: angle = 270 + clamp(vs_fpm, -2000, 2000) * VSI_DEG_PER_FPM
          (0 fpm at 9 o'clock, climbs clockwise).
    TACH  rpm: angle = TACH_DEG_AT_0 + rpm * TACH_DEG_PER_RPM (0..3500).
    CDI   NAV1: white vertical needle at x = cx - loc_dev_dots * CDI_PX_PER_DOT (right of
          course = needle left), dots at y = cy + 20; red flag at (cx+18, cy-22, 26, 14) when
          no station is received, else "TO"/"FR"; with a glideslope a white horizontal needle
          at y = cy + 20 + gs_dev_dots * CDI_PX_PER_DOT (above the path = needle low). VOR:
          2 deg per dot, LOC 0.5 deg, GS 0.14 deg; the OBS course is printed at the top.
    Small engine gauges (FUEL L, FUEL R in US gal 0..26, OIL T in deg F 0..250, OIL P in psi
          0..115, VOLTS 0..32; AMPS -60..+60, the battery's current, charging right of 12
          o'clock; SUCTION in inHg 0..10, green 4.5..5.5): angle = -120 + 240 * (value - lo) / (hi - lo).
    Annunciators (ANNUNCIATOR_RECTS, x 606): LOW VOLTS (bus below 24.5 V), VAC (suction below
          3.0 inHg), SMOKE, DOOR (amber or red when lit, grey when off or unpowered), STALL.
    Smoke in the cabin veils the whole window in grey (SMOKE_GREY, up to SMOKE_MAX_ALPHA).

Controls (HOTSPOTS maps each hotspot name to its (x, y, w, h); `centre(name)` is the pixel to
click, `hit(x, y)` the reverse; all left button):
    switch:master_bat, switch:master_alt, switch:beacon, switch:avionics
              rocker switches BAT ALT BCN AVN: click toggles; yellow (250, 210, 40) when on.
    switch:nav_lights, switch:landing_light, switch:taxi_light, switch:strobe, switch:pitot_heat
              the second row NAV LDG TAXI STRB PITOT (bottom right), the same rockers.
    knob:carb_heat, knob:cabin_heat, knob:cabin_air
              push-pull knobs CARB HT, CAB HT, CAB AIR: click pulls / pushes; yellow when pulled.
    mags:OFF mags:R mags:L mags:BOTH mags:START
              ignition key positions; the current one is lit yellow. START is spring-loaded:
              it cranks while the button is held and returns to BOTH on release.
    fuel:OFF fuel:LEFT fuel:RIGHT fuel:BOTH   fuel selector; the current one is lit yellow.
    primer    each click is one stroke (the count is printed on the knob).
    park_brake  click toggles (red "SET" / grey "OFF").
    throttle, mixture  vertical sliders: drag the knob or click in the track; the knob centre
              is at slider_y(rect, value) (top = 1.0): a LEVER_KNOB_H px tall knob the width
              of the track with a 2 px white border. Throttle knob black, mixture red.
    flaps     click a detent (UP, 10, 20, F) at FLAP_DETENT_Y (FLAP_DETENTS_DEG); the white
              (235, 235, 235) tab shows the lever.
    trim      wheel: click the upper half for nose down, lower half for nose up (0.02); drag
              (top = full nose down) or scroll (up = nose down). The white mark sits at
              slider_y(TRIM, (1 + elevator_trim) / 2): high = nose-down trim.
    com1:swap com1:mhz- com1:mhz+ com1:khz- com1:khz+ (25 kHz), nav1:... (50 kHz)
              tune the standby frequency and swap; scrolling over com1:stby / nav1:stby
              tunes kHz. The frequencies are printed (orange, DejaVu Sans Mono 22 px) in
              COM_ACTIVE, COM_STBY, NAV_ACTIVE, NAV_STBY only while the avionics have power.
    obs- obs+  NAV1 OBS 1 deg (scroll 5 deg); baro- baro+  Kollsman 0.01 inHg.
    xpdr:digit0..3  click the upper half of a digit to add 1, the lower half to subtract 1
              (octal, wrapping); xpdr:mode0..4 = OFF STBY ON ALT TST (a yellow bar under the
              active one).
    ap:ap_on ap:ap_hdg ap:ap_nav ap:ap_alt (green when engaged), ap:hdg- ap:hdg+ (bug 1 deg,
              scroll 10), ap:alt- ap:alt+ (target 100 ft): c172x only.
Keyboard: FlightGear's defaults, listed in `_input.py`. Tab or a right click toggles the mouse
yoke (panel clicks are ignored meanwhile): aileron = (x - 640) / 400, elevator =
(180 - y) / 180, clamped to -1..1 (pointer up = yoke pushed = nose down; elevator and trim
positive = nose down, as in FlightGear).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

WIDTH, HEIGHT = 1280, 800
VIEW = (0, 0, 1280, 360)
VIEW_CENTRE = (640, 180)
HFOV_DEG = 80.0
FOCAL_PX = (VIEW[2] / 2) / math.tan(math.radians(HFOV_DEG / 2))
PANEL = (0, 360, 1280, 420)
READOUT = (0, 780, 1280, 20)
MOUSE_YOKE_RANGE_PX = (400, 180)

PANEL_BG = (40, 40, 44)
FACE = (0, 0, 0)
NEEDLE = (255, 255, 255)
SKY = (70, 130, 220)
GROUND = (150, 95, 40)
SYMBOL = (255, 150, 0)
LIT = (250, 210, 40)


@dataclass(frozen=True)
class Gauge:
    name: str
    cx: int
    cy: int
    r: int
    label: str


# six-pack, tachometer, NAV1 CDI
ASI = Gauge("asi", 80, 440, 66, "AIRSPEED")
AI = Gauge("ai", 230, 440, 66, "ATTITUDE")
ALT = Gauge("alt", 380, 440, 66, "ALTITUDE")
TC = Gauge("tc", 80, 590, 66, "TURN")
HI = Gauge("hi", 230, 590, 66, "HEADING")
VSI = Gauge("vsi", 380, 590, 66, "VERT SPEED")
TACH = Gauge("tach", 530, 440, 66, "RPM")
CDI = Gauge("cdi", 530, 590, 66, "NAV 1")
# small engine gauges
FUEL_L = Gauge("fuel_l", 50, 720, 32, "FUEL L")
FUEL_R = Gauge("fuel_r", 130, 720, 32, "FUEL R")
OIL_T = Gauge("oil_t", 210, 720, 32, "OIL T")
OIL_P = Gauge("oil_p", 290, 720, 32, "OIL P")
VOLTS = Gauge("volts", 370, 720, 32, "VOLTS")
# electrical and vacuum gauges, between the NAV1 indicator and the radio stack
AMMETER = Gauge("ammeter", 650, 414, 30, "AMPS")
SUCTION = Gauge("suction", 650, 500, 30, "SUCTION")
GAUGES = (ASI, AI, ALT, TC, HI, VSI, TACH, CDI, FUEL_L, FUEL_R, OIL_T, OIL_P, VOLTS, AMMETER, SUCTION)

SMALL_RANGES = {
    "fuel_l": (0.0, 26.0),
    "fuel_r": (0.0, 26.0),
    "oil_t": (0.0, 250.0),
    "oil_p": (0.0, 115.0),
    "volts": (0.0, 32.0),
    "ammeter": (-60.0, 60.0),
    "suction": (0.0, 10.0),
}

#: the altimeter's hands, hundreds / thousands / ten-thousands: (length as a fraction of r, width px)
ALT_HANDS = ((0.85, 4), (0.55, 6), (0.9, 2))
#: the ten-thousands pointer's wedge: (inner, outer) fraction of r, half-width px at the outer end
ALT_WEDGE = (0.88, 0.97, 4)
#: the attitude indicator's bank pointer (radial extent, fraction of r) and fixed bank marks (deg)
AI_BANK_POINTER = (0.72, 0.84)
AI_BANK_MARKS = (-60, -45, -30, -20, -10, 0, 10, 20, 30, 45, 60)
#: the turn coordinator's wing bar half-length (fraction of r), its tilt limit, the ball's tube
TC_WING_FRAC = 0.7
TC_MAX_TILT_DEG = 45.0
TC_TUBE = (TC.cx - 30, round(TC.cy + TC.r * 0.55 - 8), 60, 16)
#: the flap lever's detents, degrees (FLAP_DETENT_Y top to bottom); the lever knobs' height
FLAP_DETENTS_DEG = (0.0, 10.0, 20.0, 30.0)
LEVER_KNOB_H = 14
ASI_DEG_AT_0 = 20.0
ASI_DEG_PER_KT = 1.6
AI_PX_PER_DEG_PITCH = 2.0
TC_DEG_PER_DPS = 20.0 / 3.0
TC_BALL_PX_PER_G = 150.0
VSI_DEG_PER_FPM = 170.0 / 2000.0
TACH_DEG_AT_0 = -135.0
TACH_DEG_PER_RPM = 270.0 / 3500.0
CDI_PX_PER_DOT = 10.0


def asi_angle(ias_kt: float) -> float:
    return ASI_DEG_AT_0 + max(0.0, min(200.0, ias_kt)) * ASI_DEG_PER_KT


def vsi_angle(vs_fpm: float) -> float:
    return 270.0 + max(-2000.0, min(2000.0, vs_fpm)) * VSI_DEG_PER_FPM


def tach_angle(rpm: float) -> float:
    return TACH_DEG_AT_0 + max(0.0, min(3500.0, rpm)) * TACH_DEG_PER_RPM


def small_angle(name: str, value: float) -> float:
    lo, hi = SMALL_RANGES[name]
    return -120.0 + 240.0 * (max(lo, min(hi, value)) - lo) / (hi - lo)


def alt_angles(alt_ft: float) -> tuple[float, float, float]:
    """Clock angles of the altimeter's hundreds, thousands and ten-thousands hands."""
    return (alt_ft % 1000.0) * 0.36, (alt_ft % 10000.0) * 0.036, (alt_ft % 100000.0) * 0.0036


def needle_tip(g: Gauge, angle_deg: float, frac: float = 0.85) -> tuple[int, int]:
    """Screen point at `frac` of the radius along a clockwise-from-12-o'clock angle."""
    a = math.radians(angle_deg)
    return round(g.cx + frac * g.r * math.sin(a)), round(g.cy - frac * g.r * math.cos(a))


# ------------------------------------------------------------------ readout strip
#: field -> x of its first character in the READOUT strip (y = 783); values right-aligned in
#: the widths shown by `READOUT_FORMAT`
READOUT_FORMAT = (
    "IAS {ias:3.0f}  ALT {alt:5.0f}  HDG {hdg:03.0f}  VS {vs:+5.0f}  BANK {bank:+4.0f}  "
    "PITCH {pitch:+4.0f}  RPM {rpm:4.0f}  THR {thr:3.0f}%  MIX {mix:3.0f}%  FLAPS {flaps:2.0f}  "
    "T {t:6.1f}"
)


READOUT_X0, READOUT_Y0, READOUT_CHAR_W, READOUT_CHAR_H = 6, 782, 8, 17


def readout_boxes() -> dict[str, tuple[int, int, int, int]]:
    """Pixel box (x, y, w, h) of each value in the readout strip, from READOUT_FORMAT."""
    import string

    out = {}
    col = 0
    for literal, name, spec, _ in string.Formatter().parse(READOUT_FORMAT):
        col += len(literal)
        if name is None or spec is None:  # literal-only chunk: parse() gives None for both
            continue
        width = int("".join(ch for ch in spec.split(".")[0] if ch.isdigit()) or 1)
        out[name] = (READOUT_X0 + col * READOUT_CHAR_W, READOUT_Y0, width * READOUT_CHAR_W, READOUT_CHAR_H)
        col += width
    return out


# ------------------------------------------------------------------ controls
def _r(x: int, y: int, w: int, h: int) -> tuple[int, int, int, int]:
    return (x, y, w, h)


SWITCHES = ("master_bat", "master_alt", "beacon", "avionics")
SWITCH_LABELS = {"master_bat": "BAT", "master_alt": "ALT", "beacon": "BCN", "avionics": "AVN"}
SWITCH_RECTS = {name: _r(712 + 44 * i, 604, 38, 46) for i, name in enumerate(SWITCHES)}

MAGS_CENTRE = (970, 620)
MAGS_LABELS = ("OFF", "R", "L", "BOTH", "START")
MAGS_LABEL_RECTS = {
    0: _r(894, 646, 32, 20),
    1: _r(928, 646, 22, 20),
    2: _r(952, 646, 22, 20),
    3: _r(976, 646, 40, 20),
    4: _r(1018, 646, 46, 20),
}
FUEL_CENTRE = (1150, 620)
FUEL_LABELS = ("OFF", "LEFT", "RIGHT", "BOTH")
FUEL_LABEL_RECTS = {
    0: _r(1076, 646, 32, 20),
    1: _r(1110, 646, 40, 20),
    2: _r(1152, 646, 46, 20),
    3: _r(1200, 646, 40, 20),
}
PRIMER = _r(1000, 700, 44, 44)
PARK_BRAKE = _r(1056, 700, 60, 44)

SLIDER_H = 76
THROTTLE = _r(712, 696, 36, SLIDER_H)
MIXTURE = _r(756, 696, 36, SLIDER_H)
FLAPS = _r(806, 696, 36, SLIDER_H)
TRIM = _r(850, 696, 30, SLIDER_H)
FLAP_DETENT_Y = tuple(696 + 8 + i * 20 for i in range(4))  # UP, 10, 20, FULL, top to bottom

# knobs: OBS and BARO
OBS_MINUS = _r(892, 696, 46, 24)
OBS_PLUS = _r(942, 696, 46, 24)
BARO_MINUS = _r(892, 742, 46, 24)
BARO_PLUS = _r(942, 742, 46, 24)
STATUS_XY = (420, 690)  # "CRASHED" + reason (red), "MOUSE YOKE" 50 px lower (yellow)

# radio stack
RADIO_X = 700
COM_ROW_Y, NAV_ROW_Y, XPDR_ROW_Y, AP_ROW_Y = 366, 422, 478, 534
ROW_H = 50
COM_ACTIVE = _r(770, COM_ROW_Y + 6, 110, 38)
COM_STBY = _r(940, COM_ROW_Y + 6, 110, 38)
COM_SWAP = _r(888, COM_ROW_Y + 12, 44, 26)
COM_MHZ_DN = _r(1060, COM_ROW_Y + 12, 34, 26)
COM_MHZ_UP = _r(1098, COM_ROW_Y + 12, 34, 26)
COM_KHZ_DN = _r(1140, COM_ROW_Y + 12, 34, 26)
COM_KHZ_UP = _r(1178, COM_ROW_Y + 12, 34, 26)
NAV_ACTIVE = _r(770, NAV_ROW_Y + 6, 110, 38)
NAV_STBY = _r(940, NAV_ROW_Y + 6, 110, 38)
NAV_SWAP = _r(888, NAV_ROW_Y + 12, 44, 26)
NAV_MHZ_DN = _r(1060, NAV_ROW_Y + 12, 34, 26)
NAV_MHZ_UP = _r(1098, NAV_ROW_Y + 12, 34, 26)
NAV_KHZ_DN = _r(1140, NAV_ROW_Y + 12, 34, 26)
NAV_KHZ_UP = _r(1178, NAV_ROW_Y + 12, 34, 26)
XPDR_DIGITS = tuple(_r(770 + 30 * i, XPDR_ROW_Y + 6, 28, 38) for i in range(4))
XPDR_MODE_BUTTONS = tuple(_r(900 + 56 * i, XPDR_ROW_Y + 12, 52, 26) for i in range(5))
AP_BUTTONS = {
    "ap_on": _r(770, AP_ROW_Y + 10, 50, 28),
    "ap_hdg": _r(826, AP_ROW_Y + 10, 50, 28),
    "ap_nav": _r(882, AP_ROW_Y + 10, 50, 28),
    "ap_alt": _r(938, AP_ROW_Y + 10, 50, 28),
}
AP_HDG_DN = _r(1060, AP_ROW_Y + 10, 28, 28)
AP_HDG_UP = _r(1092, AP_ROW_Y + 10, 28, 28)
AP_ALT_DN = _r(1196, AP_ROW_Y + 10, 30, 28)
AP_ALT_UP = _r(1230, AP_ROW_Y + 10, 30, 28)

# annunciator panel (lit only while the bus is powered): name -> (x, y, w, h), label, lit colour
ANNUNCIATORS = ("low_volts", "vacuum", "smoke", "door", "stall")
ANNUNCIATOR_LABELS = {"low_volts": "LOW VOLTS", "vacuum": "VAC", "smoke": "SMOKE", "door": "DOOR", "stall": "STALL"}
ANNUNCIATOR_RECTS = {name: _r(606, 556 + 24 * i, 88, 20) for i, name in enumerate(ANNUNCIATORS)}
AMBER = (250, 170, 0)
WARNING_RED = (230, 40, 40)
ANNUNCIATOR_COLOURS = {"low_volts": AMBER, "vacuum": AMBER, "smoke": WARNING_RED, "door": AMBER, "stall": WARNING_RED}
ANNUNCIATOR_OFF = (60, 60, 64)

# lights and pitot heat: a second row of rocker switches (bottom right)
SWITCHES2 = ("nav_lights", "landing_light", "taxi_light", "strobe", "pitot_heat")
SWITCH_LABELS.update(
    {"nav_lights": "NAV", "landing_light": "LDG", "taxi_light": "TAXI", "strobe": "STRB", "pitot_heat": "PITOT"}
)
SWITCH_RECTS.update({name: _r(1124 + 31 * i, 690, 27, 32) for i, name in enumerate(SWITCHES2)})

# push-pull knobs: carburettor heat, cabin heat, cabin air (pulled = on / open, lit yellow)
KNOBS = ("carb_heat", "cabin_heat", "cabin_air")
KNOB_LABELS = {"carb_heat": "CARB HT", "cabin_heat": "CAB HT", "cabin_air": "CAB AIR"}
KNOB_RECTS = {name: _r(1124 + 52 * i, 744, 48, 26) for i, name in enumerate(KNOBS)}

#: smoke in the cabin: a grey veil over the window, alpha = SMOKE_MAX_ALPHA x density
SMOKE_GREY = (150, 150, 150)
SMOKE_MAX_ALPHA = 140

#: every clickable control: name -> (x, y, w, h)
HOTSPOTS: dict[str, tuple[int, int, int, int]] = {
    **{f"switch:{n}": r for n, r in SWITCH_RECTS.items()},
    **{f"knob:{n}": r for n, r in KNOB_RECTS.items()},
    **{f"mags:{MAGS_LABELS[i]}": r for i, r in MAGS_LABEL_RECTS.items()},
    **{f"fuel:{FUEL_LABELS[i]}": r for i, r in FUEL_LABEL_RECTS.items()},
    "primer": PRIMER,
    "park_brake": PARK_BRAKE,
    "throttle": THROTTLE,
    "mixture": MIXTURE,
    "flaps": FLAPS,
    "trim": TRIM,
    "obs-": OBS_MINUS,
    "obs+": OBS_PLUS,
    "baro-": BARO_MINUS,
    "baro+": BARO_PLUS,
    "com1:swap": COM_SWAP,
    "com1:mhz-": COM_MHZ_DN,
    "com1:mhz+": COM_MHZ_UP,
    "com1:khz-": COM_KHZ_DN,
    "com1:khz+": COM_KHZ_UP,
    "com1:stby": COM_STBY,
    "nav1:swap": NAV_SWAP,
    "nav1:mhz-": NAV_MHZ_DN,
    "nav1:mhz+": NAV_MHZ_UP,
    "nav1:khz-": NAV_KHZ_DN,
    "nav1:khz+": NAV_KHZ_UP,
    "nav1:stby": NAV_STBY,
    **{f"xpdr:digit{i}": r for i, r in enumerate(XPDR_DIGITS)},
    **{f"xpdr:mode{i}": r for i, r in enumerate(XPDR_MODE_BUTTONS)},
    **{f"ap:{n}": r for n, r in AP_BUTTONS.items()},
    "ap:hdg-": AP_HDG_DN,
    "ap:hdg+": AP_HDG_UP,
    "ap:alt-": AP_ALT_DN,
    "ap:alt+": AP_ALT_UP,
}


def centre(name: str) -> tuple[int, int]:
    """Centre pixel of a hotspot (where a pilot clicks)."""
    x, y, w, h = HOTSPOTS[name]
    return x + w // 2, y + h // 2


def slider_y(rect: tuple[int, int, int, int], value: float) -> int:
    """Knob centre y of a vertical slider at `value` (0 bottom .. 1 top)."""
    x, y, w, h = rect
    return round(y + h - value * h)


def slider_value(rect: tuple[int, int, int, int], y_px: int) -> float:
    x, y, w, h = rect
    return max(0.0, min(1.0, (y + h - y_px) / h))


def hit(x: int, y: int) -> str | None:
    """The hotspot under a pixel, if any."""
    for name, (rx, ry, rw, rh) in HOTSPOTS.items():
        if rx <= x < rx + rw and ry <= y < ry + rh:
            return name
    return None
