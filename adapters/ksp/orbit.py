"""Keplerian orbit of a KSP vessel as the save stores it, and the altitudes the task checks.

Kerbin: R = 600 000 m, GM = 3.5316e12 m³/s² (KSP wiki; SPICE kernel from kRPC data).
PeA = SMA(1−ECC) − R, ApA = SMA(1+ECC) − R, T = 2π√(SMA³/GM). ECC ≥ 1: no apoapsis.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

KERBIN_RADIUS_M = 600_000.0
KERBIN_GM_M3S2 = 3.5316e12
KERBIN_REF = 1  # flightGlobalsIndex of Kerbin in the stock system
KERBIN_ATMOSPHERE_M = 70_000.0

#: stock bodies by flightGlobalsIndex (the ORBIT node's REF): name, equatorial radius (m),
#: gravitational parameter (m³/s²) — KSP wiki "Celestial body" pages (1.x stock system).
#: Mods that replace the solar system (RSS, GPP, Kopernicus packs) renumber and resize bodies:
#: altitudes around them are not known from the save alone.
STOCK_BODIES: dict[int, tuple[str, float, float]] = {
    0: ("Sun", 261_600_000.0, 1.1723328e18),
    1: ("Kerbin", 600_000.0, 3.5316e12),
    2: ("Mun", 200_000.0, 6.5138398e10),
    3: ("Minmus", 60_000.0, 1.7658e9),
    4: ("Moho", 250_000.0, 1.6860938e11),
    5: ("Eve", 700_000.0, 8.1717302e12),
    6: ("Duna", 320_000.0, 3.0136321e11),
    7: ("Ike", 130_000.0, 1.8568369e10),
    8: ("Jool", 6_000_000.0, 2.82528e14),
    9: ("Laythe", 500_000.0, 1.962e12),
    10: ("Vall", 300_000.0, 2.074815e11),
    11: ("Bop", 65_000.0, 2.4868349e9),
    12: ("Tylo", 600_000.0, 2.82528e12),
    13: ("Gilly", 13_000.0, 8.289449e6),
    14: ("Pol", 44_000.0, 7.2170208e8),
    15: ("Dres", 138_000.0, 2.1484489e10),
    16: ("Eeloo", 210_000.0, 7.4410815e10),
}


@dataclass(frozen=True)
class Orbit:
    sma_m: float
    ecc: float
    inc_deg: float = 0.0
    ref: int = KERBIN_REF
    radius_m: float = KERBIN_RADIUS_M
    gm_m3s2: float = KERBIN_GM_M3S2

    @classmethod
    def around(cls, ref: int, sma_m: float, ecc: float, inc_deg: float = 0.0) -> "Orbit | None":
        """The orbit around stock body `ref` with that body's radius and GM; None for a REF
        that is not a stock body (a modded system)."""
        body = STOCK_BODIES.get(ref)
        if body is None:
            return None
        return cls(sma_m=sma_m, ecc=ecc, inc_deg=inc_deg, ref=ref, radius_m=body[1], gm_m3s2=body[2])

    @property
    def body(self) -> str:
        return STOCK_BODIES[self.ref][0] if self.ref in STOCK_BODIES else f"body {self.ref}"

    @property
    def closed(self) -> bool:
        return 0.0 <= self.ecc < 1.0 and self.sma_m > 0

    @property
    def pe_alt_m(self) -> float:
        return self.sma_m * (1.0 - self.ecc) - self.radius_m

    @property
    def ap_alt_m(self) -> float:
        """Apoapsis altitude; +inf for an escape trajectory."""
        return self.sma_m * (1.0 + self.ecc) - self.radius_m if self.closed else math.inf

    @property
    def period_s(self) -> float:
        return 2 * math.pi * math.sqrt(self.sma_m**3 / self.gm_m3s2) if self.closed else math.inf

    def time_fraction_between(self, lo_alt_m: float, hi_alt_m: float) -> float:
        """Fraction of one orbital period spent at altitudes in [lo, hi] (Kepler's equation).

        r(E) = a(1 − e cos E) and mean anomaly M = E − e sin E; the band is an interval of cos E,
        so the time share is (M(E2) − M(E1)) / π over the half orbit E ∈ [0, π] (symmetric)."""
        if not self.closed:
            return 0.0
        a, e = self.sma_m, self.ecc
        r_lo, r_hi = lo_alt_m + self.radius_m, hi_alt_m + self.radius_m
        if e < 1e-12:
            return 1.0 if r_lo <= a <= r_hi else 0.0
        c_hi = min(1.0, max(-1.0, (1.0 - r_lo / a) / e))  # cos E at the band's lower radius
        c_lo = min(1.0, max(-1.0, (1.0 - r_hi / a) / e))
        e1, e2 = math.acos(c_hi), math.acos(c_lo)
        m1, m2 = e1 - e * math.sin(e1), e2 - e * math.sin(e2)
        return max(0.0, min(1.0, (m2 - m1) / math.pi))


def _eccentric_anomaly(mean: float, ecc: float) -> float:
    """E with E − e sin E = M (elliptic), by Newton's method from a start that converges for
    every e < 1, with bisection as the fallback near e → 1."""
    m = math.remainder(mean, 2 * math.pi)  # in [−π, π]
    e_anom = m + ecc * math.sin(m) if ecc < 0.8 else math.copysign(math.pi, m) if m else 0.0
    for _ in range(100):
        f = e_anom - ecc * math.sin(e_anom) - m
        step = f / (1.0 - ecc * math.cos(e_anom))
        e_anom -= step
        if abs(step) < 1e-13:
            return e_anom
    lo, hi = -math.pi, math.pi  # E − e sin E is monotonic on [−π, π]
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid - ecc * math.sin(mid) < m:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _hyperbolic_anomaly(mean: float, ecc: float) -> float:
    """H with e sinh H − H = M (hyperbolic orbits, e > 1), by Newton's method."""
    h = math.asinh(mean / ecc)
    for _ in range(200):
        f = ecc * math.sinh(h) - h - mean
        step = f / (ecc * math.cosh(h) - 1.0)
        h -= step
        if abs(step) < 1e-13 * max(1.0, abs(h)):
            break
    return h


def radius_at(sma_m: float, ecc: float, gm_m3s2: float, mna_rad: float, eph_s: float, ut_s: float) -> float:
    """Distance from the body's centre at time `ut_s` on the orbit KSP saves: mean anomaly MNA
    (radians) at epoch EPH, mean motion n = √(GM/|a|³). Elliptic: r = a(1 − e cos E);
    hyperbolic (a < 0, e > 1): r = a(1 − e cosh H)."""
    n = math.sqrt(gm_m3s2 / abs(sma_m) ** 3)
    mean = mna_rad + n * (ut_s - eph_s)
    if ecc < 1.0:
        return sma_m * (1.0 - ecc * math.cos(_eccentric_anomaly(mean, ecc)))
    return sma_m * (1.0 - ecc * math.cosh(_hyperbolic_anomaly(mean, ecc)))
