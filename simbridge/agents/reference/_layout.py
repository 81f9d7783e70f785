"""The cockpit's published panel layout (`adapters/jsbsim/_layout.py`), loaded on its own.

Importing it as `simbridge.adapters.jsbsim._layout` would run the adapter package's
`__init__`, which imports the simulator session machinery; the pilots need only the layout
constants, so the file is loaded by path (it depends on the standard library alone)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

_NAME = "simbridge.agents.reference._panel_layout"


def _load() -> ModuleType:
    if _NAME in sys.modules:
        return sys.modules[_NAME]
    spec = importlib.util.find_spec("simbridge.adapters")
    for root in (spec.submodule_search_locations if spec else None) or []:
        path = Path(root) / "jsbsim" / "_layout.py"
        if path.exists():
            mspec = importlib.util.spec_from_file_location(_NAME, path)
            assert mspec is not None and mspec.loader is not None
            mod = importlib.util.module_from_spec(mspec)
            sys.modules[_NAME] = mod  # dataclasses look the module up while the file executes
            mspec.loader.exec_module(mod)
            return mod
    raise ImportError("the JSBSim cockpit layout (adapters/jsbsim/_layout.py) is not installed")


L = _load()
