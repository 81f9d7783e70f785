"""Sandbox providers by name. `local` today; `netns` and `vm` plug in here with the same interface."""

from __future__ import annotations

from simbridge._errors import SimbridgeError
from simbridge._providers._base import SCREEN_DEPTH, SCREEN_H, SCREEN_W, Provider
from simbridge._providers._local import LocalProvider
from simbridge._providers._procs import ProcessSet

#: provider name -> class; planned names map to None until implemented
PROVIDERS: dict[str, type[Provider] | None] = {"local": LocalProvider, "netns": None, "vm": None}


def make_provider(name: str) -> Provider:
    if name not in PROVIDERS:
        raise SimbridgeError(f"unknown provider {name!r} (known: {', '.join(PROVIDERS)})")
    cls = PROVIDERS[name]
    if cls is None:
        raise SimbridgeError(f"provider {name!r} is not implemented yet (available: local)")
    return cls()


__all__ = ["PROVIDERS", "LocalProvider", "ProcessSet", "Provider", "SCREEN_DEPTH", "SCREEN_H", "SCREEN_W",
           "make_provider"]
