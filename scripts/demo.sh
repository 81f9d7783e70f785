#!/usr/bin/env bash
# The README demo: T09 steep turn on the embedded JSBSim simulator, flown by the reference pilot.
set -euo pipefail
cd "$(dirname "$0")/.."
SIMBRIDGE_NO_FLIGHTGEAR=1 bash scripts/setup.sh
# --snapshot-at 30: a PNG of the cockpit 30 s into the episode, mid-turn (snapshot_t30.png in the bundle)
exec .venv/bin/simbridge run T09 --sim jsbsim --agent reference --out runs/demo --snapshot-at 30 "$@"
