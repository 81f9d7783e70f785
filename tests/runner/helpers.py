"""Moved to `support.runner` (tests/support/, a package pytest does not collect); this name is
kept for modules not yet importing it from there."""

from support.runner import TOY, episode, needs_xvfb, pid_alive, run_simbridge, runner_env  # noqa: F401
from support.runner import simbridge_cmd, trial_dirs, write_script  # noqa: F401
