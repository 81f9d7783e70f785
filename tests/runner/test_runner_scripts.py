"""Scripted-agent files: parsing, shorthand, and errors that name the file and item."""

from __future__ import annotations

import pytest

from simbridge._errors import SimbridgeError
from simbridge.agents import make_agent
from simbridge.agents._scripted import load_script


def test_shorthand_and_full_form(tmp_path):
    p = tmp_path / "s.yaml"
    p.write_text("""
actions:
  - {at: 1, key: Left, hold_s: 2}
  - {at: 2, click: [10, 20], button: right}
  - {at: 3, action: drag, path: [[0, 0], [5, 5]]}
  - {at: 4, wait: 0.5}
  - {at: 5, done: ok}
end: give_up
""")
    actions, end = load_script(p)
    assert end == "give_up"
    assert [(a.at, a.kind, a.args) for a in actions] == [
        (1.0, "key", {"keys": "Left", "hold_s": 2}),
        (2.0, "click", {"x": 10, "y": 20, "button": "right"}),
        (3.0, "drag", {"path": [[0, 0], [5, 5]]}),
        (4.0, "wait", {"seconds": 0.5}),
        (5.0, "done", {"reason": "ok"}),
    ]


@pytest.mark.parametrize(
    "body, msg",
    [
        ("actions: [{key: Left}]", r"actions\[0\]: missing 'at'"),
        ("actions: [{at: 1, fly: Left}]", r"actions\[0\]: name exactly one action"),
        ("actions: [{at: 1, key: Left, force: 2}]", r"unknown argument\(s\) \['force'\]"),
        ("actions: [{at: 2, key: a}, {at: 1, key: b}]", r"actions\[1\]: 'at' 1.0 is before"),
        ("actions: [{at: 1, click: 5}]", r"expected \[x, y\]"),
        ("end: later\nactions: []", "end must be"),
        ("just text", "expected a mapping"),
    ],
)
def test_errors_name_file_and_item(tmp_path, body, msg):
    p = tmp_path / "bad.yaml"
    p.write_text(body)
    with pytest.raises(SimbridgeError, match=msg) as exc:
        load_script(p)
    assert "bad.yaml" in str(exc.value)


def test_registry(tmp_path):
    p = tmp_path / "s.yaml"
    p.write_text("actions: []")
    assert make_agent(f"scripted:{p}", "T09").name == "scripted:s.yaml"
    assert make_agent("noop", "T09").name == "noop"
    with pytest.raises(SimbridgeError, match="unknown agent"):
        make_agent("autopilot9000", "T09")
    with pytest.raises(SimbridgeError, match="cannot read script"):
        make_agent(f"scripted:{tmp_path / 'missing.yaml'}", "T09")
    with pytest.raises(SimbridgeError, match="is not available"):
        make_agent("py:no_such_module_x:make", "T09")
