"""One action vocabulary: the port's table (`_actions.VOCABULARY`) is what the Python client's
methods, the MCP server's tools and the computer-tool translation all take, argument for
argument, and every action of Inspect AI's own `computer` tool maps to one port action."""

from __future__ import annotations

import asyncio
import inspect
import types
import typing

import pytest

from simbridge._agent_port import AgentPortClient
from simbridge._agent_port._actions import ACTIONS, COMPUTER_ACTIONS, COMPUTER_PARAMS, REQUIRED, computer_call
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


def test_mcp_tools_take_the_vocabularys_arguments():
    tools = {t.name: t for t in asyncio.run(build_server(types.SimpleNamespace(brief=None)).list_tools())}
    assert set(ACTIONS) <= set(tools)
    for kind, args in ACTIONS.items():
        schema = tools[kind].input_schema
        assert set(schema.get("properties", {})) == set(args), kind
        assert set(schema.get("required", [])) == {n for n, d in args.items() if d is REQUIRED}, kind
    assert set(tools["computer"].input_schema["properties"]) == set(COMPUTER_PARAMS)


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
