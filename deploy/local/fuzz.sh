#!/usr/bin/env bash
# Fuzzes push-worker with hostile records and a hostile provider (docs/testing.md, "Fuzzing"): installs what is missing,
# builds push-worker (debug; `--release` first for an optimized build), then deploy/local/fuzz.py starts the dev
# broker, the push simulator in hostile mode and `push-worker run`, and checks that every record is accounted for.
# Other arguments go to fuzz.py (--help lists them), e.g. deploy/local/fuzz.sh --records 100000 --provider-answers
# 10000 --seed 1.
# `--hostile-h2` (before the others) first runs both HTTP/2 transports against every mode of the hostile HTTP/2
# server (Tests/PushSimulator/hostile_h2.py: split TLS records, zero streams, zero window, large bodies, early
# hints, PING/SETTINGS/WINDOW_UPDATE floods), asserting their threads' CPU and the process's memory stay bounded.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash deploy/local/setup.sh
if [ "${1:-}" = "--hostile-h2" ]; then
    shift
    # HostileServerTests is an integration suite: it exists only with PUSH_WORKER_INTEGRATION=1.
    PUSH_WORKER_INTEGRATION=1 PATH="$PWD/.venv/bin:$PATH" swift test --filter HostileServerTests
fi
configuration=debug
if [ "${1:-}" = "--release" ]; then
    configuration=release
    shift
fi
swift build -c "$configuration" --product push-worker
source deploy/local/librdkafka.sh
exec .venv/bin/python deploy/local/fuzz.py --worker "$(swift build -c "$configuration" --show-bin-path)/push-worker" "$@"
