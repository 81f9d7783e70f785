"""Errors of the CARLA adapter."""

from __future__ import annotations

from simbridge import BundleError
from simbridge.adapters.kit.opendrive import OpenDriveError  # shared with the drive simulator


class RecorderFormatError(BundleError):
    """A CARLA recorder file is truncated or corrupt. The message names the file and byte offset."""

    def __init__(self, path: str, offset: int, problem: str) -> None:
        self.path = path
        self.offset = offset
        self.problem = problem
        super().__init__(f"{path}: byte {offset}: {problem}")


__all__ = ["OpenDriveError", "RecorderFormatError"]
