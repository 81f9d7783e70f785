"""`simbridge eval` as a single writer whose numbers come from verified bundles: a lock on the
output directory (a second eval or --resume is one line, exit 2), --resume rebuilds scores from
the bundles (an edited results.parquet changes nothing), and the eval's table is exactly
`simbridge metrics` on the same directory.

The episodes are run by a copying executor (each attempt's bundle is a sealed synthetic T09
bundle, its trial deciding pass or fail), so the driver, the lock and the scoring are real and
no simulator is needed."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from simbridge._bundle import write_manifest
from simbridge._cli import main
from simbridge._verify import verify_path
from simbridge._eval import run_eval
from simbridge._eval._driver import LOCK_FILE, lock_eval_dir
from simbridge._eval._suite import SuiteError
from synth import make_bundle, steep_turn

SUITE = """
name: lockrun
max_time_limit_s: 3
frame_hz: 0
matrix:
  - {tasks: [T09], sims: [jsbsim], agents: [noop], trials: 3}
"""


class CopyExecutor:
    """Runs an attempt by copying a sealed, scored bundle into its directory (trial 2 fails)."""

    name = "copy"

    def __init__(self, sources: dict[bool, Path]) -> None:
        self.sources = sources
        self.done: list = []
        self.started: list[str] = []

    def describe(self, specs) -> str:
        return f"copying {len(specs)} episodes"

    def can_start(self, job) -> bool:
        return True

    def start(self, job) -> None:
        job.submit_wall = time.time()
        self.started.append(job.spec.episode_id)
        shutil.copytree(self.sources[job.spec.trial != 2], job.dest)
        self.done.append((job, {"status": "completed", "detail": "", "sim_s": 1.0, "host": "here"}))

    def wait(self, timeout_s: float):
        out, self.done = self.done, []
        return out

    def running(self) -> int:
        return len(self.done)

    def stop(self) -> None:
        pass


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    root = tmp_path_factory.mktemp("sources")
    out = {}
    for ok, bank in ((True, 45), (False, 20)):
        b = make_bundle(root / str(ok), "T09", steep_turn(bank_deg=bank), fmt="parquet", agent="noop")
        (b / "score.json").write_text(verify_path(b).model_dump_json())
        write_manifest(b)
        out[ok] = b
    return out


@pytest.fixture
def suite(tmp_path) -> Path:
    p = tmp_path / "suite.yaml"
    p.write_text(SUITE)
    return p


def _metrics_cli(capsys, out: Path) -> str:
    capsys.readouterr()
    assert main(["metrics", f"lockrun={out}"]) == 0
    return capsys.readouterr().out.strip()


def test_eval_table_equals_metrics_and_resume_ignores_edited_rows(tmp_path, suite, sources, capsys):
    out = tmp_path / "out"
    ex = CopyExecutor(sources)
    res = run_eval(suite, out, executor=ex, say=lambda s: None, live=False)
    assert sorted(ex.started) == sorted(r["episode_id"] for r in res.rows) and len(res.rows) == 3
    assert res.metrics_text == _metrics_cli(capsys, out)
    truth = {r["episode_id"]: r["score"] for r in res.rows}
    assert sorted(truth.values()) == [0.0, 1.0, 1.0]

    # a forger edits results.parquet and a failed bundle's score.json
    table = pq.read_table(out / "results.parquet").to_pylist()
    for r in table:
        r.update(score=1.0, success=True, score_status="scored")
    pq.write_table(pa.Table.from_pylist(table, schema=pq.read_schema(out / "results.parquet")), out / "results.parquet")
    failed = next(r for r in res.rows if r["score"] == 0.0)
    sfile = out / failed["bundle"] / "score.json"
    sfile.write_text(json.dumps({**json.loads(sfile.read_text()), "score": 1.0, "success": True}))

    ex2 = CopyExecutor(sources)
    res2 = run_eval(suite, out, executor=ex2, resume=True, say=lambda s: None, live=False)
    assert ex2.started == []  # every episode finished earlier: none run twice
    assert {r["episode_id"]: r["score"] for r in res2.rows} == truth
    assert {r["episode_id"]: r["score"] for r in pq.read_table(out / "results.parquet").to_pylist()} == truth
    assert res2.metrics_text == _metrics_cli(capsys, out) == res.metrics_text


def test_a_second_writer_on_the_same_directory_is_refused(tmp_path, suite, sources, capsys):
    out = tmp_path / "out"
    run_eval(suite, out, executor=CopyExecutor(sources), say=lambda s: None, live=False)
    held = lock_eval_dir(out)  # another eval --resume is writing
    try:
        ex = CopyExecutor(sources)
        with pytest.raises(SuiteError, match="another simbridge eval .* is writing to this directory"):
            run_eval(suite, out, executor=ex, resume=True, say=lambda s: None, live=False)
        assert ex.started == []
        capsys.readouterr()
        assert main(["eval", str(suite), "--out", str(out), "--resume"]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "another simbridge eval" in err and "Traceback" not in err
    finally:
        held.close()
    # released: the resume goes ahead (nothing left to run)
    ex = CopyExecutor(sources)
    run_eval(suite, out, executor=ex, resume=True, say=lambda s: None, live=False)
    assert ex.started == [] and (out / LOCK_FILE).is_file()


def test_out_naming_a_file_is_one_line(tmp_path, suite, capsys):
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["eval", str(suite), "--out", str(f)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"simbridge: error: --out {f}: is a file, not a directory"
    assert f.read_text() == "x"


def test_an_unreachable_ray_address_is_refused_quickly(tmp_path, suite, capsys):
    t0 = time.monotonic()
    assert main(["eval", str(suite), "--out", str(tmp_path / "o"), "--ray", "127.0.0.1:1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--ray 127.0.0.1:1: cannot connect" in err
    assert time.monotonic() - t0 < 60  # refused by the probe, not after ray.init's long wait


def test_a_py_agent_is_not_called_while_the_suite_is_planned(tmp_path, monkeypatch):
    from simbridge._eval._plan import expand
    from simbridge._eval._suite import load_suite

    marker = tmp_path / "ran"
    (tmp_path / "probe_agent_plugin.py").write_text(
        f"def make(task_id):\n    open({str(marker)!r}, 'w').write(task_id)\n    raise SystemExit('called')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    suite = tmp_path / "s.yaml"
    suite.write_text(SUITE.replace("agents: [noop]", 'agents: ["py:probe_agent_plugin:make"]'))
    episodes, _notes = expand(load_suite(suite), suite)
    assert len(episodes) == 3 and not marker.exists()  # looked up, never called (py:os:system alike)
    suite2 = tmp_path / "s2.yaml"
    suite2.write_text(SUITE.replace("agents: [noop]", 'agents: ["py:os:no_such_factory"]'))
    with pytest.raises(SuiteError, match="has no callable 'no_such_factory'"):
        expand(load_suite(suite2), suite2)


def test_the_lock_holds_across_processes_and_names_the_holder(tmp_path, suite, sources, capsys):
    import subprocess
    import sys

    out = tmp_path / "out"
    run_eval(suite, out, executor=CopyExecutor(sources), say=lambda s: None, live=False)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from simbridge._eval._driver import lock_eval_dir;"
            f"l = lock_eval_dir(Path({str(out)!r})); print('held', flush=True); sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        capsys.readouterr()
        assert main(["eval", str(suite), "--out", str(out), "--resume"]) == 2
        err = capsys.readouterr().err.strip()
        assert f"another simbridge eval (pid {holder.pid}) is writing to this directory" in err
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    ex = CopyExecutor(sources)  # the holder ended: its lock went with it
    run_eval(suite, out, executor=ex, resume=True, say=lambda s: None, live=False)
    assert ex.started == []
