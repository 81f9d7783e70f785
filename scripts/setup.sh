#!/usr/bin/env bash
# Installs what simbridge needs on a fresh Debian/Ubuntu machine: system packages (Xvfb,
# xdotool, FlightGear unless SIMBRIDGE_NO_FLIGHTGEAR=1) and a virtualenv in .venv with the
# package and its extras. Idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"

apt_pkgs=(python3-venv xvfb xdotool x11-utils x11vnc xauth libgl1-mesa-dri dbus iproute2 nftables procps util-linux chromium postgresql)
[ "${SIMBRIDGE_NO_FLIGHTGEAR:-0}" = 1 ] || apt_pkgs+=(flightgear)
# node + npm for the MSFS double's cross-check with node-simconnect; a Node.js from elsewhere
# (e.g. NodeSource's package, which carries npm and conflicts with Debian's) is used as it is
command -v node >/dev/null 2>&1 || apt_pkgs+=(nodejs)
command -v npm >/dev/null 2>&1 || apt_pkgs+=(npm)
[ "${SIMBRIDGE_VM_TESTS:-0}" = 1 ] && apt_pkgs+=(debootstrap qemu-system-x86 qemu-utils e2fsprogs)

missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing system packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Prefer the distribution's interpreter: sandboxed processes run as unprivileged users, and an
# interpreter under a private home (pyenv in /root) is not executable for them.
if [ -z "${PYTHON:-}" ] && [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; else PY=${PYTHON:-python3}; fi
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# The editable install maps simbridge.adapters/.verifiers/.tasks to the top-level folders with
# an import hook that type checkers and editors cannot follow. These git-ignored links give them
# the installed layout (simbridge/adapters -> ../adapters); unlike setuptools' strict editable
# mode (a link tree of files) a file added later is seen at once, with no reinstall.
for d in adapters verifiers tasks; do
  [ -L "simbridge/$d" ] || [ ! -e "simbridge/$d" ] || { echo "setup: simbridge/$d exists and is not a link" >&2; exit 1; }
  ln -sfn "../$d" "simbridge/$d"
done
stamp=.venv/.simbridge-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ setup.py -nt "$stamp" ]; then
  .venv/bin/pip install -q --upgrade pip >/dev/null
  .venv/bin/pip install -q -e ".[sim,carla,drive,xplane,report,eval,inspect,gym,msfs,review,docs,test,guest]"
  # pyautogui (guest extra) pulls python3-xlib, an old fork installed over python-xlib's Xlib package
  if .venv/bin/pip show -q python3-xlib 2>/dev/null; then
    .venv/bin/pip uninstall -q -y python3-xlib && .venv/bin/pip install -q --force-reinstall --no-deps "python-xlib>=0.33"
  fi
  touch "$stamp"
fi
