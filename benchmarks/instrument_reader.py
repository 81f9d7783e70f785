"""Accuracy and speed of the JSBSim pilots' instrument reader (issue 44), against the true value.

Renders the embedded cockpit's panel with its own drawing code (headless SDL, no simulator) at
`--states` states drawn across the flight envelope (airspeed 0-190 kt, pitch +-20 deg, bank
+-70 deg, altitude -100..14,000 ft, heading all round, vertical speed +-2,000 fpm, 0-2,800 rpm,
turn rate +-6 deg/s, every lever position and flap detent; every `--smoke-every`-th frame under
the smoke veil), each frame once with the assisted readout strip (`--assist readout`) drawn.
Per instrument it prints the needle reader's error |reading - true| at p50, p95 and max, and
the same for the baseline measured on the same frames: the strip reader (`read_strip`, whole
digits: its error is the rounding), with the ratio needle/strip; then the time per reading of
each reader.

    python benchmarks/instrument_reader.py [--states 400] [--seed 1] [--smoke-every 5]

The tolerances the pilots need are asserted by tests/agents/test_reference_readers.py; exit
status 0 when every reading was made (no None), 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np  # noqa: E402
import pygame  # noqa: E402

from simbridge.adapters.jsbsim import layout as L  # noqa: E402
from simbridge.adapters.jsbsim.cockpit._controls import Controls  # noqa: E402
from simbridge.adapters.jsbsim.cockpit._panel import Panel, Readings, readout_line  # noqa: E402
from simbridge.adapters.jsbsim.pilots._instruments import read_instruments, read_strip  # noqa: E402

#: the fields compared, their unit, and the instrument they come from
FIELDS = (
    ("ias", "kt", "airspeed"),
    ("alt", "ft", "altimeter"),
    ("hdg", "deg", "heading ind."),
    ("vs", "fpm", "vert. speed"),
    ("bank", "deg", "attitude"),
    ("pitch", "deg", "attitude"),
    ("rpm", "rpm", "tachometer"),
    ("thr", "%", "throttle"),
    ("mix", "%", "mixture"),
    ("flaps", "deg", "flap lever"),
    ("turn", "deg/s", "turn coord."),
    ("slip", "g", "turn coord."),
)


def state(rng: np.random.Generator, smoke: float) -> tuple[Readings, Controls]:
    r = Readings(
        ias_kt=float(rng.uniform(0, 190)),
        pitch_deg=float(rng.uniform(-20, 20)),
        bank_deg=float(rng.uniform(-70, 70)),
        alt_ind_ft=float(rng.uniform(-100, 14000)),
        turn_rate_dps=float(rng.uniform(-6, 6)),
        slip_g=float(rng.uniform(-0.12, 0.12)),
        heading_mag_deg=float(rng.uniform(0, 360)),
        vs_fpm=float(rng.uniform(-2000, 2000)),
        rpm=float(rng.uniform(0, 2800)),
        smoke_density=smoke,
    )
    c = Controls()
    c.throttle, c.mixture = float(rng.uniform(0, 1)), float(rng.uniform(0, 1))
    c.flaps_index = int(rng.integers(0, 4))
    c.ap_hdg_bug_deg = float(rng.uniform(0, 360))
    r.flaps_deg = L.FLAP_DETENTS_DEG[c.flaps_index]  # the flap gauge follows the lever
    return r, c


def truth(r: Readings, c: Controls) -> dict[str, float]:
    return dict(
        ias=r.ias_kt,
        alt=r.alt_ind_ft,
        hdg=r.heading_mag_deg % 360,
        vs=r.vs_fpm,
        bank=r.bank_deg,
        pitch=r.pitch_deg,
        rpm=r.rpm,
        thr=100 * c.throttle,
        mix=100 * c.mixture,
        flaps=L.FLAP_DETENTS_DEG[c.flaps_index],
        turn=r.turn_rate_dps,
        slip=r.slip_g,
    )


def error(field: str, got: float | None, want: float) -> float:
    if got is None:
        return float("inf")
    e = abs(got - want)
    return min(e, 360.0 - e) if field == "hdg" else e


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--states", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--smoke-every", type=int, default=5, help="every Nth frame under a random smoke veil (0: none)")
    args = ap.parse_args(argv)
    if args.states < 1:
        ap.error(f"--states must be at least 1 (got {args.states})")
    pygame.display.init()
    pygame.font.init()
    panel, surf = Panel(has_autopilot=True), pygame.Surface((L.WIDTH, L.HEIGHT))
    rng = np.random.default_rng(args.seed)
    needle: dict[str, list[float]] = {f: [] for f, _, _ in FIELDS}
    strip: dict[str, list[float]] = {f: [] for f, _, _ in FIELDS}
    t_needle: list[float] = []
    t_strip: list[float] = []
    for i in range(args.states):
        smoke = float(rng.uniform(0.1, 1.0)) if args.smoke_every and i % args.smoke_every == 0 else 0.0
        r, c = state(rng, smoke)
        panel.draw(surf, r, c, readout=readout_line(r, c))
        img = pygame.surfarray.array3d(surf).transpose(1, 0, 2)[:, :, ::-1].copy()  # BGR, as a screenshot
        w0 = time.perf_counter()
        got = read_instruments(img)
        t_needle.append(time.perf_counter() - w0)
        w0 = time.perf_counter()
        base = read_strip(img)
        t_strip.append(time.perf_counter() - w0)
        want = truth(r, c)
        for f, _, _ in FIELDS:
            needle[f].append(error(f, getattr(got, f), want[f]))
            strip[f].append(error(f, getattr(base, f), want[f]))
    print(
        f"instrument reader vs the true value: {args.states} panels (seed {args.seed}, "
        f"{'every %dth under smoke' % args.smoke_every if args.smoke_every else 'no smoke'})\n"
    )
    print(
        f"{'field':<6} {'unit':<6} {'instrument':<13} {'needle p50':>10} {'p95':>8} {'max':>8}   "
        f"{'strip p50':>9} {'p95':>8}   {'p95 ratio':>9}"
    )
    missed = 0
    for f, unit, inst in FIELDS:
        n, s = np.array(needle[f]), np.array(strip[f])
        missed += int(np.isinf(n).sum())
        n_ok = n[np.isfinite(n)]
        p50, p95, mx = (np.percentile(n_ok, 50), np.percentile(n_ok, 95), n_ok.max()) if len(n_ok) else (np.nan,) * 3
        if np.isfinite(s).all():
            s50, s95 = np.percentile(s, 50), np.percentile(s, 95)
            ratio = f"{p95 / s95:9.2f}" if s95 > 0 else f"{'(exact)':>9}"
            base = f"{s50:9.3f} {s95:8.3f}"
        else:  # the strip prints no slip or turn rate
            base, ratio = f"{'—':>9} {'—':>8}", f"{'—':>9}"
        print(f"{f:<6} {unit:<6} {inst:<13} {p50:10.3f} {p95:8.3f} {mx:8.3f}   {base}   {ratio}")
    tn, ts = np.array(t_needle) * 1000, np.array(t_strip) * 1000
    print(
        f"\ntime per reading: needles p50 {np.percentile(tn, 50):.2f} ms (p95 {np.percentile(tn, 95):.2f}), "
        f"strip p50 {np.percentile(ts, 50):.2f} ms (p95 {np.percentile(ts, 95):.2f}); "
        f"ratio {np.percentile(tn, 50) / np.percentile(ts, 50):.2f}"
    )
    if missed:
        print(f"{missed} readings missing (None)")
    return 0 if missed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
