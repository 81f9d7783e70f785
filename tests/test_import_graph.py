"""No import cycles among simbridge's modules (adapters/, verifiers/ and tasks/ included, as
simbridge.adapters …), and the modules whose cycles were cut import first in a fresh interpreter.

The graph is read from the source (ast), imports inside functions included: a late import that
only hides a cycle is still one. Imports under `if TYPE_CHECKING:` are left out (never run).
Which way imports may go (the core never imports a plug-in folder) is tests/test_layers.py's.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: source folder -> the package name it imports as (setup.py's mapping)
FOLDERS = {
    "simbridge": "simbridge",
    "adapters": "simbridge.adapters",
    "verifiers": "simbridge.verifiers",
    "tasks": "simbridge.tasks",
}


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name -> source file, for every module of the package."""
    out: dict[str, Path] = {}
    for folder, prefix in FOLDERS.items():
        for f in sorted((root / folder).rglob("*.py")):
            parts = f.relative_to(root / folder).with_suffix("").parts
            if folder == "simbridge" and parts[0] in FOLDERS:  # scripts/setup.sh's links to the mapped folders
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join([prefix, *parts])] = f
    return out


def _is_type_checking(node: ast.If) -> bool:
    return "TYPE_CHECKING" in ast.unparse(node.test)


def imported_modules(name: str, path: Path, known: set[str]) -> set[str]:
    """The package modules `name` imports (`from pkg import mod` counts as `pkg.mod`)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                found.update(a.name for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    up = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join(up + ([child.module] if child.module else []))
                else:
                    base = child.module or ""
                found.update(f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in child.names)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    return {m for m in found if m in known and m != name}


def import_cycles(root: Path = ROOT) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    files = module_files(root)
    graph = {n: sorted(imported_modules(n, f, set(files))) for n, f in files.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph)))
    try:
        for v in graph:
            if v not in index:
                connect(v)
    finally:
        # the process's limit is every later test's: a raised one let a 2,000-deep JSON through
        sys.setrecursionlimit(limit)
    return sorted(cycles)


def test_no_import_cycles() -> None:
    assert import_cycles() == []


def test_the_checker_sees_a_late_import_cycle(tmp_path: Path) -> None:
    """A cycle closed only by an import inside a function is found; a TYPE_CHECKING one is not."""
    for folder in FOLDERS:
        (tmp_path / folder).mkdir()
    (tmp_path / "simbridge/__init__.py").write_text("")
    (tmp_path / "simbridge/_a.py").write_text("from simbridge import _b\n")
    (tmp_path / "simbridge/_b.py").write_text("def f():\n    from simbridge._a import x\n")
    (tmp_path / "verifiers/__init__.py").write_text("from . import _reg\n")
    (tmp_path / "verifiers/_reg.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from simbridge.verifiers import thing\n"
    )
    assert import_cycles(tmp_path) == [["simbridge._a", "simbridge._b"]]


#: modules that took part in a cycle, and the entry points: each is imported first, with no
#: simbridge module loaded before it
FIRST_IMPORTS = [
    "simbridge._task",
    "simbridge._taskspec",
    "simbridge.verifiers",
    "simbridge.verifiers.landing",
    "simbridge.verifier",
    "simbridge._cli.vm",
    "simbridge._cli.isolation",
    "simbridge._cli",
    "simbridge.sim",
    "simbridge.agent",
]


def test_modules_import_first_in_a_fresh_interpreter() -> None:
    """One interpreter for the list (cheaper than one each): simbridge's modules are dropped from
    sys.modules before each, so each import starts the package's import order from that module."""
    code = textwrap.dedent("""
        import importlib, sys
        for name in sys.argv[1:]:
            for loaded in [m for m in sys.modules if m == "simbridge" or m.startswith("simbridge.")]:
                del sys.modules[loaded]
            try:
                importlib.import_module(name)
            except Exception as exc:
                print(f"{name}: {type(exc).__name__}: {exc}")
    """)
    out = subprocess.run(
        [sys.executable, "-c", code, *FIRST_IMPORTS], capture_output=True, text=True, cwd=ROOT, timeout=600, check=False
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout == ""
