"""The fuzzer's accounting: what the worker wrote for each hostile record, and what is missing.

A record is accounted for when the worker dead-lettered it whole (a dead letter carrying its original bytes, or no
value at all when that was too large for Kafka), or when every device Python reads in it has a receipt, a narrowed
dead letter or a retry record at the record's source position: its own, or one its `x-source-*` headers name (the
worker believes them on a retry tier). A record Python cannot read as a JSON object, or with a device whose token
is not a text, must have at least one output. A record with no devices needs none. The worker consumes a retry
tier's partition in order, pausing it until its first record is due, so a retry record due after the run (by
`x-retry-due` or `x-retry-not-before`), and every later record of its partition, may still wait there; one of the
fuzzer's retry records that the worker moved on to a longer tier is accounted for by the moved copy. Retry records
the worker wrote itself must resolve (a receipt or dead letter for each of their devices) when they were due long
enough before the end and wait behind no such record. A receipt is at most 8 KB, carries a run id only from a retry
record and a trace context only well-formed.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import defaultdict
from dataclasses import dataclass, field

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

from fuzz_records import INPUT_RUN_ID, FuzzRecord, Position, RecordSummary, devices_of

# The largest receipt: its texts are the event's bounded ids, a token hash, a bounded worker id and run id.
MAX_RECEIPT_BYTES = 8192
TRACE_PARENT = re.compile(r"[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}")

# Stands for the value of a dead letter that went out without it (too large for Kafka, so its devices are unknown).
VALUE_DROPPED = "value dropped"


@dataclass
class Expectation:
    """What the accounting keeps of one produced record (not its bytes)."""

    record: RecordSummary
    position: Position
    is_object: bool
    devices: set[str] | None


@dataclass
class Outputs:
    """What the worker wrote for one source position (as its receipts and headers name it)."""

    count: int = 0
    dead_letter_hashes: set[str] = field(default_factory=set)  # SHA-256 of each dead letter's value
    devices: set[str] = field(default_factory=set)  # with any output
    final_devices: set[str] = field(default_factory=set)  # with a receipt or dead letter (not only a retry record)

    def merged(self, other: "Outputs") -> "Outputs":
        return Outputs(self.count + other.count, self.dead_letter_hashes | other.dead_letter_hashes,
                       self.devices | other.devices, self.final_devices | other.final_devices)


@dataclass
class WorkerRetry:
    """A retry record the worker wrote: where its event came from, its devices and when it is due."""

    position: Position
    source: Position | None
    devices: set[str]
    due_ms: int | None  # the latest of x-retry-due and x-retry-not-before
    moved: bool  # one of the fuzzer's records, moved on unsent to a longer tier


class Ledger:
    """Produced records and the outputs read so far; thread-safe (the reader thread adds, the runner asks).
    Outputs are kept by the source position they name, so they may arrive before the record's delivery report."""

    def __init__(self, receipts_topic: str, dead_letter_topic: str, retry_topics: list[str]):
        self.receipts_topic = receipts_topic
        self.dead_letter_topic = dead_letter_topic
        self.retry_topics = frozenset(retry_topics)
        self.lock = threading.Lock()
        self.expectations: dict[Position, Expectation] = {}
        self.retry_values: dict[str, Position] = {}  # value hash → position of a record produced to a retry tier
        self.outputs: dict[Position, Outputs] = defaultdict(Outputs)
        self.worker_retries: list[WorkerRetry] = []
        self.unnamed_sources = 0  # outputs naming no readable source position
        self.lost_outputs = 0  # output offsets the broker dropped before the reader saw them
        self.bad_receipts: list[str] = []  # receipts carrying what they must not (an input's run id, 350 KB)

    # Filled by the producer and the reader

    def produced(self, record: FuzzRecord, summary: RecordSummary, position: Position) -> None:
        is_object, devices = devices_of(record.value)
        with self.lock:
            self.expectations[position] = Expectation(summary, position, is_object, devices)
            if position[0] in self.retry_topics:
                self.retry_values[summary.value_hash] = position

    def read(self, message) -> None:
        topic, headers = message.topic(), dict(message.headers() or [])
        with self.lock:
            if topic == self.receipts_topic:
                receipt = json.loads(message.value())
                self.check_receipt(receipt, len(message.value()))
                source = receipt.get("source") or {}
                self.output(position(source.get("topic"), source.get("partition"), source.get("offset")),
                            {receipt.get("tokenHash")}, final=True)
            elif topic == self.dead_letter_topic:
                source = header_position(headers)
                _, devices = devices_of(message.value())
                self.output(source, devices or set(), final=True)
                if source is not None:
                    self.outputs[source].dead_letter_hashes.add(
                        hashlib.sha256(message.value()).hexdigest() if message.value() else VALUE_DROPPED)
            elif topic in self.retry_topics and (topic, message.partition(), message.offset()) not in \
                    self.expectations:
                self.retry(message, headers)

    def check_receipt(self, receipt: dict, size: int) -> None:
        """A receipt's size is bounded whatever the record's headers; its run id comes only from a retry record
        (the fuzzer runs no replay) and is 1 to 200 bytes; its trace context is well-formed."""
        run_id, trace = receipt.get("replayRunId"), receipt.get("traceparent")
        if size > MAX_RECEIPT_BYTES:
            self.bad_receipts.append(f"a receipt of {size} bytes (over {MAX_RECEIPT_BYTES})")
        if run_id is not None and (run_id == INPUT_RUN_ID.decode() or not 1 <= len(run_id.encode()) <= 200):
            self.bad_receipts.append(f"a receipt with the replayRunId {run_id[:40]!r}")
        if trace is not None and not TRACE_PARENT.fullmatch(trace):
            self.bad_receipts.append(f"a receipt with the traceparent {trace[:60]!r}")

    def retry(self, message, headers: dict) -> None:
        """A record the worker wrote to a retry tier: its own retry, or one of ours moved on to a longer tier
        (same value; an `x-retry-not-before` ahead)."""
        _, devices = devices_of(message.value())
        moved = self.retry_values.get(hashlib.sha256(message.value() or b"").hexdigest())
        source = moved if moved is not None else header_position(headers)
        dues = [int(value) for name in ("x-retry-due", "x-retry-not-before")
                if (value := headers.get(name)) is not None and value.isdigit()]
        self.worker_retries.append(WorkerRetry((message.topic(), message.partition(), message.offset()), source,
                                               devices or set(), max(dues, default=None), moved is not None))
        self.output(source, devices or set(), final=False)

    def output(self, source: Position | None, devices: set[str], final: bool) -> None:
        if source is None:
            self.unnamed_sources += 1
            return
        outputs = self.outputs[source]
        outputs.count += 1
        outputs.devices |= devices
        if final:
            outputs.final_devices |= devices

    # Questions

    def outputs_of(self, expectation: Expectation) -> Outputs:
        """The outputs naming the record's own position or one its `x-source-*` headers claim."""
        outputs = self.outputs.get(expectation.position, Outputs())
        for claimed in expectation.record.claimed:
            outputs = outputs.merged(self.outputs.get(claimed, Outputs()))
        return outputs

    def devices_waiting(self) -> int:
        """Devices of the produced records without a receipt or dead letter read yet: about the push requests still
        to come (a device the worker refuses unsent gets its dead letter soon; one that is retried is asked again)."""
        with self.lock:
            return sum(len(expectation.devices - self.outputs_of(expectation).final_devices)
                       for expectation in self.expectations.values() if expectation.devices)

    def parked_from(self, parked_after_ms: int) -> dict[int, int]:
        """Per retry-tier partition, the first offset of a record due after `parked_after_ms`: the worker consumes a
        tier partition in order, so that record and every later one may still wait there."""
        with self.lock:
            dues = [(position, expectation.record.retry_due_ms) for position, expectation in self.expectations.items()
                    if position[0] in self.retry_topics]
            dues += [(retry.position, retry.due_ms) for retry in self.worker_retries]
        parked: dict[tuple[str, int], int] = {}
        for (topic, partition, offset), due in dues:
            if due is not None and due > parked_after_ms and offset < parked.get((topic, partition), offset + 1):
                parked[(topic, partition)] = offset
        return parked

    def waits(self, position: Position, parked: dict[tuple[str, int], int]) -> bool:
        """Whether the retry-tier record at `position` may still wait behind (or as) a record due after the run."""
        return position[2] >= parked.get(position[:2], position[2] + 1)

    def missing(self, record_position: Position, parked: dict[tuple[str, int], int]) -> str | None:
        """What is missing for the record at `record_position`, or None when it is accounted for (`parked`: from
        `parked_from`)."""
        with self.lock:
            expectation = self.expectations[record_position]
            outputs = self.outputs_of(expectation)
        if expectation.record.value_hash in outputs.dead_letter_hashes or VALUE_DROPPED in outputs.dead_letter_hashes:
            return None  # dead-lettered whole, with its original bytes or (too large for Kafka) without
        if self.waits(record_position, parked) and not outputs.count:
            return None
        if not expectation.is_object or expectation.devices is None:
            return None if outputs.count else "no output at all (expected at least a dead letter)"
        absent = expectation.devices - outputs.devices
        if not absent:
            return None
        return (f"{len(absent)} of {len(expectation.devices)} devices have no receipt, dead letter or retry record "
                f"(e.g. {sorted(absent)[0]})")

    def unresolved_retries(self, due_before_ms: int, parked: dict[tuple[str, int], int]) -> list[WorkerRetry]:
        """Retry records of the worker due before `due_before_ms`, not waiting behind a record due after the run,
        with a device that has no receipt or dead letter at its source (counted only through the retry record)."""
        with self.lock:
            retries = [retry for retry in self.worker_retries
                       if retry.due_ms is not None and retry.due_ms < due_before_ms and retry.source is not None
                       and not retry.moved and not self.waits(retry.position, parked)]
            return [retry for retry in retries if not retry.devices <= self.outputs[retry.source].final_devices
                    and not self.outputs[retry.source].dead_letter_hashes]

    def strays(self) -> int:
        """Outputs naming a source position that is no produced record (nor one a record claims)."""
        with self.lock:
            known = set(self.expectations) | {claimed for expectation in self.expectations.values()
                                              for claimed in expectation.record.claimed}
            return sum(outputs.count for source, outputs in self.outputs.items() if source not in known)


def header_position(headers: dict) -> Position | None:
    def text(name: str) -> str | None:
        value = headers.get(name)
        return value.decode("utf-8", "replace") if value is not None else None
    return position(text("x-source-topic"), text("x-source-partition"), text("x-source-offset"))


def position(topic, partition, offset) -> Position | None:
    try:
        return (str(topic), int(partition), int(offset))
    except (TypeError, ValueError):
        return None


class OutputReader:
    """Reads the receipts, dead-letter and retry topics from their beginning on a thread of its own."""

    def __init__(self, servers: str, ledger: Ledger, partitions: int):
        self.ledger = ledger
        self.consumer = Consumer({"bootstrap.servers": servers, "group.id": "fuzz-reader",
                                  "enable.auto.commit": False, "receive.message.max.bytes": 200_000_000,
                                  "log.connection.close": False})
        topics = (ledger.receipts_topic, ledger.dead_letter_topic, *sorted(ledger.retry_topics))
        self.consumer.assign([TopicPartition(topic, partition, OFFSET_BEGINNING)
                              for topic in topics for partition in range(partitions)])
        self.next_offsets: dict[tuple[str, int], int] = {}
        self.running = True
        self.error: str | None = None
        self.thread = threading.Thread(target=self.run, name="fuzz-output-reader", daemon=True)
        self.thread.start()

    def run(self) -> None:
        try:
            while self.running:
                for message in self.consumer.consume(1000, 0.2):
                    if message.error():
                        continue  # partition EOF and transient errors
                    key = (message.topic(), message.partition())
                    expected = self.next_offsets.get(key, 0)
                    if message.offset() > expected:
                        self.ledger.lost_outputs += message.offset() - expected
                    self.next_offsets[key] = message.offset() + 1
                    self.ledger.read(message)
        except Exception as error:  # reported by the runner; the reader must not die silently
            self.error = f"{type(error).__name__}: {error}"
        finally:
            self.consumer.close()

    def stop(self) -> None:
        self.running = False
        self.thread.join(timeout=10)
