#!/usr/bin/env bash
# End-to-end benchmark of push-worker (Kafka in, HTTP/2 out, receipts in Kafka) on this machine:
# dev broker + nginx as a fast TLS HTTP/2 push endpoint + the push simulator for OAuth + a release build
# of the worker, on both HTTP/2 transports (libcurl, then nghttp2; --transport curl or nghttp2 runs one). Arguments go
# to deploy/local/bench.py (--help lists them), e.g. --events 300000.
set -euo pipefail
cd "$(dirname "$0")/../.."
# Beyond the usual setup, the fast endpoint: nginx with the echo module (reads each request body before
# answering); h2load (nghttp2-client), which measures what the endpoint alone takes; libnghttp2-dev, to build the
# bare nghttp2 peer (bench_nghttp2_peer.c).
bash deploy/local/setup.sh nginx libnginx-mod-http-echo nghttp2-client libnghttp2-dev

swift build -c release --product push-worker
bin="$(swift build -c release --show-bin-path)/push-worker"
echo "bench: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
source deploy/local/librdkafka.sh
exec .venv/bin/python deploy/local/bench.py --bin "$bin" "$@"
