"""Helpers shared by test modules (imported as `support.<module>`; tests/ is on sys.path).

Nothing here is named `test_*`, so pytest collects no test from this package: it holds the
launchers, samplers and setups that several test modules need, written once.

- `support.runner`: run `simbridge run` on the toy double as a subprocess, read its bundles;
  `McpRun`, a `simbridge run --agent mcp` waiting for an MCP client, and `mcp_client`.
- `support.browser`: Debian's chromium for Playwright (`CHROMIUM`, its launch `ARGS`,
  `launch_chromium`, the `needs_chromium` mark).
- `support.flightgear`: `flightgear_bundle`, a bundle of a FlightGear session's samples as the
  runner would write it.
- `support.sampling`: `SessionSampler`, a thread polling a SimSession the way the runner's
  recorder does (the latest values, every sample, waiting for simulator time).
- `support.vm`: `run_in_vm`, one lockstep episode in the VM guest; `guest_audit`, the checks
  every VM episode passes (ran in the guest, isolated, the audit inside passed).
"""
