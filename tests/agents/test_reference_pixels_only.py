"""The reference pilots read pixels only: their sources import nothing that reaches the
simulator's state (session, telemetry server, flight model, bundles, sockets), and importing
them loads none of those modules."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path


import simbridge.adapters as adapters
from simbridge.agents._reference import make_pilot

#: the reference pilots' folders, beside the adapters of the simulators they fly
PILOT_DIRS = [Path(adapters.__file__).parent / sim / "pilots" for sim in ("jsbsim", "flightgear", "drive")]
JSBSIM_PILOTS = PILOT_DIRS[0]
ALLOWED_PREFIXES = (
    "__future__",
    "math",
    "os",
    "json",
    "time",
    "threading",
    "functools",
    "pathlib",
    "dataclasses",
    "typing",
    "collections.abc",
    "base64",
    "datetime",  # calendar arithmetic: the T08 pilot's UTC date from the told local one
    "importlib",
    "sys",
    "types",
    "numpy",
    "cv2",
    "pygame",
    "simbridge.agents.Agent",  # Agent and AgentResult
    "simbridge.adapters.kit.told",  # the numbers an instruction's text gives (text only, no state)
    "simbridge.adapters.kit.pixels",  # colour masks of a screenshot (numpy and cv2 only)
    "simbridge.adapters.jsbsim.pilots",
    "simbridge.adapters.flightgear.pilots",
    "simbridge.adapters.drive.pilots",
    "simbridge.agent.",
    "simbridge._task",  # type-checking names of the port client and the task
    "simbridge.TaskSpec",  # the same, from the public API
    "simbridge.adapters.jsbsim.layout",  # the published panel layout: pixel positions, no state
    "simbridge.adapters.drive.layout",  # the driving window's published layout: camera, colours, HUD rows
)
ALLOWED_EXACT = ("re",)  # regular expressions (the T15 pilot parses the instruction's figures)
FORBIDDEN_MODULES = (
    "simbridge.adapters.jsbsim._session",
    "simbridge.adapters.jsbsim.cockpit",  # the program inside the sandbox, all of it
    "simbridge.adapters.fgproto",
    "simbridge._recorder",
    "simbridge.adapters.drive._session",
    "simbridge.adapters.drive.world._world",
    "simbridge.adapters.drive.world._view",
    "simbridge.adapters.drive.world.sim",
    "libsumo",
    "traci",
    "jsbsim",
    "telnetlib",
)


def _imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):  # `from a import b` counts as a.b: b may be a module
            names += [f"{node.module or ''}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "__import__":
            names.append("__import__")
    return names


def test_pilot_sources_import_only_pixel_and_input_modules():
    files = sorted(f for d in PILOT_DIRS for f in d.glob("*.py"))
    assert len(files) >= 20
    for f in files:
        for name in _imports(f):
            assert name in ALLOWED_EXACT or name.startswith(ALLOWED_PREFIXES), f"{f.name} imports {name!r}"


def test_the_shared_pixel_helpers_import_only_numpy_and_cv2():
    pixels = Path(adapters.__file__).parent / "kit" / "pixels.py"
    assert set(_imports(pixels)) == {"__future__.annotations", "numpy", "cv2"}


def test_importing_the_pilots_loads_no_simulator_module():
    code = (
        "import sys\n"
        "from simbridge.agents._reference import make_pilot\n"
        "from simbridge.registry import registry\n"
        "agents = [make_pilot(*n.split('/')) for n in registry().names('pilot')]\n"
        "assert all(a is not None for a in agents)\n"
        f"bad = [m for m in sys.modules if m.startswith({FORBIDDEN_MODULES!r})]\n"
        "print(','.join(bad))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "", f"the pilots loaded simulator modules: {r.stdout.strip()}"


def test_pilots_read_the_layout_the_cockpit_draws_with():
    """No private copy that could drift: the pilots' layout is the very module the panel draws
    with and the cockpit's input handler hit-tests clicks with."""
    import pygame  # noqa: F401
    from simbridge.adapters.jsbsim import layout as published
    from simbridge.adapters.jsbsim.cockpit import _input, _panel
    from simbridge.adapters.jsbsim.pilots._layout import L

    assert L is published
    # the public module re-exports the very objects the panel draws and hit-tests with
    assert len(published.__all__) > 50
    for name in published.__all__:
        assert getattr(published, name) is getattr(_panel.L, name) is getattr(_input.L, name), name


def _hotspots_named(path: Path) -> set[str]:
    """Literal hotspot names a pilot source clicks, drags or looks up (`click("x")`,
    `set_slider("x", ...)`, `HOTSPOTS["x"]`)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", "") in ("click", "set_slider")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names.add(node.args[0].value)
        elif (
            isinstance(node, ast.Subscript)
            and getattr(node.value, "attr", "") == "HOTSPOTS"
            and isinstance(node.slice, ast.Constant)
        ):
            names.add(node.slice.value)
    return names


def test_every_hotspot_the_pilots_name_is_published():
    from simbridge.adapters.jsbsim import _layout as published

    named = set().union(*(_hotspots_named(f) for f in sorted(JSBSIM_PILOTS.glob("*.py"))))
    assert {"mags:START", "primer", "throttle", "park_brake"} <= named  # the scan finds the pilots' clicks
    assert named - set(published.HOTSPOTS) == set(), "pilots click hotspots the cockpit does not publish"


def test_make_has_no_pilot_for_other_tasks():
    assert make_pilot("T04", "jsbsim") is None  # T04 has no reference on any simulator
    assert make_pilot("T01@PHJR", "jsbsim") is not None
    assert type(make_pilot("T09", "flightgear")).__name__ == "FlightGearSteepTurnPilot"
    assert type(make_pilot("T09", "jsbsim")).__name__ == "SteepTurnPilot"
