"""argparse types shared by the subcommands: one wording for a bad number everywhere."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path


def number(
    kind: type, *, lo: float | None = None, lo_open: bool = False, hi: float | None = None
) -> Callable[[str], float]:
    """An argparse type: a finite number of `kind` within bounds, with a one-line complaint."""

    def parse(text: str) -> float:
        if not text.isascii():  # int() and float() take '١٢٣' (Arabic-Indic digits) as 123
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not {'an integer' if kind is int else 'a number'}")
        if len(text) > 400:  # a number of 4,300 digits is an error of int(), a slow one of float()
            raise argparse.ArgumentTypeError(f"{text[:40]!r}… ({len(text)} characters) is not a number")
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {'an integer' if kind is int else 'a number'}") from None
        if not math.isfinite(v):
            raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
        if lo is not None and (v <= lo if lo_open else v < lo):
            raise argparse.ArgumentTypeError(f"{text} must be {'>' if lo_open else '≥'} {lo:g}")
        if hi is not None and v > hi:
            raise argparse.ArgumentTypeError(f"{text} must be ≤ {hi:g}")
        return v

    return parse


#: the largest `--time-limit` accepted (simulator seconds: one simulated day); a bigger one
#: would make a trial wait practically forever
MAX_TIME_LIMIT_S = 86400.0


def writable_dir(path: Path, option: str) -> Path:
    """Check that `path` (an --out directory) is, or can be made, a directory this process can
    write: naming a file, a read-only place or one without permission is one-line SimbridgeError
    naming the option, before anything runs. Nothing is created here (a run whose preflight then
    fails leaves no folder behind); the run makes the folder."""
    import os
    import tempfile

    from simbridge._errors import SimbridgeError
    from simbridge._inputs import check_path

    check_path(path, f"{option}")  # a name over 255 bytes, a loop of links: one line
    if path.exists() and not path.is_dir():
        raise SimbridgeError(f"{option} {path}: is a file, not a directory")
    existing = path
    while not existing.exists():
        if existing.is_symlink():
            raise SimbridgeError(f"{option} {path}: {existing} is a dangling symbolic link")
        existing = existing.parent
    if not existing.is_dir():
        raise SimbridgeError(f"{option} {path}: cannot write there: {existing} is a file, not a directory")
    try:
        if existing == path:
            with tempfile.TemporaryFile(dir=path):
                pass
        elif not os.access(existing, os.W_OK | os.X_OK):
            raise PermissionError(13, "Permission denied")
        elif os.statvfs(existing).f_flag & os.ST_RDONLY:
            raise OSError(30, "Read-only file system")
        else:
            # permission bits are not the whole story (/proc grants root write access and
            # refuses every mkdir): make a folder there and take it away again
            os.rmdir(tempfile.mkdtemp(prefix=".simbridge-probe-", dir=existing))
    except OSError as exc:
        raise SimbridgeError(f"{option} {path}: cannot write there: {exc.strerror or exc}") from None
    return path
