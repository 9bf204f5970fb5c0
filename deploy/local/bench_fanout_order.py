"""What a room's order costs the assigned registry scope's fan-out: one room's messages against as many rooms'.

    .venv/bin/python deploy/local/bench_fanout_order.py --bin .build/release/push-worker [--messages 500] [--rounds 3]

(source deploy/local/librdkafka.sh first.) Starts the dev broker (6 partitions) and one `push-worker run` with
`PUSH_REGISTRY_SCOPE=assigned`, then, in each round, writes `--messages` IMKIT messages to `chat.messages` at once,
each to 10 clients: first all in one room, then each in a room of its own. A room's next message is fanned out only
once Kafka acknowledged the fan-out records of the one before (docs/partitioned-registry.md), so one room's
messages go one produce round trip apart, where many rooms' go side by side. For each it prints the seconds from the
write to the last fan-out record written (the sum of `push.fanout`'s high watermarks), and what that is a message.
The registry is empty: the fan-out stage finds no devices and sends nothing.
"""

import argparse
import json
import time
from pathlib import Path

from confluent_kafka import Consumer, Producer, TopicPartition

from bench_fanout_bytes import PARTITIONS, assigned_scope

CLIENTS = [f"client-{index}" for index in range(10)]


def message(message_id: str, room: str) -> bytes:
    return json.dumps({"_id": message_id, "messageType": "text", "message": "hello", "room": room, "appID": "A",
                       "sender": {"_id": "s"}, "pushToClients": CLIENTS}, separators=(",", ":")).encode()


def fanout_records(reader: Consumer) -> int:
    return sum(reader.get_watermark_offsets(TopicPartition("push.fanout", partition), timeout=10, cached=False)[1]
               for partition in range(PARTITIONS))


def fan_out(producer: Producer, reader: Consumer, messages: list[tuple[str, str]]) -> float:
    """Writes `messages` (id, room) keyed by their room and returns the seconds until all their fan-out records
    were written."""
    expected = fanout_records(reader) + len(messages) * len(CLIENTS)
    started = time.monotonic()
    for message_id, room in messages:
        producer.produce("chat.messages", value=message(message_id, room), key=room.encode())
    producer.flush(30)
    while fanout_records(reader) < expected:
        if time.monotonic() - started > 300:
            raise RuntimeError(f"{expected - fanout_records(reader)} fan-out records missing after 300 s")
        time.sleep(0.02)
    return time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="the push-worker executable")
    parser.add_argument("--messages", type=int, default=500, help="messages per case (default 500)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of both cases (default 3)")
    arguments = parser.parse_args()
    with assigned_scope(Path(arguments.bin), "fanout-order") as (bootstrap, _):
        producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
        reader = Consumer({"bootstrap.servers": bootstrap, "group.id": "bench-fanout-order"})
        fan_out(producer, reader, [("warm-up", "warm-up")])
        count = arguments.messages
        for round_number in range(1, arguments.rounds + 1):
            one = fan_out(producer, reader, [(f"r{round_number}-one-{k}", f"r{round_number}-room") for k in
                                             range(count)])
            many = fan_out(producer, reader, [(f"r{round_number}-many-{k}", f"r{round_number}-room-{k}") for k in
                                              range(count)])
            print(f"round {round_number}: {count} messages of 10 clients, one room {one:.2f} s "
                  f"({one / count * 1000:.1f} ms a message), {count} rooms {many:.2f} s "
                  f"({many / count * 1000:.2f} ms a message)", flush=True)
        reader.close()


if __name__ == "__main__":
    main()
