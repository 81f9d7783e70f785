"""The suite file: which tasks, on which simulators, with which agents, how many trials, and how
episodes run (provider, lockstep, time-limit scale, retries). Validated with pydantic; every
problem is one line naming the file and the field, like a task spec.

    name: smoke
    trials: 1
    time_limit_scale: 0.1      # each task's limit × 0.1 (flagged time_limit_cut in episode.json)
    retries: 1                 # harness faults (unscored) are retried this often; agent failures never
    matrix:
      - tasks: [T09, T16]      # ids, `tag:NAME`, or `all-runnable`
        sims: [jsbsim]
        agents: [reference, noop]
        max_time_limit_s: 90   # optional: this entry's own scale / cap
        expect: {noop: timeout}  # outcomes expected other than `completed` (exit code 0)
      - tasks: [T09]
        sims: [jsbsim]
        agents: [reference]
        assists: [readout]     # optional (also suite-wide): assists the simulator offers, flagged, kept apart

`tasks`/`sims`/`agents` at the top level are a shorthand for a single matrix entry. A
`scripted:FILE` agent's FILE is relative to the suite file and shipped to the node that runs the
episode (nodes share no disk).
"""

from __future__ import annotations

import difflib
import math
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from simbridge._run_config import DEFAULT_LOCKSTEP_SLICE_S
from simbridge._errors import SimbridgeError, first_error
from simbridge._status import AgentOutcome
from simbridge._taskspec import TASK_ID


class SuiteError(SimbridgeError):
    """A suite file is malformed: names the file, the field and what is wrong."""


_TASK_REF = re.compile(rf"^(tag:[\w.-]+|all-runnable|{TASK_ID})$")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


#: an episode's expected outcome: the agent's own statuses (never a harness fault)
Expected = AgentOutcome


class MatrixEntry(_Model):
    """One block of the suite: every task × sim × agent in it, `trials` times."""

    tasks: list[str] = Field(min_length=1, description="task ids (T09, T01@PHJR), `tag:NAME` or `all-runnable`")
    sims: list[str] = Field(min_length=1, description="simulator names (jsbsim, flightgear, …) or module:Class")
    agents: list[str] = Field(min_length=1, description="agent strings as `simbridge run --agent` takes them")
    trials: int | None = Field(default=None, ge=1, le=1000, description="trials per cell (default: the suite's)")
    #: the suite's time-limit scale and cap, overridden for this entry (a steep turn needs its
    #: 360°: the smoke suite gives T09 90 s where a tenth of its limit, 30 s, cuts the turn short)
    time_limit_scale: float | None = Field(default=None, gt=0, le=1)
    max_time_limit_s: float | None = Field(default=None, gt=0)
    #: lockstep for this entry's episodes, instead of the suite's (FlightGear's pilots fly in real time)
    lockstep: bool | None = None
    #: the outcome expected of an agent where it is not `completed` (its done): `{noop: timeout}`
    #: — the do-nothing baseline is meant to time out, and doing so is not a failure of the suite;
    #: a list where either is expected (`{noop: [timeout, completed]}`: an aircraft left alone may
    #: also fly into the sea, which ends the episode)
    #: assists for this entry's episodes (`simbridge run --assist`), instead of the suite's
    assists: list[str] | None = None
    expect: dict[str, Expected | list[Expected]] = Field(default_factory=dict)

    @field_validator("tasks")
    @classmethod
    def _task_refs(cls, refs: list[str]) -> list[str]:
        for r in refs:
            if not isinstance(r, str) or not _TASK_REF.match(r):
                raise ValueError(f"{r!r} is not a task id (T09, T01@PHJR), tag:NAME or all-runnable")
        return refs

    @model_validator(mode="after")
    def _expect_names_agents(self) -> "MatrixEntry":
        for a in self.expect:
            if a not in self.agents:
                raise ValueError(f"expect: {a!r} is not one of this entry's agents ({', '.join(self.agents)})")
        return self

    @field_validator("agents")
    @classmethod
    def _agent_strings(cls, agents: list[str]) -> list[str]:
        for a in agents:
            if a in ("mcp", "human"):
                raise ValueError(
                    f"agent {a!r} waits for a person or an external client; a suite needs agents "
                    "that run by themselves (noop, reference, scripted:FILE, py:MODULE:FACTORY)"
                )
        return agents


class Suite(_Model):
    name: str = Field(pattern=r"^[\w.-]+$", description="label of the run in metrics")
    trials: int = Field(default=1, ge=1, le=1000)
    #: a registered sandbox provider (simbridge's own: local, netns, vm; a plug-in's by its name)
    provider: str = "local"
    lockstep: bool = False
    #: simulator seconds run after each input in lockstep (`simbridge run --slice`)
    lockstep_slice_s: float = Field(default=DEFAULT_LOCKSTEP_SLICE_S, gt=0, le=60)
    #: each task's time limit × this (0 < scale ≤ 1); below 1 the episode is flagged time_limit_cut
    time_limit_scale: float = Field(default=1.0, gt=0, le=1)
    #: an absolute cap on any episode's time limit (simulator seconds), applied after the scale
    max_time_limit_s: float | None = Field(default=None, gt=0)
    #: attempts after the first for an episode that ends in a harness fault
    retries: int = Field(default=1, ge=0, le=10)
    frame_hz: float = Field(default=1.0, ge=0, le=30)
    #: seed of trial 1 (trial k uses seed + k - 1), as `simbridge run --seed`
    seed: int | None = None
    #: assists each episode asks for, as `simbridge run --assist NAME` (an entry's own `assists` wins):
    #: each must be offered by every simulator of the entry; recorded, flagged and never pooled
    assists: list[str] = Field(default_factory=list)
    unisolated: bool = False
    matrix: list[MatrixEntry] = Field(default_factory=list)
    # shorthand for a single matrix entry
    tasks: list[str] | None = None
    sims: list[str] | None = None
    agents: list[str] | None = None

    @field_validator("provider")
    @classmethod
    def _known_provider(cls, name: str) -> str:
        from simbridge.registry import registry

        known = registry().names("provider")
        if name not in known:
            near = difflib.get_close_matches(name, known, n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise ValueError(f"unknown provider {name!r} (registered: {', '.join(sorted(known))}){hint}")
        return name

    @model_validator(mode="after")
    def _shorthand(self) -> "Suite":
        given = [self.tasks is not None, self.sims is not None, self.agents is not None]
        if any(given):
            if not all(given):
                missing = [n for n, g in zip(("tasks", "sims", "agents"), given) if not g][0]
                raise ValueError(f"field '{missing}' is missing (top-level tasks, sims and agents go together)")
            self.matrix = [
                MatrixEntry(tasks=self.tasks or [], sims=self.sims or [], agents=self.agents or []),
                *self.matrix,
            ]
            self.tasks = self.sims = self.agents = None
        if not self.matrix:
            raise ValueError("field 'matrix' is missing: say which tasks, sims and agents to run")
        return self

    def time_limit_s(self, task_limit_s: float, entry: MatrixEntry | None = None) -> float | None:
        """The episode's time limit, or None for the task's own (`entry` may override the
        suite's scale and cap)."""
        scale = entry.time_limit_scale if entry is not None and entry.time_limit_scale is not None else None
        cap = entry.max_time_limit_s if entry is not None and entry.max_time_limit_s is not None else None
        limit = task_limit_s * (scale if scale is not None else self.time_limit_scale)
        cap = cap if cap is not None else self.max_time_limit_s
        if cap is not None:
            limit = min(limit, cap)
        return None if math.isclose(limit, task_limit_s) or limit >= task_limit_s else limit


def suite_file(suite: str | Path) -> Path:
    """The suite file: `suite` itself, or the file of the suite registered under that name
    (simbridge.registry, kind `suite`: a plug-in's, or suites/NAME.yaml of a checkout)."""
    suite = Path(suite)
    if suite.exists() or suite.suffix or len(suite.parts) > 1:
        return suite
    from simbridge.registry import registry

    entry = registry().find("suite", str(suite))
    return registry().suite(str(suite)) if entry is not None else suite


def load_suite(path: Path) -> Suite:
    """The suite in `path`; SuiteError of one line naming the file, the line or field."""
    path = Path(path)
    from simbridge._inputs import read_yaml_input

    # a regular file of bounded size (a FIFO or /dev/zero is refused, not read), strict YAML
    data = read_yaml_input(path, "a suite file", error=SuiteError)
    if not isinstance(data, dict):
        raise SuiteError(f"{path}: expected a mapping of suite fields (name, matrix, …) at the top level")
    data.setdefault("name", path.stem)
    try:
        return Suite.model_validate(data)
    except ValidationError as exc:
        line = first_error(exc, str(path), top="?", indexed=True, count=True).replace(": Value error, ", ": ", 1)
        # a check of the whole suite names its own field: "PATH: field '?': field 'x': ..." reads as "PATH: field 'x': ..."
        raise SuiteError(line.replace(": field '?': field '", ": field '", 1)) from None
