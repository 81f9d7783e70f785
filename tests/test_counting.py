"""What counts as a trial (`simbridge._counting`), through `metrics`, `compare`, `report` and
`eval`'s closing table: a bundle that cannot be verified is never counted "as stored", a
superseded eval attempt or a bundle outside plan.json never counts, copies of one bundle count
once, a relabelled and resealed bundle is not kept by --resume, and compare never pairs one
reference trial with two arm trials.

The last test is the campaign's generator for this surface: seeded random eval directories
(retries, strays, copies, relabelled bundles, missing episode.json) whose true count and mean
score the generator knows, read by `metrics` and `eval`'s table."""

from __future__ import annotations

import json
import os
import random
import shutil
import threading
import time
from pathlib import Path

import pytest

from simbridge._bundle import write_manifest
from simbridge._cli import main
from simbridge._verify import verify_path
from simbridge._eval import run_eval
from simbridge._eval._driver import metrics_table
from simbridge._metrics import load_trials
from synth import make_bundle, steep_turn


@pytest.fixture(scope="module")
def cols():
    return {True: steep_turn(), False: steep_turn(bank_deg=20)}


def sealed(path: Path, cols, ok: bool, **episode) -> Path:
    """A finished, verified and sealed T09 bundle (1.0 when ok, 0.0 otherwise)."""
    b = make_bundle(path, "T09", cols[ok], fmt="parquet", **episode)
    (b / "score.json").write_text(verify_path(b).model_dump_json())
    write_manifest(b)
    return b


def forge(b: Path) -> None:
    s = json.loads((b / "score.json").read_text())
    s.update(score=1.0, raw_score=1.0, success=True)
    (b / "score.json").write_text(json.dumps(s))


def sr(capsys, *args) -> tuple[int, dict, str]:
    capsys.readouterr()
    code = main(["metrics", *map(str, args), "--json"])
    out, err = capsys.readouterr()
    recs = {(r["metric"], r["k"]): r for r in json.loads(out) if r["task_id"] is None} if code == 0 else {}
    return code, recs, err


@pytest.mark.parametrize("damage", ["missing", "directory"])
@pytest.mark.parametrize("trust", [False, True])
def test_a_bundle_without_a_regular_episode_json_is_never_counted_as_stored(tmp_path, cols, capsys, damage, trust):
    run = tmp_path / "run"
    sealed(run / "t1", cols, False, agent="a", trial=1, wall_start=1.0)
    b = sealed(run / "t2", cols, False, agent="a", trial=2, wall_start=2.0)
    forge(b)
    (b / "episode.json").unlink()
    if damage == "directory":
        (b / "episode.json").mkdir()
    code, recs, err = sr(capsys, run, *(["--trust-scores"] if trust else []))
    assert code == 0, err
    assert recs[("sr", None)]["n_trials"] == 1 and recs[("sgo", None)]["value"] == 0.0
    assert f"not counted: {b}" in err and "score.json is not used" in err
    # compare and the report read the same trials
    sealed(tmp_path / "other" / "t1", cols, True, agent="b", trial=1, wall_start=5.0)
    data = _compare_json(capsys, f"x={run}", f"y={tmp_path / 'other'}")
    assert data["per_arm"]["x"]["tasks"]["T09"]["n_trials"] == 1
    assert data["per_arm"]["x"]["tasks"]["T09"]["mean_score"] == 0.0


def _compare_json(capsys, *args) -> dict:
    capsys.readouterr()
    assert main(["compare", *args, "--json", "--n-boot", "100"]) == 0
    return json.loads(capsys.readouterr().out)


def test_copies_of_a_bundle_without_an_id_count_once(tmp_path, cols, capsys):
    # an imported or library-written bundle: no episode_id, no wall_start
    b = sealed(tmp_path / "imp" / "one", cols, True)
    for i in range(3):
        shutil.copytree(b, tmp_path / "imp" / f"copy-{i}")
    other = sealed(tmp_path / "imp" / "two", cols, False)
    code, recs, err = sr(capsys, tmp_path / "imp")
    assert code == 0, err
    assert recs[("sr", None)]["n_trials"] == 2 and recs[("sgo", None)]["value"] == pytest.approx(0.5)
    assert err.count("the same episode as") == 3 and str(other) not in err


def test_copies_of_an_unsealed_bundle_count_once_when_trusted(tmp_path, cols, capsys):
    b = make_bundle(tmp_path / "imp" / "one", "T09", cols[True])
    (b / "score.json").write_text(verify_path(b).model_dump_json())
    (b / "manifest.json").unlink()  # an importer or library that never sealed it
    shutil.copytree(b, tmp_path / "imp" / "copy")
    other = make_bundle(tmp_path / "imp" / "two", "T09", cols[False])
    (other / "score.json").write_text(verify_path(other).model_dump_json())
    (other / "manifest.json").unlink()
    code, recs, err = sr(capsys, tmp_path / "imp", "--trust-scores")
    assert code == 0, err
    assert recs[("sr", None)]["n_trials"] == 2 and err.count("the same episode as") == 1


def _eval_dir(root: Path, ids: list[str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    episodes = [
        {"episode_id": e, "task_id": e.split("/")[0], "trial": int(e.rsplit("-", 1)[1]), "agent": "noop"} for e in ids
    ]
    (root / "plan.json").write_text(json.dumps({"version": 1, "episodes": episodes}))
    return root


def test_superseded_attempts_and_bundles_outside_the_plan_are_not_counted(tmp_path, cols, capsys):
    out = _eval_dir(tmp_path / "out", ["T09/jsbsim/noop/trial-1", "T09/jsbsim/noop/trial-2"])
    t1 = out / "T09/jsbsim/noop/trial-1"
    sealed(t1 / "attempt-1", cols, True, agent="noop", trial=1, wall_start=1.0)
    (t1 / "attempt-2").mkdir()  # a retry exists (its process died before it wrote a bundle)
    sealed(out / "T09/jsbsim/noop/trial-2/attempt-1", cols, False, agent="noop", trial=2, wall_start=2.0)
    stray = sealed(out / "T09/jsbsim/noop/trial-7/attempt-1", cols, True, agent="noop", trial=7, wall_start=7.0)
    extra = sealed(out / "elsewhere", cols, True, agent="noop", trial=1, wall_start=8.0)
    code, recs, err = sr(capsys, out)
    assert code == 0, err
    assert recs[("sr", None)]["n_trials"] == 1 and recs[("sgo", None)]["value"] == 0.0
    assert f"{t1 / 'attempt-1'}: superseded by attempt-2" in err
    assert f"not counted: {stray}: not an episode of" in err and f"not counted: {extra}: not an episode" in err
    # the same rule for a subfolder of the eval given alone, and for eval's own table
    code, recs, _ = sr(capsys, out / "T09")
    assert recs[("sr", None)]["n_trials"] == 1
    assert "scored episodes 1" in metrics_table(out, "x")


def test_a_relabelled_resealed_bundle_is_not_counted_nor_kept_by_resume(tmp_path, cols, capsys):
    out = _eval_dir(tmp_path / "out", ["T09/jsbsim/noop/trial-1"])
    b = sealed(out / "T09/jsbsim/noop/trial-1/attempt-1", cols, True, agent="noop", trial=1, wall_start=1.0)
    ep = json.loads((b / "episode.json").read_text())
    (b / "episode.json").write_text(json.dumps({**ep, "task_id": "T10"}))
    (b / "score.json").unlink()
    write_manifest(b)  # resealed: the manifest matches again
    loaded = load_trials([("x", out)])
    assert loaded.trials == [] and any("names task 'T10', plan.json plans 'T09'" in n for n in loaded.notes)

    from simbridge._eval._driver import _finished_attempt
    from simbridge._eval._plan import EpisodeSpec

    spec = EpisodeSpec(episode_id="T09/jsbsim/noop/trial-1", task_id="T09", sim="jsbsim", agent="noop",
                       agent_slug="noop", trial=1)  # fmt: skip
    assert _finished_attempt(out, spec) == (0, 1)  # --resume runs it again (attempt 2)


@pytest.mark.parametrize("field, value, says", [("trial", 2, "names trial 2"), ("sim", "drive", "simulator 'drive'")])
def test_a_bundle_relabelled_to_another_trial_or_simulator_is_not_counted(tmp_path, cols, field, value, says):
    out = _eval_dir(tmp_path / "out", ["T09/jsbsim/noop/trial-1", "T09/jsbsim/noop/trial-2"])
    plan = json.loads((out / "plan.json").read_text())
    for e in plan["episodes"]:
        e["sim"] = "jsbsim"
    (out / "plan.json").write_text(json.dumps(plan))
    b = sealed(out / "T09/jsbsim/noop/trial-1/attempt-1", cols, True, agent="noop", trial=1, sim="jsbsim")
    ep = json.loads((b / "episode.json").read_text())
    (b / "episode.json").write_text(json.dumps({**ep, field: value}))
    write_manifest(b)
    loaded = load_trials([("x", out)])
    assert loaded.trials == [] and any(says in n for n in loaded.notes), loaded.notes


class CopyExecutor:
    """Runs an attempt by copying a sealed bundle of the planned task and trial (no simulator)."""

    name = "copy"

    def __init__(self, cols) -> None:
        self.cols = cols
        self.done: list = []
        self.started: list[str] = []

    def describe(self, specs) -> str:
        return ""

    def can_start(self, job) -> bool:
        return True

    def start(self, job) -> None:
        job.submit_wall = time.time()
        self.started.append(job.spec.episode_id)
        sealed(job.dest, self.cols, True, agent="noop", trial=job.spec.trial, wall_start=time.time())
        self.done.append((job, {"status": "completed", "detail": "", "sim_s": 1.0}))

    def wait(self, timeout_s: float):
        out, self.done = self.done, []
        return out

    def running(self) -> int:
        return len(self.done)

    def stop(self) -> None:
        pass


def test_resume_reruns_a_relabelled_bundle_and_the_table_counts_the_rerun(tmp_path, cols):
    suite = tmp_path / "s.yaml"
    suite.write_text(
        "name: relabel\nmax_time_limit_s: 3\nframe_hz: 0\n"
        "matrix:\n  - {tasks: [T09], sims: [jsbsim], agents: [noop], trials: 2}\n"
    )
    out = tmp_path / "out"
    run_eval(suite, out, executor=CopyExecutor(cols), say=lambda s: None, live=False)
    b = out / "T09/jsbsim/noop/trial-1/attempt-1"
    ep = json.loads((b / "episode.json").read_text())
    (b / "episode.json").write_text(json.dumps({**ep, "task_id": "T10"}))
    write_manifest(b)
    ex = CopyExecutor(cols)
    res = run_eval(suite, out, executor=ex, resume=True, say=lambda s: None, live=False)
    assert ex.started == ["T09/jsbsim/noop/trial-1"]
    assert (out / "T09/jsbsim/noop/trial-1/attempt-2/episode.json").is_file()
    assert "scored episodes 2" in res.metrics_text


def test_compare_never_pairs_one_reference_trial_with_two_arm_trials(tmp_path, cols, capsys):
    for i in (1, 2):
        sealed(tmp_path / "a" / f"t{i}", cols, False, agent="a", trial=i, wall_start=float(i))
    sealed(tmp_path / "b" / "t1", cols, True, agent="b", trial=1, wall_start=11.0)
    sealed(tmp_path / "b" / "t1-again", cols, True, agent="b", trial=1, wall_start=12.0)  # same trial index
    sealed(tmp_path / "b" / "t2", cols, True, agent="b", trial=2, wall_start=13.0)
    capsys.readouterr()
    assert main(["compare", f"a={tmp_path / 'a'}", f"b={tmp_path / 'b'}", "--json", "--n-boot", "100"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    t = data["paired"][0]["tasks"]["T09"]
    assert t["score"]["n_pairs"] == 1 and t["unpaired"] == 2
    assert "not paired: T09 trial 1: 1 trial(s) of a and 2 of b share it" in err
    assert any("not paired: T09 trial 1" in n for n in data["notes"])


@pytest.mark.parametrize("seed", range(6))
def test_seeded_eval_layouts_count_each_planned_episode_once(tmp_path, cols, capsys, seed):
    """A random eval directory: every planned trial's final attempt is its result (scored 0 or
    1); around them the generator adds superseded attempts (forged to 1.0), strays outside the
    plan, copies and bundles without episode.json. metrics and eval's table count the truth."""
    rng = random.Random(seed)
    n = rng.randint(2, 5)
    ids = [f"T09/jsbsim/noop/trial-{k}" for k in range(1, n + 1)]
    out = _eval_dir(tmp_path / "out", ids)
    truth: list[float] = []
    for k, eid in enumerate(ids, 1):
        tdir = out / eid
        last = rng.randint(1, 3)
        for j in range(1, last):  # superseded attempts: some forged to 1.0, some broken
            b = sealed(tdir / f"attempt-{j}", cols, False, agent="noop", trial=k, wall_start=100.0 * k + j)
            forge(b)
            if rng.random() < 0.3:
                (b / "episode.json").unlink()
        ok = rng.random() < 0.5
        final = sealed(tdir / f"attempt-{last}", cols, ok, agent="noop", trial=k, wall_start=100.0 * k + last)
        truth.append(1.0 if ok else 0.0)
        if rng.random() < 0.4:
            shutil.copytree(final, out / f"copy-{k}")  # a copy outside the plan
    for s in range(rng.randint(0, 2)):  # strays: not planned, forged to 1.0
        b = sealed(out / f"T09/jsbsim/noop/trial-{n + 1 + s}/attempt-1", cols, False, agent="noop",
                   trial=n + 1 + s, wall_start=9000.0 + s)  # fmt: skip
        forge(b)
    if rng.random() < 0.5:  # a forged bundle with its episode.json gone, inside a planned trial's folder
        b = sealed(out / ids[0] / "attempt-9", cols, False, agent="noop", trial=1, wall_start=9999.0)
        forge(b)
        (b / "episode.json").unlink()
        truth[0] = None  # its final attempt is now attempt-9, which cannot be verified: not counted
    expected = [t for t in truth if t is not None]
    code, recs, err = sr(capsys, out)
    assert code == 0, err
    assert recs[("sr", None)]["n_trials"] == len(expected), err
    assert recs[("sgo", None)]["value"] == pytest.approx(sum(expected) / len(expected))
    assert f"scored episodes {len(expected)} " in metrics_table(out, "x")


def test_resume_never_blocks_on_a_fifo_and_keeps_only_a_last_finished_attempt(tmp_path, cols):
    suite = tmp_path / "s.yaml"
    suite.write_text(
        "name: fifo\nmax_time_limit_s: 3\nframe_hz: 0\n"
        "matrix:\n  - {tasks: [T09], sims: [jsbsim], agents: [noop], trials: 2}\n"
    )
    out = tmp_path / "out"
    run_eval(suite, out, executor=CopyExecutor(cols), say=lambda s: None, live=False)
    (out / "results.parquet").unlink()
    os.mkfifo(out / "results.parquet")  # a planted FIFO where a reader would block forever
    a2 = out / "T09/jsbsim/noop/trial-2/attempt-2"
    a2.mkdir()
    os.mkfifo(a2 / "episode.json")
    os.mkfifo(a2 / "actions.jsonl")
    (a2 / "manifest.json").write_text("{}")
    ex = CopyExecutor(cols)
    done: list = []

    t = threading.Thread(target=lambda: done.append(
        run_eval(suite, out, executor=ex, resume=True, say=lambda s: None, live=False)), daemon=True)  # fmt: skip
    t.start()
    t.join(60)
    assert not t.is_alive(), "eval --resume blocked on a FIFO"
    assert ex.started == ["T09/jsbsim/noop/trial-2"]  # attempt-2 superseded attempt-1 and did not finish
    assert (out / "T09/jsbsim/noop/trial-2/attempt-3/episode.json").is_file()
    assert "scored episodes 2" in done[0].metrics_text
