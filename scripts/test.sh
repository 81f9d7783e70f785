#!/usr/bin/env bash
# Runs the whole test suite on a fresh Debian/Ubuntu machine: sets up first (scripts/setup.sh:
# system packages incl. FlightGear and QEMU, the .venv), then pytest. Extra arguments go to pytest.
# SIMBRIDGE_VM_TESTS=0 skips building and booting the VM guest image (several minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
export SIMBRIDGE_VM_TESTS=${SIMBRIDGE_VM_TESTS:-1}
# a test that skips after the setup below is a failure (tests/conftest.py)
export SIMBRIDGE_STRICT_SKIPS=${SIMBRIDGE_STRICT_SKIPS:-1}
bash scripts/setup.sh
.venv/bin/ruff check simbridge adapters verifiers tests benchmarks scripts
.venv/bin/ruff format --check simbridge adapters verifiers tests benchmarks scripts
# types of the package as installed ([tool.mypy] in pyproject.toml; ~30 s on 2 cores, less when cached)
.venv/bin/mypy
exec .venv/bin/python -m pytest -q -p no:cacheprovider --durations=40 "$@"
