"""Keyboard driving with CARLA manual_control.py's bindings and `_parse_vehicle_keys` semantics.

    W / Up       throttle: +THROTTLE_STEP per frame up to THROTTLE_MAX, released -> 0
    S / Down     brake: +0.2 per frame up to 1, released -> 0
    A / D, Left / Right  steer: a cache moved 5e-4 per elapsed ms (reset to 0 when reversing
                 direction), clamped to +-0.7, released -> 0; the control is the cache rounded
                 to 0.1
    Space        hand brake while held
    Q            toggle reverse (gear 1 <-> -1)     M  toggle manual transmission
    , / .        gear down / up (manual only)       P  autopilot: disabled here, a notice only
    Esc, Ctrl+Q  quit
Toggles act on key release, as in manual_control.py. (Its current master ramps the throttle by
0.01 to 0.85; this simulator uses the 0.1-to-1 ramp its task plan names, see THROTTLE_STEP.)
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import replace
from typing import Any

import pygame

from simbridge.adapters.drive.world._scene import EgoControls

THROTTLE_STEP = 0.1
THROTTLE_MAX = 1.0
BRAKE_STEP = 0.2
STEER_PER_MS = 5e-4
STEER_MAX = 0.7
AUTOPILOT_NOTICE = "Autopilot is disabled in this task"


def _down(pressed: Any, key: int) -> bool:
    """Whether `key` is held: `pressed` is pygame.key.get_pressed() or a collection of key codes."""
    if isinstance(pressed, Collection) and not hasattr(pressed, "__getitem__"):
        return key in pressed
    if isinstance(pressed, dict):
        return bool(pressed.get(key, False))
    try:
        return bool(pressed[key])
    except IndexError:
        return False


class KeyboardControl:
    """Turns one frame's key events and held keys into `EgoControls`, like manual_control.py."""

    def __init__(self) -> None:
        self.controls = EgoControls()
        self._steer_cache = 0.0
        self.quit_requested = False
        #: the latest one-line notice (autopilot refused, transmission changed), None when shown
        self.notice: str | None = None

    def pop_notice(self) -> str | None:
        """The pending notice, cleared (the caller shows it, e.g. DriverView.notify)."""
        text, self.notice = self.notice, None
        return text

    def update(self, events: Iterable[pygame.event.Event], pressed: Any, dt_ms: float) -> EgoControls:
        """Apply this frame's events (KEYUP toggles, QUIT) and the held keys over `dt_ms`. With
        `dt_ms` 0 (a paused world: lockstep between the agent's actions) the held keys are not
        applied: their ramps count world frames, so a pause of any wall length adds nothing."""
        c = self.controls
        for event in events:
            if event.type == pygame.QUIT:
                self.quit_requested = True
            elif event.type == pygame.KEYUP:
                ctrl = bool(getattr(event, "mod", 0) & pygame.KMOD_CTRL)
                if event.key == pygame.K_ESCAPE or (event.key == pygame.K_q and ctrl):
                    self.quit_requested = True
                elif event.key == pygame.K_q:
                    c = replace(c, gear=1 if c.reverse else -1)
                    c = replace(c, reverse=c.gear < 0)
                elif event.key == pygame.K_m:
                    c = replace(c, manual_gear_shift=not c.manual_gear_shift)
                    self.notice = "%s Transmission" % ("Manual" if c.manual_gear_shift else "Automatic")
                elif c.manual_gear_shift and event.key == pygame.K_COMMA:
                    c = replace(c, gear=max(-1, c.gear - 1))
                elif c.manual_gear_shift and event.key == pygame.K_PERIOD:
                    c = replace(c, gear=c.gear + 1)
                elif event.key == pygame.K_p and not ctrl:
                    self.notice = AUTOPILOT_NOTICE
        self.controls = self._parse_vehicle_keys(c, pressed, dt_ms) if dt_ms > 0 else c
        return self.controls

    def _parse_vehicle_keys(self, c: EgoControls, keys: Any, milliseconds: float) -> EgoControls:
        if _down(keys, pygame.K_UP) or _down(keys, pygame.K_w):
            throttle = min(c.throttle + THROTTLE_STEP, THROTTLE_MAX)
        else:
            throttle = 0.0
        if _down(keys, pygame.K_DOWN) or _down(keys, pygame.K_s):
            brake = min(c.brake + BRAKE_STEP, 1.0)
        else:
            brake = 0.0
        steer_increment = STEER_PER_MS * milliseconds
        if _down(keys, pygame.K_LEFT) or _down(keys, pygame.K_a):
            self._steer_cache = 0.0 if self._steer_cache > 0 else self._steer_cache - steer_increment
        elif _down(keys, pygame.K_RIGHT) or _down(keys, pygame.K_d):
            self._steer_cache = 0.0 if self._steer_cache < 0 else self._steer_cache + steer_increment
        else:
            self._steer_cache = 0.0
        self._steer_cache = min(STEER_MAX, max(-STEER_MAX, self._steer_cache))
        return replace(
            c,
            throttle=round(throttle, 6),
            brake=round(brake, 6),
            steer=round(self._steer_cache, 1),
            hand_brake=_down(keys, pygame.K_SPACE),
            reverse=c.gear < 0,
        )
