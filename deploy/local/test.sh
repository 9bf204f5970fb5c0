#!/usr/bin/env bash
# Installs what the tests need, then builds and runs every test (unit and integration).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash deploy/local/setup.sh
export PATH="$PWD/.venv/bin:$PATH"
swift build
swift test
