"""The out-the-window view: sky, flat ground at field elevation, and the airport's runways
drawn in perspective from their real apt.dat geometry.

A pinhole camera at the pilot's eye, rotated by heading, pitch and bank; polygons are clipped
at a near plane so a runway passing under the nose is drawn correctly.
"""

from __future__ import annotations

import math

import numpy as np
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
MARKING_RANGE_M = 3000.0  # markings farther than this are below a pixel: skipped


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
                return [
                    (ax + ux * s + nx * c, ay + uy * s + ny * c) for s, c in ((s0, c0), (s1, c0), (s1, c1), (s0, c1))
                ]

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
        quads = [q for polys in self._runways for q in polys]
        kinds = [0 if i == 0 else 1 for polys in self._runways for i, _ in enumerate(polys)]
        order = np.argsort(kinds, kind="stable")  # surfaces first, markings on top
        self._quads = np.array(quads, dtype=float).reshape(-1, 4, 2)[order]
        self._kinds = np.array(kinds)[order]

    def draw(
        self,
        surf: pygame.Surface,
        lat: float,
        lon: float,
        alt_ft: float,
        psi_deg: float,
        theta_deg: float,
        phi_deg: float,
    ) -> None:
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

        old_clip = surf.get_clip()
        surf.set_clip(self._rect)
        Rm = np.array(R)
        # motion cue: a coarse grid of field boundaries around the aircraft
        g0e = math.floor(e0 / GRID_SPACING_M) * GRID_SPACING_M
        g0n = math.floor(n0 / GRID_SPACING_M) * GRID_SPACING_M
        k = int(GRID_EXTENT_M / GRID_SPACING_M)
        offs = np.arange(-k, k + 1) * GRID_SPACING_M
        lines = np.concatenate(
            [
                np.stack(
                    [
                        np.stack([g0e + offs, np.full_like(offs, g0n - GRID_EXTENT_M)], 1),
                        np.stack([g0e + offs, np.full_like(offs, g0n + GRID_EXTENT_M)], 1),
                    ],
                    1,
                ),
                np.stack(
                    [
                        np.stack([np.full_like(offs, g0e - GRID_EXTENT_M), g0n + offs], 1),
                        np.stack([np.full_like(offs, g0e + GRID_EXTENT_M), g0n + offs], 1),
                    ],
                    1,
                ),
            ]
        )
        for seg in self._project(lines, Rm, e0, n0, h_m, closed=False):
            pygame.draw.line(surf, GRID, seg[0], seg[1], 1)
        kinds = self._kinds
        for i, pts in self._project(self._quads, Rm, e0, n0, h_m, closed=True, with_index=True):
            pygame.draw.polygon(surf, RUNWAY if kinds[i] == 0 else MARKING, pts)
        surf.set_clip(old_clip)
        # fixed aircraft reference (boresight) marks
        pygame.draw.line(surf, L.SYMBOL, (cx - 40, cy), (cx - 12, cy), 3)
        pygame.draw.line(surf, L.SYMBOL, (cx + 12, cy), (cx + 40, cy), 3)
        pygame.draw.circle(surf, L.SYMBOL, (cx, cy), 3)

    def _project(
        self,
        polys: np.ndarray,
        R: np.ndarray,
        e0: float,
        n0: float,
        h_m: float,
        *,
        closed: bool,
        with_index: bool = False,
    ):
        """Screen polygons (or segments) of world polygons given as east/north metres (P, V, 2).

        Vectorised: polygons wholly in front of the camera are projected in one go; the few
        that cross the near plane are clipped one by one.
        """
        ned = np.stack([polys[..., 1] - n0, polys[..., 0] - e0, np.full(polys.shape[:2], h_m)], -1)
        cam = ned @ R.T  # (P, V, 3): x forward, y right, z down
        x = cam[..., 0]
        front = x >= NEAR_M
        all_front = front.all(1)
        some_front = front.any(1)
        if with_index:
            near_enough = x.min(1) < MARKING_RANGE_M
            some_front &= near_enough | (self._kinds == 0)
        cx, cy = L.VIEW_CENTRE
        f = L.FOCAL_PX
        with np.errstate(divide="ignore", invalid="ignore"):
            u = cx + f * cam[..., 1] / x
            v = cy + f * cam[..., 2] / x
        x0, y0, w, h = L.VIEW
        visible = (u.max(1) >= x0) & (u.min(1) <= x0 + w) & (v.max(1) >= y0) & (v.min(1) <= y0 + h)
        for i in np.nonzero(some_front)[0]:
            if all_front[i]:
                if not visible[i]:
                    continue
                pts = list(zip(u[i].tolist(), v[i].tolist()))
            else:
                clipped = _clip_near([tuple(p) for p in cam[i].tolist()], closed)
                pts = [(cx + f * yy / xx, cy + f * zz / xx) for xx, yy, zz in clipped]
                if len(pts) < (3 if closed else 2) or not _on_screen(pts):
                    continue
            yield (int(i), pts) if with_index else pts


def _on_screen(pts: list[tuple[float, float]]) -> bool:
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    x0, y0, w, h = L.VIEW
    return (
        max(xs) >= x0
        and min(xs) <= x0 + w
        and max(ys) >= y0
        and min(ys) <= y0 + h
        and max(abs(v) for v in xs + ys) < 1e6
    )


def _clip_near(poly: list[tuple[float, float, float]], closed: bool = True) -> list[tuple[float, float, float]]:
    out: list[tuple[float, float, float]] = []
    n = len(poly)
    for i in range(n if closed else n - 1):
        p, q = poly[i], poly[(i + 1) % n]
        pin, qin = p[0] >= NEAR_M, q[0] >= NEAR_M
        if pin:
            out.append(p)
        if pin != qin:
            t = (NEAR_M - p[0]) / (q[0] - p[0])
            x, y, z = (p[j] + t * (q[j] - p[j]) for j in range(3))
            out.append((x, y, z))
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
