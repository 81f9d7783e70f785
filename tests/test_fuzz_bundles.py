"""Seeded mutation fuzz of episode bundles through read_bundle + score_bundle (T09 steep turn).

Mutations are the bad inputs of issue 12: NaN runs, out-of-range values, duplicated, backwards
and zero times, single glitched samples, truncation. Every variant must end in a one-line
BundleError naming a file of the bundle, or a Score; never another exception. A Score that
differs from the clean recording's (its score or an item's credit) must say why: unscored with a reason, or data problems in
`flags`/`data_quality`. (episode.json gives `sim_end_s`, so a truncated recording is a lost
tail, not an agent that quit.)
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simbridge import read_bundle
from simbridge._errors import BundleError
from simbridge._task import load_task
from simbridge import score_bundle
from synth import make_bundle, steep_turn

TASK = load_task("T09")
BASE = steep_turn(hz=10)  # 581 rows, 58 s
N = BASE["t"].size
END_S = float(BASE["t"][-1])
SIGS = [k for k in BASE if k != "t"]

#: FUZZ_EXAMPLES=400 for a deeper local run; CI keeps the fast deterministic default
FUZZ = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "60")),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)

idx = st.integers(0, N - 1)
signal = st.sampled_from(SIGS)
mutation = st.one_of(
    st.tuples(st.just("nan_run"), signal, idx, st.integers(1, 80)),
    st.tuples(st.just("out_of_range"), signal, idx, st.integers(1, 30)),
    st.tuples(st.just("glitch"), st.just("bank_deg"), idx, st.integers(-180, 180)),
    st.tuples(st.just("dup_rows"), st.just("t"), idx, st.integers(1, 5)),
    st.tuples(st.just("backwards_t"), st.just("t"), idx, st.integers(1, 50)),
    st.tuples(st.just("zero_t"), st.just("t"), idx, st.integers(1, N)),
    st.tuples(st.just("same_t"), st.just("t"), idx, st.integers(1, 3)),
    st.tuples(st.just("truncate"), st.just("t"), idx, st.just(0)),
)
GARBAGE = {
    "bank_deg": 999.0,
    "heading_mag_deg": -45.0,
    "alt_msl_ft": 1e7,
    "ias_kt": -500.0,
    "autopilot_on": 7.0,
    "vs_fpm": 1e9,
    "on_ground": 0.5,
}


def mutate(cols: dict[str, np.ndarray], ops: list[tuple[str, str, int, int]]) -> dict[str, np.ndarray]:
    c = {k: v.astype(float).copy() for k, v in cols.items()}
    for kind, name, i, k in ops:
        n = c["t"].size
        if n == 0:
            break
        i = min(i, n - 1)
        if kind == "nan_run":
            c[name][i : i + k] = np.nan
        elif kind == "out_of_range":
            c[name][i : i + k] = GARBAGE[name]
        elif kind == "glitch":
            c[name][i] = float(k)
        elif kind == "dup_rows":
            c = {key: np.insert(v, i, np.repeat(v[i], k)) for key, v in c.items()}
        elif kind == "backwards_t":
            c["t"][i] = c["t"][i] - k * 0.1
        elif kind == "zero_t":
            c["t"][i : i + k] = 0.0
        elif kind == "same_t":
            j = min(n - 1, i + k)
            c["t"][i : j + 1] = c["t"][i]
        elif kind == "truncate":
            c = {key: v[: i + 1] for key, v in c.items()}
    return c


@pytest.fixture(scope="module")
def clean_score(tmp_path_factory):
    s = score_bundle(read_bundle(make_bundle(tmp_path_factory.mktemp("clean"), "T09", BASE, sim_end_s=END_S)), TASK)
    assert s.status == "scored" and s.score == pytest.approx(1.0) and s.flags == []
    return s


@FUZZ
@given(ops=st.lists(mutation, min_size=1, max_size=3), fmt=st.sampled_from(["csv", "parquet"]))
def test_mutated_bundle_is_an_error_or_a_score_that_states_its_data(clean_score, ops, fmt):
    cols = mutate(BASE, ops)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "b"
        try:
            make_bundle(path, "T09", cols, fmt=fmt, sim_end_s=END_S)
            s = score_bundle(read_bundle(path), TASK)
        except BundleError as exc:
            msg = str(exc)
            assert "\n" not in msg and str(path) in msg, msg
            return
    if s.status == "unscored":
        assert s.score is None and len(s.reason) > 10, s
        return
    assert s.status == "scored" and 0.0 <= s.score <= 1.0
    earned = [(c.name, c.earned) for c in s.components]
    if s.score != pytest.approx(clean_score.score) or earned != [(c.name, c.earned) for c in clean_score.components]:
        stated = bool(s.flags) and s.data_quality is not None and not s.data_quality.clean
        assert stated, (ops, s.score, s.explanation)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(i=st.integers(5, N - 6), value=st.integers(-180, 180))
def test_single_bank_glitch_never_changes_the_score(tmp_path_factory, clean_score, i, value):
    cols = mutate(BASE, [("glitch", "bank_deg", i, value)])
    s = score_bundle(read_bundle(make_bundle(tmp_path_factory.mktemp("g"), "T09", cols)), TASK)
    assert s.score == pytest.approx(clean_score.score), (i, value, s.components)
