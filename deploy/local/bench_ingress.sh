#!/usr/bin/env bash
# Load benchmark of `push-worker ingress`: 100 concurrent HTTP/1.1 clients (h2load --h1, keep-alive) POST IMKIT v2
# callbacks to one ingress pinned to one core, which writes each to the dev broker before answering.
#
#   deploy/local/bench_ingress.sh [BIN] [REQUESTS] [CLIENTS]
#   (defaults: .build/release/push-worker, 200000 requests, 100 clients)
#
# Prints h2load's summary (requests/s, status codes, latency), the ingress's Kafka-latency histogram and its CPU time.
set -euo pipefail
BIN=${1:-.build/release/push-worker}
REQUESTS=${2:-200000}
CLIENTS=${3:-100}
INGRESS_CORE=${INGRESS_CORE:-0}
LOAD_CORE=${LOAD_CORE:-1}
work=$(mktemp -d)
pids=()
cleanup() {
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null || true; wait "${pids[i]}" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=librdkafka.sh
source "$(dirname "$0")/librdkafka.sh"

"$BIN" dev-broker --brokers 1 --partitions 6 --topics chat.messages >"$work/broker.out" 2>"$work/broker.err" &
pids+=($!)
for _ in $(seq 100); do grep -q bootstrap.servers= "$work/broker.out" && break; sleep 0.1; done
bootstrap=$(sed -n 's/^bootstrap.servers=//p' "$work/broker.out")

KAFKA_BOOTSTRAP_SERVERS=$bootstrap PUSH_INGRESS_KEYS=SampleApp:bench-key PUSH_INGRESS_HOST=127.0.0.1 \
    PUSH_INGRESS_PORT=18080 PUSH_HTTP_HOST=127.0.0.1 PUSH_HTTP_PORT=19464 PUSH_INGRESS_THREADS=${THREADS:-1} \
    LOG_LEVEL=warning taskset -c "$INGRESS_CORE" "$BIN" ingress >"$work/ingress.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do curl -sf http://127.0.0.1:19464/readyz >/dev/null && break; sleep 0.2; done

cat >"$work/body.json" <<'JSON'
{"_id":"5dd51a4f21841443cfd3090d","message":"lala","room":"demo-room","roomName":"Demo Room","sender":{"_id":"sss","nickname":"SSS","id":"sss"},"messageType":"text","appID":"SampleApp","id":"5dd51a4f21841443cfd3090d","messageTimeMS":1574246991222,"pushToClients":["aaa","bbb"]}
JSON
# Warm-up, then the measured run.
taskset -c "$LOAD_CORE" h2load --h1 -n 2000 -c "$CLIENTS" -d "$work/body.json" \
    -H 'Content-Type: application/json; charset=utf-8' -H 'IM-API-KEY: bench-key' \
    http://127.0.0.1:18080/imkit/push/v2 >/dev/null
taskset -c "$LOAD_CORE" h2load --h1 -n "$REQUESTS" -c "$CLIENTS" -d "$work/body.json" \
    -H 'Content-Type: application/json; charset=utf-8' -H 'IM-API-KEY: bench-key' \
    http://127.0.0.1:18080/imkit/push/v2 | grep -E 'finished in|requests:|status codes:|time for request:'
curl -s http://127.0.0.1:19464/metrics | grep -E '^push_ingress_(requests_total\{route="/imkit/push/v2"|kafka_seconds_(bucket|sum|count))'
echo "ingress CPU seconds (user+system, warm-up included): $(awk '{printf "%.1f", ($14 + $15) / 100}' /proc/"${pids[1]}"/stat)"
