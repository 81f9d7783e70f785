"""The embedded simulator: JSBSim paced to real time in a pygame cockpit window.

- `JSBSimSession`: the host-side SimSession (launches the cockpit, reads its state ports).
- `layout`: the cockpit's fixed pixel layout and how to read each gauge (a contract for
  pilots that read the screen).
- `MAPPINGS`, `to_canonical`: the property -> canonical signal table.
- `cockpit/`: the program that runs inside the sandbox (JSBSim, panel, view, input, state
  ports): `python -m simbridge.adapters.jsbsim.cockpit --help`. The host side never imports it.
- `_scenario`, `_airports`, `_layout`: shared by both sides (the scenario the host hands the
  cockpit, the airport data, the panel layout that `layout` publishes).

Names load on first use, so a screen-reading pilot can import `simbridge.adapters.jsbsim.layout`
without pulling in the session, the telnet client or jsbsim.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "JSBSimSession": ("simbridge.adapters.jsbsim._session", "JSBSimSession"),
    "MAPPINGS": ("simbridge.adapters.jsbsim._mapping", "MAPPINGS"),
    "to_canonical": ("simbridge.adapters.jsbsim._mapping", "to_canonical"),
    "layout": ("simbridge.adapters.jsbsim.layout", None),
}

__all__ = ["JSBSimSession", "MAPPINGS", "layout", "to_canonical"]


def __getattr__(name: str) -> Any:
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    mod = importlib.import_module(module)
    return mod if attr is None else getattr(mod, attr)
