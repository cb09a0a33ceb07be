#!/usr/bin/env bash
# Runs every bench scenario in turn (`npm run bench`); arguments are passed to each scenario's runner.
# Needs wrk and taskset (and optionally perf): scripts/install-system-deps.sh --bench installs them.
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in wrk taskset; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "bench: $tool is not installed; run scripts/install-system-deps.sh --bench" >&2
    exit 1
  fi
done

# Generates the shared data sets once; later runs reuse bench/data/out/.
node bin/run-ts.js bench/data/generate-bench-data.ts

echo "== relay-read"
node bin/run-ts.js bench/relay-read/run.ts "$@"

echo "== relay-aggregate"
node bin/run-ts.js bench/relay-aggregate/generate-aggregate-data.ts
node bin/run-ts.js bench/relay-aggregate/run.ts "$@"

echo "== relay-postgres (needs DATABASE_URL or a server on 127.0.0.1:5432)"
node bin/run-ts.js bench/relay-postgres/run.ts "$@"

echo "== relay-reload"
node bin/run-ts.js bench/relay-reload/run.ts

echo "== relay-metadata"
node bin/run-ts.js bench/relay-metadata/run.ts "$@"

echo "== verifier-evaluate"
node bin/run-ts.js bench/verifier-evaluate/run.ts "$@"
