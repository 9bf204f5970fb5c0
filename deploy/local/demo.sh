#!/usr/bin/env bash
# The embedded demo, in one command: installs what is missing, builds push-worker, then deploy/local/demo.py
# starts the dev broker, the push simulator and `push-worker run`, sends sample chat traffic, prints what each
# device received and the receipts, and stops everything (docs/demo.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash deploy/local/setup.sh
# A debug build: the demo needs no optimizer, and `swift build` for the tests shares it.
swift build --product push-worker
source deploy/local/librdkafka.sh
exec .venv/bin/python deploy/local/demo.py --worker "$(swift build --show-bin-path)/push-worker"
