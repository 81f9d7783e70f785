"""The embedded simulator: JSBSim paced to real time in a pygame cockpit window.

- `JSBSimSession`: the host-side SimSession (launches the cockpit, reads its state ports).
- `layout`: the cockpit's fixed pixel layout and how to read each gauge (a contract for
  pilots that read the screen).
- `MAPPINGS`, `to_canonical`: the property -> canonical signal table.
- The cockpit process itself: `python -m simbridge.adapters.jsbsim.cockpit --help`.
"""

from simbridge.adapters.jsbsim import _layout as layout
from simbridge.adapters.jsbsim._mapping import MAPPINGS, to_canonical
from simbridge.adapters.jsbsim._session import JSBSimSession

__all__ = ["JSBSimSession", "MAPPINGS", "layout", "to_canonical"]
