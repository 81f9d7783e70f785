"""The layer rule, checked from outside: the core (simbridge/ without the links to the plug-in
folders) never imports a simulator adapter, a verifier module or the task folder. It reaches
them only through the registry (simbridge.registry), the way it reaches a third party's plug-in.

Two checks. Static: every .py of the core is parsed (ast) and every import is read — module
level, inside functions, under `if TYPE_CHECKING:`, relative ones resolved against the module's
package — as well as every string literal that names such a module ("simbridge.adapters.x",
"simbridge.verifiers.y:Z", an `importlib.import_module` argument); docstrings are prose and
left out. Dynamic: a fresh interpreter imports every core module and then holds no module under
those packages (the registry is filled on lookup, never on import).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import textwrap
from pathlib import Path

from support.public_api import private_imports

ROOT = Path(__file__).resolve().parents[1]
#: the plug-in packages the core must not import (the links simbridge/<name> -> ../<name>)
PLUGIN_PACKAGES = ("simbridge.adapters", "simbridge.verifiers", "simbridge.tasks")
#: a string naming a module of those packages, alone or as a "module:attr" target
_NAMES_PLUGIN = re.compile(r"(?<![\w.])simbridge\.(adapters|verifiers|tasks)(?![\w])")


def core_files(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the core (the plug-in links left out)."""
    links = {p.rpartition(".")[2] for p in PLUGIN_PACKAGES}
    out: dict[str, Path] = {}
    base = root / "simbridge"
    for f in sorted(base.rglob("*.py")):
        parts = f.relative_to(base).with_suffix("").parts
        if parts[0] in links:
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(["simbridge", *parts])] = f
    return out


def _is_plugin(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in PLUGIN_PACKAGES)


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring nodes of the module, its classes and functions."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                if isinstance(body[0].value.value, str):
                    out.add(id(body[0].value))
    return out


def import_targets(node: ast.AST, package: str) -> list[str]:
    """The modules an import statement in `package` may load (relative imports resolved;
    `from simbridge import verifiers` imports the package simbridge.verifiers); [] for any other node."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom):
        if node.level:
            up = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = ".".join(up + ([node.module] if node.module else []))
        else:
            base = node.module or ""
        return [base] + [f"{base}.{a.name}" for a in node.names]
    return []


def violations(name: str, path: Path, root: Path = ROOT) -> list[str]:
    """'file:line: what' for each import of, or string naming, a plug-in package module."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    rel = path.relative_to(root)
    docs = _docstrings(tree)
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            m = _NAMES_PLUGIN.search(node.value)
            if m:
                found.append(f"{rel}:{node.lineno}: string {node.value[:80]!r} names {m.group(0)}")
            continue
        targets = import_targets(node, package)
        bad = sorted({t for t in targets if _is_plugin(t)})
        if bad:
            found.append(f"{rel}:{node.lineno}: {ast.unparse(node)}  (imports {', '.join(bad)})")
    return sorted(found, key=lambda v: int(v.split(":")[1]))


def layer_violations(root: Path = ROOT) -> list[str]:
    return [v for name, f in core_files(root).items() for v in violations(name, f, root)]


def test_the_core_imports_no_plugin_package() -> None:
    found = layer_violations()
    assert not found, "the core imports (or names) a plug-in package module:\n" + "\n".join(found)


def test_the_checker_sees_every_kind_of_import(tmp_path: Path) -> None:
    """Late, TYPE_CHECKING, relative and string imports are each found with file and line; the
    plug-in links, docstrings and look-alike names (simbridge.verifier) are not."""
    core = tmp_path / "simbridge"
    (core / "_sub").mkdir(parents=True)
    (core / "verifiers").mkdir()  # a link's content is not the core
    (core / "verifiers/x.py").write_text("import simbridge.adapters\n")
    (core / "__init__.py").write_text('"""Plug-ins: simbridge.adapters, simbridge.verifiers."""\n')
    (core / "_ok.py").write_text(
        "from simbridge import verifier as verifiers\nimport simbridge.registry\nX = 'simbridge.taskspec'\n"
    )
    (core / "_late.py").write_text("def f():\n    from simbridge.adapters.kit.ports import free_port\n")
    (core / "_tc.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from simbridge import verifiers\n"
    )
    (core / "_sub/__init__.py").write_text("")
    (core / "_sub/_rel.py").write_text("x = 1\nfrom ..tasks import T01\n")
    (core / "_str.py").write_text(
        "import importlib\n"
        "def g():\n"
        "    return importlib.import_module('simbridge.adapters.carla')\n"
        "TARGET = 'simbridge.verifiers.hover:_skid_height_ft'\n"
    )
    found = layer_violations(tmp_path)
    assert [v.split(": ")[0] for v in found] == [
        "simbridge/_late.py:2",
        "simbridge/_str.py:3",
        "simbridge/_str.py:4",
        "simbridge/_sub/_rel.py:2",
        "simbridge/_tc.py:3",
    ], found
    assert "simbridge.adapters.kit.ports" in found[0]
    assert "simbridge.tasks" in found[3]


#: core modules whose import looks things up in the registry by design, with why (the registry
#: then imports plug-ins as it always does: by entry point and "module:attr" strings)
REGISTER_ON_IMPORT = {
    "simbridge.integrations.gymnasium": "Gymnasium 1.x has no plug-in entry points: importing the "
    "module registers one env id per runnable (task, simulator), as its docs say",
}

_IMPORT_ALL = textwrap.dedent("""
    import importlib, sys
    from simbridge.registry import Registry
    prefixes, exempt = tuple(sys.argv[1].split(",")), tuple(sys.argv[2].split(",")) if sys.argv[2] else ()
    importing = [""]
    looked_up = []

    def spy(self):  # instead of loading the entry points: note who looked the registry up
        if not (exempt and importing[0].startswith(exempt)):
            looked_up.append(importing[0])

    Registry.load_plugins = spy  # lookups see an empty registry: no plug-in is loaded through it
    for name in sys.argv[3:]:
        importing[0] = name
        try:
            importlib.import_module(name)
        except ImportError as exc:  # an optional extra not installed: its module is skipped
            print("skipped", name, exc, file=sys.stderr)
        loaded = sorted(m for m in sys.modules if m in prefixes or m.startswith(tuple(p + "." for p in prefixes)))
        if loaded:
            print(f"importing {name} loaded {', '.join(loaded[:8])}" + (" ..." if len(loaded) > 8 else ""))
            break
        if looked_up:
            print(f"importing {looked_up[0]} looks the registry up")
            break
""")


def _import_all(names: list[str], exempt: tuple[str, ...] = ()) -> str:
    out = subprocess.run(
        [sys.executable, "-c", _IMPORT_ALL, ",".join(PLUGIN_PACKAGES), ",".join(exempt), *names],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_importing_the_core_loads_no_plugin_package() -> None:
    """Every core module imported in one fresh interpreter whose registry never loads its
    plug-ins: no module of a plug-in package is loaded (an import the static check could not
    see, e.g. one built at run time), and no module but those that register on import by design
    (and their submodules, which import them) looks the registry up: it is filled on lookup,
    never on import."""
    names = sorted(n for n in core_files() if not n.endswith("__main__"))
    assert len(names) > 100
    assert set(REGISTER_ON_IMPORT) <= set(names)
    assert _import_all(names, tuple(REGISTER_ON_IMPORT)) == ""


def test_the_dynamic_check_sees_a_registry_looked_up_on_import() -> None:
    """Without its exemption, the Gymnasium registration is caught (the check can fail)."""
    out = _import_all(["simbridge.registry", "simbridge.integrations.gymnasium"])
    assert out == "importing simbridge.integrations.gymnasium looks the registry up\n", out


def cli_violations(root: Path = ROOT) -> list[str]:
    """'file:line: import' for each import of the command line (simbridge._cli) by a core module
    outside it: the CLI prints what the core computes, never the other way round."""
    found: list[str] = []
    for name, path in core_files(root).items():
        if name == "simbridge._cli" or name.startswith("simbridge._cli.") or name == "simbridge.__main__":
            continue
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            targets = import_targets(node, package)
            if any(t == "simbridge._cli" or t.startswith("simbridge._cli.") for t in targets):
                found.append(f"{path.relative_to(root)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_core_does_not_import_the_command_line() -> None:
    found = cli_violations()
    assert not found, "core modules import simbridge._cli:\n" + "\n".join(found)


def test_the_cli_check_sees_a_core_module_importing_the_cli(tmp_path: Path) -> None:
    core = tmp_path / "simbridge"
    (core / "_cli").mkdir(parents=True)
    (core / "_cli" / "__init__.py").write_text("")
    (core / "_cli" / "verify.py").write_text("def verify_path(p): ...\n")
    (core / "_metrics.py").write_text("def f():\n    from simbridge._cli.verify import verify_path\n")
    (core / "_report.py").write_text("from ._cli import verify\n")
    found = cli_violations(tmp_path)
    assert [v.split(":")[0] for v in found] == ["simbridge/_metrics.py", "simbridge/_report.py"], found


def test_simbridges_own_plugins_use_the_public_api_only() -> None:
    # the same check as the example plug-in's: adapters, verifiers and tasks import simbridge's
    # public modules (simbridge, .sim, .verifier, .primitives, .params, .canonical, .importing,
    # .agent, .registry) and their own package's modules, never the core's private ones
    own = ("simbridge.adapters", "simbridge.verifiers", "simbridge.tasks")
    files = [f for folder in ("adapters", "verifiers", "tasks") for f in sorted((ROOT / folder).rglob("*.py"))]
    assert len(files) > 100
    found = private_imports(files, own)
    assert not found, "built-in plug-ins import private simbridge modules:\n" + "\n".join(found)


def test_the_public_api_check_sees_private_imports(tmp_path: Path) -> None:
    f = tmp_path / "plugin.py"
    f.write_text(
        "from simbridge import TaskSpec\nfrom simbridge.adapters.x._y import z\n"
        "def g():\n    from simbridge._errors import HarnessError\n"
        "import simbridge._bundle\nfrom simbridge import _task\n"
    )
    found = [v.split(": ", 1)[1] for v in private_imports([f], ("simbridge.adapters",))]
    assert found == ["simbridge._errors", "simbridge._bundle", "simbridge._task"], found
