"""What an instruction tells a pilot: the numbers in its text, read the way a pilot reads them.

A reference pilot is given the same instruction as any agent and flies what it says — a site
variant's frequencies, not the catalog task's — so the numbers come from the text, never from
constants of one airport."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class RadioTargets:
    """The radio settings a T16-style instruction asks for."""

    com_mhz: float
    com_stby_mhz: float
    nav_mhz: float
    squawk: str
    mode: str
    baro_inhg: float


def radio_targets(text: str) -> RadioTargets:
    """ "Set COM1 active to ... 123.800, standby to ... 132.600, NAV1 to ... 114.800, transponder to
    4521 in ALT mode, and altimeter to 29.92 inHg": ValueError naming what it does not say."""

    def find(pattern: str) -> str:
        m = re.search(pattern, text, re.IGNORECASE | re.DOTALL)
        if m is None:
            raise ValueError(f"the instruction does not say {pattern!r}")
        return m.group(1)

    return RadioTargets(
        com_mhz=float(find(r"COM1 active to\D*?(1\d\d\.\d+)")),
        com_stby_mhz=float(find(r"standby to\D*?(1\d\d\.\d+)")),
        nav_mhz=float(find(r"NAV1 to\D*?(1\d\d\.\d+)")),
        squawk=find(r"transponder to (\d{4})"),
        mode=find(r"transponder to \d{4} in (\w+) mode").upper(),
        baro_inhg=float(find(r"altimeter to (\d\d\.\d\d)")),
    )
