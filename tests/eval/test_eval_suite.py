"""Suite files and plans, without running a simulator: every bad suite is one line naming the
file and the field (exit code 2 from the CLI), ids are stable, limits and resources follow the
suite, and results.parquet keeps its column types with nothing finished yet."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from simbridge._eval import COLUMNS, SuiteError, expand, load_suite
from simbridge._eval._driver import write_results

REPO = Path(__file__).resolve().parents[2]


def _suite(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


GOOD = """
name: t
trials: 2
time_limit_scale: 0.1
matrix:
  - tasks: [T09]
    sims: [jsbsim]
    agents: [noop, scripted:turn.yaml]
"""


@pytest.mark.parametrize(
    "text, expect",
    [
        ("name: t\nmatrix: [{tasks: [T09], sims: [jsbsim], agents: [noop]}]\nretries: -1\n", "field 'retries'"),
        ("name: t\nmatrix: [{tasks: [T-9], sims: [jsbsim], agents: [noop]}]\n", "field 'matrix[0].tasks'"),
        (
            "name: t\nmatrix: [{tasks: [T09], sims: [jsbsim], agents: [noop], colour: red}]\n",
            "field 'matrix[0].colour'",
        ),
        ("name: t\ntasks: [T09]\nagents: [noop]\n", "field 'sims' is missing"),
        ("name: t\n", "field 'matrix' is missing"),
        ("name: t\nmatrix: [{tasks: [T09], sims: [jsbsim], agents: [mcp]}]\n", "field 'matrix[0].agents'"),
        ("name: t\nmatrix: [{tasks: [T09], sims: [jsbsim], agents: [noop]}\n", "not valid YAML"),
        (
            "name: t\ntime_limit_scale: .nan\nmatrix: [{tasks: [T09], sims: [jsbsim], agents: [noop]}]\n",
            "field 'time_limit_scale'",
        ),
        ("- just\n- a list\n", "expected a mapping"),
        (
            "name: t\nprovider: vmm\nmatrix: [{tasks: [T09], sims: [jsbsim], agents: [noop]}]\n",
            "field 'provider': unknown provider 'vmm' (registered: local, netns, vm); did you mean 'vm'?",
        ),
    ],
)
def test_bad_suite_is_one_line_naming_the_field(tmp_path, text, expect):
    p = _suite(tmp_path, text)
    with pytest.raises(SuiteError) as exc:
        load_suite(p)
    msg = str(exc.value)
    assert "\n" not in msg and str(p) in msg and expect in msg, msg


@pytest.mark.parametrize(
    "entry, expect",
    [
        ("{tasks: [T09], sims: [carla], agents: [noop]}", "task T09 runs on msfs, jsbsim"),
        ("{tasks: [T99], sims: [jsbsim], agents: [noop]}", "unknown task id 'T99'"),
        ("{tasks: [T04], sims: [xplane], agents: [reference]}", "no reference pilot for task T04"),
        ("{tasks: [T09], sims: [jsbsim], agents: [scripted:missing.yaml]}", "cannot read"),
        ("{tasks: ['tag:no-such-tag'], sims: [jsbsim], agents: [noop]}", "no task with tag 'no-such-tag'"),
    ],
)
def test_suite_that_cannot_run_is_one_line(tmp_path, entry, expect):
    p = _suite(tmp_path, f"name: t\nmatrix:\n  - {entry}\n")
    with pytest.raises(SuiteError) as exc:
        expand(load_suite(p), p)
    msg = str(exc.value)
    assert "\n" not in msg and "field 'matrix[0]" in msg and expect in msg, msg


def test_cli_bad_suite_exits_2_with_one_line(tmp_path):
    p = _suite(tmp_path, "name: t\nmatrix: [{tasks: [T09], sims: [jsbsim], agents: [noop]}]\ntrials: zero\n")
    r = subprocess.run(
        [sys.executable, "-m", "simbridge._cli", "eval", str(p), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "field 'trials'" in lines[0] and str(p) in lines[0], r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "o" / "plan.json").exists()


def test_plan_ids_are_stable_and_carry_limits_resources_and_scripts(tmp_path):
    (tmp_path / "turn.yaml").write_text("actions:\n  - {at: 1.0, done: ok}\n")
    p = _suite(tmp_path, GOOD)
    a, notes = expand(load_suite(p), p)
    b, _ = expand(load_suite(p), p)
    assert (
        [e.episode_id for e in a]
        == [e.episode_id for e in b]
        == [
            "T09/jsbsim/noop/trial-1",
            "T09/jsbsim/noop/trial-2",
            "T09/jsbsim/scripted-turn/trial-1",
            "T09/jsbsim/scripted-turn/trial-2",
        ]
    )
    assert notes == []
    assert {e.time_limit_s for e in a} == {30.0}  # T09's 300 s × 0.1
    assert all(e.resources == {"sim:jsbsim": 1.0} for e in a)
    scripted = a[2]
    assert scripted.script_text.startswith("actions:") and scripted.script_name == "turn.yaml"


def test_vm_provider_asks_for_its_resource_and_tags_leave_out_agents_without_a_pilot(tmp_path):
    p = _suite(
        tmp_path, "name: t\nprovider: vm\nmatrix:\n  - {tasks: ['tag:acs'], sims: [jsbsim], agents: [reference]}\n"
    )
    eps, notes = expand(load_suite(p), p)
    assert eps and all(e.resources == {"sim:jsbsim": 1.0, "provider:vm": 1.0} for e in eps)
    assert all("acs" in __import__("simbridge._task", fromlist=["load_task"]).load_task(e.task_id).tags for e in eps)
    assert all("no reference pilot" in n for n in notes)


def test_shipped_suites_expand():
    smoke, _ = expand(load_suite(REPO / "suites/smoke.yaml"), REPO / "suites/smoke.yaml")
    assert len(smoke) >= 4 and {e.sim for e in smoke} == {"jsbsim"}
    catalog, notes = expand(load_suite(REPO / "suites/catalog.yaml"), REPO / "suites/catalog.yaml")
    agents = {e.agent for e in catalog}
    assert agents == {"reference", "noop"} and {"T09", "T16", "T15"} <= {e.task_id for e in catalog}


def test_results_parquet_keeps_its_types_before_any_result(tmp_path):
    write_results(
        tmp_path,
        [{"episode_id": "T09/jsbsim/noop/trial-1", "task_id": "T09", "trial": 1, "state": "pending", "attempts": 0}],
    )
    t = pq.read_table(tmp_path / "results.parquet")
    assert t.column_names == [n for n, _ in COLUMNS]
    assert str(t.schema.field("score").type) == "double" and str(t.schema.field("success").type) == "bool"
    assert t.to_pylist()[0]["state"] == "pending"


def test_existing_eval_needs_resume(tmp_path):
    p = _suite(tmp_path, "name: t\nmatrix: [{tasks: [T09], sims: [jsbsim], agents: [noop]}]\n")
    out = tmp_path / "o"
    out.mkdir()
    (out / "plan.json").write_text("{}")
    from simbridge._eval import run_eval

    with pytest.raises(SuiteError, match="--resume"):
        run_eval(p, out)


def _progress_run(live: bool):
    import io

    from simbridge._eval._plan import EpisodeSpec
    from simbridge._eval._progress import Progress

    eps = [
        EpisodeSpec(
            episode_id=f"T09/jsbsim/noop/trial-{k}",
            task_id="T09",
            sim="jsbsim",
            agent="noop",
            agent_slug="noop",
            trial=k,
        )
        for k in (1, 2)
    ]
    buf = io.StringIO()
    p = Progress(eps, stream=buf, live=live)
    p.started(eps[0], 1)
    p.retrying(eps[0], 1, "NodeDiedError: node gone")
    p.started(eps[0], 2)
    p.finished(
        eps[0],
        {
            "attempt": 2,
            "status": "timeout",
            "score": 0.25,
            "score_status": "scored",
            "success": False,
            "wall_s": 3.0,
            "host": "h1",
        },
    )
    text = p._render() if live else None
    p.close()
    return buf.getvalue(), text


def test_progress_plain_lines_when_not_a_terminal():
    out, _ = _progress_run(live=False)
    lines = out.strip().splitlines()
    assert "harness fault in T09/jsbsim/noop/trial-1 attempt 1: NodeDiedError" in lines[1]
    assert lines[-1].startswith("[1/2] T09/jsbsim/noop/trial-1 attempt 2: timeout, score 0.250")
    assert "wall time 3.0 s, host h1" in lines[-1]  # the host labelled as one, not "… wall on h1"


def test_progress_live_table_has_counts_and_cell_scores():
    from rich.console import Console

    _, renderable = _progress_run(live=True)
    con = Console(width=120, record=True, file=__import__("io").StringIO())
    con.print(renderable)
    text = con.export_text()
    assert "done 1/2" in text and "retried 1" in text
    assert "T09" in text and "1/2" in text and "0.250" in text


def test_a_suites_lockstep_slice_reaches_each_episodes_run_settings(tmp_path):
    from simbridge._run_config import DEFAULT_LOCKSTEP_SLICE_S, RunConfig

    p = _suite(
        tmp_path,
        "name: s\nlockstep: true\nlockstep_slice_s: 0.25\nmatrix:\n  - {tasks: [T09], sims: [jsbsim], agents: [noop]}\n",
    )
    [spec], _ = expand(load_suite(p), p)
    cfg = RunConfig.of(spec, task=spec.task_id, agent="noop")
    assert (cfg.lockstep, cfg.lockstep_slice_s) == (True, 0.25)
    p = _suite(tmp_path, "name: s\nmatrix:\n  - {tasks: [T09], sims: [jsbsim], agents: [noop]}\n")
    [spec], _ = expand(load_suite(p), p)
    assert spec.lockstep_slice_s == DEFAULT_LOCKSTEP_SLICE_S
    p = _suite(tmp_path, "name: s\nlockstep_slice_s: 0\nmatrix:\n  - {tasks: [T09], sims: [jsbsim], agents: [noop]}\n")
    with pytest.raises(SuiteError, match="lockstep_slice_s"):
        load_suite(p)


def test_a_matrix_entry_may_run_in_real_time_in_a_lockstep_suite(tmp_path):
    p = _suite(
        tmp_path,
        "name: s\nlockstep: true\nmatrix:\n  - {tasks: [T09], sims: [jsbsim], agents: [noop]}\n"
        "  - {tasks: [T16], sims: [jsbsim], agents: [noop], lockstep: false}\n",
    )
    specs, _ = expand(load_suite(p), p)
    assert {(e.task_id, e.lockstep) for e in specs} == {("T09", True), ("T16", False)}
