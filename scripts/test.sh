#!/usr/bin/env bash
# Runs the test suite on a fresh Debian/Ubuntu machine: sets up first (scripts/setup.sh: system
# packages incl. FlightGear and QEMU, the .venv), lints, type-checks, then pytest on three workers
# (pytest-xdist; the scheduler in tests/xdist_groups.py keeps each module's tests on one worker, so its
# fixtures are made once, runs the VM tests one after another, hands out the longest first, and runs
# at most two groups that compute at once: the third worker takes the groups that mostly wait).
#   bash scripts/test.sh           everything, as CI runs it
#   bash scripts/test.sh --fast    the daily tier: no FlightGear, no VM, no root sandboxes, no
#                                  simulator episode longer than a few seconds (-m "not slow ...")
# Extra arguments go to pytest. SIMBRIDGE_VM_TESTS=0 skips building and booting the VM guest image
# (several minutes); SIMBRIDGE_TEST_WORKERS sets the number of pytest workers (default 3).
# SIMBRIDGE_TEST_TIMELINE=FILE records where the time went (scripts/test_timeline.py reads it).
set -euo pipefail
cd "$(dirname "$0")/.."
fast=0
if [ "${1:-}" = "--fast" ]; then
  fast=1
  shift
  export SIMBRIDGE_VM_TESTS=0
fi
export SIMBRIDGE_VM_TESTS=${SIMBRIDGE_VM_TESTS:-1}
# FlightGear draws at most 5 frames a second (adapters/flightgear/_launch.py): above the 4 a 0.25 s
# simulator step needs for real time, and the rest of the CPU goes to the tests beside it (a
# lockstep episode beside FlightGear measured 1.31x its time alone unthrottled, 1.10x at 5 fps)
export SIMBRIDGE_FG_MAX_FPS=${SIMBRIDGE_FG_MAX_FPS:-5}
# a test that skips after the setup below is a failure (tests/conftest.py)
export SIMBRIDGE_STRICT_SKIPS=${SIMBRIDGE_STRICT_SKIPS:-1}
bash scripts/setup.sh
.venv/bin/ruff check simbridge adapters verifiers tests benchmarks scripts examples
.venv/bin/ruff format --check simbridge adapters verifiers tests benchmarks scripts examples
# types of the package as installed ([tool.mypy] in pyproject.toml; ~30 s on 2 cores, less when cached)
# and the documentation site, strictly (a broken link or a docstring the API reference cannot
# render fails; not --quiet: mkdocs 1.6 then drops the warnings and --strict has nothing to
# count), side by side: each is one process
site=$(mktemp -d)
.venv/bin/mkdocs build --strict --site-dir "$site" >"$site.log" 2>&1 &
docs=$!
.venv/bin/mypy
if ! wait "$docs"; then
  grep -v '^INFO' "$site.log" >&2
  exit 1
fi
rm -rf "$site" "$site.log"
args=(-q -p no:cacheprovider -n "${SIMBRIDGE_TEST_WORKERS:-3}" --dist loadgroup --durations=40)
if [ "$fast" = 1 ]; then
  args+=(-m "not slow and not flightgear and not vm and not root")
fi
exec .venv/bin/python -m pytest "${args[@]}" "$@"
