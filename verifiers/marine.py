"""Ship berthing (T17, Bridge Command), judged from the own-ship NMEA track: hull footprint
in the berth at the end, speeds at first contact with the pier, no collision or grounding."""

from __future__ import annotations

import math

import numpy as np
from pydantic import Field

from simbridge import Unscorable
from simbridge import primitives as P
from simbridge.params import FiniteParams, LatDeg, LonDeg, NonNegativeFinite, PositiveFinite
from simbridge.verifier import VerifyContext, verifier

KT_PER_MS = 1.0 / 0.514444


class BerthingParams(FiniteParams):
    berth: str = "berth"
    pier_face: list[tuple[LatDeg, LonDeg]] = Field(
        min_length=2, max_length=2, description="[[lat, lon], [lat, lon]] of the berthing face"
    )
    ship_length_m: PositiveFinite
    ship_beam_m: PositiveFinite
    contact_margin_m: NonNegativeFinite = 0.5
    sog_max_kt: PositiveFinite = 1.0
    lateral_max_kt: PositiveFinite = 0.3
    grounding_depth_m: NonNegativeFinite = 0.0


def hull_corners(
    e: np.ndarray, n: np.ndarray, heading_deg: np.ndarray, length_m: float, beam_m: float
) -> tuple[np.ndarray, np.ndarray]:
    """(4, N) east and north of bow-stbd, bow-port, stern-port, stern-stbd for a rectangle hull
    centred on the position; heading clockwise from true north."""
    h = np.radians(np.asarray(heading_deg, dtype=float))
    fe, fn = np.sin(h), np.cos(h)  # forward
    se, sn = np.cos(h), -np.sin(h)  # starboard
    lf = np.array([1, 1, -1, -1])[:, None] * length_m / 2
    ls = np.array([1, -1, -1, 1])[:, None] * beam_m / 2
    return e[None, :] + lf * fe + ls * se, n[None, :] + lf * fn + ls * sn


@verifier(
    "bc_berthing",
    params=BerthingParams,
    components=("inside_berth", "contact_speeds", "no_collision"),
    safety=("no_allision_or_grounding",),
    quality=("contact_speeds", "no_collision"),
)
def bc_berthing(ctx: VerifyContext) -> str:
    """First contact = first sample where a hull corner alongside the pier face comes within
    `contact_margin_m` of it (or crosses it). At that sample SOG must be below `sog_max_kt` and the
    speed component perpendicular to the face (from SOG and COG) below `lateral_max_kt`. The final
    hull footprint (60 m × beam rectangle on the GPS position and true heading) must lie inside
    the berth polygon. Collisions are `collision` events; grounding is depth ≤ `grounding_depth_m`.
    Every contact is judged, not the first: each time a hull corner comes alongside after having
    been clear of the face, the speeds must be within the limits (touching gently, backing off and
    ramming the pier is an allision). How the ship came alongside is worth only as much as it got
    into the berth (task progress: the share of the final hull footprint's corners inside it), and
    a collision or a grounding anywhere gates the score (`no_allision_or_grounding`)."""
    p: BerthingParams = ctx.p
    t = ctx.t
    lat, lon = ctx.sig("lat_deg"), ctx.sig("lon_deg")
    sog, cog, hdg, depth = ctx.sig("gs_kt"), ctx.sig("cog_deg"), ctx.sig("heading_true_deg"), ctx.sig("depth_m")
    ctx.require_coverage(float(t[0]), float(t[-1]), "the approach")
    (alat, alon), (blat, blon) = p.pier_face
    e, n = P.latlon_to_local_m(lat, lon, alat, alon)
    (be,), (bn,) = (np.atleast_1d(v) for v in P.latlon_to_local_m(blat, blon, alat, alon))
    ce, cn = hull_corners(e, n, hdg, p.ship_length_m, p.ship_beam_m)
    leg = P.leg_position(ce, cn, 0.0, 0.0, float(be), float(bn))
    first = np.flatnonzero(np.isfinite(leg.cross_track[0]))
    if first.size == 0:
        raise Unscorable("no valid position and heading sample")
    water = 1.0 if np.nanmean(leg.cross_track[:, first[0]]) >= 0 else -1.0
    dist = leg.cross_track * water  # positive on the water side
    alongside = (leg.along_track >= 0) & (leg.along_track <= leg.leg_length)
    with np.errstate(invalid="ignore"):
        touch = np.any((dist <= p.contact_margin_m) & alongside, axis=0)
    t_c = P.first_true(t, touch)

    try:
        berth = ctx.task.geometry.polygon(p.berth)
    except KeyError as exc:
        raise Unscorable(str(exc.args[0])) from None
    if berth.points is None:
        raise Unscorable(f"berth polygon {p.berth!r} needs lat/lon points")
    poly = np.column_stack(
        P.latlon_to_local_m([q.lat_deg for q in berth.points], [q.lon_deg for q in berth.points], alat, alon)
    )
    ok = np.flatnonzero(np.isfinite(e) & np.isfinite(n) & np.isfinite(hdg))
    i = int(ok[-1])
    inside = P.points_in_polygon(ce[:, i], cn[:, i], poly)
    ctx.progress(float(inside.sum()) / 4.0, f"{int(inside.sum())} of 4 hull corners in the berth at the end")
    ctx.component(
        "inside_berth",
        bool(inside.all()),
        measured=int(inside.sum()),
        tolerance="4 of 4 hull corners inside the berth",
        window=(float(t[i]), float(t[i])),
        explanation=f"final position {lat[i]:.6f}, {lon[i]:.6f}, heading {hdg[i]:.1f}°",
    )

    if t_c is None:
        ctx.component(
            "contact_speeds",
            0.0,
            tolerance=f"SOG < {p.sog_max_kt:g} kt, lateral < {p.lateral_max_kt:g} kt at first contact",
            explanation="never came alongside the pier face",
        )
    else:
        ux, uy = float(be) / leg.leg_length, float(bn) / leg.leg_length
        nx, ny = water * uy, -water * ux  # unit normal toward the water
        contacts = [w.t0 for w in P.runs(t, touch)]  # each time the hull comes alongside
        judged = []  # (t, sog, lateral)
        for tc in contacts:
            k = int(np.searchsorted(t, tc))
            c = math.radians(float(cog[k]))
            ve, vn = float(sog[k]) * math.sin(c), float(sog[k]) * math.cos(c)
            judged.append((tc, float(sog[k]), abs(ve * nx + vn * ny)))
        bad = [j for j in judged if not (j[1] < p.sog_max_kt and j[2] < p.lateral_max_kt)]
        worst = bad[0] if bad else max(judged, key=lambda j: (j[1], j[2]))
        ctx.component(
            "contact_speeds",
            not bad,
            measured=f"SOG {worst[1]:.2f} kt, lateral {worst[2]:.2f} kt",
            tolerance=f"SOG < {p.sog_max_kt:g} kt, lateral < {p.lateral_max_kt:g} kt at every contact",
            window=(worst[0], worst[0]),
            explanation=f"{len(judged)} contact(s)"
            + (f"; too fast at t={', '.join(f'{j[0]:.1f}' for j in bad)} s" if bad else ""),
        )

    cols = ctx.bundle.events_of("collision")
    with np.errstate(invalid="ignore"):
        aground = depth <= p.grounding_depth_m
    t_g = P.first_true(t, aground)
    expl = [f"collision at t={ev.t:.1f}s" for ev in cols] + ([f"aground at t={t_g:.1f}s"] if t_g is not None else [])
    text = f"no collision or allision and depth > {p.grounding_depth_m:g} m at any time"
    if cols or t_g is not None:
        t_bad = min([float(ev.t) for ev in cols] + ([t_g] if t_g is not None else []))
        ctx.safety(
            "no_allision_or_grounding",
            False,
            first_violation_t=t_bad,
            explanation=f"violated: {text} ({'; '.join(expl)})",
        )
    else:
        ctx.throughout("no_allision_or_grounding", ~aground, text, signals=("depth_m",))
    ctx.component(
        "no_collision",
        not cols and t_g is None,
        measured=len(cols) + (t_g is not None),
        tolerance=f"0 collisions, depth > {p.grounding_depth_m:g} m",
        explanation="; ".join(expl),
    )
    return ""
