"""The Python client's action methods as source, generated from the action table (`_actions`):
`_client_actions.py` has one typed method per action, so type checkers and editors see the
client's methods. `python -m simbridge._agent_port._codegen` rewrites that file after the table
changes; a test fails while the two differ.
"""

from __future__ import annotations

import types
import typing
from pathlib import Path
from typing import Any, Literal

from simbridge._agent_port._actions import NOTHING, VOCABULARY
from simbridge._agent_port._generate import docstring

#: the generated client module
CLIENT_ACTIONS_PY = Path(__file__).with_name("_client_actions.py")


def type_source(t: Any, imports: dict[str, set[str]]) -> str:
    """A type as Python source (`int | None`, `Sequence[int]`, `Literal['png', 'jpeg']`), noting in
    `imports` (module -> names) what the source needs imported."""
    if t is None or t is type(None):
        return "None"
    if t is Any:
        imports.setdefault("typing", set()).add("Any")
        return "Any"
    origin, targs = typing.get_origin(t), typing.get_args(t)
    if origin is Literal:
        imports.setdefault("typing", set()).add("Literal")
        return f"Literal[{', '.join(repr(a) for a in targs)}]"
    if origin is types.UnionType or origin is typing.Union:
        return " | ".join(type_source(a, imports) for a in targs)
    if origin is not None:
        return f"{type_source(origin, imports)}[{', '.join(type_source(a, imports) for a in targs)}]"
    if isinstance(t, type):
        if t.__module__ != "builtins":
            imports.setdefault(t.__module__, set()).add(t.__qualname__)
        return t.__qualname__
    raise TypeError(f"no source spelling for the type {t!r}")


_CLIENT_HEAD = '''"""The Python client's action methods, generated from the action table (`_actions.VOCABULARY`) by
`python -m simbridge._agent_port._codegen`: change the table, not this file."""

from __future__ import annotations

{imports}


class ClientActions:
    """One method per port action: each hands its arguments, by name, to `_act`."""

    def _act(self, kind: str, args: dict[str, Any]) -> Any:
        raise NotImplementedError
'''


def _wrapped(doc: str, width: int = 105) -> str:
    """A docstring's lines wrapped to `width` (an argument's further lines indented under it)."""
    import textwrap

    out = []
    for line in doc.split("\n"):
        lead = line[: len(line) - len(line.lstrip())]
        more = lead + "  " if line.startswith("  ") else lead
        out.extend(textwrap.wrap(line, width, initial_indent="", subsequent_indent=more) or [""])
    return "\n".join(out)


def client_source() -> str:
    """The source of `_client_actions.py` (before formatting)."""
    imports: dict[str, set[str]] = {"typing": {"Any"}}
    methods = []
    for spec in VOCABULARY.values():
        params = ["self"]
        for a in spec.params:
            p = f"{a.name}: {type_source(a.client_type, imports)}"
            params.append(p if a.required else f"{p} = {a.default!r}")
        ret = type_source(spec.returns.type, imports)
        doc = _wrapped(docstring(spec.doc, spec.params))
        if '"""' in doc or "\\" in doc:
            raise ValueError(f"{spec.kind}: a description holds a triple quote or a backslash")
        call = f"self._act({spec.kind!r}, {{{', '.join(f'{a.name!r}: {a.name}' for a in spec.params)}}})"
        body = call if spec.returns is NOTHING else f"return {call}"
        doc_lines = doc.rstrip("\n").split("\n")
        doc_src = "\n".join(("        " + line if line else "") for line in doc_lines)
        closing = '\n        """' if len(doc_lines) > 1 else '"""'
        methods.append(
            f"\n    def {spec.kind}({', '.join(params)}) -> {ret}:\n"
            f'        """{doc_src.lstrip()}{closing}\n'
            f"        {body}\n"
        )
    groups: list[list[str]] = [[], []]  # the standard library's, then simbridge's
    for module in sorted(imports):
        groups[module.startswith("simbridge")].append(f"from {module} import {', '.join(sorted(imports[module]))}")
    return _CLIENT_HEAD.format(imports="\n\n".join("\n".join(g) for g in groups if g)) + "".join(methods)


def write_client(path: Path = CLIENT_ACTIONS_PY) -> None:
    """Rewrite `_client_actions.py` from the table (formatted with ruff when it is installed)."""
    import shutil
    import subprocess
    import sys

    path.write_text(client_source())
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if Path(ruff).exists():
        subprocess.run([ruff, "format", "--quiet", str(path)], check=True)


if __name__ == "__main__":
    write_client()
    print(f"wrote {CLIENT_ACTIONS_PY}")
