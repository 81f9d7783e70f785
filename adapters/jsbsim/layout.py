"""The embedded cockpit's published pixel layout: a contract for agents that read the
instruments from screenshots and click the panel (the reference pilots are written against it).

Positions, colours and gauge scales of the 1280 x 800 window (origin top-left), the hotspots
an agent clicks (`HOTSPOTS`, `centre(name)`, `hit(x, y)`), the readout strip's format and boxes
(`READOUT_FORMAT`, `readout_boxes()`). The full description of each gauge is this module's
`__doc__` (below, as the cockpit draws it). Importing it loads nothing of the simulator.
"""

from __future__ import annotations

from simbridge.adapters.jsbsim import _layout
from simbridge.adapters.jsbsim._layout import (
    WIDTH, HEIGHT, VIEW, VIEW_CENTRE, HFOV_DEG, FOCAL_PX, PANEL, READOUT, MOUSE_YOKE_RANGE_PX, PANEL_BG, FACE,
    NEEDLE, SKY, GROUND, SYMBOL, LIT, Gauge, ASI, AI, ALT, TC, HI, VSI, TACH, CDI, FUEL_L, FUEL_R, OIL_T,
    OIL_P, VOLTS, GAUGES, SMALL_RANGES, ASI_DEG_AT_0, ASI_DEG_PER_KT, AI_PX_PER_DEG_PITCH, TC_DEG_PER_DPS,
    TC_BALL_PX_PER_G, VSI_DEG_PER_FPM, TACH_DEG_AT_0, TACH_DEG_PER_RPM, CDI_PX_PER_DOT, asi_angle, vsi_angle,
    tach_angle, small_angle, needle_tip, READOUT_FORMAT, READOUT_X0, READOUT_Y0, READOUT_CHAR_W,
    READOUT_CHAR_H, readout_boxes, SWITCHES, SWITCH_LABELS, SWITCH_RECTS, MAGS_CENTRE, MAGS_LABELS,
    MAGS_LABEL_RECTS, FUEL_CENTRE, FUEL_LABELS, FUEL_LABEL_RECTS, PRIMER, PARK_BRAKE, SLIDER_H, THROTTLE,
    MIXTURE, FLAPS, TRIM, FLAP_DETENT_Y, OBS_MINUS, OBS_PLUS, BARO_MINUS, BARO_PLUS, STATUS_XY, RADIO_X,
    COM_ROW_Y, NAV_ROW_Y, XPDR_ROW_Y, AP_ROW_Y, ROW_H, COM_ACTIVE, COM_STBY, COM_SWAP, COM_MHZ_DN, COM_MHZ_UP,
    COM_KHZ_DN, COM_KHZ_UP, NAV_ACTIVE, NAV_STBY, NAV_SWAP, NAV_MHZ_DN, NAV_MHZ_UP, NAV_KHZ_DN, NAV_KHZ_UP,
    XPDR_DIGITS, XPDR_MODE_BUTTONS, AP_BUTTONS, AP_HDG_DN, AP_HDG_UP, AP_ALT_DN, AP_ALT_UP, HOTSPOTS, centre,
    slider_y, slider_value, hit,
)

__doc__ = f"{__doc__}\n{_layout.__doc__}"

__all__ = [
    "WIDTH", "HEIGHT", "VIEW", "VIEW_CENTRE", "HFOV_DEG", "FOCAL_PX", "PANEL", "READOUT",
    "MOUSE_YOKE_RANGE_PX", "PANEL_BG", "FACE", "NEEDLE", "SKY", "GROUND", "SYMBOL", "LIT", "Gauge", "ASI",
    "AI", "ALT", "TC", "HI", "VSI", "TACH", "CDI", "FUEL_L", "FUEL_R", "OIL_T", "OIL_P", "VOLTS", "GAUGES",
    "SMALL_RANGES", "ASI_DEG_AT_0", "ASI_DEG_PER_KT", "AI_PX_PER_DEG_PITCH", "TC_DEG_PER_DPS",
    "TC_BALL_PX_PER_G", "VSI_DEG_PER_FPM", "TACH_DEG_AT_0", "TACH_DEG_PER_RPM", "CDI_PX_PER_DOT", "asi_angle",
    "vsi_angle", "tach_angle", "small_angle", "needle_tip", "READOUT_FORMAT", "READOUT_X0", "READOUT_Y0",
    "READOUT_CHAR_W", "READOUT_CHAR_H", "readout_boxes", "SWITCHES", "SWITCH_LABELS", "SWITCH_RECTS",
    "MAGS_CENTRE", "MAGS_LABELS", "MAGS_LABEL_RECTS", "FUEL_CENTRE", "FUEL_LABELS", "FUEL_LABEL_RECTS",
    "PRIMER", "PARK_BRAKE", "SLIDER_H", "THROTTLE", "MIXTURE", "FLAPS", "TRIM", "FLAP_DETENT_Y", "OBS_MINUS",
    "OBS_PLUS", "BARO_MINUS", "BARO_PLUS", "STATUS_XY", "RADIO_X", "COM_ROW_Y", "NAV_ROW_Y", "XPDR_ROW_Y",
    "AP_ROW_Y", "ROW_H", "COM_ACTIVE", "COM_STBY", "COM_SWAP", "COM_MHZ_DN", "COM_MHZ_UP", "COM_KHZ_DN",
    "COM_KHZ_UP", "NAV_ACTIVE", "NAV_STBY", "NAV_SWAP", "NAV_MHZ_DN", "NAV_MHZ_UP", "NAV_KHZ_DN",
    "NAV_KHZ_UP", "XPDR_DIGITS", "XPDR_MODE_BUTTONS", "AP_BUTTONS", "AP_HDG_DN", "AP_HDG_UP", "AP_ALT_DN",
    "AP_ALT_UP", "HOTSPOTS", "centre", "slider_y", "slider_value", "hit",
]
