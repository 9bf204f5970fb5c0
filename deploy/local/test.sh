#!/usr/bin/env bash
# Installs what the tests need, checks the format (swift format lint --strict, .swift-format), then builds and runs
# every test: the unit layer (`swift test` alone), in a network namespace of its own when the machine allows one
# (no network there, not even loopback: a unit test that opens a connection fails), then the integration layer (the
# targets Package.swift adds when PUSH_WORKER_INTEGRATION=1) in a process of its own, the unit targets skipped there.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash deploy/local/setup.sh
export PATH="$PWD/.venv/bin:$PATH"
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
PUSH_WORKER_INTEGRATION=1 swift test --skip "^($unit_targets)\."
