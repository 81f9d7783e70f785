"""The instrument panel renderer: static art (faces, ticks, labels) drawn once into a cached
surface, needles and displays drawn each frame on top, at the positions in `_layout`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import pygame

from simbridge.adapters.jsbsim import _layout as L
from simbridge.adapters.jsbsim.cockpit._controls import XPDR_MODES, Controls

MONO = Path("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf")
TEXT = (230, 230, 230)
DIM = (120, 120, 120)
DISPLAY_BG = (10, 10, 10)
DISPLAY_FG = (255, 170, 40)
BUTTON = (70, 70, 76)


@dataclass
class Readings:
    """Instrument values for one frame (already what the instruments indicate)."""

    ias_kt: float = 0.0
    pitch_deg: float = 0.0
    bank_deg: float = 0.0
    alt_ind_ft: float = 0.0
    turn_rate_dps: float = 0.0
    slip_g: float = 0.0
    heading_mag_deg: float = 0.0
    vs_fpm: float = 0.0
    rpm: float = 0.0
    loc_dev_dots: float = 0.0
    nav_flag: bool = True
    gs_dev_dots: float = 0.0
    gs_flag: bool = True
    nav_to: bool = False
    fuel_l_gal: float = 0.0
    fuel_r_gal: float = 0.0
    oil_t_degf: float = 0.0
    oil_p_psi: float = 0.0
    volts: float = 0.0
    avionics_powered: bool = False
    flaps_deg: float = 0.0
    ammeter_amps: float = 0.0
    suction_inhg: float = 0.0
    #: annunciator name (`_layout.ANNUNCIATORS`) -> lit
    annunciators: dict = field(default_factory=dict)
    smoke_density: float = 0.0
    t_sim: float = 0.0
    status: str = ""
    status_detail: str = ""


def readout_line(r: Readings, c: Controls) -> str:
    """The readout assist's line (layout READOUT_FORMAT) for these readings and controls."""
    return L.READOUT_FORMAT.format(
        ias=r.ias_kt,
        alt=r.alt_ind_ft,
        hdg=r.heading_mag_deg % 360,
        vs=r.vs_fpm,
        bank=r.bank_deg,
        pitch=r.pitch_deg,
        rpm=r.rpm,
        thr=c.throttle * 100,
        mix=c.mixture * 100,
        flaps=r.flaps_deg,
        t=r.t_sim,
    )


def _font(size: int) -> pygame.font.Font:
    return pygame.font.Font(str(MONO) if MONO.exists() else None, size)


class Panel:
    def __init__(self, has_autopilot: bool):
        self.has_autopilot = has_autopilot
        self.f11, self.f13, self.f14, self.f22 = _font(11), _font(13), _font(14), _font(22)
        self._text_cache: dict[tuple, pygame.Surface] = {}
        self._veil: pygame.Surface | None = None
        self.background = self._static()

    # ---------------------------------------------------------------- helpers
    def text(self, s: str, font: pygame.font.Font, colour=TEXT) -> pygame.Surface:
        key = (s, id(font), colour)
        surf = self._text_cache.get(key)
        if surf is None:
            if len(self._text_cache) > 2000:
                self._text_cache.clear()
            surf = self._text_cache[key] = font.render(s, True, colour)
        return surf

    def _blit_centred(self, dst, surf, cx, cy) -> None:
        dst.blit(surf, (cx - surf.get_width() // 2, cy - surf.get_height() // 2))

    # ---------------------------------------------------------------- static art
    def _static(self) -> pygame.Surface:
        s = pygame.Surface((L.WIDTH, L.HEIGHT))
        s.fill(L.PANEL_BG, pygame.Rect(L.PANEL))
        for g in L.GAUGES:
            pygame.draw.circle(s, (90, 90, 96), (g.cx, g.cy), g.r + 3)
            pygame.draw.circle(s, L.FACE, (g.cx, g.cy), g.r)
            label_img = self.text(g.label, self.f11, DIM)
            s.blit(label_img, (g.cx - label_img.get_width() // 2, g.cy + g.r + 3))
        self._ticks(s, L.ASI, [(L.asi_angle(v), str(v) if v % 40 == 0 else "") for v in range(0, 201, 10)])
        self._ticks(s, L.ALT, [(i * 36.0, str(i)) for i in range(10)])
        self._ticks(
            s, L.VSI, [(L.vsi_angle(v), str(abs(v) // 100) if v % 1000 == 0 else "") for v in range(-2000, 2001, 500)]
        )
        self._ticks(s, L.TACH, [(L.tach_angle(v), str(v // 100) if v % 500 == 0 else "") for v in range(0, 3501, 250)])
        self._ticks(
            s,
            L.HI,
            [
                (d, {0: "N", 90: "E", 180: "S", 270: "W"}.get(d, str(d // 10) if d % 30 == 0 else ""))
                for d in range(0, 360, 10)
            ],
        )
        for g in (L.FUEL_L, L.FUEL_R, L.OIL_T, L.OIL_P, L.VOLTS, L.AMMETER, L.SUCTION):
            lo, hi = L.SMALL_RANGES[g.name]
            self._ticks(s, g, [(L.small_angle(g.name, lo + (hi - lo) * k / 4), "") for k in range(5)], inner=0.75)
        # suction: the green arc 4.5..5.5 inHg; ammeter: - and + either side of zero
        g = L.SUCTION
        for v in (4.5, 4.75, 5.0, 5.25, 5.5):
            pygame.draw.line(
                s,
                (40, 180, 60),
                L.needle_tip(g, L.small_angle("suction", v), 0.78),
                L.needle_tip(g, L.small_angle("suction", v), 0.98),
                3,
            )
        g = L.AMMETER
        self._blit_centred(s, self.text("-", self.f13), *L.needle_tip(g, -90, 0.5))
        self._blit_centred(s, self.text("+", self.f13), *L.needle_tip(g, 90, 0.5))
        # TC marks: level and standard-rate
        g = L.TC
        for ang in (-90 - L.TC_DEG_PER_DPS * 3, -90, 90, 90 + L.TC_DEG_PER_DPS * 3):
            pygame.draw.line(s, TEXT, L.needle_tip(g, ang, 0.8), L.needle_tip(g, ang, 0.98), 3)
        pygame.draw.rect(s, (60, 60, 60), L.TC_TUBE, border_radius=8)
        label_img = self.text("2 MIN", self.f11, DIM)
        s.blit(label_img, (g.cx - label_img.get_width() // 2, g.cy - g.r * 0.6))
        # CDI dots
        g = L.CDI
        for k in range(-5, 6):
            pygame.draw.circle(s, TEXT, (g.cx + k * L.CDI_PX_PER_DOT, g.cy + 20), 2)
        # AI bank marks drawn dynamically (they rotate with the face in real instruments: kept fixed here)
        # controls labels
        for name, (x, y, w, h) in L.SWITCH_RECTS.items():
            font = self.f11 if name in L.SWITCHES2 else self.f13
            self._blit_centred(s, self.text(L.SWITCH_LABELS[name], font), x + w // 2, y + h + 9)
        self._blit_centred(s, self.text("MAGNETOS", self.f11, DIM), L.MAGS_CENTRE[0] - 50, L.MAGS_CENTRE[1] - 8)
        for i, (x, y, w, h) in L.MAGS_LABEL_RECTS.items():
            self._button(s, (x, y, w, h), L.MAGS_LABELS[i], font=self.f11)
        self._blit_centred(s, self.text("FUEL", self.f11, DIM), L.FUEL_CENTRE[0] - 44, L.FUEL_CENTRE[1] - 8)
        for i, (x, y, w, h) in L.FUEL_LABEL_RECTS.items():
            self._button(s, (x, y, w, h), L.FUEL_LABELS[i], font=self.f11)
        x, y, w, h = L.PRIMER
        self._blit_centred(s, self.text("PRIMER", self.f11, DIM), x + w // 2, y + h + 8)
        x, y, w, h = L.PARK_BRAKE
        self._blit_centred(s, self.text("PARK BRK", self.f11, DIM), x + w // 2, y + h + 8)
        for rect, name in ((L.THROTTLE, "THR"), (L.MIXTURE, "MIX"), (L.FLAPS, "FLAPS"), (L.TRIM, "TRIM")):
            x, y, w, h = rect
            pygame.draw.rect(s, (20, 20, 20), (x + w // 2 - 3, y, 6, h))
            self._blit_centred(s, self.text(name, self.f11, DIM), x + w // 2, y - 16)
        for i, lbl in enumerate(("UP", "10", "20", "F")):
            self._blit_centred(s, self.text(lbl, self.f11, DIM), L.FLAPS[0] - 1, L.FLAP_DETENT_Y[i])
        for rect, lbl in ((L.OBS_MINUS, "OBS-"), (L.OBS_PLUS, "OBS+"), (L.BARO_MINUS, "BARO-"), (L.BARO_PLUS, "BARO+")):
            self._button(s, rect, lbl)
        # radio stack frame
        pygame.draw.rect(s, (25, 25, 28), (L.RADIO_X, L.COM_ROW_Y - 2, 570, 4 * (L.ROW_H + 6) - 4))
        for y, lbl in ((L.COM_ROW_Y, "COM1"), (L.NAV_ROW_Y, "NAV1"), (L.XPDR_ROW_Y, "XPDR"), (L.AP_ROW_Y, "AP")):
            if lbl == "AP" and not self.has_autopilot:
                continue
            s.blit(self.text(lbl, self.f14), (L.RADIO_X + 8, y + 16))
        for pre in ("COM", "NAV"):
            for suffix, lbl in (("SWAP", "<>"), ("MHZ_DN", "<"), ("MHZ_UP", ">"), ("KHZ_DN", "-"), ("KHZ_UP", "+")):
                self._button(s, getattr(L, f"{pre}_{suffix}"), lbl)
        for i, rect in enumerate(L.XPDR_MODE_BUTTONS):
            self._button(s, rect, XPDR_MODES[i])
        if self.has_autopilot:
            self._button(s, L.AP_HDG_DN, "-")
            self._button(s, L.AP_HDG_UP, "+")
            self._button(s, L.AP_ALT_DN, "-")
            self._button(s, L.AP_ALT_UP, "+")
        pygame.draw.rect(s, (0, 0, 0), pygame.Rect(L.READOUT))
        return s.convert() if pygame.display.get_surface() else s

    def _button(self, s, rect, label, colour=BUTTON, font=None) -> None:
        pygame.draw.rect(s, colour, rect, border_radius=4)
        x, y, w, h = rect
        self._blit_centred(s, self.text(label, font or self.f13), x + w // 2, y + h // 2)

    def _ticks(self, s, g: L.Gauge, marks, inner: float = 0.85) -> None:
        for ang, lbl in marks:
            p0 = L.needle_tip(g, ang, inner if not lbl else inner - 0.05)
            p1 = L.needle_tip(g, ang, 0.98)
            pygame.draw.line(s, TEXT, p0, p1, 2)
            if lbl:
                self._blit_centred(s, self.text(lbl, self.f11), *L.needle_tip(g, ang, 0.66))

    # ---------------------------------------------------------------- dynamic
    def _needle(self, s, g: L.Gauge, angle: float, frac: float = 0.85, width: int = 4, colour=L.NEEDLE) -> None:
        pygame.draw.line(s, colour, (g.cx, g.cy), L.needle_tip(g, angle, frac), width)

    def draw(self, s: pygame.Surface, r: Readings, c: Controls, readout: str | None = None) -> None:
        """One frame of the panel; `readout` is the assisted digital strip's line (`--assist
        readout`), None (the default) leaves the panel's black lower edge empty, as in a C172."""
        x, y, w, _ = L.PANEL
        lower = pygame.Rect(x, y, w, L.HEIGHT - y)  # the panel and its lower edge
        s.blit(self.background, lower.topleft, lower)
        self._attitude(s, r)
        self._needle(s, L.ASI, L.asi_angle(r.ias_kt))
        self._altimeter(s, r.alt_ind_ft)
        pygame.draw.rect(s, (30, 30, 30), (L.ALT.cx - 22, L.ALT.cy + 26, 44, 15))
        self._blit_centred(s, self.text(f"{c.baro_inhg:5.2f}", self.f11), L.ALT.cx, L.ALT.cy + 33)
        self._turn(s, r)
        hi = L.HI
        if self.has_autopilot:
            self._needle(s, hi, c.ap_hdg_bug_deg, 0.95, 6, L.SYMBOL)
        self._needle(s, hi, r.heading_mag_deg)
        pygame.draw.circle(s, L.NEEDLE, (hi.cx, hi.cy), 4)
        self._needle(s, L.VSI, L.vsi_angle(r.vs_fpm))
        self._needle(s, L.TACH, L.tach_angle(r.rpm))
        self._cdi(s, r, c)
        for g, v in (
            (L.FUEL_L, r.fuel_l_gal),
            (L.FUEL_R, r.fuel_r_gal),
            (L.OIL_T, r.oil_t_degf),
            (L.OIL_P, r.oil_p_psi),
            (L.VOLTS, r.volts),
            (L.AMMETER, r.ammeter_amps),
            (L.SUCTION, r.suction_inhg),
        ):
            self._needle(s, g, L.small_angle(g.name, v), 0.85, 3)
        self._annunciators(s, r)
        self._controls(s, c)
        self._radios(s, r, c)
        if readout is not None:
            self.draw_readout(s, readout)
        if r.smoke_density > 0.0:
            self._smoke(s, r.smoke_density)
        if r.status:
            lbl = self.text(r.status, self.f22, (255, 60, 60))
            s.blit(lbl, L.STATUS_XY)
            s.blit(self.text(r.status_detail, self.f13, (255, 60, 60)), (L.STATUS_XY[0], L.STATUS_XY[1] + 28))

    def _altimeter(self, s, alt_ft: float) -> None:
        """The three hands, ten-thousands first (under the others): thin, ending in a wedge."""
        g = L.ALT
        a100, a1000, a10000 = L.alt_angles(alt_ft)
        (f100, w100), (f1000, w1000), (f10000, w10000) = L.ALT_HANDS
        self._needle(s, g, a10000, f10000, w10000)
        inner, outer, half = L.ALT_WEDGE
        a = math.radians(a10000)
        px, py = math.cos(a) * half, math.sin(a) * half  # across the hand
        bx, by = g.cx + outer * g.r * math.sin(a), g.cy - outer * g.r * math.cos(a)
        # the wedge: its point inward, its base towards the rim
        pygame.draw.polygon(s, L.NEEDLE, [L.needle_tip(g, a10000, inner), (bx + px, by + py), (bx - px, by - py)])
        self._needle(s, g, a1000, f1000, w1000)
        self._needle(s, g, a100, f100, w100)

    def _annunciators(self, s, r: Readings) -> None:
        for name, rect in L.ANNUNCIATOR_RECTS.items():
            lit = bool(r.annunciators.get(name))
            x, y, w, h = rect
            pygame.draw.rect(s, L.ANNUNCIATOR_COLOURS[name] if lit else L.ANNUNCIATOR_OFF, rect, border_radius=3)
            label = self.text(L.ANNUNCIATOR_LABELS[name], self.f11, (0, 0, 0) if lit else DIM)
            self._blit_centred(s, label, x + w // 2, y + h // 2)

    def _smoke(self, s, density: float) -> None:
        veil = self._veil
        if veil is None:
            veil = self._veil = pygame.Surface((L.WIDTH, L.HEIGHT))
            veil.fill(L.SMOKE_GREY)
        veil.set_alpha(round(L.SMOKE_MAX_ALPHA * max(0.0, min(1.0, density))))
        s.blit(veil, (0, 0))

    def _attitude(self, s, r: Readings) -> None:
        g = L.AI
        size = g.r * 2
        face = pygame.Surface((size, size))
        face.fill(L.SKY)
        # ground half-plane: below a line through (r, r + pitch*k), rotated by -bank
        k = L.AI_PX_PER_DEG_PITCH
        ang = math.radians(r.bank_deg)
        ox, oy = g.r, g.r + r.pitch_deg * k
        dx, dy = math.cos(ang), -math.sin(ang)  # along the horizon (right end rises in a right bank)
        nx, ny = -dy, dx  # towards the ground
        far = 4 * size
        pts = [
            (ox - dx * far, oy - dy * far),
            (ox + dx * far, oy + dy * far),
            (ox + dx * far + nx * far, oy + dy * far + ny * far),
            (ox - dx * far + nx * far, oy - dy * far + ny * far),
        ]
        pygame.draw.polygon(face, L.GROUND, pts)
        pygame.draw.line(face, L.NEEDLE, pts[0], pts[1], 2)
        mask = pygame.Surface((size, size))
        mask.fill((255, 0, 255))
        pygame.draw.circle(mask, (0, 0, 0), (g.r, g.r), g.r)
        mask.set_colorkey((0, 0, 0))
        face.blit(mask, (0, 0))
        face.set_colorkey((255, 0, 255))
        s.blit(face, (g.cx - g.r, g.cy - g.r))
        # fixed bank scale and aircraft symbol
        for b in L.AI_BANK_MARKS:
            pygame.draw.line(s, L.NEEDLE, L.needle_tip(g, b, 0.86), L.needle_tip(g, b, 0.98), 2)
        p_in, p_out = L.AI_BANK_POINTER
        pygame.draw.polygon(
            s,
            L.SYMBOL,
            [
                L.needle_tip(g, -r.bank_deg, p_out),
                L.needle_tip(g, -r.bank_deg - 5, p_in),
                L.needle_tip(g, -r.bank_deg + 5, p_in),
            ],
        )
        pygame.draw.line(s, L.SYMBOL, (g.cx - 36, g.cy), (g.cx - 10, g.cy), 4)
        pygame.draw.line(s, L.SYMBOL, (g.cx + 10, g.cy), (g.cx + 36, g.cy), 4)
        pygame.draw.circle(s, L.SYMBOL, (g.cx, g.cy), 4)

    def _turn(self, s, r: Readings) -> None:
        g = L.TC
        tilt = max(-L.TC_MAX_TILT_DEG, min(L.TC_MAX_TILT_DEG, r.turn_rate_dps * L.TC_DEG_PER_DPS))
        a = math.radians(tilt)
        dx, dy = math.cos(a) * g.r * L.TC_WING_FRAC, math.sin(a) * g.r * L.TC_WING_FRAC
        pygame.draw.line(s, L.NEEDLE, (g.cx - dx, g.cy - dy), (g.cx + dx, g.cy + dy), 4)
        pygame.draw.circle(s, L.NEEDLE, (g.cx, g.cy), 7)
        bx = g.cx + max(-22.0, min(22.0, r.slip_g * L.TC_BALL_PX_PER_G))
        pygame.draw.circle(s, L.NEEDLE, (round(bx), round(g.cy + g.r * 0.55)), 7)

    def _cdi(self, s, r: Readings, c: Controls) -> None:
        g = L.CDI
        self._blit_centred(s, self.text(f"OBS {c.nav1_obs_deg:03.0f}", self.f13), g.cx, g.cy - 40)
        dev = 0.0 if r.nav_flag else max(-5.5, min(5.5, r.loc_dev_dots))
        x = g.cx - dev * L.CDI_PX_PER_DOT
        pygame.draw.line(s, L.NEEDLE, (x, g.cy - 28), (x, g.cy + 50), 4)
        if r.nav_flag:
            pygame.draw.rect(s, (220, 40, 40), (g.cx + 18, g.cy - 22, 26, 14))
        else:
            self._blit_centred(s, self.text("TO" if r.nav_to else "FR", self.f11), g.cx + 31, g.cy - 15)
        if not r.gs_flag:
            y = g.cy + 20 + max(-4.5, min(4.5, r.gs_dev_dots)) * L.CDI_PX_PER_DOT  # above path: needle low
            pygame.draw.line(s, L.NEEDLE, (g.cx - 50, y), (g.cx + 50, y), 3)

    def _controls(self, s, c: Controls) -> None:
        for name, rect in L.SWITCH_RECTS.items():
            on = bool(getattr(c, name))
            x, y, w, h = rect
            pygame.draw.rect(s, L.LIT if on else (60, 60, 64), rect, border_radius=4)
            pygame.draw.rect(s, (20, 20, 20), (x + 4, y + (4 if on else h // 2), w - 8, h // 2 - 4), border_radius=3)
        for name, rect in L.KNOB_RECTS.items():
            self._button(s, rect, L.KNOB_LABELS[name], L.LIT if getattr(c, name) else BUTTON, self.f11)
        # magnetos key
        mx, my = L.MAGS_CENTRE
        pygame.draw.circle(s, (90, 90, 96), (mx, my), 18)
        mags = c.magnetos_effective
        ang = math.radians(-60 + 30 * mags)
        pygame.draw.line(s, L.NEEDLE, (mx, my), (mx + 16 * math.sin(ang), my - 16 * math.cos(ang)), 5)
        x, y, w, h = L.MAGS_LABEL_RECTS[mags]
        self._button(s, L.MAGS_LABEL_RECTS[mags], L.MAGS_LABELS[mags], L.LIT, self.f11)
        # fuel selector
        fx, fy = L.FUEL_CENTRE
        pygame.draw.circle(s, (150, 30, 30), (fx, fy), 18)
        ang = math.radians({0: 180, 1: -90, 2: 90, 3: 0}[c.fuel_selector])
        pygame.draw.line(s, L.NEEDLE, (fx, fy), (fx + 16 * math.sin(ang), fy - 16 * math.cos(ang)), 5)
        self._button(s, L.FUEL_LABEL_RECTS[c.fuel_selector], L.FUEL_LABELS[c.fuel_selector], L.LIT, self.f11)
        # primer, park brake
        x, y, w, h = L.PRIMER
        pygame.draw.rect(s, (150, 150, 150), L.PRIMER, border_radius=22)
        self._blit_centred(s, self.text(str(c.primer_strokes), self.f13, (0, 0, 0)), x + w // 2, y + h // 2)
        pygame.draw.rect(s, (200, 40, 40) if c.parking_brake else (60, 60, 64), L.PARK_BRAKE, border_radius=4)
        x, y, w, h = L.PARK_BRAKE
        self._blit_centred(s, self.text("SET" if c.parking_brake else "OFF", self.f13), x + w // 2, y + h // 2)
        # levers
        for rect, v, colour in ((L.THROTTLE, c.throttle, (20, 20, 20)), (L.MIXTURE, c.mixture, (200, 30, 30))):
            x, y, w, h = rect
            ky = L.slider_y(rect, v)
            knob = (x, ky - L.LEVER_KNOB_H // 2, w, L.LEVER_KNOB_H)
            pygame.draw.rect(s, colour, knob, border_radius=4)
            pygame.draw.rect(s, L.NEEDLE, knob, 2, border_radius=4)
        x, y, w, h = L.FLAPS
        ky = L.FLAP_DETENT_Y[c.flaps_index]
        pygame.draw.rect(s, (235, 235, 235), (x + 6, ky - 6, w - 12, 12))
        x, y, w, h = L.TRIM
        ky = L.slider_y(L.TRIM, (1.0 + c.elevator_trim) / 2.0)  # nose-down trim shows the mark high
        pygame.draw.rect(s, (30, 30, 30), L.TRIM, border_radius=6)
        pygame.draw.rect(s, L.NEEDLE, (x, ky - 3, w, 6))
        if c.mouse_yoke:  # a mode the agent may switch on by a right-click: said on screen, with the way out
            x0, y0 = L.STATUS_XY
            s.blit(self.text("MOUSE YOKE ON: panel clicks off", self.f14, L.LIT), (x0, y0 + 50))
            s.blit(self.text("Tab or right-click leaves it", self.f14, L.LIT), (x0, y0 + 68))

    def _radios(self, s, r: Readings, c: Controls) -> None:
        on = r.avionics_powered
        for rect, text in (
            (L.COM_ACTIVE, f"{c.com1_mhz:7.3f}"),
            (L.COM_STBY, f"{c.com1_stby_mhz:7.3f}"),
            (L.NAV_ACTIVE, f"{c.nav1_mhz:6.2f}"),
            (L.NAV_STBY, f"{c.nav1_stby_mhz:6.2f}"),
        ):
            pygame.draw.rect(s, DISPLAY_BG, rect)
            if on:
                x, y, w, h = rect
                self._blit_centred(s, self.text(text, self.f22, DISPLAY_FG), x + w // 2, y + h // 2)
        for i, rect in enumerate(L.XPDR_DIGITS):
            pygame.draw.rect(s, DISPLAY_BG, rect)
            if on:
                x, y, w, h = rect
                self._blit_centred(s, self.text(str(c.xpdr_digits()[i]), self.f22, DISPLAY_FG), x + w // 2, y + h // 2)
        x, y, w, h = L.XPDR_MODE_BUTTONS[c.xpdr_mode]
        pygame.draw.rect(s, L.LIT, (x, y + h, w, 3))
        if self.has_autopilot:
            for name, rect in L.AP_BUTTONS.items():
                lit = bool(getattr(c, name)) and on
                self._button(
                    s,
                    rect,
                    {"ap_on": "AP", "ap_hdg": "HDG", "ap_nav": "NAV", "ap_alt": "ALT"}[name],
                    (40, 150, 60) if lit else BUTTON,
                )
            x, y, w, h = L.AP_HDG_DN
            s.blit(self.text(f"HDG {c.ap_hdg_bug_deg:03.0f}", self.f13), (x - 62, y + 6))
            x, y, w, h = L.AP_ALT_DN
            s.blit(self.text(f"ALT{c.ap_alt_target_ft:5.0f}", self.f13), (x - 68, y + 6))

    def draw_readout(self, s, text: str) -> None:
        """The digital readout strip (`--assist readout` only): no C172 has it."""
        pygame.draw.rect(s, (0, 0, 0), pygame.Rect(L.READOUT))
        s.blit(self.text(text, self.f14), (L.READOUT_X0, L.READOUT_Y0))
