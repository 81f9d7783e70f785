"""`inspect eval simbridge/gui_task …` exits non-zero when an episode ended unscored.

Inspect's `inspect eval` command exits 0 whatever happened to the samples (a model that could
not be reached, a solver exception, a cancelled sample: the log's status says `error` or
`cancelled`, the exit code does not). A researcher's script or CI must not read such a run as a
result, so this hook, registered with the task (the `inspect_ai` entry point imports it),
ends the `inspect eval` command with:

- 4 when an episode of this run ended unscored (a failure outside the agent's control: the
  model's API, a solver exception, an interrupted or cancelled sample, the simulator or the
  harness failing: docs/cli-exit-codes.md's "unscored");
- 1 when a simbridge task's log is not `success` (an error before any episode ran).

Only under the `inspect eval` command line (a click context named `eval`): `inspect_ai.eval()`
in a script returns its logs as usual and never exits the process.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

from inspect_ai.hooks import Hooks, RunEnd, TaskEnd, hooks

from simbridge._exit import Exit

EXIT_ERROR, EXIT_UNSCORED = int(Exit.CHECK_FAILED), int(Exit.UNSCORED)

_lock = threading.Lock()
#: reasons of the episodes that ended unscored in this run; simbridge task logs that did not succeed
_unscored: list[str] = []
_failed_logs: list[str] = []


def note_unscored(reason: str) -> None:
    """Called by the solver for every episode that ended unscored."""
    with _lock:
        _unscored.append(reason)


def _inspect_eval_cli() -> Any:
    """The click context of the `inspect eval` command this process runs, or None."""
    import click

    ctx = click.get_current_context(silent=True)
    return ctx if ctx is not None and ctx.info_name == "eval" else None


@hooks(name="simbridge_exit_status", description="inspect eval exits non-zero when a simbridge episode is unscored")
class SimbridgeExitStatus(Hooks):
    async def on_task_end(self, data: TaskEnd) -> None:
        log = data.log
        if log.eval.task.endswith("gui_task") and log.status != "success":
            with _lock:
                _failed_logs.append(f"{log.eval.task}: {log.status}")

    async def on_run_end(self, data: RunEnd) -> None:
        with _lock:
            unscored, failed = list(_unscored), list(_failed_logs)
            _unscored.clear()
            _failed_logs.clear()
        ctx = _inspect_eval_cli()
        if not (unscored or failed) or ctx is None:
            return
        code = EXIT_UNSCORED if unscored else EXIT_ERROR
        what = f"{len(unscored)} episode(s) unscored ({unscored[0]})" if unscored else f"{failed[0]}"

        def leave() -> None:
            print(f"simbridge: {what}; exit {code}", file=sys.stderr)
            raise SystemExit(code)

        # once the command has written its log and returned: click runs the context's close
        # callbacks as the `eval` command ends, and a SystemExit there is the process's status
        ctx.call_on_close(leave)
