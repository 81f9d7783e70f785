"""The out-the-window view: sky, flat ground at field elevation, and the airport's runways
drawn in perspective from their real apt.dat geometry.

A pinhole camera at the pilot's eye, rotated by heading, pitch and bank; polygons are clipped
at a near plane so a runway passing under the nose is drawn correctly.
"""

from __future__ import annotations

import math

import pygame

from simbridge.adapters.jsbsim import _layout as L
from simbridge.adapters.jsbsim._airports import Airport, to_local_m

NEAR_M = 2.0
EYE_ABOVE_CG_FT = 1.5
RUNWAY = (70, 70, 74)
MARKING = (235, 235, 235)
GRID = (135, 88, 38)
GRID_SPACING_M = 400.0
GRID_EXTENT_M = 4000.0


def _rotation(psi_deg: float, theta_deg: float, phi_deg: float) -> list[list[float]]:
    """Body-from-NED rotation matrix (yaw, pitch, roll; aerospace convention)."""
    cps, sps = math.cos(math.radians(psi_deg)), math.sin(math.radians(psi_deg))
    cth, sth = math.cos(math.radians(theta_deg)), math.sin(math.radians(theta_deg))
    cph, sph = math.cos(math.radians(phi_deg)), math.sin(math.radians(phi_deg))
    return [
        [cth * cps, cth * sps, -sth],
        [sph * sth * cps - cph * sps, sph * sth * sps + cph * cps, sph * cth],
        [cph * sth * cps + sph * sps, cph * sth * sps - sph * cps, cph * cth],
    ]


class OutsideView:
    def __init__(self, airport: Airport):
        self._ref = airport.ref_lat_lon
        self._elev_ft = airport.elevation_ft
        self._rect = pygame.Rect(L.VIEW)
        self._runways: list[list[list[tuple[float, float]]]] = []  # per runway: list of quads (EN metres)
        for rwy in airport.runways:
            a, b = rwy.ends
            ax, ay = to_local_m(a.lat_deg, a.lon_deg, *self._ref)
            bx, by = to_local_m(b.lat_deg, b.lon_deg, *self._ref)
            length = math.hypot(bx - ax, by - ay)
            ux, uy = (bx - ax) / length, (by - ay) / length
            nx, ny = -uy, ux
            hw = rwy.width_m / 2

            def quad(s0: float, s1: float, c0: float, c1: float) -> list[tuple[float, float]]:
                return [(ax + ux * s + nx * c, ay + uy * s + ny * c) for s, c in ((s0, c0), (s1, c0), (s1, c1), (s0, c1))]

            polys = [quad(0, length, -hw, hw)]
            # centreline dashes (36 m dash, 24 m gap) and threshold bars at both ends
            s = 60.0
            while s < length - 60.0:
                polys.append(quad(s, min(s + 36.0, length - 60.0), -0.45, 0.45))
                s += 60.0
            for end_s, sign in ((6.0, 1.0), (length - 6.0, -1.0)):
                for k in range(-3, 4):
                    if k == 0:
                        continue
                    c = k * hw / 4.0
                    polys.append(quad(end_s, end_s + sign * 30.0, c - hw / 14, c + hw / 14))
            self._runways.append(polys)

    def draw(self, surf: pygame.Surface, lat: float, lon: float, alt_ft: float,
             psi_deg: float, theta_deg: float, phi_deg: float) -> None:
        R = _rotation(psi_deg, theta_deg, phi_deg)
        cx, cy = L.VIEW_CENTRE
        f = L.FOCAL_PX
        surf.fill(L.SKY, self._rect)
        # horizon: screen points whose view ray has zero world-down component
        # world_down(u, v) = R[0][2] + R[1][2]*(u-cx)/f + R[2][2]*(v-cy)/f  (> 0: ground)
        a, b, c = R[1][2] / f, R[2][2] / f, R[0][2] - R[1][2] * cx / f - R[2][2] * cy / f
        x0, y0, w, h = L.VIEW
        corners = [(x0, y0), (x0 + w, y0), (x0 + w, y0 + h), (x0, y0 + h)]
        ground = _clip_halfplane(corners, lambda p: a * p[0] + b * p[1] + c)
        if len(ground) >= 3:
            pygame.draw.polygon(surf, L.GROUND, ground)
        e0, n0 = to_local_m(lat, lon, *self._ref)
        h_m = max(0.3, (alt_ft + EYE_ABOVE_CG_FT - self._elev_ft) * 0.3048)

        def project(poly: list[tuple[float, float]]) -> list[tuple[float, float]]:
            cam = []
            for e, n in poly:
                dn, de, dd = n - n0, e - e0, h_m
                cam.append((R[0][0] * dn + R[0][1] * de + R[0][2] * dd,
                            R[1][0] * dn + R[1][1] * de + R[1][2] * dd,
                            R[2][0] * dn + R[2][1] * de + R[2][2] * dd))
            cam = _clip_near(cam)
            return [(cx + f * y / x, cy + f * z / x) for x, y, z in cam]

        old_clip = surf.get_clip()
        surf.set_clip(self._rect)
        # motion cue: a coarse grid of field boundaries around the aircraft
        g0e = math.floor(e0 / GRID_SPACING_M) * GRID_SPACING_M
        g0n = math.floor(n0 / GRID_SPACING_M) * GRID_SPACING_M
        k = int(GRID_EXTENT_M / GRID_SPACING_M)
        for i in range(-k, k + 1):
            for line in (((g0e + i * GRID_SPACING_M, g0n - GRID_EXTENT_M), (g0e + i * GRID_SPACING_M, g0n + GRID_EXTENT_M)),
                         ((g0e - GRID_EXTENT_M, g0n + i * GRID_SPACING_M), (g0e + GRID_EXTENT_M, g0n + i * GRID_SPACING_M))):
                pts = project([line[0], line[1], line[1]])
                if len(pts) >= 2:
                    pygame.draw.line(surf, GRID, pts[0], pts[1], 1)
        for polys in self._runways:
            for i, poly in enumerate(polys):
                pts = project(poly)
                if len(pts) >= 3 and _on_screen(pts):
                    pygame.draw.polygon(surf, RUNWAY if i == 0 else MARKING, pts)
        surf.set_clip(old_clip)
        # fixed aircraft reference (boresight) marks
        pygame.draw.line(surf, L.SYMBOL, (cx - 40, cy), (cx - 12, cy), 3)
        pygame.draw.line(surf, L.SYMBOL, (cx + 12, cy), (cx + 40, cy), 3)
        pygame.draw.circle(surf, L.SYMBOL, (cx, cy), 3)


def _on_screen(pts: list[tuple[float, float]]) -> bool:
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    x0, y0, w, h = L.VIEW
    return max(xs) >= x0 and min(xs) <= x0 + w and max(ys) >= y0 and min(ys) <= y0 + h and \
        max(abs(v) for v in xs + ys) < 1e6


def _clip_near(poly: list[tuple[float, float, float]]) -> list[tuple[float, float, float]]:
    out = []
    n = len(poly)
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        pin, qin = p[0] >= NEAR_M, q[0] >= NEAR_M
        if pin:
            out.append(p)
        if pin != qin:
            t = (NEAR_M - p[0]) / (q[0] - p[0])
            out.append(tuple(p[j] + t * (q[j] - p[j]) for j in range(3)))
    return out


def _clip_halfplane(poly, fn):
    """Keep the part of a polygon where fn(point) >= 0."""
    out = []
    n = len(poly)
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        fp, fq = fn(p), fn(q)
        if fp >= 0:
            out.append(p)
        if (fp >= 0) != (fq >= 0):
            t = fp / (fp - fq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return out
