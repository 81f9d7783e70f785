"""The driver's window against its published layout: projection, light heads, HUD text, minimap."""

from __future__ import annotations

import math
from pathlib import Path


import numpy as np
import pygame
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simbridge.adapters.drive import layout
from simbridge.adapters.drive.world._roads import RoadGeometry
from simbridge.adapters.drive.world._scene import Actor, EgoControls, Frame, LightHead
from simbridge.adapters.drive.world._view import Camera, DriverView

pytestmark = pytest.mark.usefixtures("sdl_offscreen")

MAPS = Path(__file__).resolve().parents[3] / "adapters" / "drive" / "maps"
EGO = (10.0, -20.0, 30.0)  # x_m, y_m, yaw_deg: an arbitrary pose, so rotations are exercised


def ahead(forward_m: float, right_m: float, pose: tuple[float, float, float] = EGO) -> tuple[float, float]:
    """World point at (forward, right) of the eye (CARLA frame: right of heading = (-sin, cos))."""
    x, y, yaw = pose
    h = (math.cos(math.radians(yaw)), math.sin(math.radians(yaw)))
    fx, fy = x + h[0] * layout.EYE_FORWARD_M, y + h[1] * layout.EYE_FORWARD_M
    return fx + h[0] * forward_m - h[1] * right_m, fy + h[1] * forward_m + h[0] * right_m


def frame(**kw: object) -> Frame:
    base: dict[str, object] = dict(
        sim_time_s=12.0,
        town="Town03",
        ego_x_m=EGO[0],
        ego_y_m=EGO[1],
        ego_yaw_deg=EGO[2],
        speed_kmh=0.0,
        controls=EgoControls(),
    )
    base.update(kw)
    return Frame(**base)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def bare_view() -> DriverView:
    """No roads: sky and terrain only, so any other colour is what the test put in the frame."""
    pygame.font.init()
    return DriverView()


def render(view: DriverView, f: Frame) -> np.ndarray:
    surface = pygame.Surface((layout.WIDTH, layout.HEIGHT))
    view.draw(surface, f)
    return pygame.surfarray.array3d(surface).transpose(1, 0, 2)  # rows, cols, rgb


def has(img: np.ndarray, rgb: tuple[int, int, int]) -> np.ndarray:
    return np.all(img == np.array(rgb, dtype=img.dtype), axis=2)


def test_point_ahead_projects_on_the_centre_column_at_the_published_row() -> None:
    cam = Camera(*EGO)
    x, y = ahead(10.0, 0.0)
    xc, yc, zc = cam.to_camera(np.array([x]), np.array([y]), 0.0)
    col = layout.CX_PX + layout.FOCAL_PX * xc[0] / zc[0]
    row = layout.CY_PX - layout.FOCAL_PX * yc[0] / zc[0]
    assert col == pytest.approx(layout.WIDTH / 2, abs=1e-6)
    assert row == pytest.approx(layout.ground_row(10.0), abs=1e-6)
    assert layout.HORIZON_ROW_PX < row < layout.HEIGHT
    assert layout.project(10.0, 0.0, -layout.EYE_HEIGHT_M) == pytest.approx((col, row))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.floats(2.0, 150.0), st.floats(-20.0, 20.0))
def test_ground_point_inverts_the_projection(forward_m: float, right_m: float) -> None:
    p = layout.project(forward_m, right_m, -layout.EYE_HEIGHT_M)
    assert p is not None
    assert layout.ground_point(*p) == pytest.approx((forward_m, right_m), rel=1e-9, abs=1e-9)
    assert layout.ground_distance_m(p[1]) == pytest.approx(forward_m, rel=1e-9)


def test_rendered_road_mark_lands_on_the_predicted_rows(bare_view: DriverView) -> None:
    """A 1 m square painted 9.5..10.5 m ahead: its near and far edges are white exactly where
    layout.ground_row puts them on the centre column, its inside is terrain."""
    square = tuple(ahead(f, r) for f, r in [(9.5, -0.5), (9.5, 0.5), (10.5, 0.5), (10.5, -0.5)])
    img = render(bare_view, frame(road_marks_xy_m=(square,)))
    col = layout.WIDTH // 2
    white = has(img, layout.ROAD_MARK)[:, col]
    rows = np.flatnonzero(white)
    near, far = layout.ground_row(9.5), layout.ground_row(10.5)
    assert rows.size and rows.min() >= far - 2 and rows.max() <= near + 2
    assert white[int(round(far))] and white[int(round(near))]
    assert tuple(img[int(round(layout.ground_row(10.0))), col]) == layout.TERRAIN


@pytest.mark.parametrize("state", ["red", "yellow", "green"])
@pytest.mark.parametrize("distance_m", [30.0, 50.0])
def test_light_head_shows_its_lit_lamp_where_layout_predicts(
    bare_view: DriverView, state: str, distance_m: float
) -> None:
    x, y = ahead(distance_m, 3.0)
    head = LightHead("tl", x, y, EGO[2] + 180.0, state)  # type: ignore[arg-type]
    img = render(bare_view, frame(lights=(head,)))
    lamp_fwd = distance_m - layout.LAMP_FACE_OFFSET_M  # lamps sit on the face, towards the eye
    for colour, rgb in layout.LAMP_COLOURS.items():
        p = layout.project(lamp_fwd, 3.0, head.height_m + layout.LAMP_DZ_M[colour] - layout.EYE_HEIGHT_M)
        assert p is not None
        col, row = int(round(p[0])), int(round(p[1]))
        if colour == state:
            assert tuple(img[row, col]) == rgb
            # the lit lamp is a disc of at least LAMP_MIN_RADIUS_PX: its 3 x 3 core is lit
            assert has(img[row - 1 : row + 2, col - 1 : col + 2], rgb).all()
        else:
            assert not has(img, rgb).any(), f"{colour} pixels with the light {state}"


def test_light_head_seen_from_behind_shows_no_lamp(bare_view: DriverView) -> None:
    x, y = ahead(30.0, 3.0)
    img = render(bare_view, frame(lights=(LightHead("tl", x, y, EGO[2], "red"),)))
    assert not any(has(img, rgb).any() for rgb in layout.LAMP_COLOURS.values())
    assert has(img, layout.HOUSING).any()


def test_hud_speed_is_the_published_font_at_the_published_row(bare_view: DriverView) -> None:
    img = render(bare_view, frame(speed_kmh=57.4))
    font = pygame.font.Font(str(layout.hud_font_path()), layout.HUD_FONT_PX)
    y = layout.HUD_ROW_Y_PX["speed"]

    def glyph_mask(text: str) -> np.ndarray:
        surf = font.render(text, True, (255, 255, 255), (0, 0, 0))
        return has(pygame.surfarray.array3d(surf).transpose(1, 0, 2), (255, 255, 255))

    expected = glyph_mask(layout.HUD_FORMATS["speed"][1] % 57.4)
    h, w = expected.shape
    x0 = layout.HUD_VALUE_RIGHT_X_PX - w
    shown = has(img[y : y + h, x0 : x0 + w], layout.HUD_TEXT_RGB)
    assert expected.sum() > 20
    assert (shown == expected).all()
    other = render(bare_view, frame(speed_kmh=58.0))
    assert not (has(other[y : y + h, x0 : x0 + w], layout.HUD_TEXT_RGB) == expected).all()
    label = glyph_mask("Speed:")
    lh, lw = label.shape
    x = layout.HUD_TEXT_X_PX
    assert (has(img[y : y + lh, x : x + lw], layout.HUD_TEXT_RGB) == label).all()


def test_collision_notice_appears_at_the_bottom(bare_view: DriverView) -> None:
    img = render(bare_view, frame(sim_time_s=30.0, collisions=((29.5, "vehicle"),)))
    x, y, w, h = layout.NOTICE_RECT
    assert has(img[y : y + h, x : x + 400], layout.HUD_TEXT_RGB).sum() > 50
    quiet = render(DriverView(), frame(sim_time_s=40.0))
    assert not has(quiet[y : y + h, x : x + 400], layout.HUD_TEXT_RGB).any()


def test_minimap_is_heading_up_with_the_route_in_its_colour(bare_view: DriverView) -> None:
    route = tuple(ahead(float(d), 0.0) for d in range(0, 60, 5)) + (ahead(55.0, 30.0),)
    img = render(bare_view, frame(route_xy_m=route))
    ex, ey = layout.MINIMAP_EGO_PX
    up_px = int(round(30.0 / layout.MINIMAP_M_PER_PX))
    assert tuple(img[ey - up_px, ex]) == layout.ROUTE_RGB  # 30 m ahead is straight up
    turn_row = ey - int(round(55.0 / layout.MINIMAP_M_PER_PX))
    assert tuple(img[turn_row, ex + int(round(15.0 / layout.MINIMAP_M_PER_PX))]) == layout.ROUTE_RGB  # then right
    assert tuple(img[ey + 20, ex]) == layout.MINIMAP_BG  # nothing behind


def test_vehicles_and_pedestrians_are_drawn_far_to_near(bare_view: DriverView) -> None:
    near_xy, far_xy = ahead(12.0, 0.0), ahead(20.0, 0.0)
    near = Actor("near", "vehicle", *near_xy, EGO[2], 4.5, 2.0, 1.5, rgb=(200, 20, 20))
    far = Actor("far", "vehicle", *far_xy, EGO[2], 4.5, 2.0, 3.5, rgb=(20, 20, 200))
    walker_xy = ahead(8.0, -3.0)
    walker = Actor("ped", "pedestrian", *walker_xy, 0.0, 0.3, 0.5, 1.8, rgb=(20, 200, 20))
    img = render(bare_view, frame(actors=(near, far, walker)))
    # the near car's back face (shade 0.6 of its colour) covers the centre column where it stands
    p = layout.project(12.0 - 2.25, 0.0, 0.7 - layout.EYE_HEIGHT_M)
    assert p is not None
    assert tuple(img[int(p[1]), int(p[0])]) == (120, 12, 12)
    # the taller far car shows above it
    q = layout.project(20.0 - 2.25, 0.0, 3.42 - layout.EYE_HEIGHT_M)  # above its window band
    assert q is not None
    assert tuple(img[int(q[1]), int(q[0])]) == (12, 12, 120)
    w = layout.project(8.0, -3.0, 1.0 - layout.EYE_HEIGHT_M)
    assert w is not None and img[int(w[1]), int(w[0]), 1] > 100 > img[int(w[1]), int(w[0]), 0]


def test_town03_frame_draws_roads_and_markings() -> None:
    geo = RoadGeometry.from_net(MAPS / "Town03.net.xml")
    view = DriverView(roads=geo)
    lane = max(geo.lanes, key=lambda ln: float(np.hypot(*(ln.centre_xy_m[-1] - ln.centre_xy_m[0]))))
    p0, p1 = lane.centre_xy_m[0], lane.centre_xy_m[1]
    yaw = math.degrees(math.atan2(p1[1] - p0[1], p1[0] - p0[0]))
    img = render(view, frame(ego_x_m=float(p0[0]), ego_y_m=float(p0[1]), ego_yaw_deg=yaw))
    # on a lane centre the road is under the eye, markings are in view
    assert tuple(img[int(layout.ground_row(6.0)), layout.WIDTH // 2]) == layout.ASPHALT
    assert has(img, layout.MARK_WHITE).sum() > 200
    assert view.polygons_drawn > 50
    # the minimap shows roads under the ego
    ex, ey = layout.MINIMAP_EGO_PX
    assert tuple(img[ey - 10, ex]) == layout.MINIMAP_ROAD


def test_view_refuses_another_size() -> None:
    with pytest.raises(ValueError, match="1280x800"):
        DriverView(size=(800, 600))


def test_a_broken_pose_draws_sky_and_ground_without_raising(bare_view: DriverView) -> None:
    img = render(bare_view, frame(ego_x_m=float("nan"), route_xy_m=((0.0, 0.0), (10.0, 0.0))))
    assert tuple(img[10, layout.WIDTH // 2]) == layout.SKY
    assert tuple(img[layout.HEIGHT - 60, layout.WIDTH // 2]) == layout.TERRAIN


def test_hud_lists_nearby_vehicles_nearest_first_within_range(bare_view: DriverView) -> None:
    near = Actor("car_near", "vehicle", *ahead(-40.0, 0.0), EGO[2], 4.5, 2.0, 1.5)
    mid = Actor("car_mid", "vehicle", *ahead(-120.0, 0.0), EGO[2], 4.5, 2.0, 1.5)
    far = Actor("car_far", "vehicle", *ahead(-300.0, 0.0), EGO[2], 4.5, 2.0, 1.5)
    img = render(bare_view, frame(actors=(far, mid, near)))
    font = pygame.font.Font(str(layout.hud_font_path()), layout.HUD_FONT_PX)
    x, y0 = layout.HUD_TEXT_X_PX, layout.HUD_NEARBY_TITLE_Y_PX

    def shows(text: str, y: int) -> bool:
        surf = font.render(text, True, (255, 255, 255), (0, 0, 0))
        want = has(pygame.surfarray.array3d(surf).transpose(1, 0, 2), (255, 255, 255))
        h, w = want.shape
        return bool((has(img[y : y + h, x : x + w], layout.HUD_TEXT_RGB) == want).all())

    pitch = layout.HUD_LINE_PITCH_PX
    assert shows("Nearby vehicles:", y0)
    assert shows("  40m car_near", y0 + pitch)
    assert shows(" 120m car_mid", y0 + 2 * pitch)
    assert not has(img[y0 + 3 * pitch : y0 + 4 * pitch, x:200], layout.HUD_TEXT_RGB).any()  # 300 m: not listed
