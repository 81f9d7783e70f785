"""Host-side UDP listener that records Bridge Command's NMEA output to a capture file.

Bridge Command sends to `NMEA_UDPAddress:NMEA_UDPPort` (bc5.ini:232-235; default
localhost:10110, resolved as IPv4, bridgecommand/bc src/NMEA.cpp:45). Each datagram is one
queued message: a single sentence, two $IIRPM, one $RATTM per ARPA track, or !AIVDM reports
packed up to a little over 800 bytes (NMEA.cpp:354-370, :456-486, :605-621), every sentence
ending CR LF. The recorder binds that address on the host, stamps each sentence with its receive time (seconds
since `start()`, monotonic) and appends it to the capture, flushing every datagram so a killed
run keeps what arrived. It never sends anything (the simulator's input port, 10111, is not
touched).
"""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

from simbridge.adapters.kit import enlarge_receive_buffer


class NmeaUdpRecorder:
    def __init__(self, path: str | Path, *, host: str = "127.0.0.1", port: int = 10110, poll_s: float = 0.2) -> None:
        self.path = Path(path)
        self.host, self.port, self.poll_s = host, port, poll_s
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._t0 = 0.0
        self.n_sentences = 0

    @property
    def address(self) -> tuple[str, int]:
        """The bound address (the real port when constructed with port 0)."""
        if self._sock is None:
            return (self.host, self.port)
        return self._sock.getsockname()[:2]

    def start(self) -> "NmeaUdpRecorder":
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        enlarge_receive_buffer(sock)
        sock.bind((self.host, self.port))
        sock.settimeout(self.poll_s)
        self._sock = sock
        self._t0 = time.monotonic()
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="nmea-udp-recorder", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        assert self._sock is not None
        with open(self.path, "a", encoding="ascii", errors="replace", newline="\n") as fh:
            while not self._stop.is_set():
                try:
                    data, _ = self._sock.recvfrom(65535)
                except socket.timeout:
                    continue
                except OSError:
                    break
                t = time.monotonic() - self._t0
                lines = [ln.strip() for ln in data.decode("ascii", "replace").split("\n")]
                lines = [ln for ln in lines if ln]
                for ln in lines:
                    fh.write(f"{t:.3f} {ln}\n")
                self.n_sentences += len(lines)
                fh.flush()

    def stop(self) -> Path:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5 * self.poll_s + 1.0)
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        return self.path

    def __enter__(self) -> "NmeaUdpRecorder":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
