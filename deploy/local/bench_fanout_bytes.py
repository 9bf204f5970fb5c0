"""Peak memory of one worker of the assigned registry scope given fan-outs that the byte limits bound.

    .venv/bin/python deploy/local/bench_fanout_bytes.py --bin .build/debug/push-worker

(source deploy/local/librdkafka.sh first.) Starts the dev broker (6 partitions) and one `push-worker run` with
`PUSH_REGISTRY_SCOPE=assigned` and the default limits, then writes to `chat.messages`, one at a time, three IMKIT
messages: to 10,000 clients with an 840 KB record (records of about 690 KB each, 6.9 GB together: over
`PUSH_FANOUT_MAX_BYTES`), to 10,000 clients with a 6 KB text (62 MB of records: under it), and to one client with a
1,020,000-byte record (over the event limit of 900,000). For each it prints what came of it (the dead letter's reason,
value size, source offset and `x-value-dropped`, or the fan-out records written), the seconds from the write to that,
and the worker's resident memory now and at its peak (VmRSS, VmHWM).
"""

import argparse
import contextlib
import json
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from confluent_kafka import Consumer, Producer, TopicPartition

from bench_replay import service_account
from processes import Child, memory_kib, start_dev_broker, start_worker

PARTITIONS = 6
CLIENTS = [f"client-{index:05d}" for index in range(10_000)]


def message(message_id: str, clients: list[str], text_bytes: int) -> bytes:
    return json.dumps({"_id": message_id, "messageType": "text", "message": "x" * text_bytes, "room": "r",
                       "appID": "A", "sender": {"_id": "s"}, "pushToClients": clients}, separators=(",", ":")).encode()


def fanout_records(bootstrap: str) -> int:
    reader = Consumer({"bootstrap.servers": bootstrap, "group.id": "bench-fanout-bytes-watermarks"})
    try:
        return sum(reader.get_watermark_offsets(TopicPartition("push.fanout", partition), timeout=10)[1]
                   for partition in range(PARTITIONS))
    finally:
        reader.close()


def dead_letter(dead_letters: Consumer, timeout: float) -> tuple | None:
    """The next dead letter of an input record: its reason, value size, source offset and dropped value size."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        record = dead_letters.poll(0.2)
        if record is None or record.error():
            continue
        headers = {name: value.decode() for name, value in record.headers() or []}
        if headers.get("x-source-topic") == "chat.messages":
            return (headers.get("x-dlq-reason"), len(record.value() or b""), headers.get("x-source-offset"),
                    headers.get("x-value-dropped"))
    return None


@contextlib.contextmanager
def assigned_scope(binary: Path, name: str) -> Iterator[tuple[str, Child]]:
    """The dev broker (`PARTITIONS` partitions) and one `push-worker run` of the assigned registry scope on it, in a
    scratch folder named after `name`, its FCM address unreachable (the registry is empty: nothing is sent); yields
    the bootstrap servers and the worker, and stops both after."""
    with tempfile.TemporaryDirectory(prefix=f"push-bench-{name}-") as scratch_name:
        scratch = Path(scratch_name)
        broker, bootstrap = start_dev_broker(binary, scratch, PARTITIONS)
        try:
            worker, _ = start_worker(binary, scratch, {
                "KAFKA_BOOTSTRAP_SERVERS": bootstrap, "FCM_SERVICE_ACCOUNT_FILE": str(service_account(scratch)),
                "FCM_URL": "https://127.0.0.1:9", "PUSH_REGISTRY_SCOPE": "assigned",
                "PUSH_REGISTRY_PARTITIONING": "client", "LD_LIBRARY_PATH": os.environ.get("LD_LIBRARY_PATH", "")})
            try:
                yield bootstrap, worker
            finally:
                worker.stop()
        finally:
            broker.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="the push-worker executable")
    arguments = parser.parse_args()
    with assigned_scope(Path(arguments.bin), "fanout-bytes") as (bootstrap, worker):
        time.sleep(5)
        print(f"started: {memory_kib(worker.process.pid)}", flush=True)
        producer = Producer({"bootstrap.servers": bootstrap, "message.max.bytes": 2_000_000})
        dead_letters = Consumer({"bootstrap.servers": bootstrap, "group.id": "bench-fanout-bytes",
                                 "auto.offset.reset": "earliest"})
        dead_letters.assign([TopicPartition("push.dlq", partition, 0) for partition in range(PARTITIONS)])
        cases = [("over the byte limit", message("m-1", CLIENTS, 690_000), True),
                 ("under the byte limit", message("m-2", CLIENTS, 6_000), False),
                 ("over the event limit", message("m-3", ["client-1"], 1_020_000), True)]
        for name, value, refused in cases:
            before = fanout_records(bootstrap)
            started = time.monotonic()
            producer.produce("chat.messages", value=value, key=b"r")
            producer.flush(30)
            if refused:
                outcome = f"dead letter {dead_letter(dead_letters, 300)}"
            else:
                while fanout_records(bootstrap) < before + len(CLIENTS) and time.monotonic() - started < 300:
                    time.sleep(0.2)
                outcome = "fanned out"
            print(f"{name}: {len(value)} B, {outcome}, fan-out records written {fanout_records(bootstrap) - before},"
                  f" {time.monotonic() - started:.1f} s, {memory_kib(worker.process.pid)}", flush=True)
        dead_letters.close()


if __name__ == "__main__":
    main()
