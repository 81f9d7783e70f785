"""Assists (`--assist NAME`): what a simulator shows beyond the real vehicle's own displays, the
way `--no-token` is an explicit opt-out. Which assists a simulator offers is its AdapterSpec's;
one it does not offer is a one-line error; an assisted episode is flagged, told to the agent,
shown on the report, and `metrics`, `compare` and the suite page never pool it with unassisted
episodes of the same agent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simbridge._agent_port import make_brief
from simbridge._cli import main
from simbridge._verify import verify_path
from simbridge._errors import SimbridgeError
from simbridge._eval._plan import EpisodeSpec, expand
from simbridge._eval._suite import SuiteError, load_suite
from simbridge._run_config import check_assists, offered_assists
from simbridge._task import load_task
from support.runner import TOY, run_simbridge
from synth import make_bundle, steep_turn

READOUT = ["assist:readout"]


def test_the_jsbsim_adapter_offers_the_readout_and_the_others_none():
    assert set(offered_assists("jsbsim")) == {"readout"}
    assert "strip" in offered_assists("jsbsim")["readout"]
    assert offered_assists("drive") == {} and offered_assists("flightgear") == {}
    assert offered_assists(TOY) == {}  # a module:Class simulator offers what its class declares: nothing
    assert check_assists("jsbsim", ["readout", "readout"]) == ("readout",)
    assert check_assists("jsbsim", ()) == () and check_assists("drive", None) == ()


@pytest.mark.parametrize(
    "sim, name, offers",
    [("jsbsim", "hud", "readout"), ("drive", "readout", "none"), ("flightgear", "readout", "none")],
)
def test_an_assist_the_simulator_does_not_offer_is_one_line_naming_it(sim, name, offers):
    with pytest.raises(SimbridgeError) as e:
        check_assists(sim, ["readout", name] if name != "readout" else [name])
    msg = str(e.value)
    assert "\n" not in msg and f"assist {name!r}" in msg and repr(sim) in msg and f"offers: {offers}" in msg


def test_run_refuses_an_unknown_assist_with_exit_2_before_anything_runs(tmp_path):
    r = run_simbridge("run", "T09", "--sim", TOY, "--agent", "noop", "--assist", "readout", "--out", str(tmp_path))
    assert r.returncode == 2
    [line] = r.stderr.strip().splitlines()
    assert "assist 'readout'" in line and "offers: none" in line
    assert not list(tmp_path.iterdir()), "a bundle was created for a refused run"


# ----------------------------------------------------------------------------- the brief


def _brief(assists: dict[str, str] | None, offered: tuple[str, ...]):
    return make_brief(
        load_task("T09"), "jsbsim", time_limit_s=60, lockstep=True, assists=assists, assists_offered=offered
    )


def test_the_brief_says_which_panel_the_agent_has():
    on = _brief({"readout": offered_assists("jsbsim")["readout"]}, ("readout",))
    assert [a.name for a in on.assists] == ["readout"]
    text = on.text()
    assert "Panel: the instruments, with the readout assist, a digital readout strip" in text
    assert "reported apart from unassisted ones" in text
    off = _brief(None, ("readout",)).text()
    assert "Panel: the vehicle's own instruments only, no assist (readout off): read the gauges." in off
    assert "readout strip" not in off
    none_offered = _brief(None, ()).text()
    assert "Panel:" not in none_offered  # a simulator with no assist has only its own panel to speak of


def test_inspect_prompt_tells_the_panel_and_refuses_an_unknown_assist():
    from simbridge.integrations.inspect_ai._task import _prompt, assist_arg

    assert assist_arg("readout") == ("readout",) and assist_arg("a, b") == ("a", "b")
    assert assist_arg(["readout"]) == ("readout",) and assist_arg(None) == ()
    assert "with the readout assist" in _prompt("T09", "jsbsim", True, 30.0, ("readout",))
    assert "no assist (readout off)" in _prompt("T09", "jsbsim", True, 30.0)
    with pytest.raises(SimbridgeError, match="assist 'hud'"):
        _prompt("T09", "jsbsim", True, 30.0, ("hud",))


def test_gymnasium_env_refuses_an_unknown_assist():
    from simbridge.integrations.gymnasium._env import SimbridgeEnv

    with pytest.raises(SimbridgeError, match="assist 'hud': simulator 'jsbsim'"):
        SimbridgeEnv("T09", "jsbsim", assists=["hud"])
    env = SimbridgeEnv("T09", "jsbsim", assists=["readout"])
    assert env.assists == ("readout",)


# ----------------------------------------------------------------------------- suites


def _suite(tmp_path: Path, text: str) -> tuple[list[EpisodeSpec], list[str]]:
    f = tmp_path / "s.yaml"
    f.write_text(text)
    return expand(load_suite(f), f)


def test_a_suite_runs_assisted_and_unassisted_cells_side_by_side(tmp_path):
    eps, _ = _suite(
        tmp_path,
        "name: arms\nmatrix:\n"
        "  - {tasks: [T09], sims: [jsbsim], agents: [noop]}\n"
        "  - {tasks: [T09], sims: [jsbsim], agents: [noop], assists: [readout]}\n",
    )
    assert [(e.episode_id, e.assists) for e in eps] == [
        ("T09/jsbsim/noop/trial-1", ()),
        ("T09/jsbsim+readout/noop/trial-1", ("readout",)),
    ]
    back = EpisodeSpec.from_json(json.loads(json.dumps(eps[1].to_json())))
    assert back == eps[1] and back.assists == ("readout",)
    # suite-wide, taken by every entry without its own
    eps, _ = _suite(tmp_path, "name: s\nassists: [readout]\ntasks: [T09]\nsims: [jsbsim]\nagents: [noop]\n")
    assert [e.assists for e in eps] == [("readout",)]


@pytest.mark.parametrize(
    "text, field",
    [
        ("name: s\nassists: [hud]\ntasks: [T09]\nsims: [jsbsim]\nagents: [noop]\n", "assists"),
        (
            "name: s\nmatrix:\n  - {tasks: [T18], sims: [drive], agents: [noop], assists: [readout]}\n",
            "matrix[0].assists",
        ),
    ],
)
def test_a_suite_asking_for_an_assist_not_offered_is_one_line(tmp_path, text, field):
    with pytest.raises(SuiteError) as e:
        _suite(tmp_path, text)
    msg = str(e.value)
    assert "\n" not in msg and f"field '{field}'" in msg and "does not offer it" in msg


# ----------------------------------------------------------------------------- metrics, compare, report


def _bundle(path: Path, *, assisted: bool, trial: int, poor: bool = False) -> Path:
    cols = steep_turn(bank_deg=25.0) if poor else steep_turn()
    extra = {"assists": ["readout"], "flags": list(READOUT)} if assisted else {}
    b = make_bundle(
        path,
        "T09",
        cols,
        fmt="parquet",
        agent="pilot",
        trial=trial,
        wall_start=1000.0 + trial + 100 * assisted,
        **extra,
    )
    (b / "score.json").write_text(verify_path(b).model_dump_json())
    return b


@pytest.fixture(scope="module")
def two_arms(tmp_path_factory) -> Path:
    """One run directory, one agent: 3 unassisted trials that fail the turn and 3 assisted that fly it."""
    root = tmp_path_factory.mktemp("arms")
    for i in range(1, 4):
        _bundle(root / f"plain-{i}", assisted=False, trial=i, poor=True)
        _bundle(root / f"assisted-{i}", assisted=True, trial=i)
    return root


def test_an_assisted_bundle_is_flagged_on_its_score(two_arms):
    s = verify_path(two_arms / "assisted-1")
    assert "assist:readout" in s.flags and s.success
    assert "assist:readout" not in verify_path(two_arms / "plain-1").flags


def test_metrics_keeps_the_assisted_arm_of_an_agent_apart(two_arms, capsys):
    capsys.readouterr()
    assert main(["metrics", str(two_arms), "--json", "-k", "1"]) == 0
    rows = json.loads(capsys.readouterr().out)
    sr = {r["agent"]: r for r in rows if r["metric"] == "sr" and r["task_id"] is None}
    assert set(sr) == {"pilot", "pilot [assist:readout]"}  # never one pooled "pilot" row
    assert sr["pilot"]["value"] == 0.0 and sr["pilot"]["n_trials"] == 3
    assert sr["pilot [assist:readout]"]["value"] == 1.0 and sr["pilot [assist:readout]"]["n_trials"] == 3


def test_metrics_keeps_an_assisted_lone_score_file_apart(two_arms, tmp_path, capsys):
    for name in ("plain-1", "assisted-1"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "score.json").write_text((two_arms / name / "score.json").read_text())
    capsys.readouterr()
    assert main(["metrics", str(tmp_path), "--json", "-k", "1", "--trust-scores"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["agent"] for r in rows} == {None, "(not recorded) [assist:readout]"}


def test_compare_makes_the_assisted_trials_an_arm_of_their_own(two_arms, capsys):
    capsys.readouterr()
    assert main(["compare", f"run={two_arms}", "--json", "--n-boot", "200"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sorted(data["arms"]) == ["pilot", "pilot [assist:readout]"]
    per = {a: data["per_arm"][a]["tasks"]["T09"] for a in data["arms"]}
    assert per["pilot"]["n_trials"] == 3 and per["pilot"]["success_rate"] == 0.0
    assert per["pilot [assist:readout]"]["n_trials"] == 3 and per["pilot [assist:readout]"]["success_rate"] == 1.0


def test_compare_by_label_separates_the_assisted_trials_of_a_run(two_arms, tmp_path, capsys):
    other = tmp_path / "other"
    _bundle(other / "t1", assisted=False, trial=9)  # its own episode (not a copy of plain-1)
    capsys.readouterr()
    assert main(["compare", f"a={two_arms}", f"b={other}", "--by", "label", "--json", "--n-boot", "200"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["by"] == "label" and sorted(data["arms"]) == ["a", "a [assist:readout]", "b"]


def test_the_report_shows_the_assist(two_arms, tmp_path):
    from simbridge._report._html import write_episode_report

    page = write_episode_report(two_arms / "assisted-1", tmp_path / "a.html").read_text()
    assert '<span class="assisted">assist: readout</span>' in page
    assert "<th>assists</th><td>readout (flagged; never pooled with unassisted episodes)</td>" in page
    assert "<li>assist:readout</li>" in page
    plain = write_episode_report(two_arms / "plain-1", tmp_path / "p.html").read_text()
    assert "<th>assists</th><td>none</td>" in plain and 'class="assisted"' not in plain


def test_the_suite_page_has_a_row_for_each_arm(two_arms):
    from simbridge._report._suite import load_suite as load_suite_page

    suite = load_suite_page(two_arms)
    assert sorted(agent for agent, _sim in suite.groups) == ["pilot", "pilot [assist:readout]"]


def test_inspect_gui_task_takes_the_assist_argument():
    from simbridge.integrations.inspect_ai._task import gui_task

    [sample] = gui_task(task="T09", sim="jsbsim", assist="readout").dataset
    assert "with the readout assist" in str(sample.input)
    [plain] = gui_task(task="T09", sim="jsbsim").dataset
    assert "no assist (readout off)" in str(plain.input)
    with pytest.raises(SimbridgeError, match="assist 'hud'"):
        gui_task(task="T09", sim="jsbsim", assist="hud")


def test_an_eval_episode_spec_becomes_a_run_config_with_its_assists():
    from simbridge._run_config import RunConfig

    spec = EpisodeSpec(
        episode_id="T09/jsbsim+readout/noop/trial-1", task_id="T09", sim="jsbsim", agent="noop",
        agent_slug="noop", trial=1, assists=("readout",),
    )  # fmt: skip
    assert RunConfig.of(spec, task="T09").assists == ("readout",)


def test_eval_results_and_progress_keep_the_assisted_cell_apart(tmp_path):
    import io

    from simbridge._eval._driver import COLUMNS, _row
    from simbridge._eval._progress import Progress

    eps, _ = _suite(
        tmp_path,
        "name: arms\nmatrix:\n"
        "  - {tasks: [T09], sims: [jsbsim], agents: [noop]}\n"
        "  - {tasks: [T09], sims: [jsbsim], agents: [noop], assists: [readout]}\n",
    )
    assert ("assists", "string") in COLUMNS
    rows = [_row(tmp_path, e, 0, 0, None, "local", "pending") for e in eps]
    assert [r["assists"] for r in rows] == ["", "readout"]
    p = Progress(eps, stream=io.StringIO(), live=False)
    for e, score in zip(eps, (0.0, 1.0)):
        p.finished(e, {"attempt": 1, "status": "completed", "score": score, "score_status": "scored", "success": score})
    cells = {k: v["scores"] for k, v in p.cells.items()}
    assert cells == {("T09", "jsbsim", "noop"): [0.0], ("T09", "jsbsim+readout", "noop"): [1.0]}
