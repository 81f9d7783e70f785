"""The bundle's signals as CSV for the page's download link: every column, full rate.

The CSV is inlined gzip-compressed and base64-encoded and unpacked into a Blob by the page
(DecompressionStream, as for Plotly), so full rate fits the page budget: a 10-minute episode
at 20 Hz is ~12,000 rows. Only a recording whose compressed CSV would still exceed
`CSV_BUDGET_BYTES` gets every n-th row instead, and the link says so.
"""

from __future__ import annotations

import base64
import gzip
import re
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


#: a missing sample's repr as a whole cell: at the start, between commas, or at the end
_NAN_CELL = re.compile(r"(?<![^,])nan(?![^,])")


def _rows(signals: Signals) -> list[str]:
    """Every sample as one CSV line: repr, the shortest text that reads back as the same float;
    a missing sample is an empty cell. Formatted once and decimated by slicing the lines."""
    cols = [signals.t.tolist(), *(signals[n].tolist() for n in signals.names)]
    lines = [",".join(map(repr, row)) for row in zip(*cols)]
    return [_NAN_CELL.sub("", line) if "nan" in line else line for line in lines]


def _header(signals: Signals) -> str:
    return ",".join(["t", *signals.names]) + "\n"


def _text(header: str, rows: list[str], step: int) -> str:
    return header + "".join(line + "\n" for line in rows[::step])


def signals_csv(signals: Signals, step: int = 1) -> str:
    """t and every recorded column (in the bundle's order); a missing sample is an empty cell."""
    return _text(_header(signals), _rows(signals), step)


def csv_payload(signals: Signals, budget_bytes: int = CSV_BUDGET_BYTES) -> CsvPayload:
    """The CSV for the page: full rate when it fits the budget compressed, else the smallest
    decimation step that does."""
    header, rows = _header(signals), _rows(signals)
    step = 1
    while True:
        text = _text(header, rows, step)
        gz = gzip.compress(text.encode("utf-8"), 6, mtime=0)
        if len(gz) <= budget_bytes or step >= max(1, len(signals)):
            break
        step = max(step + 1, int(np.ceil(step * len(gz) / budget_bytes)))
    n_rows = len(range(0, len(signals), step))
    return CsvPayload(base64.b64encode(gz).decode("ascii"), n_rows, 1 + len(signals.names), step, len(text))
