"""The track map: where the vehicle went, over the task geometry, in local metres.

The origin is the first runway threshold, else the first circle centre, else the first valid
position, so the runway polygons the verifier tests against sit where it placed them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from simbridge._report._view import EpisodeView
from simbridge._report._plots import decimate
from simbridge import primitives as P

FT_M = 0.3048


@dataclass(frozen=True)
class Mark:
    """A labelled point of the track (local metres east/north of the origin)."""

    label: str
    t: float
    east_m: float
    north_m: float


def _origin(view: EpisodeView, lat: np.ndarray, lon: np.ndarray) -> tuple[float, float] | None:
    geo = view.task.geometry
    if geo.runways:
        return geo.runways[0].threshold.lat_deg, geo.runways[0].threshold.lon_deg
    for c in geo.circles:
        if c.centre is not None:
            return c.centre.lat_deg, c.centre.lon_deg
    ok = np.isfinite(lat) & np.isfinite(lon)
    return (float(lat[ok][0]), float(lon[ok][0])) if ok.any() else None


def _at(t: np.ndarray, x: np.ndarray, y: np.ndarray, when: float) -> tuple[float, float]:
    ok = np.isfinite(x) & np.isfinite(y)
    return float(np.interp(when, t[ok], x[ok])), float(np.interp(when, t[ok], y[ok]))


def track_marks(view: EpisodeView, t: np.ndarray, x: np.ndarray, y: np.ndarray) -> list[Mark]:
    """Start, end, touchdowns (touchdown events, else air→ground transitions of on_ground) and
    the stop after the last touchdown (ground speed below 1 kt for 2 s) where recorded."""
    ok = np.isfinite(x) & np.isfinite(y)
    if not ok.any():
        return []
    marks = [
        Mark("start", float(t[ok][0]), float(x[ok][0]), float(y[ok][0])),
        Mark("end", float(t[ok][-1]), float(x[ok][-1]), float(y[ok][-1])),
    ]
    sig = view.bundle.signals
    tds = [e.t for e in view.bundle.events if e.kind == "touchdown"]
    if not tds and "on_ground" in sig:
        order = np.argsort(sig.t, kind="stable")
        tds = [td.t for td in P.touchdowns(sig.t[order], sig["on_ground"][order], np.zeros(sig.t.size))]
    marks += [Mark("touchdown", td, *_at(t, x, y, td)) for td in tds]
    if tds and "gs_kt" in sig:
        order = np.argsort(sig.t, kind="stable")
        stop = P.stop_time(sig.t[order], sig["gs_kt"][order], after_t=tds[-1])
        if stop is not None:
            marks.append(Mark("stop", stop, *_at(t, x, y, stop)))
    return marks


def track_figure(view: EpisodeView) -> go.Figure | None:
    """The path and the task geometry, equal scale; None when the bundle has no positions."""
    sig = view.bundle.signals
    order = np.argsort(sig.t, kind="stable")
    t = sig.t[order]
    if "lat_deg" in sig and "lon_deg" in sig:
        lat, lon = sig["lat_deg"][order], sig["lon_deg"][order]
        origin = _origin(view, lat, lon)
        if origin is None:
            return None
        x, y = P.latlon_to_local_m(lat, lon, *origin)
    elif "x_m" in sig and "y_m" in sig:
        origin, x, y = None, sig["x_m"][order], sig["y_m"][order]
    else:
        return None
    fig = go.Figure()
    geo = view.task.geometry
    driving = origin is None and _is_driving(view)
    lane_note = _add_lanes(fig, view, x, y) if driving else None
    if origin is not None:
        for r in geo.runways:
            poly = P.runway_polygon_m(
                r.threshold.lat_deg, r.threshold.lon_deg, r.end.lat_deg, r.end.lon_deg, r.width_ft * FT_M, *origin
            )
            px, py = zip(*poly, poly[0])
            fig.add_trace(
                go.Scatter(
                    x=px,
                    y=py,
                    fill="toself",
                    mode="lines",
                    name=f"runway {r.id}",
                    line={"color": "#777"},
                    fillcolor="rgba(120,120,120,0.35)",
                    hoverinfo="name",
                )
            )
    for c in geo.circles:
        if c.centre_xy_m is not None:
            cx, cy = c.centre_xy_m
        elif c.centre is not None and origin is not None:
            (cx,), (cy,) = (np.atleast_1d(v) for v in P.latlon_to_local_m(c.centre.lat_deg, c.centre.lon_deg, *origin))
        else:
            continue
        fig.add_shape(
            type="circle",
            x0=cx - c.radius_m,
            x1=cx + c.radius_m,
            y0=cy - c.radius_m,
            y1=cy + c.radius_m,
            line={"color": "#9467bd"},
            fillcolor="rgba(148,103,189,0.12)",
        )
    for pg in geo.polygons:
        if pg.points_xy_m is not None:
            pts = list(pg.points_xy_m)
        elif pg.points is not None and origin is not None:
            px_, py_ = P.latlon_to_local_m([q.lat_deg for q in pg.points], [q.lon_deg for q in pg.points], *origin)
            pts = list(zip(px_.tolist(), py_.tolist()))
        else:
            continue
        px, py = zip(*pts, pts[0])
        fig.add_trace(
            go.Scatter(
                x=px,
                y=py,
                fill="toself",
                mode="lines",
                name=pg.id,
                line={"color": "#9467bd"},
                fillcolor="rgba(148,103,189,0.15)",
                hoverinfo="name",
            )
        )
    tx, xd = decimate(t, x, 3000, view.task.max_sample_gap_s)
    _, yd = decimate(t, y, 3000, view.task.max_sample_gap_s)
    fig.add_trace(
        go.Scatter(
            x=np.round(xd, 1),
            y=np.round(yd, 1),
            mode="lines",
            name="path",
            line={"color": "#1f77b4", "width": 2},
            customdata=np.round(tx, 2),
            hovertemplate="t=%{customdata} s<br>%{x:.0f} m E, %{y:.0f} m N<extra></extra>",
        )
    )
    marks = track_marks(view, t, x, y)
    if marks:
        fig.add_trace(
            go.Scatter(
                x=[m.east_m for m in marks],
                y=[m.north_m for m in marks],
                mode="markers+text",
                text=[m.label for m in marks],
                textposition="top center",
                name="marks",
                customdata=[round(m.t, 2) for m in marks],
                marker={"size": 9, "color": "#d62728"},
                hovertemplate="%{text} at t=%{customdata} s<extra></extra>",
            )
        )
    # where the vehicle is at the video's time: moved by the page's script (empty until then)
    fig.add_trace(
        go.Scatter(
            x=[],
            y=[],
            mode="markers",
            name="now",
            hoverinfo="skip",
            marker={"size": 13, "color": "rgba(0,0,0,0)", "line": {"color": "#111", "width": 2.5}},
        )
    )
    fig.update_layout(
        height=480,
        margin={"l": 70, "r": 20, "t": 24, "b": 40},
        template="plotly_white",
        showlegend=True,
        xaxis={"title": {"text": "east (m)"}},
        yaxis={"title": {"text": "north (m)"}, "scaleanchor": "x"},
        meta={"signal": "track"},
    )
    if driving:
        # CARLA's world frame is left-handed (y to the right of x): drawn with y down the page it
        # is the top view the simulator's own map shows
        fig.update_layout(
            xaxis={"title": {"text": "CARLA x (m)"}},
            yaxis={"title": {"text": "CARLA y (m)"}, "autorange": "reversed"},
            meta={"signal": "track", "lanes": lane_note or "lane geometry"},
        )
        if lane_note:
            fig.update_layout(title={"text": lane_note, "font": {"size": 12}, "x": 0.01}, margin={"t": 40})
    return fig


def _is_driving(view: EpisodeView) -> bool:
    """A road vehicle in a CARLA-style world frame (x_m/y_m): the bundles lane geometry applies
    to — a simulator with road maps (its adapter's `lane_map`) or a car."""
    from simbridge._adapters_registry import simulator_trait

    sim = view.bundle.episode.sim or view.task.simulator.name or ""
    kind = (getattr(view.task.vehicle, "kind", "") or "").lower()
    return bool(simulator_trait(sim, "lane_map", None)) or kind == "car"


def _add_lanes(fig: go.Figure, view: EpisodeView, x: np.ndarray, y: np.ndarray) -> str | None:
    """Lane boundaries and centre lines under the path; the one line the page shows instead
    when there is no reachable map (or it cannot be read)."""
    from simbridge._errors import SimbridgeError
    from simbridge._report._lanes import find_map, lane_lines

    ok = np.isfinite(x) & np.isfinite(y)
    if not ok.any():
        return "no lane geometry: the bundle has no positions"
    path, why = find_map(view.path, view.bundle, view.task)
    if path is None:
        return f"no lane geometry: {why}"
    try:
        bbox = (float(x[ok].min()), float(x[ok].max()), float(y[ok].min()), float(y[ok].max()))
        lines = lane_lines(path, bbox, sim=view.sim)
    except (SimbridgeError, OSError) as exc:
        return f"no lane geometry: {exc}"
    if not lines.centre_x_m.size:
        return f"no lane geometry: {path.name} has no driving lane within 30 m of the path"
    fig.add_trace(
        go.Scattergl(
            x=lines.edge_x_m,
            y=lines.edge_y_m,
            mode="lines",
            name=f"lane edges ({path.name})",
            line={"color": "#888", "width": 1},
            hoverinfo="skip",
        )
    )
    fig.add_trace(
        go.Scattergl(
            x=lines.centre_x_m,
            y=lines.centre_y_m,
            mode="lines",
            name="lane centres",
            line={"color": "#bbb", "width": 1, "dash": "dash"},
            hoverinfo="skip",
        )
    )
    return None
