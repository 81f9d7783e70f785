"""A verifier's own bug (an exception inside it, an item its task does not declare, an item it
declares but never records) is the harness's fault: unscored, with one line naming the verifier,
the error and the verifier's line — never a traceback and never a score the agent is charged."""

from __future__ import annotations

import sys
from pathlib import Path

from simbridge import load_task
from simbridge.testing import score_task
from simbridge.params import FiniteParams
from simbridge.registry import REGISTRY
from simbridge.verifier import VerifyContext, register_module, verifier
from synth import steep_turn

T09 = load_task("T09")
ITEMS = tuple(c.name for c in T09.partial_credit)
SAFETY = tuple(s.name for s in T09.safety)


def _as(name: str):
    return T09.model_copy(update={"verifier": T09.verifier.model_copy(update={"name": name, "params": {}})})


@verifier("test_bug_raises", params=FiniteParams, components=ITEMS, safety=SAFETY)
def _raises(ctx: VerifyContext) -> str:
    return str(1 / 0)


@verifier("test_bug_undeclared", params=FiniteParams, components=ITEMS, safety=SAFETY)
def _undeclared(ctx: VerifyContext) -> str:
    ctx.component("not_an_item_of_t09", 1.0)
    return ""


@verifier("test_bug_forgets", params=FiniteParams, components=ITEMS, safety=SAFETY)
def _forgets(ctx: VerifyContext) -> str:
    return ""


register_module(REGISTRY, sys.modules[__name__])  # as a plug-in's register() adds its verifiers


def test_an_exception_inside_a_verifier_is_unscored_naming_it_and_its_line(tmp_path: Path) -> None:
    s = score_task(tmp_path, _as("test_bug_raises"), steep_turn())
    assert s.status == "unscored" and s.score is None
    assert s.reason is not None and "\n" not in s.reason
    assert "'test_bug_raises' raised ZeroDivisionError: division by zero at test_verifier_bugs.py:" in s.reason


def test_an_undeclared_item_names_the_item_and_the_declared_ones(tmp_path: Path) -> None:
    s = score_task(tmp_path, _as("test_bug_undeclared"), steep_turn())
    assert s.status == "unscored" and s.reason is not None
    assert "'test_bug_undeclared' raised KeyError: no partial-credit item 'not_an_item_of_t09' in task T09" in s.reason
    assert ITEMS[0] in s.reason and "test_verifier_bugs.py:" in s.reason


def test_an_item_declared_but_not_recorded_is_unscored(tmp_path: Path) -> None:
    s = score_task(tmp_path, _as("test_bug_forgets"), steep_turn())
    assert s.status == "unscored" and s.reason is not None
    assert s.reason.startswith("verifier bug: 'test_bug_forgets' did not record") and ITEMS[0] in s.reason
