"""Bridge Command: NMEA 0183 output (UDP, as the simulator sends it) → episode bundles."""

from simbridge.adapters.bridgecommand.nmea import (
    NmeaError,
    Sentence,
    import_nmea,
    nmea_checksum,
    parse_capture,
    parse_sentence,
)
from simbridge.adapters.bridgecommand.recorder import NmeaUdpRecorder

__all__ = [
    "NmeaError",
    "NmeaUdpRecorder",
    "Sentence",
    "import_nmea",
    "nmea_checksum",
    "parse_capture",
    "parse_sentence",
]
