"""simbridge tasks as Inspect AI tasks: `inspect eval simbridge/gui_task -T task=T16 -T sim=jsbsim`.

Registered through the `inspect_ai` entry point (pyproject), so no import is needed; see
`_task.py` for the sample, tool, solver and scorer design."""

from simbridge.integrations.inspect_ai._task import gui_task, parse_tasks, simbridge_episode, simbridge_verifier

__all__ = ["gui_task", "parse_tasks", "simbridge_episode", "simbridge_verifier"]
