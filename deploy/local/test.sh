#!/usr/bin/env bash
# Installs what the tests need, checks the format (swift format lint --strict, .swift-format), then builds and runs
# every test: the unit layer (`swift test` alone), then the integration layer (the targets Package.swift adds when
# PUSH_WORKER_INTEGRATION=1) in a process of its own, the unit targets skipped there.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash deploy/local/setup.sh
export PATH="$PWD/.venv/bin:$PATH"
swift format lint --strict -r Sources Tests Package.swift
unset PUSH_WORKER_INTEGRATION
swift build
swift test
unit_targets=$(swift package dump-package | python3 -c \
    'import json, sys; print("|".join(t["name"] for t in json.load(sys.stdin)["targets"] if t["type"] == "test"))')
PUSH_WORKER_INTEGRATION=1 swift test --skip "^($unit_targets)\."
