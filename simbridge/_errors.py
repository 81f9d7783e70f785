"""Errors the harness raises on bad input. Each names what is wrong and where."""

from __future__ import annotations


class SimbridgeError(Exception):
    """Base class: a message meant for a person, printed as one line by the CLI."""


class TaskSpecError(SimbridgeError):
    """A task YAML is malformed: names the file, the field and what is wrong."""


class BundleError(SimbridgeError):
    """An episode bundle cannot be read: names the file, the column or line and the problem."""


class Unscorable(SimbridgeError):
    """A verifier cannot decide a criterion (missing signal, telemetry gap, harness fault).

    Raised inside a verifier; the framework turns it into `status: unscored` with this reason,
    never into a score of 0.
    """


class HarnessError(SimbridgeError):
    """The harness itself failed (simulator crash, launch failure, lost telemetry)."""
