"""argparse types shared by the subcommands: one wording for a bad number everywhere."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def number(
    kind: type, *, lo: float | None = None, lo_open: bool = False, hi: float | None = None
) -> Callable[[str], float]:
    """An argparse type: a finite number of `kind` within bounds, with a one-line complaint."""

    def parse(text: str) -> float:
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {'an integer' if kind is int else 'a number'}") from None
        if not math.isfinite(v):
            raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
        if lo is not None and (v <= lo if lo_open else v < lo):
            raise argparse.ArgumentTypeError(f"{text} must be {'>' if lo_open else '≥'} {lo:g}")
        if hi is not None and v > hi:
            raise argparse.ArgumentTypeError(f"{text} must be ≤ {hi:g}")
        return v

    return parse
