#!/usr/bin/env bash
# Runs the whole test suite on a fresh Debian/Ubuntu machine: sets up first (scripts/setup.sh),
# then pytest. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m pytest -q "$@"
