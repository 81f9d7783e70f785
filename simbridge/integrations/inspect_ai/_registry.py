"""What the `inspect_ai` entry point loads: importing registers `simbridge/gui_task`."""

from simbridge.integrations.inspect_ai._task import gui_task, simbridge_episode, simbridge_verifier  # noqa: F401
