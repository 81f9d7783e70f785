"""simbridge's own verifiers: pure functions from an episode bundle to components and safety
results, declared by name (`@simbridge.verifier.verifier`).

A new maneuver check is one function in a module of this package plus one task YAML that
names it. The core never imports this package: `register` (the `simbridge.plugins` entry point
`verifiers` in pyproject.toml) imports its modules and adds what each declares.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import Any


def register(registry: Any) -> None:
    """Add the verifiers and scenario checks of every verifier module beside this one."""
    from simbridge.verifier import register_module

    for mod in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if not mod.name.startswith("_"):
            register_module(registry, importlib.import_module(f"{__name__}.{mod.name}"))
