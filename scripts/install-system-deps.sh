#!/usr/bin/env bash
# Installs the Debian packages the test suite needs (Chromium for the docs page browser test); safe to re-run.
# `--bench` also installs the benchmark tools (wrk, linux-perf) used by `npm run bench`; CI does not need them.
set -euo pipefail

bench=false
for arg in "$@"; do
  case "$arg" in
    --bench) bench=true ;;
    *)
      echo "usage: $0 [--bench]" >&2
      exit 2
      ;;
  esac
done

# Run as root directly, otherwise through sudo (CI runners usually have passwordless sudo).
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  else
    sudo "$@"
  fi
}

packages=()
if command -v chromium >/dev/null 2>&1; then
  echo "chromium already installed: $(command -v chromium)"
else
  packages+=(chromium)
fi
if [ "$bench" = true ]; then
  for tool in wrk perf; do
    if command -v "$tool" >/dev/null 2>&1; then
      echo "$tool already installed: $(command -v "$tool")"
    elif [ "$tool" = perf ]; then
      packages+=(linux-perf)
    else
      packages+=("$tool")
    fi
  done
fi

if [ "${#packages[@]}" -gt 0 ]; then
  as_root apt-get update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "${packages[@]}"
fi

# perf exits 0 even when the counter is `<not supported>`, so look for a number in its CSV output.
if [ "$bench" = true ] && ! perf stat -x, -e instructions true 2>&1 | grep -q '^[0-9]'; then
  echo "note: perf cannot count instructions here (no hardware counters in this VM, or perf_event_paranoid);" \
    "the bench then reports CPU time per request only" >&2
fi
