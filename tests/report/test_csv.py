"""The page's CSV of the signals: every column at full rate, exactly the bundle's values; a
recording too large for the page budget is decimated and the link says so."""

from __future__ import annotations

import base64
import csv
import gzip
import io
import re

import numpy as np

from report.bundles import build_t09
from simbridge._report import load_episode
from simbridge._report._csv import csv_payload
from simbridge._report._html import render_episode
from simbridge._signals import Signals


def _read(gz_b64: str) -> tuple[list[str], np.ndarray]:
    rows = list(csv.reader(io.StringIO(gzip.decompress(base64.b64decode(gz_b64)).decode())))
    return rows[0], np.array([[float(c) if c else np.nan for c in r] for r in rows[1:]])


def test_page_csv_is_the_bundles_signals_exactly(tmp_path):
    b = build_t09(tmp_path / "t09", frames=False, gap=(5.0, 6.5))
    view = load_episode(b)
    page = render_episode(view)
    gz = re.search(r'id="signals-csv-gz">([^<]*)<', page).group(1)
    head, data = _read(gz)
    sig = view.bundle.signals
    assert head == ["t", *sig.names] and len(head) > 5
    assert data.shape == (len(sig), len(head))
    np.testing.assert_array_equal(data[:, 0], sig.t)
    for i, n in enumerate(sig.names, start=1):
        np.testing.assert_array_equal(data[:, i], sig[n])  # NaN where the bundle has NaN, bit-exact elsewhere
    link = re.search(r'<a id="csv-download"[^>]*>', page).group(0)
    assert 'data-step="1"' in link and 'download="T09-t09-signals.csv"' in link
    assert "all columns, full rate" in page


def test_csv_over_budget_is_decimated_and_says_so():
    rng = np.random.default_rng(0)
    t = np.arange(0.0, 600.0, 0.05)
    sig = Signals(t, {f"c{i}": rng.normal(size=t.size) for i in range(8)})  # noise: barely compresses
    p = csv_payload(sig, budget_bytes=300_000)
    assert p.step > 1 and len(base64.b64decode(p.gz_b64)) <= 300_000
    head, data = _read(p.gz_b64)
    assert data.shape == (p.n_rows, 9) and p.n_rows == len(range(0, t.size, p.step))
    np.testing.assert_array_equal(data[:, 1], sig["c0"][:: p.step])
    assert csv_payload(sig).step >= 1


def test_missing_samples_are_empty_cells_wherever_they_fall():
    t = np.array([0.0, 0.05, 0.1])
    nan = np.nan
    sig = Signals(t, {"a": np.array([nan, 1.5, nan]), "b": np.array([nan, nan, 2.0]), "c": np.array([0.1, nan, nan])})
    p = csv_payload(sig)
    text = gzip.decompress(base64.b64decode(p.gz_b64)).decode()
    assert text == "t,a,b,c\n0.0,,,0.1\n0.05,1.5,,\n0.1,,2.0,\n"
