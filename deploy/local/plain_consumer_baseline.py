"""A plain confluent-kafka consumer on the worker's scale-out/in schedule: the yardstick for duplicates.

    .venv/bin/python deploy/local/plain_consumer_baseline.py --bin .build/debug/push-worker [--commit-ms 1000]
    .venv/bin/python deploy/local/plain_consumer_baseline.py --bootstrap HOST:PORT --topic T [--partitions 2]

The schedule of Tests/WorkerTests/ScaleOutInTests.swift, on a dev broker of its own (one broker, two partitions) or,
with `--bootstrap`, on a running broker's topic `--topic` of `--partitions` partitions, which must exist and be empty
(ScaleOutInTests runs it so, on its own broker, the mock cluster or Tansu, beside the worker's figures): 300
events a second in 20 rooms; one consumer for 3 s, two more join, once every partition is owned the two leave
(SIGTERM: `close()`), once the first owns every partition again 2 s more, then the stream stops. Each consumer is
what a careful application writes: cooperative-sticky, offsets stored after processing, auto-commit every
`--commit-ms`, a synchronous commit on revoke. Processing a record appends its id to the consumer's file; the
driver counts the ids seen more than once (duplicates) and never (lost).
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from confluent_kafka import Consumer, KafkaException, Producer

from processes import popen, stop

def consume(bootstrap: str, topic: str, commit_ms: int, out: Path) -> int:
    """One consumer of the group until SIGTERM; prints its assignment (a JSON list) on every change."""
    running = True

    def terminate(*_) -> None:
        nonlocal running
        running = False

    signal.signal(signal.SIGTERM, terminate)
    # A parent may have started it with SIGTERM blocked (a Swift test's child processes inherit the test runner's mask).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    owned: set[int] = set()

    def report() -> None:
        print(json.dumps(sorted(owned)), flush=True)

    def assigned(_, partitions) -> None:
        owned.update(partition.partition for partition in partitions)
        report()

    def revoked(consumer, partitions) -> None:
        try:
            consumer.commit(asynchronous=False)
        except KafkaException:
            pass  # nothing stored, or the coordinator refused it during the rebalance
        owned.difference_update(partition.partition for partition in partitions)
        report()

    consumer = Consumer({
        "bootstrap.servers": bootstrap, "group.id": "plain-baseline",
        "partition.assignment.strategy": "cooperative-sticky", "enable.auto.offset.store": False,
        "enable.auto.commit": True, "auto.commit.interval.ms": commit_ms, "auto.offset.reset": "earliest",
        "session.timeout.ms": 6000, "heartbeat.interval.ms": 300,
    })
    consumer.subscribe([topic], on_assign=assigned, on_revoke=revoked, on_lost=revoked)
    with open(out, "a") as processed:
        while running:
            message = consumer.poll(0.1)
            if message is None or message.error():
                continue
            processed.write(json.loads(message.value())["id"] + "\n")
            processed.flush()
            consumer.store_offsets(message)
    consumer.close()
    return 0


class Member:
    """A consumer process and the assignment it last printed."""

    def __init__(self, command: list[str]):
        self.process = popen(command, stdout=subprocess.PIPE, text=True)
        self.owned: set[int] = set()
        self.assigned_once = False
        threading.Thread(target=self.read, daemon=True).start()

    def read(self) -> None:
        for line in self.process.stdout:
            self.owned = set(json.loads(line))
            self.assigned_once = self.assigned_once or bool(self.owned)


def wait_until(condition, limit: float) -> bool:
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", help="the push-worker binary (for its dev broker)")
    parser.add_argument("--bootstrap", help="a running broker instead of a dev broker of its own")
    parser.add_argument("--topic", default="chat.messages", help="the topic to stream through (with --bootstrap)")
    parser.add_argument("--partitions", type=int, default=2, help="the topic's partitions (with --bootstrap)")
    parser.add_argument("--commit-ms", type=int, default=1000, help="auto.commit.interval.ms of the consumers")
    parser.add_argument("--consume", metavar="BOOTSTRAP", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.consume:
        return consume(arguments.consume, arguments.topic, arguments.commit_ms, arguments.out)
    if not arguments.bin and not arguments.bootstrap:
        parser.error("--bin or --bootstrap is required")

    directory = Path(tempfile.mkdtemp(prefix="plain-baseline-"))
    broker = None
    topic, partitions = arguments.topic, set(range(arguments.partitions))
    if arguments.bootstrap:
        bootstrap = arguments.bootstrap
    else:
        broker = popen([arguments.bin, "dev-broker", "--brokers", "1", "--partitions", "2"], stdin=subprocess.PIPE,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        bootstrap = broker.stdout.readline().strip().split("=", 1)[1]
        topic, partitions = "chat.messages", {0, 1}
    members: list[Member] = []

    def member(index: int) -> Member:
        started = Member([sys.executable, __file__, "--consume", bootstrap, "--topic", topic,
                          "--commit-ms", str(arguments.commit_ms), "--out", str(directory / f"consumer-{index}.txt")])
        members.append(started)
        return started

    produced = 0
    streaming = True

    def stream() -> None:
        nonlocal produced
        producer = Producer({"bootstrap.servers": bootstrap})
        tick = time.monotonic()
        while streaming:
            for _ in range(30):
                producer.produce(topic, key=f"r-{produced % 20}", value=json.dumps({"id": f"m-{produced}"}))
                produced += 1
            producer.poll(0)
            tick += 0.1
            time.sleep(max(0.0, tick - time.monotonic()))
        producer.flush(30)

    try:
        first = member(1)
        if not wait_until(lambda: first.owned == partitions, 60):
            raise RuntimeError("the first consumer got no assignment within 60 s")
        writer = threading.Thread(target=stream)
        writer.start()
        began = time.monotonic()
        steps = []
        time.sleep(3)
        joined = [member(2), member(3)]
        steps.append(f"two joining at {time.monotonic() - began:.0f} s")
        # Two partitions, three consumers: one of the two that join stays idle.
        settled = wait_until(lambda: any(m.assigned_once for m in joined)
                             and set().union(*(m.owned for m in members)) == partitions, 60)
        steps.append(f"two leaving at {time.monotonic() - began:.0f} s" + ("" if settled else " (not settled)"))
        for leaving in joined:
            leaving.process.send_signal(signal.SIGTERM)
        for leaving in joined:
            leaving.process.wait(60)
        settled = wait_until(lambda: first.owned == partitions, 60)
        steps.append(f"one again at {time.monotonic() - began:.0f} s" + ("" if settled else " (not settled)"))
        time.sleep(2)
        streaming = False
        writer.join()
        seen: list[str] = []
        wanted = {f"m-{index}" for index in range(produced)}

        def read_all() -> bool:
            seen.clear()
            for path in directory.glob("consumer-*.txt"):
                seen.extend(path.read_text().split())
            return wanted <= set(seen)

        wait_until(read_all, 60)
        read_all()
        distinct = set(seen)
        print(f"plain consumer, auto.commit.interval.ms={arguments.commit_ms}, scale 1 → 3 → 1 during a stream of "
              f"{produced} events ({', '.join(steps)}): lost {len(wanted - distinct)}, "
              f"duplicates {len(seen) - len(distinct)}")
    finally:
        for running in reversed(members):
            stop(running.process, timeout=30)
        if broker is not None:
            stop(broker, timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
