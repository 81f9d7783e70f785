"""Exit codes of the `simbridge` command: the one table every command, `simbridge --help`,
`simbridge eval` and docs/cli-exit-codes.md read (a test checks the page's table equals this one).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from enum import IntEnum


class Exit(IntEnum):
    """How a command ended."""

    OK = 0
    CHECK_FAILED = 1
    USAGE = 2
    AGENT_FAILED = 3
    UNSCORED = 4
    HARNESS = 5
    INTERRUPTED = 130

    def __str__(self) -> str:  # the number, as on Python 3.11+, also on 3.10
        return str(int(self))


@dataclass(frozen=True)
class ExitCodeDoc:
    code: Exit
    #: for `simbridge --help` (plain text, wrapped there)
    short: str
    #: for docs/cli-exit-codes.md (Markdown)
    meaning: str
    raised_by: str


EXIT_CODES: tuple[ExitCodeDoc, ...] = (
    ExitCodeDoc(
        Exit.OK,
        "ok (run: every trial scored and ended by the agent's `done`)",
        "ok. For `run`: every trial was scored and ended by the agent's `done` (or by a crash the verifier judged)",
        "all commands",
    ),
    ExitCodeDoc(
        Exit.CHECK_FAILED,
        "a check ran and failed (audit, vm check, tasks validate)",
        "a check ran and failed: the isolation audit (`audit`, `vm check`) or task validation (`tasks validate`)",
        "`audit`, `vm check`, `tasks validate`",
    ),
    ExitCodeDoc(
        Exit.USAGE,
        "bad usage or bad input (unknown task or simulator, invalid file or number, failed preflight); nothing was run",
        "bad usage or bad input: unknown task, simulator, importer or agent; an invalid number; an unreadable "
        "bundle, recording or log; a failed preflight check. Nothing was run",
        "any `SimbridgeError` that is not a `HarnessError`; argparse usage errors",
    ),
    ExitCodeDoc(
        Exit.AGENT_FAILED,
        "run: every trial scored, but the agent failed in at least one (gave up, timed out)",
        "`run`: every trial scored, but the agent failed in at least one (gave up, timed out, disconnected, "
        "raised). `eval`: every episode scored, but one did not end as expected (`completed`, or the suite's "
        "`expect:`, docs/eval.md)",
        "`run`, `eval`",
    ),
    ExitCodeDoc(
        Exit.UNSCORED,
        "run: at least one trial unscored (a harness fault during the episode); "
        "any command: the disk filled up while writing (unscored)",
        "`run`: at least one trial unscored — a harness fault *during* a trial (simulator crash, launch "
        "failure, lost telemetry, failed audit), or a failure outside the agent's control (an `ExternalFault` "
        "out of the agent, an MCP agent that never connected). `inspect eval simbridge/gui_task`: an episode "
        "unscored (a model/API error, a solver exception, a cancelled sample; docs/inspect-and-gymnasium.md). "
        "Any command: the disk filled up while writing (`simbridge: harness fault: disk full writing FILE: No "
        "space left on device (unscored)`); a bundle being sealed is marked `harness_error`, flag `disk_full`, "
        "and left without a manifest",
        "`run`, `eval`, any command on ENOSPC",
    ),
    ExitCodeDoc(
        Exit.HARNESS,
        "harness fault outside a trial (simulator not answering, sandbox or VM failure)",
        "a harness fault *outside* a trial: the simulator does not answer `record`, the sandbox or VM cannot "
        "be built or started",
        "any `HarnessError` (`simbridge/_errors.py`) reaching the command line",
    ),
    ExitCodeDoc(
        Exit.INTERRUPTED,
        "interrupted (Ctrl-C, SIGTERM)",
        "interrupted (Ctrl-C, SIGTERM)",
        "all commands",
    ),
)

#: what `run` says on stderr when it ends with 3 or 4
RUN_ENDING: dict[Exit, str] = {
    Exit.AGENT_FAILED: "every trial scored; the agent failed in at least one (gave up, timed out or disconnected)",
    Exit.UNSCORED: "at least one trial is unscored (harness fault)",
}


def help_text() -> str:
    """The `exit codes:` section of `simbridge --help`."""
    lines = ["exit codes:"]
    for doc in EXIT_CODES:
        head = f"  {int(doc.code):<4} "
        wrapped = textwrap.wrap(doc.short, width=92 - len(head)) or [""]
        lines.append(head + wrapped[0])
        lines += [" " * len(head) + w for w in wrapped[1:]]
    return "\n".join(lines)


def docs_table() -> str:
    """The table of docs/cli-exit-codes.md, one row per code."""
    rows = ["| code | meaning | raised by |", "|---|---|---|"]
    rows += [f"| {int(d.code)} | {d.meaning} | {d.raised_by} |" for d in EXIT_CODES]
    return "\n".join(rows)


__all__ = ["EXIT_CODES", "RUN_ENDING", "Exit", "ExitCodeDoc", "docs_table", "help_text"]
