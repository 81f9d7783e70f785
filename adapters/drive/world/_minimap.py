"""The heading-up minimap in the top-right corner: roads in grey, the task's route in ROUTE_RGB,
other vehicles as dots, the ego as a white triangle at the fixed pixel MINIMAP_EGO_PX.

The town is rendered once to a north-up surface at MINIMAP_M_PER_PX; each frame a square around
the ego is cut out, rotated so the heading points up and blitted with the ego on its pixel.
"""

from __future__ import annotations

import math

import numpy as np
import pygame

from simbridge.adapters.drive import layout
from simbridge.adapters.drive.world._roads import LAYER_ASPHALT, RoadGeometry
from simbridge.adapters.drive.world._scene import Frame

_MPP = layout.MINIMAP_M_PER_PX


def to_minimap_px(x_m: np.ndarray, y_m: np.ndarray, ego_x_m: float, ego_y_m: float, ego_yaw_deg: float) -> np.ndarray:
    """World points (CARLA metres) -> window pixels on the heading-up minimap, (n, 2)."""
    yaw = math.radians(ego_yaw_deg)
    hx, hy = math.cos(yaw), math.sin(yaw)
    dx, dy = x_m - ego_x_m, y_m - ego_y_m
    fwd = dx * hx + dy * hy
    right = dx * -hy + dy * hx
    ex, ey = layout.MINIMAP_EGO_PX
    return np.column_stack([ex + right / _MPP, ey - fwd / _MPP])


class Minimap:
    """Pre-renders the town's roads; draws the rotated window, route, vehicles and ego."""

    def __init__(self, roads: RoadGeometry | None) -> None:
        self.rect = pygame.Rect(layout.MINIMAP_RECT)
        ex, ey = layout.MINIMAP_EGO_PX
        corners = [(self.rect.left, self.rect.top), (self.rect.right, self.rect.top)]
        corners += [(self.rect.left, self.rect.bottom), (self.rect.right, self.rect.bottom)]
        self._half_px = int(math.ceil(max(math.hypot(cx - ex, cy - ey) for cx, cy in corners))) + 2
        self._cut = pygame.Surface((2 * self._half_px, 2 * self._half_px))
        self._map: pygame.Surface | None = None
        self._origin_m = (0.0, 0.0)
        if roads is not None and roads.polygons:
            x0, y0, x1, y1 = roads.bounds_m
            self._origin_m = (x0, y0)
            size = (int((x1 - x0) / _MPP) + 2, int((y1 - y0) / _MPP) + 2)
            self._map = pygame.Surface(size)
            self._map.fill(layout.MINIMAP_BG)
            for layer, _, pts in roads.polygons:
                if layer != LAYER_ASPHALT:
                    continue
                px = (pts - np.array([x0, y0])) / _MPP
                pygame.draw.polygon(self._map, layout.MINIMAP_ROAD, px.tolist())

    def draw(self, surface: pygame.Surface, frame: Frame) -> None:
        ex, ey = layout.MINIMAP_EGO_PX
        surface.fill(layout.MINIMAP_BG, self.rect)
        if not all(math.isfinite(v) for v in (frame.ego_x_m, frame.ego_y_m, frame.ego_yaw_deg)):
            return
        old_clip = surface.get_clip()
        surface.set_clip(self.rect)
        if self._map is not None:
            h = self._half_px
            u = (frame.ego_x_m - self._origin_m[0]) / _MPP
            v = (frame.ego_y_m - self._origin_m[1]) / _MPP
            self._cut.fill(layout.MINIMAP_BG)
            self._cut.blit(self._map, (0, 0), pygame.Rect(int(round(u)) - h, int(round(v)) - h, 2 * h, 2 * h))
            # heading (cos yaw, sin yaw) is at screen angle yaw below +x; rotate it to point up
            rotated = pygame.transform.rotate(self._cut, 90.0 + frame.ego_yaw_deg)
            surface.blit(rotated, rotated.get_rect(center=(ex, ey)))
        if len(frame.route_xy_m) >= 2:
            route = np.array(frame.route_xy_m, dtype=np.float64)
            px = to_minimap_px(route[:, 0], route[:, 1], frame.ego_x_m, frame.ego_y_m, frame.ego_yaw_deg)
            pygame.draw.lines(surface, layout.ROUTE_RGB, False, px.tolist(), layout.MINIMAP_ROUTE_W_PX)
        vehicles = [a for a in frame.actors if a.kind == "vehicle"]
        if vehicles:
            xs = np.array([a.x_m for a in vehicles])
            ys = np.array([a.y_m for a in vehicles])
            for p in to_minimap_px(xs, ys, frame.ego_x_m, frame.ego_y_m, frame.ego_yaw_deg):
                if self.rect.collidepoint(p[0], p[1]):
                    pygame.draw.circle(surface, layout.MINIMAP_VEHICLE_RGB, (int(p[0]), int(p[1])), 3)
        pygame.draw.polygon(surface, layout.MINIMAP_EGO_RGB, [(ex, ey - 7), (ex - 5, ey + 5), (ex + 5, ey + 5)])
        surface.set_clip(old_clip)
