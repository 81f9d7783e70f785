"""simbridge's own tasks: the catalog's task YAMLs (and their variants `TASK@AIRPORT.yaml`).

The core never imports this package: `register` (the `simbridge.plugins` entry point `tasks` in
pyproject.toml) registers this folder as the task folder `simbridge`, and the suites of a source
checkout (`suites/*.yaml`) by name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def register(registry: Any) -> None:
    here = Path(__file__).resolve().parent
    registry.add("tasks", "simbridge", here, doc="the catalog's tasks")
    suites = here.parent / "suites"
    for f in sorted(suites.glob("*.yaml")) if suites.is_dir() else ():
        registry.add("suite", f.stem, f, doc=f"suites/{f.name}")
