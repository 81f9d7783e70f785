"""`python -m simbridge`: the command line, as the `simbridge` script."""

import sys

from simbridge._cli import main

sys.exit(main())
