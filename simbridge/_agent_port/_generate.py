"""Tool functions generated from the action table (`_actions`): the MCP server's tools and the
Inspect AI tools get their signatures, types and descriptions from it, so no door hand-copies an
argument list (the Python client's methods are generated as source: `_codegen`).

`tool_function(name, args, impl, ...)` is an async function whose signature (`__signature__`,
`__annotations__`) and docstring come from the table, for frameworks that build a tool's schema
from a typed function (the MCP SDK's `Tool.from_function`, Inspect AI's `@tool`).
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

from simbridge._agent_port._actions import Arg


def signature(
    args: Sequence[Arg], returns: Any = inspect.Signature.empty, *, describe: bool = False
) -> inspect.Signature:
    """The signature of a function taking `args`, keyword-only (a required argument may follow an
    optional one). `describe`: each annotation carries the argument's description as a pydantic
    `Field` (the MCP SDK puts it into the JSON schema)."""
    from pydantic import Field

    params = []
    for a in args:
        ann = typing.Annotated[a.type, Field(description=a.doc)] if describe and a.doc else a.type
        default = inspect.Parameter.empty if a.required else a.default
        params.append(inspect.Parameter(a.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=ann))
    return inspect.Signature(params, return_annotation=returns)


def docstring(summary: str, args: Sequence[Arg]) -> str:
    """`summary` and a Google-style `Args:` section with each argument's description (Inspect AI
    and docs generators read argument descriptions from there)."""
    described = [a for a in args if a.doc]
    if not described:
        return summary
    return summary + "\n\nArgs:\n" + "".join(f"  {a.name}: {a.doc}\n" for a in described)


def tool_function(
    name: str,
    args: Sequence[Arg],
    impl: Callable[..., Awaitable[Any]],
    *,
    doc: str,
    returns: Any = Any,
    describe: Literal["annotations", "docstring"] = "annotations",
) -> Callable[..., Awaitable[Any]]:
    """An async function `name(**args)` that calls `impl` with every argument (defaults filled in),
    typed from the table: `describe="annotations"` puts each argument's description into its
    annotation (for the MCP SDK) and `doc` is the docstring; `"docstring"` writes them into an
    `Args:` section of the docstring (for Inspect AI, which reads them there)."""
    sig = signature(args, returns, describe=describe == "annotations")

    async def tool(*a: Any, **kw: Any) -> Any:
        bound = sig.bind(*a, **kw)
        bound.apply_defaults()
        return await impl(**bound.arguments)

    tool.__name__ = tool.__qualname__ = name
    tool.__doc__ = doc if describe == "annotations" else docstring(doc, args)
    tool.__signature__ = sig  # type: ignore[attr-defined]
    tool.__annotations__ = {p.name: p.annotation for p in sig.parameters.values()} | {"return": returns}
    return tool
