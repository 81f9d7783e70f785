"""The per-user cache folder: things worth keeping between processes that can always be made
again (a converted road network, Plotly's compressed bundle), under `$XDG_CACHE_HOME/simbridge`."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path


def user_cache_dir(*parts: str) -> Path:
    """`$XDG_CACHE_HOME/simbridge/PARTS` (`~/.cache` when unset); not created here."""
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg, "simbridge", *parts)


def cached_text(path: Path, make: Callable[[], str]) -> str:
    """The text in `path`, made by `make` and written there (atomically) when absent. A cache
    that cannot be written costs only the time: the text is returned all the same."""
    try:
        return path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        pass
    text = make()
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except OSError:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
    return text
