#!/usr/bin/env bash
# A/B benchmark of two revisions of push-worker in ONE run: both are built in release mode (each from a clean
# export of its commit, cached by its sources in $PUSH_AB_DIR, default /tmp/push-ab; `.` is this checkout as it is,
# uncommitted changes included), then deploy/local/bench.py runs them alternately (A B, B A, A B, …) against the
# same broker and endpoint, with the bare libcurl peer once per round, and prints pushes/s, CPU per 10k pushes,
# peak RSS and the ratio to the peer for every run, then the median per revision and case. Each revision runs on
# every HTTP/2 transport of --transport (default both, curl,nghttp2: rows A/curl, A/nghttp2, B/curl, …, each A/B pair
# compared per transport; with one transport the rows are A and B). A revision from before the nghttp2 transport
# ignores PUSH_HTTP_TRANSPORT: its nghttp2 rows run libcurl.
#
#   bash deploy/local/ab.sh REV_A REV_B [--rounds N] [--transport curl|nghttp2|curl,nghttp2]
#       [bench.py options, e.g. --backlog-events 10000 --events 30000, or --runtime-events]
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ $# -lt 2 || $1 == -* || $2 == -* ]]; then
    echo "usage: bash deploy/local/ab.sh REV_A REV_B [--rounds N] [--transport LIST] [bench.py options]" >&2
    exit 2
fi
rev_a=$1 rev_b=$2
shift 2
bash deploy/local/setup.sh nginx libnginx-mod-http-echo nghttp2-client libnghttp2-dev
# shellcheck source=revision_build.sh
source deploy/local/revision_build.sh

# In a function, so bash has read the whole script before it runs: editing it during a run is harmless.
main() {
    local bin_a bin_b
    build_revisions "$rev_a" "$rev_b" push-worker
    echo "ab: A = $rev_a ($bin_a), B = $rev_b ($bin_b); $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    # Both transports unless the options name one (bench.py takes the last --transport).
    source deploy/local/librdkafka.sh
    exec .venv/bin/python deploy/local/bench.py --bin "A=$bin_a" --bin "B=$bin_b" --rounds 3 --no-replay \
        --transport curl,nghttp2 "$@"
}
main "$@"
