"""`python -m simbridge.adapters.jsbsim.cockpit`: the cockpit process."""

import sys

from simbridge.adapters.jsbsim.cockpit._app import main

sys.exit(main())
