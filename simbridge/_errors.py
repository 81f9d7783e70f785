"""Errors the harness raises on bad input. Each names what is wrong and where."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


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


def error_loc(loc: Sequence[int | str], *, top: str = "", indexed: bool = False) -> str:
    """A pydantic error location as text: `a.0.b` (or `a[0].b` when `indexed`); `top` when empty."""
    if not indexed:
        return ".".join(str(p) for p in loc) or top
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or top


def first_error(
    exc: ValidationError,
    where: str = "",
    *,
    prefix: str = "",
    top: str = "",
    indexed: bool = False,
    count: bool = False,
) -> str:
    """The first error of `exc` as one line: `WHERE: field 'PREFIX+LOC': MESSAGE` (with
    ` (and N more)` when `count` and there are more). The one formatter of pydantic errors for a
    person: every loader of a file, a field or an argument in simbridge words it this way."""
    err = exc.errors()[0]
    more = f" (and {exc.error_count() - 1} more)" if count and exc.error_count() > 1 else ""
    line = f"field '{prefix}{error_loc(err['loc'], top=top, indexed=indexed)}': {err['msg']}{more}"
    return f"{where}: {line}" if where else line
