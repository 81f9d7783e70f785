"""The cockpit's control state: every switch, lever, knob and radio the pilot can set.

This is what the mouse and keyboard change and what the flight model reads each step. It is
kept apart from the flight model so the panel, the key bindings and the property server all
act on one object.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from simbridge.adapters.jsbsim._layout import FLAP_DETENTS_DEG  # the lever's detents, as the panel marks them

COM_MIN_MHZ, COM_MAX_MHZ = 118.0, 136.975
NAV_MIN_MHZ, NAV_MAX_MHZ = 108.0, 117.95
XPDR_MODES = ("OFF", "STBY", "ON", "ALT", "TST")  # index = canonical xpdr_mode
MAGNETO_NAMES = ("OFF", "R", "L", "BOTH", "START")
FUEL_NAMES = ("OFF", "LEFT", "RIGHT", "BOTH")


def clamp(v: float, lo: float, hi: float) -> float:
    return lo if v < lo else hi if v > hi else v


def _wrap_freq(mhz: float, lo: float, hi: float) -> float:
    span = hi - lo
    return round(lo + (mhz - lo) % (span + 0.025), 3)


@dataclass
class Controls:
    # flight controls (-1..1), trim (-1..1)
    elevator: float = 0.0
    aileron: float = 0.0
    rudder: float = 0.0
    elevator_trim: float = 0.0
    brake_left: float = 0.0
    brake_right: float = 0.0
    parking_brake: int = 0
    # engine
    throttle: float = 0.0
    mixture: float = 0.0
    magnetos: int = 0  # 0 off, 1 R, 2 L, 3 both, 4 start (spring-loaded back to 3)
    starter_held: int = 0  # `s` key held: cranks and sets magnetos to both, as FlightGear does
    primer_strokes: int = 0
    fuel_selector: int = 3
    # electrical / lights
    master_bat: int = 0
    master_alt: int = 0
    beacon: int = 0
    avionics: int = 0
    nav_lights: int = 0
    landing_light: int = 0
    taxi_light: int = 0
    strobe: int = 0
    pitot_heat: int = 0
    # engine and cabin knobs (pulled = on / open)
    carb_heat: int = 0
    cabin_heat: int = 0
    cabin_air: int = 0
    flaps_index: int = 0
    # radios
    com1_mhz: float = 118.000
    com1_stby_mhz: float = 121.500
    nav1_mhz: float = 110.300
    nav1_stby_mhz: float = 108.000
    nav1_obs_deg: float = 0.0
    xpdr_code: int = 1200
    xpdr_mode: int = 0
    baro_inhg: float = 29.92
    # autopilot (c172x)
    ap_on: int = 0
    ap_hdg: int = 0
    ap_nav: int = 0
    ap_alt: int = 0
    ap_hdg_bug_deg: float = 0.0
    ap_alt_target_ft: float = 3000.0
    # cockpit modes
    mouse_yoke: int = 0
    extra: dict = field(default_factory=dict)

    # ---------------------------------------------------------------- derived
    @property
    def flaps_cmd_norm(self) -> float:
        return self.flaps_index / (len(FLAP_DETENTS_DEG) - 1)

    @property
    def magnetos_effective(self) -> int:
        """Magnetos as the engine sees them: `s` held acts as START."""
        return 4 if self.starter_held else self.magnetos

    # ---------------------------------------------------------------- actions
    def set_magnetos(self, pos: int) -> None:
        self.magnetos = int(clamp(pos, 0, 4))

    def release_magnetos(self) -> None:
        """The key is spring-loaded: START returns to BOTH when let go."""
        if self.magnetos == 4:
            self.magnetos = 3

    def set_flaps(self, index: int) -> None:
        self.flaps_index = int(clamp(index, 0, len(FLAP_DETENTS_DEG) - 1))

    def primer_push(self) -> None:
        """One full stroke: out then in. Counts once."""
        self.primer_strokes += 1

    def swap_com1(self) -> None:
        self.com1_mhz, self.com1_stby_mhz = self.com1_stby_mhz, self.com1_mhz

    def swap_nav1(self) -> None:
        self.nav1_mhz, self.nav1_stby_mhz = self.nav1_stby_mhz, self.nav1_mhz

    def tune_com1_stby(self, mhz_step: float) -> None:
        self.com1_stby_mhz = _wrap_freq(self.com1_stby_mhz + mhz_step, COM_MIN_MHZ, COM_MAX_MHZ)

    def tune_nav1_stby(self, mhz_step: float) -> None:
        self.nav1_stby_mhz = _wrap_freq(self.nav1_stby_mhz + mhz_step, NAV_MIN_MHZ, NAV_MAX_MHZ)

    def turn_obs(self, deg: float) -> None:
        self.nav1_obs_deg = (self.nav1_obs_deg + deg) % 360.0

    def xpdr_digits(self) -> list[int]:
        return [int(c) for c in f"{self.xpdr_code:04d}"]

    def xpdr_step_digit(self, index: int, step: int) -> None:
        """Turn one octal digit (0-7) of the squawk code, wrapping."""
        d = self.xpdr_digits()
        d[index] = (d[index] + step) % 8
        self.xpdr_code = int("".join(str(x) for x in d))

    def set_xpdr_code(self, code: int) -> None:
        digits = f"{int(code):04d}"
        if len(digits) != 4 or any(c not in "01234567" for c in digits):
            raise ValueError(f"transponder code {code!r}: four octal digits expected")
        self.xpdr_code = int(digits)

    def turn_baro(self, inhg_step: float) -> None:
        self.baro_inhg = round(clamp(self.baro_inhg + inhg_step, 28.0, 31.0), 2)
