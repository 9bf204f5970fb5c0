"""Throughput and memory of `push-worker receipts stats` over a large receipts topic.

    .venv/bin/python deploy/local/bench_receipts.py --bin .build/release/push-worker [--receipts 1000000]

Starts the dev broker with enough partitions that the mock cluster keeps every receipt (it keeps only the
newest records of each partition), writes `--receipts` generated receipts (statuses, platforms, types,
latencies and times drawn from a seed), then runs `receipts stats --format json` once and prints the
receipts it counted, its wall time, receipts/s and peak resident memory (the kernel's maxrss of the child).
`KAFKA_*` variables of the environment are passed to the command (to compare librdkafka settings).
"""

import argparse
import json
import os
import random
import resource
import subprocess
import time

from confluent_kafka import Producer

from processes import popen, run, stop

STATUSES = ["delivered"] * 80 + ["skipped"] * 8 + ["invalid_token", "rejected", "expired", "dead_lettered"] * 3


def receipt(index, rng, start_ms):
    status = rng.choice(STATUSES)
    sent = status not in ("skipped", "expired")
    return json.dumps(
        {
            "messageId": f"m-{index}",
            "room": f"r-{index % 977}",
            "type": rng.choice(["text", "image", "video", "call", "file"]),
            "userId": f"u-{index % 100_003}",
            "platform": rng.choice(["apns", "apns-voip", "fcm"]),
            "tokenHash": "sha256:" + "%064x" % rng.getrandbits(256),
            "status": status,
            "reason": None if status == "delivered" else "reason-%d" % (index % 5),
            "providerMessageId": None,
            "attempts": rng.randint(1, 3) if sent else 0,
            "source": {"topic": "chat.messages", "partition": index % 12, "offset": index},
            "eventTime": None,
            "sentAt": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime((start_ms + index) / 1000)),
            "latencyMs": round(rng.lognormvariate(3, 1), 3) if sent else None,
            "replayRunId": None,
            "worker": f"push-worker-{index % 4}",
        },
        separators=(",", ":"),
    ).encode()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--receipts", type=int, default=1_000_000)
    parser.add_argument("--partitions", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args()

    broker = popen(
        [arguments.bin, "dev-broker", "--brokers", "1", "--partitions", str(arguments.partitions),
         "--topics", "push.receipts"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        servers = broker.stdout.readline().strip().removeprefix("bootstrap.servers=")
        producer = Producer({"bootstrap.servers": servers, "linger.ms": 20, "batch.num.messages": 10000,
                             "queue.buffering.max.messages": 1_000_000})
        rng = random.Random(arguments.seed)
        start_ms = int(time.time() * 1000) - arguments.receipts
        began = time.monotonic()
        for index in range(arguments.receipts):
            while True:
                try:
                    producer.produce("push.receipts", receipt(index, rng, start_ms), partition=index % arguments.partitions)
                    break
                except BufferError:
                    producer.poll(0.05)
        producer.flush(120)
        print(f"bench: wrote {arguments.receipts} receipts in {time.monotonic() - began:.1f} s")

        began = time.monotonic()
        stats = run(
            [arguments.bin, "receipts", "stats", "--format", "json", "--by", "platform,type,status,worker"],
            env={**{k: v for k, v in os.environ.items() if k.startswith("KAFKA_")}, "KAFKA_BOOTSTRAP_SERVERS": servers},
            capture_output=True, text=True, check=True)
        elapsed = time.monotonic() - began
        peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        counted = json.loads(stats.stdout)["total"]
        print(f"bench: receipts stats counted {counted} receipts in {elapsed:.1f} s: {counted / elapsed:,.0f} receipts/s, "
              f"peak RSS {peak_kb / 1024:.0f} MB")
        if counted != arguments.receipts:
            raise SystemExit(f"bench: FAILED: counted {counted}, wrote {arguments.receipts}")
    finally:
        stop(broker, timeout=10)


if __name__ == "__main__":
    main()
