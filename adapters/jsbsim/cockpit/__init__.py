"""The program that runs inside the sandbox: JSBSim paced to real time in a pygame cockpit window.

    python -m simbridge.adapters.jsbsim.cockpit --help

Nothing here is imported by the host side (`JSBSimSession`, `_mapping`), which talks to this
process only over its state ports. It reads the shared scenario (`.._scenario`), airport data
(`.._airports`) and the published panel layout (`.._layout`) from the adapter's folder.

- `_app`: the process (argument parsing, pacing, lockstep `run advance`, drawing).
- `_fdm`: the JSBSim wrapper (engine, electrics, crash detection, NAV receiver).
- `_props`, `_server`: the FlightGear-compatible property tree and its telnet/generic ports.
- `_panel`, `_view`, `_input`: what the agent sees and how its keys and clicks act.
"""
