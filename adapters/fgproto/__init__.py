"""Host-side clients for FlightGear's network protocols, shared by every adapter that speaks
them (FlightGear itself, and the embedded JSBSim cockpit that serves the same subset):

- `TelnetProps`: the telnet property protocol (`get`, `set`, pipelined `get_many`, `run`, `ls`)
  in data mode; every failure or timeout is a HarnessError.
- `GenericProtocol` / `Chunk`: a generic-protocol definition that renders the XML FlightGear
  loads and decodes its text packets; the first field is always `/sim/time/elapsed-sec`.
- `UdpReceiver`: a threaded UDP receiver yielding `(t_sim, values)`.
- `TcpStreamReceiver`: the same packets, one per line, over a TCP connection the host opens
  (for sandboxes that may send nothing to the host).
"""

from simbridge.adapters.fgproto._generic import CLOCK_NAME, CLOCK_NODE, Chunk, GenericProtocol
from simbridge.adapters.fgproto._stream import TcpStreamReceiver
from simbridge.adapters.fgproto._telnet import TelnetProps
from simbridge.adapters.fgproto._udp import UdpReceiver

__all__ = ["CLOCK_NAME", "CLOCK_NODE", "Chunk", "GenericProtocol", "TcpStreamReceiver", "TelnetProps", "UdpReceiver"]
