"""Ending a simulator's process: one SIGTERM -> grace -> SIGKILL sequence for every adapter.

`kill_group` lives with the providers' process sets (simbridge._providers._procs) so the
harness, the VM guest and every adapter stop processes the same way; this module is where an
adapter author finds it, with `end_process` for a simulator that is asked to quit first.
"""

from __future__ import annotations

from simbridge._providers._procs import end_process, kill_group

__all__ = ["end_process", "kill_group"]
