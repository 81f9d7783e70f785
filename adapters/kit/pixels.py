"""Colour masks the reference pilots read their screens with (the JSBSim cockpit's and the
drive simulator's pilots alike): an RGB colour and a tolerance, on a BGR screenshot."""

from __future__ import annotations

import numpy as np


def colour_mask(img_bgr: np.ndarray, rgb: tuple[int, int, int], tol: int) -> np.ndarray:
    """uint8 mask, 255 where every channel of the BGR image is within `tol` of the RGB colour
    (cv2.inRange with the bounds clipped to 0..255, as a uint8 image's values are)."""
    import cv2

    c = np.array(rgb[::-1], np.int16)
    return cv2.inRange(img_bgr, np.clip(c - tol, 0, 255).astype(np.uint8), np.clip(c + tol, 0, 255).astype(np.uint8))
