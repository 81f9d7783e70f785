"""What the `inspect_ai` entry point loads: importing registers `simbridge/gui_task` and the hook
that makes `inspect eval` exit non-zero for an unscored episode (`_exit`). Its samples are any
registered task on any registered simulator, an installed plug-in's included (docs/plugins.md):
`inspect eval simbridge/gui_task -T task=climb_demo`."""

from simbridge.integrations.inspect_ai._task import gui_task, simbridge_episode, simbridge_verifier  # noqa: F401
from simbridge.integrations.inspect_ai._exit import SimbridgeExitStatus  # noqa: F401
