"""The one check that a plug-in writes against simbridge's public API: used on the example
plug-in distribution (tests/test_plugin_distribution.py) and on simbridge's own plug-ins
(adapters/, verifiers/, tasks/; tests/test_layers.py)."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, module) for every import statement in `path`, function-level ones included."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
            out += [(node.lineno, f"{node.module}.{a.name}") for a in node.names if node.module == "simbridge"]
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
    return sorted(out)


def private_imports(files: Iterable[Path], own: tuple[str, ...] = ()) -> list[str]:
    """'file:line: module' for each import of a private simbridge module (a dotted part starting
    with `_`), except modules inside the plug-in's own packages `own` (a plug-in may import its
    own private modules)."""
    found = []
    for f in files:
        for line, module in imported_modules(f):
            parts = module.split(".")
            if parts[0] != "simbridge" or any(module == o or module.startswith(o + ".") for o in own):
                continue
            if any(p.startswith("_") and p != "__future__" for p in parts[1:]):
                found.append(f"{f}:{line}: {module}")
    return found
