"""The bundle's signals as CSV for the page's download link: every column, full rate.

The CSV is inlined gzip-compressed and base64-encoded and unpacked into a Blob by the page
(DecompressionStream, as for Plotly), so full rate fits the page budget: a 10-minute episode
at 20 Hz is ~12,000 rows. Only a recording whose compressed CSV would still exceed
`CSV_BUDGET_BYTES` gets every n-th row instead, and the link says so.
"""

from __future__ import annotations

import base64
import gzip
import io
import math
from dataclasses import dataclass

import numpy as np

from simbridge._signals import Signals

#: compressed CSV bytes the page may carry (base64 adds a third)
CSV_BUDGET_BYTES = 700_000


@dataclass(frozen=True)
class CsvPayload:
    gz_b64: str
    n_rows: int
    n_columns: int
    #: every `step`-th sample (1: full rate)
    step: int
    csv_bytes: int


def _cell(v: float) -> str:
    return "" if math.isnan(v) else repr(v)  # repr: the shortest text that reads back as the same float


def signals_csv(signals: Signals, step: int = 1) -> str:
    """t and every recorded column (in the bundle's order); a missing sample is an empty cell."""
    names = signals.names
    buf = io.StringIO()
    buf.write(",".join(["t", *names]) + "\n")
    cols = [signals.t[::step], *(signals[n][::step] for n in names)]
    for row in zip(*(c.tolist() for c in cols)):
        buf.write(",".join(_cell(v) for v in row) + "\n")
    return buf.getvalue()


def csv_payload(signals: Signals, budget_bytes: int = CSV_BUDGET_BYTES) -> CsvPayload:
    """The CSV for the page: full rate when it fits the budget compressed, else the smallest
    decimation step that does."""
    step = 1
    while True:
        text = signals_csv(signals, step)
        gz = gzip.compress(text.encode("utf-8"), 6, mtime=0)
        if len(gz) <= budget_bytes or step >= max(1, len(signals)):
            break
        step = max(step + 1, int(np.ceil(step * len(gz) / budget_bytes)))
    n_rows = len(range(0, len(signals), step))
    return CsvPayload(base64.b64encode(gz).decode("ascii"), n_rows, 1 + len(signals.names), step, len(text))
