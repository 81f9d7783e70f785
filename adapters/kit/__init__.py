"""The shared adapter kit: what every simulator adapter needs and should not write again.

One concept per module; import the names from here (`from simbridge.adapters.kit import ...`):

- `free_port`, `kill_group`, `end_process` (from `simbridge.sim`, here for convenience): a free
  TCP/UDP port for a listener about to be opened; the one SIGTERM -> grace -> SIGKILL sequence;
- `launch_window_process`, `window_env`, `check_window`, `PYGAME_ENV` (launch): an embedded
  simulator's window process on the sandbox's display, through the provider's spawn or locally
  with a log, and the check that its window really is there;
- `Drain` (drain): the buffer between a reader thread and `SimSession.poll()`/`events()`;
- `DerivedEvents`, `AP_SIGNALS` (derived): crash / autopilot change / touchdown events computed
  from canonical samples;
- `FailurePlan`, `PlannedFailure`, `draw_height` (failures): harness-injected failures, drawn
  per (task, seed), with the one `failure_injected` payload (`FailureInjectedData`);
- `RateThinner` (rate): keep a stream's frames at an asked rate on average (a due-time
  schedule in the stream's own clock), for every adapter that thins a faster stream;
- `LineServer`, `LineClient` (lineserver): the non-blocking TCP line server of the programs that
  run inside a sandbox (accept, line buffers, broadcast, a slow client dropped); each program
  keeps only its protocol;
- `enlarge_receive_buffer` (udp): a UDP receive buffer that holds minutes of state packets, so a
  reader thread starved of CPU on a loaded machine loses none;
- `user_cache_dir`, `cached_text` (from `simbridge.sim`, here for convenience): `$XDG_CACHE_HOME/simbridge/...`,
  for what an adapter converts once and keeps between processes;
- `RecordLoop`, `Tick`, `record_episode`, `StallGuard`, `STALL_STATUS` (record): the one record-only
  loop (`simbridge record`); a stream that stalls ends `harness_error`.

docs/adding-a-simulator.md says which to use for what.
"""

from simbridge.adapters.kit.derived import AP_SIGNALS, DerivedEvents
from simbridge.adapters.kit.drain import Drain
from simbridge.adapters.kit.failures import FailurePlan, PlannedFailure, draw_height
from simbridge.adapters.kit.lineserver import LineClient, LineServer
from simbridge.adapters.kit.udp import RECEIVE_BUFFER_BYTES, enlarge_receive_buffer
from simbridge.adapters.kit.launch import PYGAME_ENV, check_window, launch_window_process, window_env
from simbridge.sim import cached_text, end_process, free_port, kill_group, user_cache_dir
from simbridge.adapters.kit.rate import RateThinner
from simbridge.adapters.kit.record import STALL_STATUS, RecordLoop, StallGuard, Tick, WrapUp, record_episode

__all__ = [
    "AP_SIGNALS",
    "DerivedEvents",
    "Drain",
    "FailurePlan",
    "LineClient",
    "LineServer",
    "PlannedFailure",
    "RECEIVE_BUFFER_BYTES",
    "RateThinner",
    "RecordLoop",
    "STALL_STATUS",
    "StallGuard",
    "Tick",
    "WrapUp",
    "check_window",
    "draw_height",
    "enlarge_receive_buffer",
    "end_process",
    "free_port",
    "kill_group",
    "launch_window_process",
    "PYGAME_ENV",
    "record_episode",
    "window_env",
    "cached_text",
    "user_cache_dir",
]
