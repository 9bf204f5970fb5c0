#!/usr/bin/env bash
# Soaks both HTTP/2 transports side by side (docs/performance.md, "Soak"): installs what is missing, builds
# push-worker (release; `--debug` first for a debug build), then deploy/local/soak.py starts the dev broker, the
# push simulator with faults on (429/503 with Retry-After, GOAWAY, reset streams, slow answers, expiring tokens)
# and one worker per transport, writes the same events to both for 30 minutes and compares their receipts.
# Other arguments go to soak.py (--help lists them), e.g. deploy/local/soak.sh --minutes 10, or --short (1 minute).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash deploy/local/setup.sh
configuration=release
if [ "${1:-}" = "--debug" ]; then
    configuration=debug
    shift
fi
swift build -c "$configuration" --product push-worker
source deploy/local/librdkafka.sh
exec .venv/bin/python deploy/local/soak.py --worker "$(swift build -c "$configuration" --show-bin-path)/push-worker" "$@"
