"""CARLA manual_control.py's HUD for the embedded driving simulator: the semi-transparent info
panel on the left (fps, vehicle, map, time, speed, heading, location, control bars, gear,
collision history, vehicle count) and the fading notices at the bottom.

Rows, font and positions are layout.py's (published): a pixel-reading driver finds the speed at
`layout.HUD_ROW_Y_PX["speed"]`, right-aligned to `layout.HUD_VALUE_RIGHT_X_PX`.
"""

from __future__ import annotations

import datetime
import math
import time

import pygame

from simbridge.adapters.drive import layout
from simbridge.adapters.drive.world._scene import Frame

_GRAPH_SAMPLES = 200
_GRAPH_SPAN_S = 10.0
_GRAPH_RGB = (255, 136, 0)


def collision_text(text: str) -> str:
    """The notice for a collision: the world's text, or manual_control's "Collision with 'x'"."""
    return text if text.lower().startswith("collision") else f"Collision with {text!r}"


def hud_values(frame: Frame, server_fps: float, client_fps: float) -> dict[str, str]:
    """The value text of each HUD line, formatted with layout.HUD_FORMATS."""
    f = layout.HUD_FORMATS
    compass = layout.compass_deg(frame.ego_yaw_deg)
    c = frame.controls
    gear = {-1: "R", 0: "N"}.get(c.gear, str(c.gear))
    vehicles = 1 + sum(1 for a in frame.actors if a.kind == "vehicle")
    return {
        "server_fps": f["server_fps"][1] % server_fps,
        "client_fps": f["client_fps"][1] % client_fps,
        "vehicle": f["vehicle"][1] % frame.vehicle_name[:20],
        "map": f["map"][1] % frame.town,
        "sim_time": f["sim_time"][1] % datetime.timedelta(seconds=int(frame.sim_time_s)),
        "speed": f["speed"][1] % frame.speed_kmh,
        "heading": f["heading"][1] % (compass, layout.compass_letters(compass)),
        "location": f["location"][1] % (frame.ego_x_m, frame.ego_y_m),
        "gear": f["gear"][1] % gear,
        "vehicles": f["vehicles"][1] % vehicles,
    }


class Hud:
    """Draws the info panel and notices; keeps the fps clocks and the notice timer (sim time)."""

    def __init__(self) -> None:
        pygame.font.init()
        self.font = pygame.font.Font(str(layout.hud_font_path()), layout.HUD_FONT_PX)
        self.notice_font = pygame.font.Font(str(layout.hud_font_path()), layout.NOTICE_FONT_PX)
        x, y, w, h = layout.HUD_RECT
        self._panel = pygame.Surface((w, h))
        self._panel.fill((0, 0, 0))
        self._panel.set_alpha(layout.HUD_ALPHA)
        self._notice_bg = pygame.Surface(layout.NOTICE_RECT[2:])
        self._notice: tuple[str, float] | None = None  # text, sim time shown
        self._last_collision_s = -1e9
        self._last_wall = 0.0
        self._last_sim = -1.0
        self._server_wall = 0.0
        self.client_fps = 0.0
        self.server_fps = 0.0
        self._values: dict[str, pygame.Surface] = {}
        self._static = self._static_layer()

    def _static_layer(self) -> pygame.Surface:
        """The labels and the bar / box outlines, which never change, in one per-pixel-alpha layer
        (BLEND_RGBA_MAX keeps each glyph's own alpha, so one blit equals blitting each label)."""
        x, y, w, h = layout.HUD_RECT
        layer = pygame.Surface((w, h), pygame.SRCALPHA)
        layer.fill((0, 0, 0, 0))
        white = layout.HUD_TEXT_RGB
        for name, row in layout.HUD_ROW_Y_PX.items():
            if name == "collision_graph":
                continue
            text = self.font.render(layout.HUD_FORMATS[name][0], True, white)
            layer.blit(text, (layout.HUD_TEXT_X_PX - x, row - y), special_flags=pygame.BLEND_RGBA_MAX)
        # only the part that holds glyphs is blended each frame
        self._static_at = layer.get_bounding_rect()
        return layer.subsurface(self._static_at).copy()

    def _value(self, text: str) -> pygame.Surface:
        surf = self._values.get(text)
        if surf is None:
            if len(self._values) > 512:
                self._values.clear()
            surf = self._values[text] = self.font.render(text, True, layout.HUD_TEXT_RGB)
        return surf

    def notify(self, text: str, sim_time_s: float) -> None:
        self._notice = (text, sim_time_s)

    def _tick(self, frame: Frame) -> None:
        now = time.perf_counter()
        if self._last_wall:
            dt = now - self._last_wall
            if dt > 0:
                self.client_fps = 1 / dt if not self.client_fps else 0.9 * self.client_fps + 0.1 / dt
        self._last_wall = now
        if frame.sim_time_s != self._last_sim:
            if self._server_wall:
                dt = now - self._server_wall
                if dt > 0:
                    self.server_fps = 1 / dt if not self.server_fps else 0.9 * self.server_fps + 0.1 / dt
            self._server_wall = now
            self._last_sim = frame.sim_time_s
        for t, text in frame.collisions:
            if t > self._last_collision_s:
                self._last_collision_s = t
                self.notify(collision_text(text), t)

    def draw(self, surface: pygame.Surface, frame: Frame) -> None:
        self._tick(frame)
        surface.blit(self._panel, layout.HUD_RECT[:2])
        surface.blit(self._static, (layout.HUD_RECT[0] + self._static_at.x, layout.HUD_RECT[1] + self._static_at.y))
        values = hud_values(frame, self.server_fps, self.client_fps)
        c = frame.controls
        bars = {"throttle": (c.throttle, 0.0), "steer": (c.steer, -1.0), "brake": (c.brake, 0.0)}
        boxes = {"reverse": c.reverse, "hand_brake": c.hand_brake, "manual": c.manual_gear_shift}
        white = layout.HUD_TEXT_RGB
        bx, bw = layout.HUD_BAR_X_PX, layout.HUD_BAR_W_PX
        for name, y in layout.HUD_ROW_Y_PX.items():
            if name == "collision_graph":
                self._draw_graph(surface, frame, y)
                continue
            if name in values:
                text = self._value(values[name])
                surface.blit(text, (layout.HUD_VALUE_RIGHT_X_PX - text.get_width(), y))
            elif name in bars:
                value, lo = bars[name]
                pygame.draw.rect(surface, white, pygame.Rect(bx, y + 8, bw, 6), 1)
                f = (value - lo) / (1.0 - lo)
                if lo < 0:
                    pygame.draw.rect(surface, white, pygame.Rect(bx + f * (bw - 6), y + 8, 6, 6))
                else:
                    pygame.draw.rect(surface, white, pygame.Rect(bx, y + 8, f * bw, 6))
            elif name in boxes:
                pygame.draw.rect(surface, white, pygame.Rect(bx, y + 8, 6, 6), 0 if boxes[name] else 1)
        self._draw_nearby(surface, frame)
        self._draw_notice(surface, frame)

    def _draw_nearby(self, surface: pygame.Surface, frame: Frame) -> None:
        """manual_control's list of the other vehicles within 200 m, nearest first."""
        near = sorted(
            (math.hypot(a.x_m - frame.ego_x_m, a.y_m - frame.ego_y_m), a.actor_id)
            for a in frame.actors
            if a.kind == "vehicle"
        )
        near = [(d, name) for d, name in near if d <= layout.NEARBY_RANGE_M]
        if not near:
            return
        y = layout.HUD_NEARBY_TITLE_Y_PX
        bottom = layout.NOTICE_RECT[1]
        surface.blit(self._value("Nearby vehicles:"), (layout.HUD_TEXT_X_PX, y))
        for d, name in near:
            y += layout.HUD_LINE_PITCH_PX
            if y + layout.HUD_LINE_PITCH_PX > bottom:
                break
            surface.blit(self._value("% 4dm %s" % (d, name[:22])), (layout.HUD_TEXT_X_PX, y))

    def _draw_graph(self, surface: pygame.Surface, frame: Frame, y: int) -> None:
        """manual_control's collision plot: the last 200 samples (here 10 s of sim time), peaks at hits."""
        step = _GRAPH_SPAN_S / _GRAPH_SAMPLES
        hist = [0.0] * _GRAPH_SAMPLES
        for t, _ in frame.collisions:
            k = _GRAPH_SAMPLES - 1 - int((frame.sim_time_s - t) / step)
            if 0 <= k < _GRAPH_SAMPLES:
                hist[k] = 1.0
        points = [(x + 8, y + 8 + (1.0 - v) * 30) for x, v in enumerate(hist)]
        pygame.draw.lines(surface, _GRAPH_RGB, False, points, 2)

    def _draw_notice(self, surface: pygame.Surface, frame: Frame) -> None:
        text, alpha = None, 255.0
        if self._notice is not None:
            left = layout.NOTICE_SECONDS - (frame.sim_time_s - self._notice[1])
            if left > 0:
                text, alpha = self._notice[0], min(255.0, 500.0 * left)
            else:
                self._notice = None
        if text is None and frame.notices:
            text = frame.notices[-1]
        if text is None:
            return
        self._notice_bg.fill((0, 0, 0))
        self._notice_bg.blit(self.notice_font.render(text, True, layout.HUD_TEXT_RGB), (10, 11))
        self._notice_bg.set_alpha(int(alpha))
        surface.blit(self._notice_bg, layout.NOTICE_RECT[:2])
