"""The manual-control window: the agent's only way to drive.

It runs on the host (it needs the CARLA client port, which the sandbox cannot reach) but opens
on the sandbox's X display, so the agent sees the chase camera and HUD and drives with the
keyboard like CARLA's `manual_control.py`: W/Up throttle, S/Down brake, A/D or Left/Right
steer, Q reverse, Space hand brake. There is deliberately no autopilot key.

`KeyboardDriver` (keys -> control, steering that ramps like manual_control.py) is pure logic;
`ManualControlWindow` is the pygame window around it.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Keys:
    throttle: bool = False
    brake: bool = False
    left: bool = False
    right: bool = False
    hand_brake: bool = False


@dataclass
class Control:
    throttle: float = 0.0
    steer: float = 0.0
    brake: float = 0.0
    hand_brake: bool = False
    reverse: bool = False


@dataclass
class KeyboardDriver:
    """Keyboard state -> vehicle control, one update per simulation tick."""

    #: steering change per second of key hold (manual_control.py: 5e-4 per ms)
    steer_rate_per_s: float = 0.5
    max_steer: float = 0.7
    control: Control = field(default_factory=Control)

    def toggle_reverse(self) -> None:
        self.control.reverse = not self.control.reverse

    def update(self, keys: Keys, dt_s: float) -> Control:
        c = self.control
        c.throttle = min(c.throttle + 0.1, 1.0) if keys.throttle else 0.0
        c.brake = min(c.brake + 0.2, 1.0) if keys.brake else 0.0
        step = self.steer_rate_per_s * dt_s
        if keys.left and not keys.right:
            c.steer = max(-self.max_steer, (min(c.steer, 0.0)) - step)
        elif keys.right and not keys.left:
            c.steer = min(self.max_steer, (max(c.steer, 0.0)) + step)
        else:
            c.steer = 0.0
        c.hand_brake = keys.hand_brake
        return Control(c.throttle, round(c.steer, 6), c.brake, c.hand_brake, c.reverse)


@dataclass
class Hud:
    """What the HUD draws besides the camera: speed, the route and the task's polygons (CARLA m)."""

    route_xy_m: list[tuple[float, float]] = field(default_factory=list)
    polygons_xy_m: list[list[tuple[float, float]]] = field(default_factory=list)
    title: str = ""


class ManualControlWindow:
    """A pygame window on `display` showing the chase camera, the HUD and a minimap."""

    def __init__(
        self,
        display: str,
        *,
        size: tuple[int, int] = (1280, 720),
        hud: Hud | None = None,
        driver: KeyboardDriver | None = None,
    ) -> None:
        if display:
            os.environ["DISPLAY"] = display
        import pygame  # from the `sim` extra; imported here so the reader never needs it

        self._pg = pygame
        pygame.init()
        self.size = size
        self.screen = pygame.display.set_mode(size, pygame.HWSURFACE | pygame.DOUBLEBUF)
        pygame.display.set_caption("CARLA manual control")
        self.font = pygame.font.Font(pygame.font.get_default_font(), 18)
        self.hud = hud or Hud()
        self.driver = driver or KeyboardDriver()
        self.frame: Any = None
        self.closed = False

    def set_camera_image(self, width: int, height: int, bgra: bytes) -> None:
        """Latest camera frame (CARLA `Image.raw_data`, BGRA)."""
        import numpy as np

        arr = np.frombuffer(bgra, np.uint8).reshape(height, width, 4)[:, :, 2::-1]
        self.frame = self._pg.surfarray.make_surface(arr.swapaxes(0, 1))

    def step(self, dt_s: float, *, x_m: float, y_m: float, yaw_deg: float, speed_kmh: float) -> Control:
        """Read the keyboard, draw one frame, return the control to apply before the next tick."""
        pg = self._pg
        for ev in pg.event.get():
            if ev.type == pg.QUIT:
                self.closed = True
            elif ev.type == pg.KEYDOWN and ev.key == pg.K_q:
                self.driver.toggle_reverse()
        k = pg.key.get_pressed()
        keys = Keys(
            throttle=k[pg.K_w] or k[pg.K_UP],
            brake=k[pg.K_s] or k[pg.K_DOWN],
            left=k[pg.K_a] or k[pg.K_LEFT],
            right=k[pg.K_d] or k[pg.K_RIGHT],
            hand_brake=k[pg.K_SPACE],
        )
        control = self.driver.update(keys, dt_s)
        self._draw(x_m, y_m, yaw_deg, speed_kmh, control)
        return control

    def _draw(self, x_m: float, y_m: float, yaw_deg: float, speed_kmh: float, c: Control) -> None:
        pg = self._pg
        self.screen.fill((20, 20, 20))
        if self.frame is not None:
            self.screen.blit(self.frame, (0, 0))
        lines = [
            self.hud.title,
            f"speed {speed_kmh:5.1f} km/h",
            f"throttle {c.throttle:.2f}  brake {c.brake:.2f}  steer {c.steer:+.2f}",
            "reverse" if c.reverse else "",
            "W/S throttle/brake  A/D steer  Q reverse",
        ]
        for i, text in enumerate(t for t in lines if t):
            self.screen.blit(self.font.render(text, True, (255, 255, 255)), (12, 12 + 22 * i))
        self._minimap(x_m, y_m, yaw_deg)
        pg.display.flip()

    def _minimap(self, x_m: float, y_m: float, yaw_deg: float, *, radius_m: float = 60.0, px: int = 220) -> None:
        pg = self._pg
        ox, oy = self.size[0] - px - 12, self.size[1] - px - 12
        pg.draw.rect(self.screen, (40, 40, 40), (ox, oy, px, px))

        def to_px(x: float, y: float) -> tuple[int, int]:
            # north-up view of CARLA's left-handed frame: x to the right, y downwards
            return (int(ox + px / 2 + (x - x_m) / radius_m * px / 2), int(oy + px / 2 + (y - y_m) / radius_m * px / 2))

        if len(self.hud.route_xy_m) > 1:
            pg.draw.lines(self.screen, (80, 160, 255), False, [to_px(*p) for p in self.hud.route_xy_m], 3)
        for poly in self.hud.polygons_xy_m:
            if len(poly) > 2:
                pg.draw.polygon(self.screen, (255, 220, 0), [to_px(*p) for p in poly], 2)
        a = math.radians(yaw_deg)
        tip = to_px(x_m + 4 * math.cos(a), y_m + 4 * math.sin(a))
        pg.draw.line(self.screen, (255, 60, 60), to_px(x_m, y_m), tip, 3)

    def close(self) -> None:
        if not self.closed:
            self._pg.display.quit()
            self.closed = True
