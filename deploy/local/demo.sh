#!/usr/bin/env bash
# Interim demo: starts the embedded dev broker, writes a few chat-message events to it with kcat, reads
# them back and prints them, then stops the broker cleanly. (The full pipeline demo replaces this.)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash deploy/local/setup.sh
swift build --product push-worker
bin="$(swift build --show-bin-path)/push-worker"

workdir=$(mktemp -d)
broker_pid=""
cleanup() {
    if [ -n "$broker_pid" ] && kill -0 "$broker_pid" 2>/dev/null; then kill -TERM "$broker_pid"; fi
    rm -rf "$workdir"
}
trap cleanup EXIT

"$bin" dev-broker --brokers 3 --partitions 6 </dev/null >"$workdir/broker.out" 2>"$workdir/broker.err" &
broker_pid=$!
for _ in $(seq 100); do
    grep -q '^bootstrap.servers=' "$workdir/broker.out" 2>/dev/null && break
    kill -0 "$broker_pid" 2>/dev/null || { cat "$workdir/broker.err" >&2; exit 1; }
    sleep 0.1
done
servers=$(sed -n 's/^bootstrap.servers=//p' "$workdir/broker.out" | head -1)
[ -n "$servers" ] || { echo "demo: the dev broker did not report its bootstrap servers" >&2; exit 1; }
echo "demo: dev broker ready at $servers"

now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
token=$(printf 'a1%.0s' $(seq 32))
{
    printf 'r-42\t{"id":"m-0001","type":"text","room":{"id":"r-42","name":"Team"},"sender":{"id":"u-1","nickname":"Alice"},"content":"Hello","createdAt":"%s","recipients":[{"userId":"u-2","badge":3,"muted":false,"devices":[{"platform":"apns","token":"%s"}]}]}\n' "$now" "$token"
    printf 'r-42\t{"id":"m-0002","type":"image","room":{"id":"r-42","name":"Team"},"sender":{"id":"u-2","nickname":"Bob"},"createdAt":"%s","recipients":[{"userId":"u-1","badge":1,"muted":false,"devices":[{"platform":"fcm","token":"fcm-token-demo"}]}]}\n' "$now"
    printf 'r-7\t{"id":"m-0003","type":"addMember","room":{"id":"r-7","name":"Ops"},"sender":{"id":"u-1","nickname":"Alice"},"target":{"id":"u-9","nickname":"Carol"},"createdAt":"%s","recipients":[{"userId":"u-9","badge":0,"muted":false,"devices":[{"platform":"fcm","token":"fcm-token-carol"}]}]}\n' "$now"
} | kcat -P -b "$servers" -t chat.messages -K $'\t' -H source=demo
echo "demo: wrote 3 chat-message events to chat.messages (key = room id); reading them back:"
kcat -C -b "$servers" -t chat.messages -e -q -f 'partition %p offset %o key %k headers %h\n  %s\n'

kill -TERM "$broker_pid"
status=0
wait "$broker_pid" || status=$?
broker_pid=""
[ "$status" = 0 ] || { echo "demo: the dev broker exited with status $status" >&2; exit 1; }
echo "demo: dev broker stopped cleanly"
