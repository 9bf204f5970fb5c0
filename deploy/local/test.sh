#!/usr/bin/env bash
# Installs what the tests need, checks the format (swift format lint --strict, .swift-format), then builds and runs
# every test: the unit layer and the integration layer (the targets Package.swift adds when
# PUSH_WORKER_INTEGRATION=1), in one run.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash deploy/local/setup.sh
export PATH="$PWD/.venv/bin:$PATH"
export PUSH_WORKER_INTEGRATION=1
swift format lint --strict -r Sources Tests Package.swift
swift build
swift test
