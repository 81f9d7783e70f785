"""simbridge tasks in Inspect AI, run by Inspect itself (`inspect_ai.eval`) with its `mockllm`
model scripted through `ModelOutput.for_tool_call`, on the real embedded JSBSim cockpit (T16,
radios, in lockstep): partial credit lands in the log, a model that only talks scores 0, and a
simulator killed mid-sample is a sample error, never a 0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import inspect_ai  # noqa: F401
import jsbsim  # noqa: F401

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.log import read_eval_log  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

from simbridge import read_bundle  # noqa: E402
from simbridge.adapters.jsbsim._layout import centre  # noqa: E402
from simbridge.integrations.inspect_ai import gui_task, parse_tasks  # noqa: E402
from simbridge._errors import SimbridgeError  # noqa: E402

from integrations.helpers import cockpits, needs_xvfb  # noqa: E402

MODEL = "mockllm/model"


def _out(tool: str | None, args: dict | None = None, text: str = "") -> ModelOutput:
    out = ModelOutput.for_tool_call(MODEL, tool, args or {}) if tool else ModelOutput.from_content(MODEL, text)
    # usage given: mockllm then need not count tokens with tiktoken (whose data it would download)
    out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
    return out


def _click(name: str) -> ModelOutput:
    x, y = centre(name)
    return _out("computer", {"action": "left_click", "coordinate": [x, y]})


def _eval(tmp_path: Path, outputs, epochs: int = 1) -> tuple:
    task = gui_task(
        task="T16", sim="jsbsim", lockstep=True, time_limit_s=60, frame_hz=0, out=str(tmp_path / "runs"), epochs=epochs
    )
    [log] = inspect_eval(
        task,
        model=get_model(MODEL, custom_outputs=outputs),
        log_dir=str(tmp_path / "logs"),
        display="none",
        log_format="eval",
    )
    log = read_eval_log(log.location)
    assert len(log.samples) == epochs
    return (log, log.samples[0]) if epochs == 1 else (log, log.samples)


@needs_xvfb
@pytest.mark.display
@pytest.mark.slow
def test_nav1_tuned_by_scripted_tool_calls_scores_its_partial_credit(tmp_path, no_leftovers):
    # NAV1 standby 108.00 -> 114.10 (6 MHz + 2 × 50 kHz), swap: the 0.20 component; the rest untouched
    script = [
        _out("computer", {"action": "screenshot"}),
        *[_click("nav1:mhz+") for _ in range(6)],
        *[_click("nav1:khz+") for _ in range(2)],
        _click("nav1:swap"),
        _out("computer", {"action": "wait", "duration": 1}),
        _out("done", {"reason": "NAV1 set"}),
    ]
    log, sample = _eval(tmp_path, script)
    assert log.status == "success", log.error
    assert sample.error is None
    score = sample.scores["simbridge_verifier"]
    assert score.value == pytest.approx(0.2)
    assert score.answer == "completed"
    md = score.metadata
    earned = {c["name"]: c["earned"] for c in md["components"]}
    assert earned == {"com1_active_standby": 0.0, "nav1": 1.0, "transponder": 0.0, "altimeter": 0.0}
    assert md["success"] is False and "nav1" in score.explanation
    bundle = Path(md["bundle"])
    assert json.loads((bundle / "score.json").read_text())["score"] == pytest.approx(0.2)
    kinds = [a["kind"] for a in read_bundle(bundle).actions]
    assert kinds.count("click") == 9 and kinds[-1] == "done"
    # the tool is served as Inspect's computer tool: screenshots come back as images
    tool_msgs = [m for m in sample.messages if m.role == "tool"]
    assert any(getattr(c, "type", "") == "image" for c in tool_msgs[0].content)
    assert {r.name for r in log.results.scores[0].metrics.values()} >= {"mean"}
    assert log.results.scores[0].metrics["mean"].value == pytest.approx(0.2)


@needs_xvfb
@pytest.mark.display
@pytest.mark.slow
def test_a_model_that_answers_without_acting_scores_zero_in_every_epoch(tmp_path, no_leftovers):
    talk = [_out(None, text="I would set the radios, but I will not.") for _ in range(2)]
    log, samples = _eval(tmp_path, talk, epochs=2)
    bundles = set()
    for sample in samples:
        assert sample.error is None
        score = sample.scores["simbridge_verifier"]
        assert score.value == 0.0 and score.answer == "agent_quit"
        assert Path(score.metadata["bundle"], "score.json").is_file()
        bundles.add(score.metadata["bundle"])
    assert len(bundles) == 2  # one episode per epoch
    # pass@2 and pass^2 from Inspect's own reducers, next to the mean
    reducers = {s.reducer: s.metrics["mean"].value for s in log.results.scores}
    assert reducers == {"mean": 0.0, "pass_at_2": 0.0, "pass_k_2": 0.0}


@needs_xvfb
@pytest.mark.display
@pytest.mark.slow
def test_a_model_that_only_calls_done_scores_zero_not_a_sample_error(tmp_path, no_leftovers):
    """A screenshot then `done` at t = 0 in lockstep: the agent's own ending, scored 0 and counted
    by Inspect's mean, never a sample error (which would drop it from the success rate)."""
    log, sample = _eval(tmp_path, [_out("computer", {"action": "screenshot"}), _out("done", {"reason": "done"})])
    assert log.status == "success", log.error
    assert sample.error is None
    score = sample.scores["simbridge_verifier"]
    assert score.value == 0.0 and score.answer == "completed"
    assert score.metadata["success"] is False
    assert json.loads((Path(score.metadata["bundle"]) / "score.json").read_text())["status"] == "scored"
    assert log.results.scores[0].metrics["mean"].value == 0.0


@needs_xvfb
@pytest.mark.display
@pytest.mark.slow
def test_a_model_error_mid_sample_still_tears_the_episode_down(tmp_path, no_leftovers):
    def script():
        yield _out("computer", {"action": "screenshot"})
        raise RuntimeError("provider went away")

    log, sample = _eval(tmp_path, script())
    assert sample.error is not None and "provider went away" in sample.error.message
    assert not sample.scores  # no 0 for the agent
    bundle = Path(sample.store["simbridge_bundle"])
    ep = json.loads((bundle / "episode.json").read_text())
    # closed by the runner, not abandoned; the model's failure is not the agent giving up
    assert ep["status"] == "harness_error", ep["status"]
    assert "outside the agent: RuntimeError: provider went away" in ep["status_detail"]
    score = json.loads((bundle / "score.json").read_text())
    assert score["status"] == "unscored"


@needs_xvfb
@pytest.mark.display
@pytest.mark.slow
@pytest.mark.parametrize("action", ["error", "cancel"])
def test_an_interrupted_sample_is_unscored_not_the_agents_zero(tmp_path, no_leftovers, action):
    # the operator interrupts the sample mid-episode (what `inspect ctl` and the sample's cancel
    # button do): the agent did not stop, so nothing is scored for it
    from inspect_ai.log._samples import sample_active

    def script():
        yield _out("computer", {"action": "screenshot"})
        sample_active().interrupt(action)
        yield _out("computer", {"action": "wait", "duration": 5})
        yield _out("done", {})

    log, sample = _eval(tmp_path, script())
    assert not sample.scores  # no 0 for the agent
    bundle = Path(sample.store["simbridge_bundle"])
    ep = json.loads((bundle / "episode.json").read_text())
    assert ep["status"] == "harness_error", ep["status"]
    assert "outside the agent: the sample was interrupted or cancelled" in ep["status_detail"]
    assert json.loads((bundle / "score.json").read_text())["status"] == "unscored"


@needs_xvfb
@pytest.mark.display
@pytest.mark.slow
def test_an_interrupt_to_score_scores_the_work_so_far(tmp_path, no_leftovers):
    # "interrupt and score" is the operator ending the agent's turn on purpose: scored as it stands
    from inspect_ai.log._samples import sample_active

    def script():
        yield _out("computer", {"action": "screenshot"})
        sample_active().interrupt("score")
        yield _out("computer", {"action": "wait", "duration": 5})

    log, sample = _eval(tmp_path, script())
    score = sample.scores["simbridge_verifier"]
    assert score.value == 0.0 and score.answer == "agent_quit"
    assert json.loads(Path(score.metadata["bundle"], "score.json").read_text())["status"] == "scored"


@needs_xvfb
@pytest.mark.display
@pytest.mark.slow
def test_inspect_eval_cli_offline_leaves_no_scored_bundle_and_exits_4(tmp_path, no_leftovers):
    # Inspect's real command line with its mockllm model, which counts tokens with tiktoken: its
    # data cannot be fetched (an empty cache, an unreachable proxy), so the model fails on its
    # first turn. That is not the agent's outcome: the bundle is unscored and the exit non-zero.
    import os
    import subprocess
    import sys

    env = dict(os.environ)
    env.update(
        TIKTOKEN_CACHE_DIR=str(tmp_path / "tiktoken"),
        DATA_GYM_CACHE_DIR=str(tmp_path / "tiktoken"),
        HTTPS_PROXY="http://127.0.0.1:9",
        https_proxy="http://127.0.0.1:9",
        INSPECT_LOG_DIR=str(tmp_path / "logs"),
    )
    (tmp_path / "tiktoken").mkdir()
    inspect = Path(sys.executable).with_name("inspect")
    cmd = [str(inspect), "eval", "simbridge/gui_task", "--model", MODEL, "-T", "time_limit_s=30", "--display", "plain"]
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 4, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    assert "simbridge: 1 episode(s) unscored" in proc.stderr
    [episode] = list((tmp_path / "runs").glob("*/trial-1/episode.json"))  # ./runs, as the issue saw it
    ep = json.loads(episode.read_text())
    assert ep["status"] == "harness_error" and "outside the agent" in ep["status_detail"]
    assert json.loads(episode.with_name("score.json").read_text())["status"] == "unscored"
    [log] = list((tmp_path / "logs").glob("*.eval"))
    assert read_eval_log(str(log)).status == "error"


@needs_xvfb
@pytest.mark.display
@pytest.mark.slow
def test_simulator_killed_mid_sample_is_a_sample_error_not_zero(tmp_path, no_leftovers):
    def script():
        yield _out("computer", {"action": "screenshot"})
        for p in cockpits():  # the model thinks while the simulator dies under it
            p.kill()
        for _ in range(3):
            yield _click("nav1:mhz+")
        yield _out("done", {})

    log, sample = _eval(tmp_path, script())
    assert sample.error is not None
    assert "unscored" in sample.error.message and "sim_crashed" in sample.error.message, sample.error.message
    assert not sample.scores  # no 0 was recorded for it
    bundle = Path(sample.store["simbridge_bundle"])
    assert json.loads((bundle / "score.json").read_text())["status"] == "unscored"


def test_task_lists_and_suite_files(tmp_path):
    assert parse_tasks("T16, T09") == [("T16", None), ("T09", None)]
    # a suite in `simbridge eval`'s format: its (task, simulator) cells once each, agents left out
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: s\ntrials: 2\nmatrix:\n  - {tasks: [T16, T09], sims: [jsbsim], agents: [noop, reference]}\n"
    )
    assert parse_tasks(str(suite)) == [("T16", "jsbsim"), ("T09", "jsbsim")]
    # the shipped smoke suite, by file and by its registered name, is the same list
    assert parse_tasks("smoke") == parse_tasks(str(Path(__file__).parents[2] / "suites" / "smoke.yaml")) != []
    suite.write_text("name: s\nmatrix:\n  - {tasks: [7], sims: [jsbsim], agents: [noop]}\n")
    with pytest.raises(SimbridgeError, match=r"suite.yaml: field 'matrix\[0\].tasks\[0\]'"):
        parse_tasks(str(suite))
    with pytest.raises(SimbridgeError, match="not found"):
        parse_tasks(str(tmp_path / "missing.yaml"))
    t = gui_task(task="T16,T09", sim="jsbsim", lockstep=True)
    assert [s.id for s in t.dataset] == ["T16-jsbsim", "T09-jsbsim"]
    assert "NAV1 to SJC VOR 114.100" in t.dataset[0].input


@needs_xvfb
@pytest.mark.display
@pytest.mark.slow
def test_a_sample_cut_by_its_time_limit_is_torn_down_and_scored(tmp_path, no_leftovers):
    # the model asks for 55 s of simulator time in real time (a lockstep wait runs faster than
    # the wall clock now); Inspect's 20 s sample limit cancels it mid-wait
    script = [
        _out("computer", {"action": "screenshot"}),
        _out("computer", {"action": "wait", "duration": 55}),
        _out("done", {}),
    ]
    task = gui_task(task="T16", sim="jsbsim", lockstep=False, time_limit_s=60, frame_hz=0, out=str(tmp_path / "runs"))
    [log] = inspect_eval(
        task,
        model=get_model(MODEL, custom_outputs=script),
        log_dir=str(tmp_path / "logs"),
        display="none",
        time_limit=20,
    )
    [sample] = read_eval_log(log.location).samples
    assert sample.limit is not None and sample.limit.type == "time"
    bundle = Path(sample.store["simbridge_bundle"])
    ep = json.loads((bundle / "episode.json").read_text())
    assert ep["status"] == "agent_quit" and ep["sim_seconds"] < 55  # ended when the limit cancelled the turn
    assert sample.scores["simbridge_verifier"].value == 0.0  # the agent's own outcome: scored
