"""A plug-in distribution found by entry point: tests/plugin_dist (simbridge-example-plugin) is
built and installed by pip into a folder of its own, never into this environment, and simbridge
runs in a subprocess with that folder on PYTHONPATH. Its simulator, agent, reference pilot,
verifier, task and suite then work as simbridge's own do: `tasks list`, `run`, `eval`, Gymnasium
ids and Inspect samples. A plug-in whose `register` raises, or that registers a name another
distribution has, is reported in one line naming it, and simbridge goes on.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from simbridge.registry import registry
from support.public_api import imported_modules, private_imports

PLUGIN_SRC = Path(__file__).resolve().parent / "plugin_dist"
DIST = "simbridge-example-plugin"

needs_xvfb = pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb not installed")


def _pip_install(target: Path, *projects: Path) -> None:
    """`pip install --no-deps --target TARGET PROJECT...` with this interpreter's pip."""
    r = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-input", "--target", str(target)]
        + [str(p) for p in projects],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def _project(root: Path, name: str, init: str) -> Path:
    """A one-module plug-in project `name` whose package is `init`, built by the example's backend."""
    pkg = name.replace("-", "_")
    (root / pkg).mkdir(parents=True)
    (root / pkg / "__init__.py").write_text(init)
    shutil.copy(PLUGIN_SRC / "build_backend.py", root / "build_backend.py")
    (root / "pyproject.toml").write_text(
        f"""[build-system]
requires = ["tomli>=1.1; python_version < '3.11'"]
build-backend = "build_backend"
backend-path = ["."]

[project]
name = "{name}"
version = "0.1.0"
description = "a test plug-in"
requires-python = ">=3.10"

[project.entry-points."simbridge.plugins"]
{pkg} = "{pkg}:register"
"""
    )
    return root


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The example plug-in installed by pip into a folder of its own (a copy of the project is
    built, so no build files land in the repository)."""
    work = tmp_path_factory.mktemp("plugin")
    src = work / "src"
    shutil.copytree(PLUGIN_SRC, src, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    target = work / "site"
    _pip_install(target, src)
    return target


def simbridge(*args: str, paths: list[Path], cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in paths)
    env.pop("DISPLAY", None)  # the local provider starts its own Xvfb
    return subprocess.run(
        [sys.executable, "-m", "simbridge", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


def test_the_plugin_is_not_in_this_environment():
    # what the other tests see comes from the installed distribution, not from tests/ on sys.path
    reg = registry()
    assert reg.find("simulator", "example") is None and reg.find("verifier", "example_climb") is None


def test_the_plugin_uses_simbridges_public_api_only():
    # what a third party may import: no private module of simbridge
    files = sorted((PLUGIN_SRC / "simbridge_example_plugin").glob("*.py"))
    assert files and any(m.startswith("simbridge.") for f in files for _, m in imported_modules(f))
    assert private_imports(files) == []


def test_tasks_list_and_the_cli_show_what_the_plugin_registers(site, tmp_path):
    r = simbridge("tasks", "list", paths=[site], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    [line] = [x for x in r.stdout.splitlines() if x.startswith("climb_demo ")]
    assert line.split()[1:4] == ["example", "d1", "example_climb"] and DIST in line
    assert re.search(r"^T09 .* steep_turn +simbridge +Perform", r.stdout, re.M), "simbridge's own stay, from simbridge"
    assert r.stdout.index("T09 ") < r.stdout.index("climb_demo ")  # simbridge's first
    r = simbridge("tasks", "list", "--json", paths=[site], cwd=tmp_path)
    [t90] = [t for t in json.loads(r.stdout) if t["id"] == "climb_demo"]
    assert (t90["origin"], t90["folder"], t90["simulator"]) == (DIST, "example", "example")
    r = simbridge("run", "--help", paths=[site], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    text = " ".join(r.stdout.split())
    assert re.search(r"--sim SIM simulator: [^,]*\| example, or module:SessionClass", text), text
    assert "| example[:FEET]" in text  # the agent's usage, from its registered description
    r = simbridge("tasks", "validate", paths=[site], cwd=tmp_path)
    assert r.returncode == 0 and re.search(r"^(\d+) valid, 0 invalid$", r.stdout, re.M), r.stdout + r.stderr


def test_gymnasium_ids_and_inspect_samples_include_the_plugins_task(site, tmp_path):
    code = """
import json
import gymnasium as gym
import simbridge.integrations.gymnasium as sg
from simbridge.integrations.inspect_ai import gui_task
task = gui_task(task="climb_demo")
print(json.dumps({
    "ids": [i for i in sg.IDS if "climb_demo" in i],
    "registered": "simbridge/climb_demo-example-v0" in gym.registry,
    "samples": [[s.id, s.metadata["sim"], s.input] for s in task.dataset],
}))
"""
    env = dict(os.environ, PYTHONPATH=str(site))
    r = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.splitlines()[-1])
    assert out["ids"] == ["simbridge/climb_demo-example-v0"] and out["registered"]
    [[sid, sim, prompt]] = out["samples"]
    assert (sid, sim) == ("climb_demo-example", "example") and "Climb to 60 ft" in prompt and "Up / Down" in prompt


@needs_xvfb
@pytest.mark.display
@pytest.mark.slow
def test_an_episode_on_the_plugins_simulator_with_its_agent_scored_by_its_verifier(site, tmp_path):
    out = tmp_path / "runs"
    r = simbridge(
        "run", "climb_demo", "--sim", "example", "--agent", "example:62", "--out", str(out), "--frame-hz", "0", "--no-report",
        "--json", paths=[site], cwd=tmp_path,
    )  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    [bundle] = sorted(out.glob("climb_demo-*/trial-1"))
    ep = json.loads((bundle / "episode.json").read_text())
    assert ep["status"] == "completed" and ep["sim"] == "example" and ep["agent"] == "example"
    m = re.search(r"agent done at t=([\d.]+) s: example: holding ([\d.]+) ft for ([\d.]+) s", ep["status_detail"])
    assert m, ep["status_detail"]
    t_done, held_at, held_for = map(float, m.groups())
    assert 57 <= held_at <= 67 and held_for >= 3.0  # the agent's own target (ARG 62), its band ±5 ft
    assert t_done < 40  # simulator seconds: well inside the task's limit
    score = json.loads((bundle / "score.json").read_text())
    assert (score["status"], score["verifier"], score["task_id"]) == ("scored", "example_climb", "climb_demo")
    components = {c["name"]: c for c in score["components"]}
    assert set(components) == {"reached_target", "held_altitude"}
    assert components["reached_target"]["earned"] == 1.0 and components["held_altitude"]["earned"] == 1.0
    w0, w1 = components["held_altitude"]["window"]
    assert w1 - w0 >= 2.0 and w1 <= t_done + 0.5  # held ≥ the task's 2 s, on the simulator clock
    assert [(s["name"], s["ok"]) for s in score["safety"]] == [("below_ceiling", True)]
    assert score["score"] == 1.0 and score["success"] is True
    keys = [json.loads(x) for x in (bundle / "actions.jsonl").read_text().splitlines()]
    assert any(a["kind"] == "key" and a["args"]["keys"] == "Up" for a in keys)  # it flew through the keyboard
    # the task's input came from the plug-in's own task folder, not simbridge's
    card = PLUGIN_SRC / "simbridge_example_plugin" / "tasks" / "inputs" / "climb_demo" / "climb_card.txt"
    assert (bundle / "home" / "input" / "climb_card.txt").read_text() == card.read_text()


@needs_xvfb
@pytest.mark.display
@pytest.mark.slow
def test_the_plugins_suite_runs_with_eval_and_reference_picks_its_pilot(site, tmp_path):
    out = tmp_path / "eval"
    r = simbridge("eval", "example-climb", "--out", str(out), paths=[site], cwd=tmp_path)  # a suite by its name
    assert r.returncode == 0, r.stdout + r.stderr
    plan = json.loads((out / "plan.json").read_text())
    assert plan["suite"] == "example-climb" and len(plan["episodes"]) == 1
    bundle = out / "climb_demo" / "example" / "reference" / "trial-1" / "attempt-1"  # the suite retries nothing
    ep = json.loads((bundle / "episode.json").read_text())
    assert ep["status"] == "completed" and ep["agent"] == "reference"
    assert "example-pilot: holding" in ep["status_detail"], ep[
        "status_detail"
    ]  # the plug-in's climb_demo/example pilot
    score = json.loads((bundle / "score.json").read_text())
    assert score["status"] == "scored" and score["score"] == 1.0


def test_a_broken_plugin_and_a_clashing_one_are_named_in_one_line_each_and_simbridge_goes_on(site, tmp_path):
    broken = _project(
        tmp_path / "broken",
        "simbridge-broken-plugin",
        "def register(registry):\n    raise RuntimeError('no licence server')\n",
    )
    clash = _project(
        tmp_path / "clash",
        "simbridge-clash-plugin",
        "from pathlib import Path\n\n"
        "def register(registry):\n"
        "    registry.add('tasks', 'clash', Path(__file__).parent / 'tasks')\n"  # in before the clash...
        "    registry.add('verifier', 'example_climb', object())\n",
    )
    (clash / "simbridge_clash_plugin" / "tasks").mkdir()
    t91 = (
        (PLUGIN_SRC / "simbridge_example_plugin" / "tasks" / "climb_demo.yaml")
        .read_text()
        .replace("id: climb_demo", "id: climb_demo2")
    )
    (clash / "simbridge_clash_plugin" / "tasks" / "climb_demo2.yaml").write_text(t91)
    extra = tmp_path / "extra"
    _pip_install(extra, broken, clash)
    r = simbridge("tasks", "list", paths=[site, extra], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert re.search(r"^T09 ", r.stdout, re.M) and re.search(
        r"^climb_demo .* example_climb", r.stdout, re.M
    )  # all work
    lines = r.stderr.splitlines()
    [b] = [x for x in lines if "simbridge-broken-plugin" in x]
    assert "not loaded" in b and "RuntimeError: no licence server" in b and "simbridge_broken_plugin:register" in b
    [c] = [x for x in lines if "simbridge-clash-plugin" in x]
    assert "verifier 'example_climb'" in c and DIST in c  # names the name and both distributions
    assert not re.search(r"^climb_demo2 ", r.stdout, re.M)  # ...and out with the plug-in: all of it or nothing
    assert "Traceback" not in r.stderr
