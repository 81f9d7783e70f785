"""The JSBSim reference pilots on the PHJR (Kalaeloa, Oahu) site variants whose pilots were changed
for the site, in exact lockstep: each flies its variant through pixels and input alone on a seed
of its own and reaches the score the verified bar asks (≥ 0.9 with success). PHJR differs from
the base tasks' KPAO and KHAF in what the pilots had to learn: a parallel runway (04L, 190 m
left of 04R) and a crossing one (11/29) in the window, a runway heading of 055° instead of
310°, and a chart whose elevation (12 ft) is 8 ft below the cockpit's ground (20 ft).
`benchmarks/reference_pilots.py --pairs T03@PHJR/jsbsim ...` runs the seed sweep beside the
do-nothing agent."""

from __future__ import annotations

import math
import os
import shutil
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.display,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb not installed"),
]

# Only a genuinely absent third-party dependency skips; a broken import inside our own adapter
# raises here and fails the collection.
import jsbsim  # noqa: F401
import pygame  # noqa: F401

import numpy as np  # noqa: E402

from simbridge._sims import session_class  # noqa: E402
from simbridge.adapters.jsbsim._airports import from_local_m, load_airport, to_local_m  # noqa: E402
from simbridge.adapters.jsbsim.pilots._runway_view import FieldPicture, see_runway  # noqa: E402
from simbridge.agents._reference import make_pilot  # noqa: E402

from support.runner import reference_trial  # noqa: E402

session_class("jsbsim")

#: variant -> seed of its trial here (the benchmark's sweep flies seeds 1-7)
SITE_TRIALS = {
    "T03@PHJR": 11,  # 04R from a 5 nm final: the runway read among 04L and 11/29, the field by its picture
}


def test_every_site_variant_pilot_is_registered_for_jsbsim():
    for task in SITE_TRIALS:
        assert make_pilot(task, "jsbsim") is not None, task


@pytest.mark.parametrize("task", sorted(SITE_TRIALS))
def test_site_variant_reference_pilot_solves(tmp_path: Path, task: str):
    kinds = reference_trial(task, "jsbsim", SITE_TRIALS[task], tmp_path)
    assert {"screenshot", "key", "mouse_move"} <= kinds, kinds  # read from pixels, flown by keys and the yoke


def _final_view(dist_m: float, right_m: float, crab_deg: float, pitch_deg: float = -1.0) -> tuple[np.ndarray, float]:
    """The cockpit's own out-the-window view on a 3° final to PHJR 04R, `dist_m` before the
    pavement's near end, `right_m` right of the centreline, the nose `crab_deg` right of the
    runway (a BGR screenshot as the pilots read it) and the eye's height above the ground (m)."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    from simbridge.adapters.jsbsim.cockpit._view import OutsideView

    ap = load_airport("PHJR")
    end = next(e for r in ap.runways for e in r.ends if e.ident == "04R")
    hdg = math.radians(end.heading_true_deg)
    ux, uy = math.sin(hdg), math.cos(hdg)
    ax, ay = to_local_m(end.lat_deg, end.lon_deg, *ap.ref_lat_lon)
    lat, lon = from_local_m(ax - ux * dist_m + uy * right_m, ay - uy * dist_m - ux * right_m, *ap.ref_lat_lon)
    eye_m = math.tan(math.radians(3.0)) * (dist_m + 140.0)
    pygame.init()
    surf = pygame.Surface((1280, 800))
    OutsideView(ap).draw(
        surf, lat, lon, ap.elevation_ft + eye_m / 0.3048 - 1.5, end.heading_true_deg + crab_deg, pitch_deg, 0.0
    )
    return pygame.surfarray.array3d(surf).transpose(1, 0, 2)[:, :, ::-1].copy(), eye_m


@pytest.mark.parametrize("dist_m", [7000.0, 3000.0, 1000.0, 300.0])
def test_runway_reader_keeps_04r_among_the_parallel_and_crossing_runways(dist_m: float):
    # 40 m left of 04R's centreline, crabbed 6° left: 04L is 147 m to the left, 11/29 crosses ahead
    img, eye_m = _final_view(dist_m, -40.0, -6.0)
    sight = see_runway(img, 0.0, -1.0, eye_m, 6.0, side="R")
    assert sight is not None
    assert abs(sight.offset_m - -40.0) < 10.0, sight  # all the grey pavement's centroid was up to 600 m off
    assert sight.near_m is not None and abs(sight.near_m - dist_m) < 0.05 * dist_m + 15.0, sight


def test_runway_reader_without_the_designator_keeps_the_runway_lined_up_with():
    img, eye_m = _final_view(1000.0, 0.0, 0.0)
    sight = see_runway(img, 0.0, -1.0, eye_m, 0.0)
    assert sight is not None and abs(sight.offset_m) < 5.0, sight


def test_field_picture_finds_the_ground_the_chart_misplaces():
    # T03@PHJR's chart says 12 ft; the cockpit's ground at PHJR is at 20 ft (apt.dat)
    field = FieldPicture(12.0, 60.96)
    for dist_m in (450.0, 400.0, 350.0, 300.0, 250.0, 200.0):
        img, eye_m = _final_view(dist_m, 0.0, 0.0)
        alt_ft = 20.0 + eye_m / 0.3048 - 1.5
        eye_ft = alt_ft - field.elevation_ft + 1.5  # the eye's height on the elevation believed
        field.look(alt_ft, eye_ft, see_runway(img, 0.0, -1.0, eye_ft * 0.3048, 0.0, side="R"))
    assert abs(field.elevation_ft - 20.0) < 3.0, field.seen
    # a chart within the picture's uncertainty is kept
    kept = FieldPicture(18.0, 60.96)
    for dist_m in (450.0, 400.0, 350.0, 300.0, 250.0):
        img, eye_m = _final_view(dist_m, 0.0, 0.0)
        alt_ft = 20.0 + eye_m / 0.3048 - 1.5
        kept.look(alt_ft, alt_ft - 18.0 + 1.5, see_runway(img, 0.0, -1.0, (alt_ft - 16.5) * 0.3048, 0.0, side="R"))
    assert kept.elevation_ft == 18.0 and len(kept.seen) >= 5, kept.seen
