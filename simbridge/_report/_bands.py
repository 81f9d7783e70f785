"""Tolerance bands to draw on the time-series plots: the ones the verifier judged against.

A verifier records each band it uses with `VerifyContext.band` (the signals it may draw on are
declared in `@verifier(..., bands=...)`), and the Score carries them (`Score.bands`). The page
draws what the score carries — the score re-derived from the bundle — so it shows the band the
verifier used, never one the report works out again. A family that judges no signal against a
band over a window (final states, event sequences) declares none; the plots still show the
evidence windows.
"""

from __future__ import annotations

from simbridge import verifier
from simbridge._score import Band, Score


def bands_for(score: Score) -> list[Band]:
    """The tolerance bands the score's verifier judged signals against (empty: none, or unscored)."""
    return list(score.bands)


def families() -> list[str]:
    """Registered verifiers that declare signals they draw bands on."""
    return sorted(n for n in verifier.names() if verifier.get(n).bands)


__all__ = ["Band", "bands_for", "families"]
