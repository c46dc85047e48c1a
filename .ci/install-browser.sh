#!/usr/bin/env bash
# Install the browser for the explorer's browser test (tests/test_explorer_browser.py):
# Debian's chromium at /usr/bin/chromium. Idempotent: does nothing when it is already there.
# Never downloads a browser build of its own (no `playwright install`): the test drives this
# system Chromium through Python playwright with executable_path="/usr/bin/chromium".
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  echo "install-browser: $(/usr/bin/chromium --version 2>/dev/null || echo chromium) already at /usr/bin/chromium"
  exit 0
fi

SUDO=
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo -n"
  else
    echo "install-browser: not root and no sudo; install Debian's chromium by hand (apt-get install chromium)" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
start=$(date +%s)
$SUDO apt-get update -q
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium fonts-liberation
echo "install-browser: $(/usr/bin/chromium --version 2>/dev/null) installed in $(( $(date +%s) - start )) s"
