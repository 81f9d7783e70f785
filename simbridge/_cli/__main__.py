"""`python -m simbridge._cli`: the command line, as the `simbridge` script."""

import sys

from simbridge._cli import main

sys.exit(main())
