#!/usr/bin/env bash
# Installs what the tests need, checks the format (swift format lint --strict, .swift-format), then builds and runs
# every test: the unit layer (`swift test` alone), in a network namespace of its own when the machine allows one
# (no network there, not even loopback: a unit test that opens a connection fails), then the integration layer (the
# targets Package.swift adds when PUSH_WORKER_INTEGRATION=1) in processes of its own, the unit targets skipped there:
# first everything but the consumer-group suites, a few tests at a time, then those suites one test at a time.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash deploy/local/setup.sh
export PATH="$PWD/.venv/bin:$PATH"
# shellcheck source=librdkafka.sh
source deploy/local/librdkafka.sh
swift format lint --strict -r Sources Tests Package.swift
unset PUSH_WORKER_INTEGRATION
swift build --build-tests
isolated=()
if unshare -rn true 2>/dev/null; then
    isolated=(unshare -rn)
else
    echo "test.sh: no network namespace here (unshare -rn); the unit layer runs with the network" >&2
fi
"${isolated[@]}" swift test --skip-build
unit_targets=$(swift package dump-package | python3 -c \
    'import json, sys; print("|".join(t["name"] for t in json.load(sys.stdin)["targets"] if t["type"] == "test"))')
# Suites whose workers share a consumer group, scale, restart or are killed: their rebalances are timing races on
# the mock cluster (docs/kafka.md), so they run alone, on a machine the other suites no longer load.
group_suites='ConsumerGroupTests|ScaleOutInTests|RollingRestartTests|WorkerCrashTests|CrashDuplicatesTests'
group_suites+='|ReceiptCopiesEndToEndTests'
export PUSH_WORKER_INTEGRATION=1
status=0
swift test --experimental-maximum-parallelization-width 6 \
    --skip "^($unit_targets)\." --skip "\.($group_suites)/" || status=$?
swift test --skip-build --no-parallel --filter "\.($group_suites)/" || status=$?
exit "$status"
