"""The driver's window: a perspective view from the driver's eye, CARLA's HUD and a minimap.

Software rendering with pygame: the ground (roads, kerbs, markings) is transformed with numpy a
grid cell at a time, culled by distance and frustum, clipped at the near plane and filled with
pygame.draw.polygon in layer order; vehicles, pedestrians and traffic-light heads are drawn after
it, far to near (painter's algorithm). The camera model is layout.py's (published for the
pixel-reading drivers): both use the same `layout` constants.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pygame

from simbridge.adapters.drive import layout
from simbridge.adapters.drive.world._hud import Hud
from simbridge.adapters.drive.world._minimap import Minimap
from simbridge.adapters.drive.world._roads import LAYER_MARKING, RoadGeometry
from simbridge.adapters.drive.world._scene import Actor, Frame, LightHead

FloatArray = npt.NDArray[np.float64]
_PITCH = math.radians(layout.PITCH_DOWN_DEG)
_COS_P, _SIN_P = math.cos(_PITCH), math.sin(_PITCH)
#: lateral frustum half-slope with a margin (x_c / z_c beyond this is off-screen)
_HALF_SLOPE = (layout.WIDTH / 2) / layout.FOCAL_PX * 1.05


class Camera:
    """The driver's eye for one frame: world (CARLA metres) -> camera (x right, y up, z forward)."""

    def __init__(self, ego_x_m: float, ego_y_m: float, ego_yaw_deg: float) -> None:
        yaw = math.radians(ego_yaw_deg)
        self.hx, self.hy = math.cos(yaw), math.sin(yaw)
        # right of the heading in CARLA's frame (y points south on a north-up map)
        self.rx, self.ry = -self.hy, self.hx
        self.ex = ego_x_m + layout.EYE_FORWARD_M * self.hx
        self.ey = ego_y_m + layout.EYE_FORWARD_M * self.hy

    def to_camera(
        self, x: FloatArray, y: FloatArray, z: FloatArray | float
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Camera coordinates of world points (arrays broadcast)."""
        dx, dy = x - self.ex, y - self.ey
        fwd = dx * self.hx + dy * self.hy
        right = dx * self.rx + dy * self.ry
        up = np.asarray(z, dtype=np.float64) - layout.EYE_HEIGHT_M
        return right, fwd * _SIN_P + up * _COS_P, fwd * _COS_P - up * _SIN_P

    def point(self, x: float, y: float, z: float) -> tuple[float, float, float]:
        """Camera coordinates of one world point (plain floats: cheaper than numpy for a few)."""
        dx, dy = x - self.ex, y - self.ey
        fwd = dx * self.hx + dy * self.hy
        up = z - layout.EYE_HEIGHT_M
        return dx * self.rx + dy * self.ry, fwd * _SIN_P + up * _COS_P, fwd * _COS_P - up * _SIN_P

    def forward_right(self, x: float, y: float) -> tuple[float, float]:
        dx, dy = x - self.ex, y - self.ey
        return dx * self.hx + dy * self.hy, dx * self.rx + dy * self.ry


def _project(xc: FloatArray, yc: FloatArray, zc: FloatArray) -> FloatArray:
    inv = layout.FOCAL_PX / zc
    out = np.empty((len(zc), 2))
    out[:, 0] = layout.CX_PX + xc * inv
    out[:, 1] = layout.CY_PX - yc * inv
    return out


def _pixel(p: tuple[float, float, float]) -> tuple[float, float]:
    inv = layout.FOCAL_PX / p[2]
    return layout.CX_PX + p[0] * inv, layout.CY_PX - p[1] * inv


def _clip_near(pts: FloatArray) -> FloatArray:
    """Sutherland-Hodgman clip of a camera-space polygon (n, 3) against z >= NEAR_M."""
    near = layout.NEAR_M
    out = []
    n = len(pts)
    for i in range(n):
        a, b = pts[i], pts[(i + 1) % n]
        a_in, b_in = a[2] >= near, b[2] >= near
        if a_in:
            out.append(a)
        if a_in != b_in:
            t = (near - a[2]) / (b[2] - a[2])
            out.append(a + (b - a) * t)
    return np.array(out) if out else np.zeros((0, 3))


def draw_polygon_3d(surface: pygame.Surface, cam_pts: FloatArray, rgb: tuple[int, int, int]) -> None:
    """Clip a camera-space polygon at the near plane, project and fill it."""
    if (cam_pts[:, 2] < layout.NEAR_M).any():
        cam_pts = _clip_near(cam_pts)
        if len(cam_pts) < 3:
            return
    px = _project(cam_pts[:, 0], cam_pts[:, 1], cam_pts[:, 2])
    pygame.draw.polygon(surface, rgb, px.tolist())


def _shade(rgb: tuple[int, int, int], k: float) -> tuple[int, int, int]:
    return (min(255, int(rgb[0] * k)), min(255, int(rgb[1] * k)), min(255, int(rgb[2] * k)))


class DriverView:
    """Draws a `Frame` into a 1280 x 800 surface: scene, then HUD and minimap over it."""

    def __init__(
        self, size: tuple[int, int] = (layout.WIDTH, layout.HEIGHT), roads: RoadGeometry | None = None
    ) -> None:
        if size != (layout.WIDTH, layout.HEIGHT):
            raise ValueError(f"DriverView size {size}: the published layout is {layout.WIDTH}x{layout.HEIGHT}")
        self.size = size
        self.roads = roads
        self.hud = Hud()
        self.minimap = Minimap(roads)
        self.polygons_drawn = 0

    def notify(self, text: str, sim_time_s: float) -> None:
        """Show a notice at the bottom for NOTICE_SECONDS of sim time (e.g. the disabled autopilot)."""
        self.hud.notify(text, sim_time_s)

    def draw(self, surface: pygame.Surface, frame: Frame) -> None:
        """The whole window for one frame."""
        cam = Camera(frame.ego_x_m, frame.ego_y_m, frame.ego_yaw_deg)
        self.draw_scene(surface, frame, cam)
        self.minimap.draw(surface, frame)
        self.hud.draw(surface, frame)

    # -- the perspective scene -------------------------------------------------------------------

    def draw_scene(self, surface: pygame.Surface, frame: Frame, cam: Camera) -> None:
        horizon = int(round(layout.HORIZON_ROW_PX))
        surface.fill(layout.SKY, pygame.Rect(0, 0, layout.WIDTH, horizon))
        surface.fill(layout.TERRAIN, pygame.Rect(0, horizon, layout.WIDTH, layout.HEIGHT - horizon))
        self.polygons_drawn = 0
        if not all(math.isfinite(v) for v in (frame.ego_x_m, frame.ego_y_m, frame.ego_yaw_deg)):
            return  # a broken pose (the world's fault): sky and ground, never an exception here
        if self.roads is not None:
            self._draw_ground(surface, cam)
        self._draw_road_marks(surface, frame, cam)
        self._draw_objects(surface, frame, cam)

    def _draw_ground(self, surface: pygame.Surface, cam: Camera) -> None:
        assert self.roads is not None
        cells = self.roads.cells_within(cam.ex, cam.ey, layout.FAR_M)
        # keep cells that reach in front of the eye
        keep = []
        for c in cells:
            fwd, _ = cam.forward_right(*c.centre_xy_m)
            if fwd + c.radius_m > 0:
                keep.append(c)
        if not keep:
            return
        # per layer: pixel lists of polygons wholly in front of the near plane, camera-space arrays
        # (clipped when drawn) of those that cross it; ground polygons are coplanar, so the layer
        # order (sidewalk, kerb, asphalt, markings, stop lines) is the only order that matters
        by_layer: dict[int, list[tuple[list[list[float]] | FloatArray, tuple[int, int, int]]]] = {}
        pts_xy, counts, layers, ids = self.roads.gather(keep)
        if not len(counts):
            return
        starts = np.zeros(len(counts), dtype=np.intp)
        np.cumsum(counts[:-1], out=starts[1:])
        xc, yc, zc = cam.to_camera(pts_xy[:, 0], pts_xy[:, 1], 0.0)
        zmax = np.maximum.reduceat(zc, starts)
        zmin = np.minimum.reduceat(zc, starts)
        zpos = np.maximum(zc, 0.0)
        slope_min = np.minimum.reduceat(xc - _HALF_SLOPE * zpos, starts)
        slope_max = np.maximum.reduceat(xc + _HALF_SLOPE * zpos, starts)
        far = np.where(layers >= LAYER_MARKING, layout.MARKINGS_FAR_M, layout.FAR_M)
        # visible: some point ahead of the near plane, the nearest within range, and not wholly
        # left (every x < -slope z) or right (every x > slope z) of the frustum
        vis = (zmax > layout.NEAR_M) & (zmin < far) & (slope_min < 0) & (slope_max > 0)
        rgbs = self.roads.flat_rgb
        front = vis & (zmin > layout.NEAR_M)
        if front.any():
            sel = np.repeat(front, counts)
            px = _project(xc[sel], yc[sel], zc[sel]).tolist()
            pos = 0
            for pid, n, layer in zip(ids[front].tolist(), counts[front].tolist(), layers[front].tolist(), strict=True):
                by_layer.setdefault(layer, []).append((px[pos : pos + n], rgbs[pid]))
                pos += n
        for k in np.flatnonzero(vis & ~front).tolist():
            st, n = starts[k], counts[k]
            crossing = np.column_stack([xc[st : st + n], yc[st : st + n], zc[st : st + n]])
            by_layer.setdefault(int(layers[k]), []).append((crossing, rgbs[int(ids[k])]))
        draw = pygame.draw.polygon
        for layer in sorted(by_layer):
            for pts, rgb in by_layer[layer]:
                if isinstance(pts, list):
                    draw(surface, rgb, pts)
                else:
                    draw_polygon_3d(surface, pts, rgb)
            self.polygons_drawn += len(by_layer[layer])

    def _draw_road_marks(self, surface: pygame.Surface, frame: Frame, cam: Camera) -> None:
        """Task areas painted on the road (closed polygons), as white outline strips."""
        w = layout.MARKING_WIDTH_M
        for poly in frame.road_marks_xy_m:
            n = len(poly)
            for i in range(n):
                (ax, ay), (bx, by) = poly[i], poly[(i + 1) % n]
                length = math.hypot(bx - ax, by - ay)
                if length < 1e-6:
                    continue
                nx, ny = -(by - ay) / length * w / 2, (bx - ax) / length * w / 2
                xs = np.array([ax + nx, bx + nx, bx - nx, ax - nx])
                ys = np.array([ay + ny, by + ny, by - ny, ay - ny])
                xc, yc, zc = cam.to_camera(xs, ys, 0.0)
                if zc.max() <= layout.NEAR_M:
                    continue
                draw_polygon_3d(surface, np.column_stack([xc, yc, zc]), layout.ROAD_MARK)

    def _draw_objects(self, surface: pygame.Surface, frame: Frame, cam: Camera) -> None:
        items: list[tuple[float, Actor | LightHead]] = []
        for a in frame.actors:
            fwd, right = cam.forward_right(a.x_m, a.y_m)
            reach = max(a.length_m, a.width_m)
            if fwd + reach < layout.NEAR_M or fwd - reach > layout.MARKINGS_FAR_M:
                continue
            if abs(right) - reach > _HALF_SLOPE * max(fwd + reach, 0.0):
                continue
            items.append((math.hypot(fwd, right), a))
        for head in frame.lights:
            fwd, right = cam.forward_right(head.x_m, head.y_m)
            if fwd < layout.NEAR_M or fwd > layout.MARKINGS_FAR_M or abs(right) - 1 > _HALF_SLOPE * fwd:
                continue
            items.append((math.hypot(fwd, right), head))
        items.sort(key=lambda it: -it[0])
        for _, item in items:
            if isinstance(item, LightHead):
                self._draw_light(surface, item, cam)
            elif item.kind == "pedestrian":
                self._draw_pedestrian(surface, item, cam)
            else:
                self._draw_box(surface, item, cam)
            self.polygons_drawn += 1

    def _draw_box_3d(
        self,
        surface: pygame.Surface,
        cam: Camera,
        centre: tuple[float, float],
        yaw_deg: float,
        size: tuple[float, float],
        z_m: tuple[float, float],
        rgb: tuple[int, int, int],
        flat: bool = False,
        top: bool = True,
    ) -> None:
        """A box standing on its footprint (length x width, yaw) between heights z_m: its front
        faces only (a convex box's front faces never overlap), shaded by face unless `flat`."""
        yaw = math.radians(yaw_deg)
        hx, hy = math.cos(yaw), math.sin(yaw)
        hl, hw = size[0] / 2, size[1] / 2
        # footprint: front-right, front-left, back-left, back-right (right of heading = (-hy, hx)),
        # at the bottom (0-3) then the top (4-7)
        foot = [
            (centre[0] + hx * f - hy * r, centre[1] + hy * f + hx * r)
            for f, r in ((hl, hw), (hl, -hw), (-hl, -hw), (-hl, hw))
        ]
        cam_pts = [cam.point(x, y, z) for z in z_m for x, y in foot]
        if max(p[2] for p in cam_pts) <= layout.NEAR_M:
            return
        ex, ey = cam.ex - centre[0], cam.ey - centre[1]
        fwd_eye = ex * hx + ey * hy  # the eye's position in the box's frame
        right_eye = -ex * hy + ey * hx
        faces = []
        if fwd_eye > hl:
            faces.append(((0, 1, 5, 4), 0.9))  # front
        elif fwd_eye < -hl:
            faces.append(((2, 3, 7, 6), 0.6))  # back
        if right_eye > hw:
            faces.append(((3, 0, 4, 7), 0.7))  # right
        elif right_eye < -hw:
            faces.append(((1, 2, 6, 5), 0.75))  # left
        if top and layout.EYE_HEIGHT_M > z_m[1]:
            faces.append(((4, 5, 6, 7), 1.0))
        elif layout.EYE_HEIGHT_M < z_m[0]:
            faces.append(((0, 3, 2, 1), 0.5))  # underside (a light's housing seen from below)
        near = layout.NEAR_M
        for idx, shade in faces:
            face = [cam_pts[i] for i in idx]
            colour = rgb if flat else _shade(rgb, shade)
            if min(p[2] for p in face) > near:
                pygame.draw.polygon(surface, colour, [_pixel(p) for p in face])
            else:
                draw_polygon_3d(surface, np.array(face), colour)

    def _draw_box(self, surface: pygame.Surface, a: Actor, cam: Camera) -> None:
        self._draw_box_3d(surface, cam, (a.x_m, a.y_m), a.yaw_deg, (a.length_m, a.width_m), (0.0, a.height_m), a.rgb)
        if a.kind == "vehicle":  # a dark window band round the upper body
            h = a.height_m
            self._draw_box_3d(
                surface,
                cam,
                (a.x_m, a.y_m),
                a.yaw_deg,
                (a.length_m * 0.55, a.width_m * 1.001),
                (h * 0.62, h * 0.95),
                (40, 48, 60),
                top=False,
            )

    def _draw_pedestrian(self, surface: pygame.Surface, a: Actor, cam: Camera) -> None:
        h = a.height_m
        size = (max(a.length_m, 0.25), max(a.width_m, 0.4))
        self._draw_box_3d(surface, cam, (a.x_m, a.y_m), a.yaw_deg, size, (0.0, h * 0.86), a.rgb)
        c = cam.point(a.x_m, a.y_m, h * layout.WALKER_HEAD_HEIGHT_FRAC)
        if c[2] > layout.NEAR_M:
            p = _pixel(c)
            r = max(1, int(round(layout.FOCAL_PX * layout.WALKER_HEAD_RADIUS_M / c[2])))
            pygame.draw.circle(surface, layout.WALKER_HEAD, (int(p[0]), int(p[1])), r)

    def _draw_light(self, surface: pygame.Surface, head: LightHead, cam: Camera) -> None:
        h = head.height_m
        # pole: a thin box from the ground to the bottom of the housing
        centre = (head.x_m, head.y_m)
        lo, hi = h - layout.HEAD_H_M / 2, h + layout.HEAD_H_M / 2
        self._draw_box_3d(surface, cam, centre, head.yaw_deg, (0.15, 0.15), (0.0, lo), layout.POLE, flat=True)
        self._draw_box_3d(
            surface, cam, centre, head.yaw_deg, (0.3, layout.HEAD_W_M), (lo, hi), layout.HOUSING, flat=True
        )
        yaw = math.radians(head.yaw_deg)
        fx, fy = math.cos(yaw), math.sin(yaw)
        # lamps on the face only if the face looks towards the eye
        if (cam.ex - head.x_m) * fx + (cam.ey - head.y_m) * fy <= 0:
            return
        lx, ly = head.x_m + fx * layout.LAMP_FACE_OFFSET_M, head.y_m + fy * layout.LAMP_FACE_OFFSET_M
        # unlit lamps first: far away the lamps overlap and the lit one must stay whole
        order = sorted(layout.LAMP_DZ_M.items(), key=lambda item: item[0] == head.state)
        for colour, dz in order:
            c = cam.point(lx, ly, h + dz)
            if c[2] <= layout.NEAR_M:
                continue
            p = _pixel(c)
            r = max(layout.LAMP_MIN_RADIUS_PX, int(round(layout.FOCAL_PX * layout.LAMP_RADIUS_M / c[2])))
            rgb = layout.LAMP_COLOURS[colour] if head.state == colour else layout.LAMP_OFF
            pygame.draw.circle(surface, rgb, (int(round(p[0])), int(round(p[1]))), r)
