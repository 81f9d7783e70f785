#!/usr/bin/env bash
# Runs the test suite on a fresh Debian/Ubuntu machine: sets up first (scripts/setup.sh: system
# packages incl. FlightGear and QEMU, the .venv), lints, type-checks, then pytest on two workers
# (pytest-xdist; the scheduler in tests/xdist_groups.py keeps each module's tests on one worker, so its
# fixtures are made once, runs the VM tests one after another, and hands out the longest first).
#   bash scripts/test.sh           everything, as CI runs it
#   bash scripts/test.sh --fast    the daily tier: no FlightGear, no VM, no root sandboxes, no
#                                  simulator episode longer than a few seconds (-m "not slow ...")
# Extra arguments go to pytest. SIMBRIDGE_VM_TESTS=0 skips building and booting the VM guest image
# (several minutes); SIMBRIDGE_TEST_WORKERS sets the number of pytest workers (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
fast=0
if [ "${1:-}" = "--fast" ]; then
  fast=1
  shift
  export SIMBRIDGE_VM_TESTS=0
fi
export SIMBRIDGE_VM_TESTS=${SIMBRIDGE_VM_TESTS:-1}
# a test that skips after the setup below is a failure (tests/conftest.py)
export SIMBRIDGE_STRICT_SKIPS=${SIMBRIDGE_STRICT_SKIPS:-1}
bash scripts/setup.sh
.venv/bin/ruff check simbridge adapters verifiers tests benchmarks scripts examples
.venv/bin/ruff format --check simbridge adapters verifiers tests benchmarks scripts examples
# types of the package as installed ([tool.mypy] in pyproject.toml; ~30 s on 2 cores, less when cached)
.venv/bin/mypy
# the documentation site, strictly: a broken link or a docstring the API reference cannot render fails
# (not --quiet: mkdocs 1.6 then drops the warnings and --strict has nothing to count)
site=$(mktemp -d)
if ! .venv/bin/mkdocs build --strict --site-dir "$site" >"$site.log" 2>&1; then
  grep -v '^INFO' "$site.log" >&2
  exit 1
fi
rm -rf "$site" "$site.log"
args=(-q -p no:cacheprovider -n "${SIMBRIDGE_TEST_WORKERS:-2}" --dist loadgroup --durations=40)
if [ "$fast" = 1 ]; then
  args+=(-m "not slow and not flightgear and not vm and not root")
fi
exec .venv/bin/python -m pytest "${args[@]}" "$@"
