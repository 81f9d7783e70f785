"""Seeded mutation fuzz of every input a user hands the CLI: score.json files (`simbridge metrics`)
and each importer's file (CARLA recorder, OpenBVE logs.bin, NMEA capture, KSP save), then
`simbridge verify` of whatever got imported. Every variant must end in exit 0 with a result, or
exit 2 with one line `simbridge: error: ...`; never a traceback. An import that succeeds must
state what it dropped in episode.json flags, and those flags must reach the score."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simbridge import Score, read_bundle
from simbridge._cli import main
from bc_nmea import emit, track
from ksp_saves import orbit_from, save, vessel
from openbve_logs import entries_of, logs_bin, trip

sys.path.insert(0, str(Path(__file__).parent / "adapters" / "carla"))
import carla_recsynth as rs  # noqa: E402

#: FUZZ_EXAMPLES=400 for a deeper local run; CI keeps the fast deterministic default
FUZZ = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "40")),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def run_cli(*args: object) -> tuple[int, str, str]:
    """main() in-process: any exception other than a handled SimbridgeError fails the test."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def assert_clean(code: int, err: str) -> None:
    assert code in (0, 2), (code, err)
    if code == 2:
        lines = [ln for ln in err.splitlines() if not ln.startswith("simbridge: note:")]
        assert len(lines) == 1 and lines[0].startswith("simbridge: error: ") and len(lines[0]) > 20, err


# --------------------------------------------------------------------------- byte mutations

mutation = st.one_of(
    st.tuples(st.just("flip"), st.floats(0, 1), st.integers(0, 7)),
    st.tuples(st.just("set"), st.floats(0, 1), st.integers(0, 255)),
    st.tuples(st.just("cut"), st.floats(0, 1), st.just(0)),
    st.tuples(st.just("dup"), st.floats(0, 1), st.integers(1, 64)),
    st.tuples(st.just("drop"), st.floats(0, 1), st.integers(1, 64)),
)


def mutate(data: bytes, ops: list[tuple[str, float, int]]) -> bytes:
    b = bytearray(data)
    for op, where, arg in ops:
        if not b:
            break
        i = min(int(where * len(b)), len(b) - 1)
        if op == "flip":
            b[i] ^= 1 << arg
        elif op == "set":
            b[i] = arg
        elif op == "cut":
            del b[i:]
        elif op == "dup":
            b[i:i] = b[i : i + arg]
        else:
            del b[i : i + arg]
    return bytes(b)


def import_then_verify(args: list[object], out: Path) -> None:
    code, _, err = run_cli(*args, "--out", out)
    assert_clean(code, err)
    if code != 0:
        return
    flags = read_bundle(out).episode.flags
    assert all(isinstance(f, str) and f for f in flags)
    code, stdout, err = run_cli("verify", out, "--json")
    assert_clean(code, err)
    if code == 0:
        score = json.loads(stdout)
        assert set(flags) <= set(score["flags"]), (flags, score["flags"])
        assert score["status"] == "unscored" or 0.0 <= score["score"] <= 1.0


# --------------------------------------------------------------------------- seeds


def _seed_openbve() -> bytes:
    return logs_bin(entries_of(trip(28740.0, 123.0, [(28800, 1725.0, 150), (28980, 1870.0, 165)])))


def _seed_nmea() -> bytes:
    frames = [(0, -300, -30, 90), (200, 40, -30, 90), (400, 50, -7.0, 90), (460, 50, -6.4, 90), (500, 50, -6.4, 90)]
    return emit(track(frames, 50.36, -4.15, hz=2.0)).encode()


def _seed_ksp() -> bytes:
    sma, ecc = orbit_from(78, 82)
    return save(vessel(name="Other", sma=900e3), vessel(sma=sma, ecc=ecc), active=0).encode()


def _seed_carla() -> bytes:
    add = rs.event_add(
        [
            (10, 1, (0.0, 0.0, 0.0), 0.0, "vehicle.tesla.model3", {"role_name": "hero"}),
            (11, 2, (5.0, 0.0, 0.0), 0.0, "walker.pedestrian.0001", {}),
        ]
    )
    frames = []
    for i in range(10):
        pk = ([add] if i == 0 else []) + [
            rs.positions([(10, 100.0 * i, 50.0, 0.0, 0.0)]),
            rs.kinematics([(10, 1.0, 0.0, 0.0)]),
        ]
        if i == 4:
            pk.append(rs.collision([(0, 10, 11)]))
        frames.append(pk)
    return rs.recording(frames)


SEEDS = {"openbve": _seed_openbve(), "nmea": _seed_nmea(), "ksp": _seed_ksp(), "carla": _seed_carla()}
ARGS = {
    "openbve": lambda p: ["import", "openbve", p],
    "nmea": lambda p: ["import", "nmea", p, "--lenient"],
    "ksp": lambda p: ["import", "ksp", p],
    "carla": lambda p: ["import", "carla", p, "--allow-truncated", "--task", "T06"],
}


def _fuzz_importer(which: str, ops: list[tuple[str, float, int]]) -> None:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / f"input.{which}"
        p.write_bytes(mutate(SEEDS[which], ops))
        import_then_verify(ARGS[which](p), Path(d) / "bundle")


@FUZZ
@given(st.lists(mutation, min_size=1, max_size=4))
def test_fuzz_openbve(ops):
    _fuzz_importer("openbve", ops)


@FUZZ
@given(st.lists(mutation, min_size=1, max_size=4))
def test_fuzz_nmea(ops):
    _fuzz_importer("nmea", ops)


@FUZZ
@given(st.lists(mutation, min_size=1, max_size=4))
def test_fuzz_ksp(ops):
    _fuzz_importer("ksp", ops)


@FUZZ
@given(st.lists(mutation, min_size=1, max_size=4))
def test_fuzz_carla(ops):
    _fuzz_importer("carla", ops)


def test_unmutated_seeds_import_cleanly():
    """The fuzz starts from inputs that import (so mutations probe the parsers, not a dead end)."""
    for which in SEEDS:
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / f"input.{which}"
            p.write_bytes(SEEDS[which])
            code, _, err = run_cli(*ARGS[which](p), "--out", Path(d) / "bundle")
            assert code == 0, (which, err)


# --------------------------------------------------------------------------- score files

_GOOD_SCORE = Score(
    task_id="T09", verifier="steep_turn", status="scored", score=0.8, raw_score=0.8, success=False
).model_dump(mode="json")
json_value = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-10, 10)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


def _metrics_on(text: bytes) -> None:
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "run" / "trial-1" / "score.json"
        f.parent.mkdir(parents=True)
        f.write_bytes(text)
        code, stdout, err = run_cli("metrics", Path(d) / "run", "--json", "--trust-scores")
        assert_clean(code, err)
        if code == 2:
            assert str(f) in err  # the error names the file
        else:
            json.loads(stdout)  # and a result is valid JSON (no NaN leaks)
            assert "NaN" not in stdout


@FUZZ
@given(st.dictionaries(st.sampled_from(sorted(_GOOD_SCORE)), json_value, min_size=1, max_size=3))
def test_fuzz_score_fields(changes):
    _metrics_on(json.dumps({**_GOOD_SCORE, **changes}).encode())


@FUZZ
@given(st.lists(mutation, min_size=1, max_size=3))
def test_fuzz_score_bytes(ops):
    _metrics_on(mutate(json.dumps(_GOOD_SCORE).encode(), ops))
