"""The driver's window's PUBLISHED layout: everything a pixel-only driver may know about the
1280 x 800 window (origin top-left) of the embedded driving simulator.

Camera (the perspective view fills the whole window; the HUD and minimap are drawn over it)
    A pinhole camera at the driver's eye, EYE_HEIGHT_M above the road, EYE_FORWARD_M ahead of the
    ego vehicle's reference point (CARLA's vehicle transform), on its centre line, looking along
    the vehicle's heading and pitched down by PITCH_DOWN_DEG. Horizontal field of view HFOV_DEG,
    square pixels, focal length FOCAL_PX, principal point (CX_PX, CY_PX) = the image centre. The
    horizon (flat ground, z = 0) is the row HORIZON_ROW_PX. `project(forward_m, right_m, up_m)`
    gives the pixel of a point in the eye's frame; `ground_row(distance_m)` the row of a ground
    point at that distance ahead, `ground_distance_m(row)` the inverse, `ground_point(col, row)`
    the (forward_m, right_m) of a ground pixel.

Scene colours (flat, no lighting, no fog: a surface has exactly this colour in every pixel that
only it covers). Lane markings are MARKING_WIDTH_M wide lines in MARK_WHITE or MARK_YELLOW, broken
ones in dashes BROKEN_DASH_M long with gaps BROKEN_GAP_M, double ones two lines DOUBLE_GAP_M apart
centred on the boundary; a road-edge line is MARKING_WIDTH_M inside the edge. Which line is where
is the town's OpenDRIVE roadMark (type and colour; Town01, Town04); on a net without OpenDRIVE
origins (the shipped Town03) the rule: broken white between lanes of one direction, double solid
yellow between the two directions, solid white at road edges. Outside each road edge: a KERB
strip KERB_WIDTH_M wide, then SIDEWALK_WIDTH_M of SIDEWALK; beyond, TERRAIN. Stop lines
STOP_LINE_DEPTH_M deep across a lane at a traffic-light-controlled lane end.

Traffic lights: a POLE from the ground to a HOUSING box HEAD_W_M wide and HEAD_H_M tall centred
LightHead.height_m above the ground at the head's position, three lamp discs of radius
LAMP_RADIUS_M (at least LAMP_MIN_RADIUS_PX pixels) LAMP_FACE_OFFSET_M in front of it along the
direction it faces: red on top (+LAMP_SPACING_M), yellow in the middle, green at the bottom
(-LAMP_SPACING_M); the lit one in LAMP_RED / LAMP_YELLOW / LAMP_GREEN, drawn over the others
(LAMP_OFF). A head seen from behind shows no lamps.

Pedestrians: a box in the actor's colour from the ground to 0.86 of the walker's height, and a
head, a disc of radius WALKER_HEAD_RADIUS_M in WALKER_HEAD at WALKER_HEAD_HEIGHT_FRAC of it.

HUD (CARLA manual_control.py's info panel): HUD_RECT, black at alpha HUD_ALPHA/255 over the scene,
white (255, 255, 255) text in HUD_FONT_FILE (shipped with pygame, `hud_font_path()`) at
HUD_FONT_PX, anti-aliased. Line i's text is blitted at (HUD_TEXT_X_PX, HUD_ROW_Y_PX[name]); the
label starts at HUD_TEXT_X_PX and the value is right-aligned to HUD_VALUE_RIGHT_X_PX (see
HUD_FORMATS). Bars (throttle, steer, brake) and boxes (reverse, hand brake, manual) at
x = HUD_BAR_X_PX, y = row + 8, height 6: a bar's white fill is HUD_BAR_W_PX * value wide (steer: a
6 px marker at HUD_BAR_X_PX + (steer + 1) / 2 * (HUD_BAR_W_PX - 6)); a box is filled when true.
Notices: NOTICE_RECT at the bottom, white HUD_FONT_FILE NOTICE_FONT_PX text at (10, +11).

Minimap (top right, opaque): MINIMAP_RECT, heading-up (the ego's heading points up), the ego at
the fixed pixel MINIMAP_EGO_PX (a white triangle), MINIMAP_M_PER_PX metres per pixel, roads in
MINIMAP_ROAD, the route as a MINIMAP_ROUTE_W_PX line in ROUTE_RGB, other vehicles as dots.

Importing this module loads nothing of the simulator (no pygame, no numpy).
"""

from __future__ import annotations

import math
from pathlib import Path

RGB = tuple[int, int, int]

# -- window and camera ---------------------------------------------------------------------------
WIDTH = 1280
HEIGHT = 800
HFOV_DEG = 90.0
FOCAL_PX = (WIDTH / 2) / math.tan(math.radians(HFOV_DEG / 2))
CX_PX = WIDTH / 2
CY_PX = HEIGHT / 2
EYE_HEIGHT_M = 1.2
EYE_FORWARD_M = 0.0
PITCH_DOWN_DEG = 4.0
HORIZON_ROW_PX = CY_PX - FOCAL_PX * math.tan(math.radians(PITCH_DOWN_DEG))
#: nothing nearer than this (metres along the view axis) is drawn; polygons are clipped there
NEAR_M = 0.3
#: ground (roads, junctions) is drawn to this distance, markings and actors to MARKINGS_FAR_M
FAR_M = 220.0
MARKINGS_FAR_M = 140.0

# -- scene colours -------------------------------------------------------------------------------
SKY: RGB = (120, 170, 225)
TERRAIN: RGB = (96, 112, 84)
ASPHALT: RGB = (72, 72, 76)
SIDEWALK: RGB = (150, 146, 136)
KERB: RGB = (190, 190, 185)
MARK_WHITE: RGB = (235, 235, 235)
MARK_YELLOW: RGB = (225, 185, 40)
STOP_LINE: RGB = MARK_WHITE
ROAD_MARK: RGB = (250, 250, 250)  # painted task areas (T07's parking bay outline)
MARKING_WIDTH_M = 0.15
BROKEN_DASH_M = 3.0
BROKEN_GAP_M = 6.0
DOUBLE_GAP_M = 0.3
STOP_LINE_DEPTH_M = 0.5
KERB_WIDTH_M = 0.3
SIDEWALK_WIDTH_M = 2.5

# -- traffic lights ------------------------------------------------------------------------------
POLE: RGB = (45, 45, 48)
HOUSING: RGB = (25, 25, 25)
LAMP_RED: RGB = (255, 0, 0)
LAMP_YELLOW: RGB = (255, 160, 0)
LAMP_GREEN: RGB = (0, 255, 90)
LAMP_OFF: RGB = (55, 55, 55)
LAMP_COLOURS: dict[str, RGB] = {"red": LAMP_RED, "yellow": LAMP_YELLOW, "green": LAMP_GREEN}
HEAD_W_M = 0.45
HEAD_H_M = 1.1
LAMP_RADIUS_M = 0.14
LAMP_SPACING_M = 0.34
LAMP_MIN_RADIUS_PX = 3
#: the lamps' plane is this far in front of the head's position, along the direction it faces
LAMP_FACE_OFFSET_M = 0.16
#: lamp centre height above the head's centre, by colour
LAMP_DZ_M: dict[str, float] = {"red": LAMP_SPACING_M, "yellow": 0.0, "green": -LAMP_SPACING_M}

# -- pedestrians ---------------------------------------------------------------------------------
WALKER_HEAD: RGB = (225, 190, 160)
WALKER_HEAD_RADIUS_M = 0.12
WALKER_HEAD_HEIGHT_FRAC = 0.93

# -- HUD -----------------------------------------------------------------------------------------
HUD_RECT = (0, 0, 220, HEIGHT)
HUD_ALPHA = 100
HUD_FONT_FILE = "freesansbold.ttf"
HUD_FONT_PX = 14
NOTICE_FONT_PX = 20
HUD_TOP_PX = 4
HUD_LINE_PITCH_PX = 18
HUD_TEXT_X_PX = 8
HUD_VALUE_RIGHT_X_PX = 212
HUD_BAR_X_PX = 100
HUD_BAR_W_PX = 106
HUD_TEXT_RGB: RGB = (255, 255, 255)
#: the info panel's lines top to bottom ("" = blank line; "collision_graph" is a 18 px plot)
HUD_LINES: tuple[str, ...] = (
    "server_fps",
    "client_fps",
    "",
    "vehicle",
    "map",
    "sim_time",
    "",
    "speed",
    "heading",
    "location",
    "",
    "throttle",
    "steer",
    "brake",
    "reverse",
    "hand_brake",
    "manual",
    "gear",
    "",
    "collision",
    "collision_graph",
    "",  # the plot is 30 px tall: it takes two lines, as in manual_control
    "",
    "vehicles",
)
HUD_ROW_Y_PX: dict[str, int] = {name: HUD_TOP_PX + i * HUD_LINE_PITCH_PX for i, name in enumerate(HUD_LINES) if name}
#: label, then the value text right-aligned at HUD_VALUE_RIGHT_X_PX (python %-format of the value)
HUD_FORMATS: dict[str, tuple[str, str]] = {
    "server_fps": ("Server:", "%.0f FPS"),
    "client_fps": ("Client:", "%.0f FPS"),
    "vehicle": ("Vehicle:", "%s"),
    "map": ("Map:", "%s"),
    "sim_time": ("Simulation time:", "%s"),  # H:MM:SS
    "speed": ("Speed:", "%.0f km/h"),
    "heading": ("Heading:", "%.0f\N{DEGREE SIGN} %s"),  # compass deg (0 = north, clockwise), N/NE/E...
    "location": ("Location:", "(%.1f, %.1f)"),
    "throttle": ("Throttle:", ""),
    "steer": ("Steer:", ""),
    "brake": ("Brake:", ""),
    "reverse": ("Reverse:", ""),
    "hand_brake": ("Hand brake:", ""),
    "manual": ("Manual:", ""),
    "gear": ("Gear:", "%s"),  # R, N or the gear number
    "collision": ("Collision:", ""),
    "vehicles": ("Number of vehicles:", "%d"),
}


def compass_letters(compass: float) -> str:
    """The heading line's N/S/E/W letters exactly as manual_control.py builds them from the
    compass degrees (its `%s` in HUD_FORMATS["heading"])."""
    heading = "N" if compass > 270.5 or compass < 89.5 else ""
    heading += "S" if 90.5 < compass < 269.5 else ""
    heading += "E" if 0.5 < compass < 179.5 else ""
    heading += "W" if 180.5 < compass < 359.5 else ""
    return heading


#: below the last line, as manual_control: "Nearby vehicles:" then one left-aligned line per
#: vehicle within NEARBY_RANGE_M, nearest first, "%4dm %s" % (distance_m, actor id[:22])
HUD_NEARBY_TITLE_Y_PX = HUD_TOP_PX + len(HUD_LINES) * HUD_LINE_PITCH_PX
NEARBY_RANGE_M = 200.0
NOTICE_RECT = (0, HEIGHT - 40, WIDTH, 40)
NOTICE_TEXT_XY_PX = (10, HEIGHT - 40 + 11)
NOTICE_SECONDS = 2.0

# -- minimap -------------------------------------------------------------------------------------
MINIMAP_RECT = (WIDTH - 270, 10, 260, 260)
MINIMAP_EGO_PX = (MINIMAP_RECT[0] + 130, MINIMAP_RECT[1] + 180)
MINIMAP_M_PER_PX = 0.5
MINIMAP_BG: RGB = (28, 30, 34)
MINIMAP_ROAD: RGB = (125, 125, 125)
ROUTE_RGB: RGB = (0, 170, 255)
MINIMAP_ROUTE_W_PX = 3
MINIMAP_EGO_RGB: RGB = (255, 255, 255)
MINIMAP_VEHICLE_RGB: RGB = (230, 120, 40)


def hud_font_path() -> Path:
    """The HUD font file inside the installed pygame package (found without importing pygame)."""
    import importlib.util

    spec = importlib.util.find_spec("pygame")
    if spec is None or spec.origin is None:
        raise RuntimeError("pygame is not installed: the HUD font freesansbold.ttf ships with it")
    return Path(spec.origin).parent / HUD_FONT_FILE


def compass_deg(yaw_deg: float) -> float:
    """CARLA yaw (x east, y south) -> compass heading, 0 = north, clockwise, in [0, 360)."""
    return (yaw_deg + 90.0) % 360.0


def project(forward_m: float, right_m: float, up_m: float) -> tuple[float, float] | None:
    """Pixel (col, row) of a point given in the eye's level frame (ahead, right, up from the eye);
    None when it is behind the near plane."""
    pitch = math.radians(PITCH_DOWN_DEG)
    z_c = forward_m * math.cos(pitch) - up_m * math.sin(pitch)
    y_c = forward_m * math.sin(pitch) + up_m * math.cos(pitch)
    if z_c <= NEAR_M:
        return None
    return CX_PX + FOCAL_PX * right_m / z_c, CY_PX - FOCAL_PX * y_c / z_c


def ground_row(distance_m: float) -> float:
    """Row of a ground point `distance_m` ahead of the eye (any lateral offset: rows are level)."""
    return CY_PX + FOCAL_PX * math.tan(math.atan2(EYE_HEIGHT_M, distance_m) - math.radians(PITCH_DOWN_DEG))


def ground_distance_m(row: float) -> float:
    """Distance ahead of the eye of the ground seen at `row` (inf at or above the horizon)."""
    below_deg = math.degrees(math.atan((row - CY_PX) / FOCAL_PX)) + PITCH_DOWN_DEG
    if below_deg <= 0:
        return math.inf
    return EYE_HEIGHT_M / math.tan(math.radians(below_deg))


def ground_point(col: float, row: float) -> tuple[float, float]:
    """(forward_m, right_m) from the eye of the ground seen at pixel (col, row), below the horizon."""
    pitch = math.radians(PITCH_DOWN_DEG)
    # ray in camera coordinates (x right, y up, z forward), rotated into the level eye frame
    x, y, z = (col - CX_PX) / FOCAL_PX, -(row - CY_PX) / FOCAL_PX, 1.0
    fwd = z * math.cos(pitch) + y * math.sin(pitch)
    up = -z * math.sin(pitch) + y * math.cos(pitch)
    if up >= 0:
        raise ValueError(f"pixel ({col}, {row}) is at or above the horizon (row {HORIZON_ROW_PX:.1f})")
    t = EYE_HEIGHT_M / -up
    return fwd * t, x * t
