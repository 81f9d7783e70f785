"""An example simbridge plug-in: everything a third party can add, in one small package.

`register` is the entry point `example` of the group `simbridge.plugins` (pyproject.toml); simbridge
calls it once with its registry. It adds

- the simulator `example` (`_session.ClimbSession`: a point mass on a throttle, in its own window),
- the agent `example` (`--agent example` or `example:FEET`, `_agent.py`),
- the reference pilot of task climb_demo on `example` (`--agent reference`),
- the verifier `example_climb` (`_verifier.py`, declared by its `@verifier`, added here),
- the task folder `example` (tasks/climb_demo.yaml) and the suite `example-climb` (suites/).

Targets are "module:attribute" strings, imported only when used: listing simulators or
tasks never starts pygame.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from simbridge.sim import AdapterSpec
from simbridge.verifier import register_module

HERE = Path(__file__).resolve().parent


def register(registry: Any) -> None:
    """Add this package's simulator, agent, pilot, verifier, task folder and suite."""
    registry.add("simulator", "example", AdapterSpec("example", session=f"{__name__}._session:ClimbSession"))
    registry.add(
        "agent", "example", f"{__name__}._agent:make_agent", doc="example[:FEET]: climbs to FEET by the screen"
    )
    registry.add("pilot", "climb_demo/example", f"{__name__}._agent:ClimbPilot", doc="holds climb_demo's altitude")
    register_module(registry, importlib.import_module(f"{__name__}._verifier"))  # `example_climb`
    registry.add("tasks", "example", HERE / "tasks", doc="the example plug-in's tasks")
    registry.add(
        "suite", "example-climb", HERE / "suites" / "example-climb.yaml", doc="climb_demo once with the example agent"
    )
