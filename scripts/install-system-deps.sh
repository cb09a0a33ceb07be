#!/usr/bin/env bash
# Installs the Debian packages the test suite needs (Chromium for the docs page browser test); safe to re-run.
set -euo pipefail

# Run as root directly, otherwise through sudo (CI runners usually have passwordless sudo).
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  else
    sudo "$@"
  fi
}

if command -v chromium >/dev/null 2>&1; then
  echo "chromium already installed: $(command -v chromium)"
else
  as_root apt-get update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
fi
