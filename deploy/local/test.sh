#!/usr/bin/env bash
# Installs what the tests need, checks the format (swift format lint --strict, .swift-format), then builds and runs
# every test (unit and integration).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash deploy/local/setup.sh
export PATH="$PWD/.venv/bin:$PATH"
swift format lint --strict -r Sources Tests Package.swift
swift build
swift test
