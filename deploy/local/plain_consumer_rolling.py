"""Plain confluent-kafka consumers on RollingRestartTests' schedule: does the broker assign every replacement?

    .venv/bin/python deploy/local/tansu.py --partitions 2 --topics a,b,c,d,e,f     # prints bootstrap.servers=…
    .venv/bin/python deploy/local/plain_consumer_rolling.py --bootstrap HOST:PORT --topics a,b,c,d,e,f [--runs 5]

Each run is a group of its own: three consumers (cooperative-sticky, 6 s session, 300 ms heartbeats, as the tests'
workers) subscribe to `--topics`; then three times a new consumer subscribes, and once it is first assigned (its
`on_assign`, which may be an empty assignment) the oldest consumer closes (`close()`: LeaveGroup), after
`--close-delay` seconds. A replacement not assigned within `--wait` seconds is reported unassigned; so are the
partitions no consumer owns 5 s after the last step. One JSON line per run, then how many runs had a replacement
unassigned. On Tansu 0.6.0 a leader leaving while its group is forming stops the group (docs/kafka.md); the worker is
not involved here, so what this finds is the broker's.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
import uuid

from confluent_kafka import Consumer


class Member:
    """One consumer polling on a thread of its own, its assignment kept by its rebalance callbacks."""

    def __init__(self, name: str, bootstrap: str, topics: list[str], group: str) -> None:
        self.first_assigned: float | None = None
        self.owned: set[tuple[str, int]] = set()
        self.running = True
        self.consumer = Consumer({
            "bootstrap.servers": bootstrap, "group.id": group, "client.id": name,
            "partition.assignment.strategy": "cooperative-sticky", "session.timeout.ms": 6000,
            "heartbeat.interval.ms": 300, "enable.auto.offset.store": False, "auto.commit.interval.ms": 200,
        })
        self.consumer.subscribe(topics, on_assign=self.assigned, on_revoke=self.revoked, on_lost=self.revoked)
        self.thread = threading.Thread(target=self.poll, daemon=True)
        self.thread.start()

    def assigned(self, _, partitions) -> None:
        self.owned |= {(partition.topic, partition.partition) for partition in partitions}
        self.first_assigned = self.first_assigned or time.monotonic()

    def revoked(self, _, partitions) -> None:
        self.owned -= {(partition.topic, partition.partition) for partition in partitions}

    def poll(self) -> None:
        while self.running:
            self.consumer.poll(0.1)

    def close(self) -> None:
        self.running = False
        self.thread.join()
        self.consumer.close()


def restart(bootstrap: str, topics: list[str], close_delay: float, wait: float) -> dict:
    """One rolling restart of three consumers in a new group; what each step and the end looked like."""
    group = f"rolling-{uuid.uuid4()}"
    members = [Member(f"old-{index}", bootstrap, topics, group) for index in range(3)]
    deadline = time.monotonic() + 60
    while any(member.first_assigned is None for member in members) and time.monotonic() < deadline:
        time.sleep(0.05)
    steps = []
    for index in range(3):
        started = time.monotonic()
        replacement = Member(f"new-{index}", bootstrap, topics, group)
        while replacement.first_assigned is None and time.monotonic() - started < wait:
            time.sleep(0.05)
        assigned = replacement.first_assigned
        steps.append({"assigned_after_s": None if assigned is None else round(assigned - started, 2)})
        time.sleep(close_delay)
        members.pop(0).close()
        members.append(replacement)
    time.sleep(5)
    owned = len(set().union(*(member.owned for member in members)))
    for member in members:
        member.close()
    return {"steps": steps, "partitions_owned_at_end": owned}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--topics", required=True, help="comma-separated, existing topics")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--close-delay", type=float, default=0.0, help="seconds between assignment and close")
    parser.add_argument("--wait", type=float, default=30.0, help="seconds a replacement may take to be assigned")
    arguments = parser.parse_args()
    stalled = 0
    for _ in range(arguments.runs):
        result = restart(arguments.bootstrap, arguments.topics.split(","), arguments.close_delay, arguments.wait)
        stalled += any(step["assigned_after_s"] is None for step in result["steps"])
        print(json.dumps(result), flush=True)
    print(f"runs with a replacement unassigned within {arguments.wait:g} s: {stalled} of {arguments.runs}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
