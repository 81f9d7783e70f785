"""OpenBVE: read the black-box log `logs.bin` (entries + score records) into episode bundles."""

from simbridge.adapters.openbve.logs import (
    BLACKBOX_DTYPE,
    SCORE_DTYPE,
    SCORE_TOKENS,
    BlackBoxLog,
    LogsError,
    import_logs,
    read_logs,
)

__all__ = ["BLACKBOX_DTYPE", "SCORE_DTYPE", "SCORE_TOKENS", "BlackBoxLog", "LogsError", "import_logs", "read_logs"]
