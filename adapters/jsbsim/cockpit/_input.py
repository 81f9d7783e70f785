"""Keyboard and mouse: FlightGear's default key bindings, panel clicks and drags, mouse yoke.

Keys (FlightGear's keyboard.xml; the digit keys act as the keypad, as in FlightGear):
    Up / KP8 / 8, Down / KP2 / 2   elevator +/-0.05 (Up = "elevator down": positive = nose down)
    Left / KP4 / 4, Right / KP6 / 6   aileron -/+0.05
    Insert / KP0 / 0, Enter / KP Enter   rudder left / right 0.05;  KP5 / 5: centre the controls
    PageUp / KP9 / 9, PageDown / KP3 / 3   throttle +/-0.01 (held: repeats)
    Home / KP7 / 7, End / KP1 / 1   elevator trim +/-0.01 (+ = nose down; FlightGear steps
                              0.001 per frame while held, this cockpit 0.01 per key event)
    m / M                     mixture richer / leaner 0.05 (held: repeats)
    } / {                     magnetos one position up / down (OFF R L BOTH)
    s (held)                  starter (key to START), releases to BOTH
    b (held)                  wheel brakes; , / . (held) left / right brake;  B parking brake toggle
    ] / [                     flaps one detent down / up
    Tab, right mouse button   mouse yoke on/off (in yoke mode the wheel trims: wheel up =
                              nose down, like rolling the trim wheel forward)
Held keys repeat after 0.3 s every 50 ms of *simulator* time (`tick`, called before every FDM
step), not on the wall clock: the same key held over the same simulator seconds moves a control
by the same amount on any machine and in lockstep, where the simulator runs faster than real
time. Toggles ignore repeats.
"""

from __future__ import annotations

import pygame

from simbridge.adapters.jsbsim import _layout as L
from simbridge.adapters.jsbsim.cockpit._controls import Controls, clamp

REPEAT_DELAY_MS, REPEAT_INTERVAL_MS = 300, 50
REPEAT_DELAY_S, REPEAT_INTERVAL_S = REPEAT_DELAY_MS / 1000.0, REPEAT_INTERVAL_MS / 1000.0


def _adjust(c: Controls, attr: str, step: float, lo: float, hi: float) -> None:
    setattr(c, attr, round(clamp(getattr(c, attr) + step, lo, hi), 4))


class InputHandler:
    def __init__(self, controls: Controls, has_autopilot: bool):
        self.c = controls
        self.has_autopilot = has_autopilot
        self._held: set[int] = set()
        #: held key -> [unicode, mods, simulator time of its next repeat (None: set at the next tick)]
        self._repeat: dict[int, list] = {}
        self._drag: str | None = None
        self._mags_start_held = False
        self.clicks: list[str] = []  # hotspots hit, for logging/tests

    # ---------------------------------------------------------------- keyboard
    def tick(self, t_sim: float) -> None:
        """Repeat the held keys that are due at simulator time `t_sim` (before each FDM step)."""
        for key, r in list(self._repeat.items()):
            if r[2] is None:
                r[2] = t_sim + REPEAT_DELAY_S
            while t_sim >= r[2] - 1e-9 and key in self._repeat:
                r[2] += REPEAT_INTERVAL_S
                self.key_down(key, r[0], r[1])

    def key_down(self, key: int, unicode: str, mods: int) -> None:
        repeat = key in self._held
        self._held.add(key)
        if not repeat:
            self._repeat[key] = [unicode, mods, None]
        c = self.c
        K = pygame
        ch = unicode
        adjust = {  # signs and steps as FlightGear's keyboard.xml (elevator/trim positive = nose down)
            K.K_UP: ("elevator", 0.05, -1, 1),
            K.K_KP8: ("elevator", 0.05, -1, 1),
            K.K_8: ("elevator", 0.05, -1, 1),
            K.K_DOWN: ("elevator", -0.05, -1, 1),
            K.K_KP2: ("elevator", -0.05, -1, 1),
            K.K_2: ("elevator", -0.05, -1, 1),
            K.K_LEFT: ("aileron", -0.05, -1, 1),
            K.K_KP4: ("aileron", -0.05, -1, 1),
            K.K_4: ("aileron", -0.05, -1, 1),
            K.K_RIGHT: ("aileron", 0.05, -1, 1),
            K.K_KP6: ("aileron", 0.05, -1, 1),
            K.K_6: ("aileron", 0.05, -1, 1),
            K.K_KP0: ("rudder", -0.05, -1, 1),
            K.K_INSERT: ("rudder", -0.05, -1, 1),
            K.K_0: ("rudder", -0.05, -1, 1),
            K.K_KP_ENTER: ("rudder", 0.05, -1, 1),
            K.K_RETURN: ("rudder", 0.05, -1, 1),
            K.K_PAGEUP: ("throttle", 0.01, 0, 1),
            K.K_KP9: ("throttle", 0.01, 0, 1),
            K.K_9: ("throttle", 0.01, 0, 1),
            K.K_PAGEDOWN: ("throttle", -0.01, 0, 1),
            K.K_KP3: ("throttle", -0.01, 0, 1),
            K.K_3: ("throttle", -0.01, 0, 1),
            K.K_HOME: ("elevator_trim", 0.01, -1, 1),
            K.K_KP7: ("elevator_trim", 0.01, -1, 1),
            K.K_7: ("elevator_trim", 0.01, -1, 1),
            K.K_END: ("elevator_trim", -0.01, -1, 1),
            K.K_KP1: ("elevator_trim", -0.01, -1, 1),
            K.K_1: ("elevator_trim", -0.01, -1, 1),
        }
        if key in adjust:
            attr, step, lo, hi = adjust[key]
            _adjust(c, attr, step, lo, hi)
            return
        if ch == "m":
            _adjust(c, "mixture", 0.05, 0, 1)
        elif ch == "M":
            _adjust(c, "mixture", -0.05, 0, 1)
        elif key in (K.K_KP5, K.K_5):
            c.elevator = c.aileron = c.rudder = 0.0
        elif repeat:
            return
        elif ch == "}":
            c.set_magnetos(min(3, c.magnetos + 1))
        elif ch == "{":
            c.set_magnetos(max(0, min(3, c.magnetos) - 1))
        elif ch == "s":
            c.starter_held = 1
        elif ch == "b":
            c.brake_left = c.brake_right = 1.0
        elif ch == ",":
            c.brake_left = 1.0
        elif ch == ".":
            c.brake_right = 1.0
        elif ch == "B":
            c.parking_brake = 1 - c.parking_brake
        elif ch == "]":
            c.set_flaps(c.flaps_index + 1)
        elif ch == "[":
            c.set_flaps(c.flaps_index - 1)
        elif key == K.K_TAB:
            self.toggle_yoke()

    def key_up(self, key: int) -> None:
        self._held.discard(key)
        self._repeat.pop(key, None)
        c = self.c
        name = pygame.key.name(key)
        if name == "s":
            if c.starter_held:
                c.starter_held = 0
                c.magnetos = 3
        elif name == "b":
            c.brake_left = c.brake_right = 0.0
        elif name == ",":
            c.brake_left = 0.0
        elif name == ".":
            c.brake_right = 0.0

    def toggle_yoke(self) -> None:
        self.c.mouse_yoke = 1 - self.c.mouse_yoke

    # ---------------------------------------------------------------- mouse
    def mouse_motion(self, x: int, y: int, buttons: tuple[int, ...]) -> None:
        c = self.c
        if c.mouse_yoke:
            rx, ry = L.MOUSE_YOKE_RANGE_PX
            c.aileron = round(clamp((x - L.VIEW_CENTRE[0]) / rx, -1, 1), 3)
            # pointer up (mouse pushed forward) = yoke pushed = nose down, as FlightGear's yoke mode
            c.elevator = round(clamp((L.VIEW_CENTRE[1] - y) / ry, -1, 1), 3)
            return
        if self._drag and buttons and buttons[0]:
            self._drag_to(self._drag, y)

    def mouse_down(self, x: int, y: int, button: int) -> None:
        c = self.c
        if button == 3:
            self.toggle_yoke()
            return
        if c.mouse_yoke:
            if button in (4, 5):  # wheel trims, as in FlightGear's yoke mode
                _adjust(c, "elevator_trim", 0.01 if button == 4 else -0.01, -1, 1)
            return
        if button in (4, 5):  # wheel
            self.wheel(x, y, 1 if button == 4 else -1)
            return
        if button != 1:
            return
        name = L.hit(x, y)
        if name is None:
            return
        self.clicks.append(name)
        self.click(name, y)

    def mouse_up(self, x: int, y: int, button: int) -> None:
        if button == 1:
            self._drag = None
            if self._mags_start_held:
                self._mags_start_held = False
                self.c.release_magnetos()

    def wheel(self, x: int, y: int, steps: int) -> None:
        c = self.c
        name = L.hit(x, y)
        if name in ("com1:stby",):
            c.tune_com1_stby(0.025 * steps)
        elif name == "nav1:stby":
            c.tune_nav1_stby(0.05 * steps)
        elif name in ("obs-", "obs+"):
            c.turn_obs(5 * steps)
        elif name in ("baro-", "baro+"):
            c.turn_baro(0.01 * steps)
        elif name == "trim":
            _adjust(c, "elevator_trim", 0.02 * steps, -1, 1)
        elif name in ("throttle", "mixture"):
            _adjust(c, name, 0.02 * steps, 0, 1)
        elif name in ("ap:hdg-", "ap:hdg+"):
            c.ap_hdg_bug_deg = (c.ap_hdg_bug_deg + 10 * steps) % 360

    def _drag_to(self, name: str, y: int) -> None:
        c = self.c
        if name == "throttle":
            c.throttle = round(L.slider_value(L.THROTTLE, y), 3)
        elif name == "mixture":
            c.mixture = round(L.slider_value(L.MIXTURE, y), 3)
        elif name == "trim":
            c.elevator_trim = round(2.0 * L.slider_value(L.TRIM, y) - 1.0, 3)

    def click(self, name: str, y: int = 0) -> None:
        """Act on a hotspot (what a left click on it does)."""
        c = self.c
        kind, _, arg = name.partition(":")
        if kind in ("switch", "knob"):
            setattr(c, arg, 1 - getattr(c, arg))
        elif kind == "mags":
            pos = L.MAGS_LABELS.index(arg)
            c.set_magnetos(pos)
            self._mags_start_held = pos == 4
        elif kind == "fuel":
            c.fuel_selector = L.FUEL_LABELS.index(arg)
        elif name == "primer":
            c.primer_push()
        elif name == "park_brake":
            c.parking_brake = 1 - c.parking_brake
        elif name in ("throttle", "mixture"):
            self._drag = name
            self._drag_to(name, y)
        elif name == "trim":
            x, ry, w, h = L.TRIM
            self._drag = "trim"
            _adjust(c, "elevator_trim", 0.02 if y < ry + h / 2 else -0.02, -1, 1)
        elif name == "flaps":
            idx = min(range(4), key=lambda i: abs(L.FLAP_DETENT_Y[i] - y))
            c.set_flaps(idx)
        elif name == "obs-":
            c.turn_obs(-1)
        elif name == "obs+":
            c.turn_obs(1)
        elif name == "baro-":
            c.turn_baro(-0.01)
        elif name == "baro+":
            c.turn_baro(0.01)
        elif kind in ("com1", "nav1"):
            tune = c.tune_com1_stby if kind == "com1" else c.tune_nav1_stby
            khz = 0.025 if kind == "com1" else 0.05
            {
                "swap": c.swap_com1 if kind == "com1" else c.swap_nav1,
                "mhz-": lambda: tune(-1.0),
                "mhz+": lambda: tune(1.0),
                "khz-": lambda: tune(-khz),
                "khz+": lambda: tune(khz),
                "stby": lambda: None,
            }[arg]()
        elif kind == "xpdr":
            if arg.startswith("digit"):
                i = int(arg[5:])
                _, ry, _, h = L.XPDR_DIGITS[i]
                c.xpdr_step_digit(i, 1 if y < ry + h / 2 else -1)
            else:
                c.xpdr_mode = int(arg[4:])
        elif kind == "ap" and self.has_autopilot:
            if arg in ("ap_on", "ap_hdg", "ap_nav", "ap_alt"):
                new = 1 - getattr(c, arg)
                setattr(c, arg, new)
                if arg == "ap_hdg" and new:
                    c.ap_nav = 0
                if arg == "ap_nav" and new:
                    c.ap_hdg = 0
                if arg != "ap_on" and new:
                    c.ap_on = 1
                if arg == "ap_on" and not new:
                    c.ap_hdg = c.ap_nav = c.ap_alt = 0
            elif arg == "hdg-":
                c.ap_hdg_bug_deg = (c.ap_hdg_bug_deg - 1) % 360
            elif arg == "hdg+":
                c.ap_hdg_bug_deg = (c.ap_hdg_bug_deg + 1) % 360
            elif arg == "alt-":
                c.ap_alt_target_ft = max(0.0, c.ap_alt_target_ft - 100)
            elif arg == "alt+":
                c.ap_alt_target_ft = min(20000.0, c.ap_alt_target_ft + 100)
