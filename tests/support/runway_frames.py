"""Frames of a runway drawn with a pinhole camera as FlightGear's cockpit view sees it (its
focal length and optical centre), for the runway reader's and the pilots' tests."""

from __future__ import annotations

import math

import numpy as np

from simbridge.adapters.flightgear.pilots._runway import CENTRE_PX, FOCAL_PX, WINDOW

#: PHJR 04R's width (apt.dat)
WIDTH_M = 60.96
GRASS, ASPHALT, SKY = (70, 90, 42), (55, 55, 56), (120, 140, 170)


def draw(
    right_m: float,
    height_m: float,
    to_threshold_m: float,
    pitch_deg: float,
    yaw_deg: float,
    bank_deg: float,
    width_m: float = WIDTH_M,
):
    """A 1280x800 frame of a runway WIDTH_M wide and 2,400 m long on grass, seen from `right_m`
    right of its centreline, `height_m` up, `to_threshold_m` before its threshold, the camera
    pitched `pitch_deg` (nose up positive), yawed `yaw_deg` right of the runway and banked
    `bank_deg` (right wing down positive); the grey `width_m` wide (the chart's width unless
    told)."""
    h, w = 800, 1280
    vs, us = np.mgrid[0:h, 0:w].astype(float)
    x = us - CENTRE_PX[0]
    y = vs - CENTRE_PX[1]
    # the bank turns the picture the other way about the centre: banked right, the horizon's
    # right end rises (as FlightGear draws it)
    b = -math.radians(bank_deg)
    xl = x * math.cos(b) + y * math.sin(b)
    yl = -x * math.sin(b) + y * math.cos(b)
    # camera ray (forward, right, down) in the camera frame, then pitched and yawed to the world
    fwd, right, down = np.full_like(xl, FOCAL_PX), xl, yl
    p = math.radians(pitch_deg)
    fw = fwd * math.cos(p) + down * math.sin(p)
    dn = -fwd * math.sin(p) + down * math.cos(p)
    yw = math.radians(yaw_deg)
    along = fw * math.cos(yw) - right * math.sin(yw)
    side = fw * math.sin(yw) + right * math.cos(yw)
    img = np.empty((h, w, 3), dtype=np.uint8)
    img[:] = SKY
    ground = dn > 1e-6
    k = np.where(ground, height_m / np.where(ground, dn, 1.0), 0.0)
    ga, gs = along * k, side * k + right_m  # metres past the eye along the runway, right of its centreline
    img[ground] = GRASS
    rw = ground & (np.abs(gs) <= width_m / 2) & (ga >= to_threshold_m) & (ga <= to_threshold_m + 2400.0)
    img[rw] = ASPHALT
    img[520:] = (10, 10, 10)  # the glareshield and the panel
    return img


def window(frame: np.ndarray) -> np.ndarray:
    x0, y0, x1, y1 = WINDOW
    return frame[y0:y1, x0:x1]
