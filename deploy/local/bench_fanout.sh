#!/usr/bin/env bash
# Per-pod memory, LMDB size and restore time of PUSH_REGISTRY_SCOPE=assigned for fleets of 1, 2 and 4 workers over
# the dev broker, with a release build of the worker. Arguments go to deploy/local/bench_fanout.py (--help lists
# them), e.g. --broker tansu --devices 1000000. Also a new pod's seconds from assignment to first send, and the
# end-to-end rate of one-device IMKIT messages with each scope.
set -euo pipefail
cd "$(dirname "$0")/../.."
# Beyond the usual setup, the bench's push endpoint: nginx with the echo module (deploy/local/bench.sh).
bash deploy/local/setup.sh nginx libnginx-mod-http-echo
swift build -c release --product push-worker
bin="$(swift build -c release --show-bin-path)/push-worker"
echo "bench: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
source deploy/local/librdkafka.sh
exec .venv/bin/python deploy/local/bench_fanout.py --bin "$bin" "$@"
