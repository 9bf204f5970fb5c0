"""Throughput and memory of `push-worker replay --dry-run` over a large input topic.

    .venv/bin/python deploy/local/bench_replay.py --bin .build/release/push-worker [--events 100000]

Starts the dev broker with enough partitions that the mock cluster keeps every event, writes `--events` text
messages (one recipient with one FCM device each, 5,000 rooms), then replays the whole topic with `--dry-run`: every
record is read by explicit assignment, decoded, planned through the rules table, rendered for FCM, counted and
its receipt built, but nothing is sent and nothing written. It prints records/s, planned sends/s and the peak
resident memory of the replay (the kernel's maxrss of the child). The network and the provider are left out on
purpose: `deploy/local/bench.sh` measures sending.
"""

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from confluent_kafka import Producer

from processes import popen, run, stop

HERE = Path(__file__).resolve().parent


def service_account(directory: Path) -> Path:
    key = run(
        ["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
        capture_output=True, text=True, check=True).stdout
    path = directory / "service-account.json"
    path.write_text(json.dumps({
        "type": "service_account", "project_id": "bench-project", "private_key_id": "k1", "private_key": key,
        "client_email": "bench@bench-project.iam.gserviceaccount.com", "token_uri": "https://127.0.0.1:9/token",
    }))
    return path


def event(index: int, created_ms: int) -> bytes:
    return json.dumps({
        "id": f"m-{index}", "type": "text", "room": {"id": f"r-{index % 5000}", "name": "Team"},
        "sender": {"id": "u-1", "nickname": "Alice"}, "content": f"Hello {index}", "createdAt": created_ms,
        "recipients": [{"userId": f"u-{index % 997}", "badge": 1,
                        "devices": [{"platform": "fcm", "token": f"fcm-token-{index:08d}"}]}],
    }, separators=(",", ":")).encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--partitions", type=int, default=12)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="push-bench-replay-") as scratch:
        account = service_account(Path(scratch))
        broker = popen(
            [arguments.bin, "dev-broker", "--brokers", "1", "--partitions", str(arguments.partitions)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            servers = broker.stdout.readline().strip().removeprefix("bootstrap.servers=")
            producer = Producer({"bootstrap.servers": servers, "linger.ms": 20, "batch.num.messages": 10000,
                                 "queue.buffering.max.messages": 1_000_000})
            now = int(time.time() * 1000)
            for index in range(arguments.events):
                while True:
                    try:
                        producer.produce("chat.messages", event(index, now), key=f"r-{index % 5000}".encode())
                        break
                    except BufferError:
                        producer.poll(0.05)
            producer.flush(120)
            began = time.monotonic()
            replay = run(
                [arguments.bin, "replay", "--topic", "chat.messages", "--dry-run", "--format", "json"],
                env={"KAFKA_BOOTSTRAP_SERVERS": servers, "FCM_SERVICE_ACCOUNT_FILE": str(account),
                     "PUSH_INVALID_TOKENS_LOAD_MS": "0", "LOG_LEVEL": "error"},
                capture_output=True, text=True)
            elapsed = time.monotonic() - began
            if replay.returncode != 0:
                sys.exit(f"bench: FAILED: replay exited {replay.returncode}: {replay.stderr[-2000:]}")
            summary = json.loads(replay.stdout)
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            print(f"bench: replay --dry-run of {summary['records']} events: {elapsed:.1f} s, "
                  f"{summary['records'] / elapsed:,.0f} records/s, {summary['sends'] / elapsed:,.0f} planned sends/s, "
                  f"peak RSS {peak:.0f} MB")
            if summary["records"] != arguments.events:
                sys.exit(f"bench: FAILED: replayed {summary['records']} of {arguments.events}")
        finally:
            stop(broker, timeout=10)


if __name__ == "__main__":
    main()
