"""One action vocabulary: the port's typed table (`_actions.VOCABULARY`, `_actions.COMPUTER_ARGS`) is
what the Python client's methods, the MCP server's tools, the Inspect tools and the computer-tool
translation all take, argument for argument and type for type, and every action of Inspect AI's
own `computer` tool maps to one port action."""

from __future__ import annotations

import ast
import asyncio
import inspect
import types
import typing

import pytest
from pydantic import TypeAdapter

from simbridge._agent_port import AgentPort, AgentPortClient
from simbridge._agent_port._actions import (
    ACTIONS,
    BUTTONS,
    COMPUTER_ACTIONS,
    COMPUTER_PARAMS,
    REQUIRED,
    VOCABULARY,
    computer_args,
    computer_call,
)
from simbridge._agent_port._client_actions import ClientActions
from simbridge._agent_port._codegen import CLIENT_ACTIONS_PY, client_source
from simbridge._agent_port._input import BUTTONS as X_BUTTONS
from simbridge._agent_port._mcp_server import build_server
from simbridge._errors import SimbridgeError


def test_client_methods_take_the_vocabularys_arguments():
    for kind, args in ACTIONS.items():
        sig = inspect.signature(getattr(AgentPortClient, kind))
        params = {n: p for n, p in sig.parameters.items() if n != "self"}
        assert list(params) == list(args), kind
        for name, default in args.items():
            want = inspect.Parameter.empty if default is REQUIRED else default
            assert params[name].default == want, (kind, name)


def test_client_methods_are_typed_from_the_table():
    for kind, spec in VOCABULARY.items():
        hints = typing.get_type_hints(getattr(AgentPortClient, kind))
        assert hints.pop("return") == (type(None) if spec.returns.type is None else spec.returns.type), kind
        assert hints == {a.name: a.client_type for a in spec.params}, kind
        doc = " ".join(getattr(AgentPortClient, kind).__doc__.split())
        assert " ".join(spec.doc.split()) in doc, kind
        assert all(f"{a.name}: {' '.join(a.doc.split())}" in doc for a in spec.params), kind


def test_the_generated_client_module_is_the_tables():
    """`_client_actions.py` is what `python -m simbridge._agent_port._codegen` makes of the table
    now (compared as syntax trees: formatting aside, a changed name, type, default or description
    in either fails)."""
    on_disk = ast.dump(ast.parse(CLIENT_ACTIONS_PY.read_text()))
    assert on_disk == ast.dump(ast.parse(client_source())), (
        "the action table changed: run `python -m simbridge._agent_port._codegen`"
    )
    assert issubclass(AgentPortClient, ClientActions)


def test_each_port_action_is_implemented_with_the_tables_arguments():
    for kind, spec in VOCABULARY.items():
        if kind in ("done", "give_up"):
            continue  # ended by the port itself (`_end`)
        params = [n for n in inspect.signature(getattr(AgentPort, f"_do_{kind}")).parameters if n != "self"]
        extra = ["max_bytes"] if kind == "screenshot" else []  # the transport's bound, not the agent's
        assert params == [a.name for a in spec.params] + extra, kind


def test_every_button_the_port_offers_has_an_x_button():
    assert set(BUTTONS) <= set(X_BUTTONS)


def test_a_generated_tool_function_hands_every_argument_to_its_implementation():
    from simbridge._agent_port._generate import tool_function

    seen: list[dict] = []

    async def impl(**kw):
        seen.append(kw)
        return "ran"

    spec = VOCABULARY["click"]
    fn = tool_function("click", spec.params, impl, doc=spec.doc, returns=str)
    assert fn.__name__ == "click" and fn.__doc__ == spec.doc
    assert list(inspect.signature(fn).parameters) == ["x", "y", "button", "count", "modifiers"]
    assert asyncio.run(fn(x=3, y=4)) == "ran"
    assert seen == [{"x": 3, "y": 4, "button": "left", "count": 1, "modifiers": None}]
    with pytest.raises(TypeError):
        asyncio.run(fn(x=3, y=4, colour="red"))
    with pytest.raises(TypeError):  # a required argument missing
        asyncio.run(tool_function("wait", VOCABULARY["wait"].params, impl, doc="")())


def _json_type(schema: dict) -> dict:
    """A property's schema without what describes it (title, default, description)."""
    return {k: v for k, v in schema.items() if k not in ("title", "default", "description")}


def _listed_tools() -> dict:
    """The MCP server's tools as an MCP client sees them (the official SDK's client, in memory)."""
    from mcp import Client

    async def listed() -> dict:
        async with Client(build_server(types.SimpleNamespace(brief=None))) as client:
            return {t.name: t for t in (await client.list_tools()).tools}

    return asyncio.run(listed())


def test_the_mcp_tool_list_is_the_table():
    tools = _listed_tools()
    assert set(tools) == set(VOCABULARY) | {"computer"}
    tables = {kind: (spec.params, spec.doc) for kind, spec in VOCABULARY.items()}
    tables["computer"] = (computer_args("mcp"), None)
    for name, (args, doc) in tables.items():
        schema = tools[name].input_schema
        props = schema.get("properties", {})
        assert list(props) == [a.name for a in args], name
        assert set(schema.get("required", [])) == {a.name for a in args if a.required}, name
        for a in args:
            assert _json_type(props[a.name]) == TypeAdapter(a.type).json_schema(), (name, a.name)
            assert props[a.name].get("description") == a.doc, (name, a.name)
            if not a.required:
                assert props[a.name]["default"] == a.default, (name, a.name)
        if doc is not None:
            assert tools[name].description == doc
    assert set(tools["computer"].input_schema["properties"]) == set(COMPUTER_PARAMS)
    assert tools["computer"].input_schema["properties"]["action"]["enum"] == list(COMPUTER_ACTIONS)


def test_the_inspect_computer_tool_takes_the_tables_computer_arguments():
    """Names, order, types and descriptions from the computer-use table; names and types exactly
    those of Inspect's own `computer()` tool (so providers take their native computer-use path)."""
    from inspect_ai.tool import computer as inspect_computer
    from inspect_ai.tool._tool_def import ToolDef

    from simbridge.integrations.inspect_ai._task import computer_tool

    ours = ToolDef(computer_tool(None)).parameters  # type: ignore[arg-type]
    theirs = ToolDef(inspect_computer()).parameters
    args = computer_args("inspect")
    assert list(ours.properties) == [a.name for a in args] == list(COMPUTER_PARAMS) == list(theirs.properties)
    assert ours.required == theirs.required == []
    for a in args:
        mine = ours.properties[a.name].model_dump(exclude_none=True)
        assert mine.pop("description") == a.doc
        want = theirs.properties[a.name].model_dump(exclude_none=True)
        want.pop("description", None)
        assert mine == want, a.name


def test_the_inspect_port_tools_take_the_tables_arguments():
    from inspect_ai.tool._tool_def import ToolDef

    from simbridge.integrations.inspect_ai._task import end_tools, file_tools

    for t in [*end_tools(None), *file_tools(None)]:  # type: ignore[arg-type]
        tool = ToolDef(t)
        spec = VOCABULARY[tool.name]
        assert tool.description == spec.doc
        assert list(tool.parameters.properties) == [a.name for a in spec.params]
        assert tool.parameters.required == [a.name for a in spec.params if a.required]
        for a in spec.params:
            assert tool.parameters.properties[a.name].description == a.doc


def test_inspect_computer_tool_schema_is_ours():
    from inspect_ai.tool._tools._computer import _computer

    assert set(typing.get_args(_computer.Action)) == set(COMPUTER_ACTIONS)
    assert _computer._COMPUTER_TOOL_PARAMETERS == frozenset(COMPUTER_PARAMS)


def test_our_inspect_computer_tool_offers_the_actions_as_an_enum():
    """The model sees `action` and `scroll_direction` as JSON-schema enums (generated from the
    one action table), parameter names exactly those of Inspect's own `computer` tool."""
    from inspect_ai.tool._tool_def import ToolDef

    from simbridge.integrations.inspect_ai._task import computer_tool

    params = ToolDef(computer_tool(None)).parameters  # type: ignore[arg-type]
    assert frozenset(params.properties) == frozenset(COMPUTER_PARAMS)
    enums = {
        name: [a.enum for a in params.properties[name].anyOf or [] if a.enum] for name in ("action", "scroll_direction")
    }
    assert enums == {"action": [list(COMPUTER_ACTIONS)], "scroll_direction": [["up", "down", "left", "right"]]}


@pytest.mark.parametrize(
    "call,expected",
    [
        (
            {"action": "left_click", "coordinate": [10, 20]},
            [("click", {"x": 10, "y": 20, "button": "left", "count": 1})],
        ),
        (
            {"action": "left_click", "coordinate": [1, 2], "text": "shift"},
            [("click", {"x": 1, "y": 2, "button": "left", "count": 1, "modifiers": "shift"})],
        ),
        ({"action": "back_click"}, [("click", {"button": "back", "count": 1})]),
        ({"action": "double_click", "coordinate": [3, 4]}, [("click", {"x": 3, "y": 4, "button": "left", "count": 2})]),
        ({"action": "key", "text": "Left", "repeat": 5}, [("key", {"keys": "Left", "repeat": 5})]),
        ({"action": "hold_key", "text": "s", "duration": 2}, [("key", {"keys": "s", "hold_s": 2})]),
        (
            {"action": "type", "text": "hi", "coordinate": [5, 6], "press_enter": True},
            [("type", {"text": "hi", "x": 5, "y": 6, "press_enter": True})],
        ),
        (
            {"action": "scroll", "coordinate": [5, 6], "scroll_direction": "left", "scroll_amount": 2},
            [("scroll", {"x": 5, "y": 6, "dx": -2, "dy": 0})],
        ),
        (
            {"action": "left_click_drag", "start_coordinate": [1, 2], "coordinate": [3, 4]},
            [("drag", {"path": [[1, 2], [3, 4]]})],
        ),
        ({"action": "left_mouse_down"}, [("mouse_down", {"button": "left"})]),
        ({"action": "wait", "duration": 3}, [("wait", {"seconds": 3})]),
        ({"action": "zoom", "region": [0, 0, 100, 50]}, [("screenshot", {"region": [0, 0, 100, 50]})]),
        (
            {"actions": [{"action": "screenshot"}, {"action": "cursor_position"}]},
            [("screenshot", {}), ("cursor_position", {})],
        ),
    ],
)
def test_computer_calls_map_one_to_one(call, expected):
    assert computer_call(call) == expected
    for kind, args in expected:
        assert set(args) <= set(ACTIONS[kind])


@pytest.mark.parametrize(
    "call,message",
    [
        ({"action": "fly"}, "unsupported action 'fly'"),
        ({"action": "left_click", "coordinate": [1]}, r"coordinate=\[1\] is not an"),
        ({"action": "key"}, "needs text"),
        ({"action": "scroll", "scroll_direction": "sideways"}, "scroll_direction='sideways'"),
        ({"action": "navigate", "text": "https://example.com"}, "not a web browser"),
        ({"action": "screenshot", "bogus": 1}, "unknown argument"),
    ],
)
def test_bad_computer_calls_say_what_is_wrong(call, message):
    with pytest.raises(SimbridgeError, match=message):
        computer_call(call)
