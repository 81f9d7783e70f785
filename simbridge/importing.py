"""What an importer plug-in (a simulator's own recording turned into a bundle) builds on.

One policy for every importer: an existing bundle is never overwritten silently
(`prepare_out`, `check_out`), what was left out or tolerated is recorded as a flag
(`lenient_flag`, `flags_of`, `TRUNCATED_IMPORT`), physically impossible samples are dropped and
counted (`RangeCheck`, `DropCounter`), a named vehicle that is not in the file is an error naming
the known ones (`no_such_name`), and input files are read with a size bound (`read_bounded`,
`read_yaml_input`). Write the bundle itself with `simbridge.BundleWriter` / `write_bundle`.
"""

from simbridge._bundle import read_bounded
from simbridge._import_policy import (
    IMPORTED,
    TRUNCATED_IMPORT,
    DropCounter,
    RangeCheck,
    check_out,
    flags_of,
    lenient_flag,
    no_such_name,
    prepare_out,
)
from simbridge._inputs import read_yaml_input

__all__ = [
    "IMPORTED",
    "TRUNCATED_IMPORT",
    "DropCounter",
    "RangeCheck",
    "check_out",
    "prepare_out",
    "flags_of",
    "lenient_flag",
    "no_such_name",
    "read_bounded",
    "read_yaml_input",
]
