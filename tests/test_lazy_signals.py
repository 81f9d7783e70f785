"""A bundle's Parquet signals are decoded column by column when first read: re-scoring decodes
only the columns the task and its verifier read, gives the same score as reading every column,
and the manifest still covers the whole file."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from synth import steep_turn

from simbridge import EpisodeInfo, load_task, read_bundle, score_bundle, write_bundle
from simbridge._bundle import Bundle
from simbridge._canonical import FLIGHT
from simbridge._verify import verify_path
from simbridge._errors import BundleError
from simbridge._signals import LazyColumns, Signals

TASK = load_task("T09")


def _wide(cols: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The steep turn with every other flight signal recorded too: noise, an all-NaN column, a
    column with NaN runs and an out-of-range one, none of which T09 reads."""
    out = dict(cols)
    n = cols["t"].size
    rng = np.random.default_rng(3)
    extra = [name for name in FLIGHT if name not in out]
    for i, name in enumerate(extra[:30]):
        out[name] = rng.normal(size=n)
    out[extra[0]] = np.full(n, np.nan)  # not recorded by this simulator: absent
    out[extra[1]][10:40] = np.nan  # a gap in a column nobody reads: no note
    out[extra[2]][5] = 1e12  # out of any range, unread: no note
    return out


def _eager(path: Path) -> Bundle:
    """The same bundle with every column decoded up front (how it was read before)."""
    import pyarrow.parquet as pq

    b = read_bundle(path)
    table = pq.read_table(path / "signals.parquet")
    cols = {n: table.column(n).to_numpy() for n in table.column_names}
    t = cols.pop("t")
    return Bundle(path, b.episode, Signals(t, cols), b.events, b.snapshots, b.actions, b.files)


def test_scoring_decodes_only_the_columns_read_and_scores_the_same(tmp_path):
    cols = _wide(steep_turn())
    d = write_bundle(tmp_path / "b", EpisodeInfo(task_id="T09"), cols, fmt="parquet")
    lazy = read_bundle(d)
    lazy_cols = lazy.signals._cols
    assert isinstance(lazy_cols, LazyColumns)
    assert lazy_cols.loaded == []  # only t is decoded by reading
    assert sorted(lazy.signals.names) == sorted(k for k in cols if k != "t")
    s_lazy = score_bundle(lazy, TASK)
    s_eager = score_bundle(_eager(d), TASK)
    assert s_lazy.status == "scored" and s_lazy.score is not None and s_lazy.score > 0.9
    assert s_lazy.model_dump() == s_eager.model_dump()  # score, items, data quality, notes: identical
    decoded = set(lazy_cols.loaded)
    assert {"bank_deg", "heading_mag_deg", "alt_msl_ft"} <= decoded
    assert len(decoded) < len(cols) // 3, decoded  # the 30 noise columns stayed in the file
    assert s_lazy.data_quality is not None
    first_extra = next(n for n in FLIGHT if n not in steep_turn())
    assert first_extra in s_lazy.data_quality.absent  # the all-NaN column, decided by decoding it


def test_values_decoded_lazily_are_the_recorded_ones(tmp_path):
    cols = _wide(steep_turn(hz=10))
    cols["on_ground"] = (cols["t"] < 3).astype(bool)  # a boolean column reads as 0/1
    d = write_bundle(tmp_path / "b", EpisodeInfo(task_id="T09"), cols, fmt="parquet")
    s = read_bundle(d).signals
    for name, v in cols.items():
        got = s.t if name == "t" else s[name]
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, np.asarray(v, dtype=float), err_msg=name)
    with pytest.raises(KeyError, match="not recorded"):
        s["no_such_signal"]


def test_manifest_still_covers_a_column_nobody_reads(tmp_path):
    """A changed column that T09 never reads is still a changed file: refused before scoring."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = _wide(steep_turn())
    d = write_bundle(tmp_path / "b", EpisodeInfo(task_id="T09"), cols, fmt="parquet")
    assert verify_path(d).status == "scored"
    unread = next(n for n in reversed(list(cols)) if n not in ("t", "bank_deg", "heading_mag_deg", "alt_msl_ft"))
    table = pq.read_table(d / "signals.parquet")
    i = table.column_names.index(unread)
    table = table.set_column(i, unread, pa.array(np.zeros(table.num_rows)))
    pq.write_table(table, d / "signals.parquet", compression="zstd")
    with pytest.raises(BundleError, match="signals.parquet: sha256 does not match"):
        verify_path(d)


def test_a_file_replaced_after_reading_does_not_change_what_is_scored(tmp_path):
    cols = steep_turn()
    d = write_bundle(tmp_path / "b", EpisodeInfo(task_id="T09"), cols, fmt="parquet")
    b = read_bundle(d)
    other = write_bundle(tmp_path / "o", EpisodeInfo(task_id="T09"), {**cols, "bank_deg": np.zeros_like(cols["t"])})
    os.replace(other / "signals.parquet", d / "signals.parquet")
    np.testing.assert_array_equal(b.signals["bank_deg"], cols["bank_deg"])


def test_bad_parquet_columns_are_refused_at_read(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = steep_turn(hz=5)
    d = write_bundle(tmp_path / "b", EpisodeInfo(task_id="T09"), cols, fmt="parquet")
    table = pq.read_table(d / "signals.parquet").append_column("note", pa.array(["x"] * len(cols["t"])))
    pq.write_table(table, d / "signals.parquet")
    with pytest.raises(BundleError, match="column 'note' is not numeric"):
        read_bundle(d)
    pq.write_table(pq.read_table(d / "signals.parquet").drop_columns(["t", "note"]), d / "signals.parquet")
    with pytest.raises(BundleError, match="no 't' column"):
        read_bundle(d)


def test_a_column_under_its_old_name_is_read_under_the_new_one(tmp_path):
    t = np.arange(0.0, 10.0, 0.5)
    d = write_bundle(tmp_path / "b", EpisodeInfo(task_id="T09"), {"t": t, "ap_alt_m": t * 100}, fmt="parquet")
    s = read_bundle(d).signals
    assert s.names == ["apoapsis_m"]
    np.testing.assert_array_equal(s["apoapsis_m"], t * 100)


def test_checked_signals_give_the_time_gaps_found_by_the_quality_check():
    from simbridge._signals import check_quality

    t = np.concatenate([np.arange(0.0, 10.0, 0.1), np.arange(12.0, 20.0, 0.1), np.arange(20.5, 30.0, 0.1)])
    raw = Signals(t, {"alt_msl_ft": np.full(t.size, 3000.0)})
    checked = check_quality(raw, 0.4, on_read=True).signals
    assert checked.gaps(0.4) == raw.gaps(0.4) == [(pytest.approx(9.9), 12.0), (pytest.approx(19.9), 20.5)]
    assert checked.gaps(1.0) == raw.gaps(1.0) == [(pytest.approx(9.9), 12.0)]  # another limit: computed
