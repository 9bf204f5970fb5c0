"""Fuzzes the real `push-worker run` with hostile records and a hostile provider (docs/testing.md, "Fuzzing").

    .venv/bin/python deploy/local/fuzz.py --worker .build/debug/push-worker --records 300 --provider-answers 100 \
        --seed 7

(deploy/local/fuzz.sh builds the worker and runs this.) Starts the dev broker, the push simulator in hostile mode
(`hostile.py`: a share of the push requests get absurd answers) and the worker; produces seeded hostile records
(fuzz_records.py) to the input and retry topics, paced so that the dev broker (which keeps only 5 MiB per
partition, headers included) never drops one before the worker read it (a record it dropped fails the run); reads
every output (fuzz_accounting.py). Then asserts: the worker never died and still runs, every record is accounted for, the group's committed offsets reached the
end of every input partition, retries the worker wrote resolved, peak RSS and the CPU once idle stayed bounded,
and SIGTERM still stops it with exit status 0. Meanwhile the rules file is swapped, every second, for a FIFO,
a link to /dev/zero, a file over the rules file's cap and the good file again (`--no-file-swaps` to keep it): the
worker must refuse each and keep its table, without blocking or filling memory. Prints one summary line, and exits 1 with the reasons (seed,
record index, what was missing) on any failure. `--only 17,42` replays just those records of the seed.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import os
import signal
import sys
import tempfile
import threading
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

from fuzz_accounting import Ledger, OutputReader
from fuzz_records import FuzzRecord, Generator, RecordSummary
from processes import (ROOT, Child, ProcessFailed, ResourceSampler, Simulator, cpu_seconds, start_dev_broker,
                       start_worker)

INPUT_TOPIC = "chat.messages"
RECEIPTS_TOPIC = "push.receipts"
DEAD_LETTER_TOPIC = "push.dlq"
# The worker's default retry tiers (PUSH_RETRY_TIERS 1s,10s,1m,10m,1h), which the dev broker creates.
RETRY_TOPICS = [f"push.retry-{delay_ms}" for delay_ms in (1_000, 10_000, 60_000, 600_000, 3_600_000)]
GROUP = "fuzz"
# What may wait uncommitted per input partition (`FuzzRecord.stored_size`: headers count): the dev broker keeps 5 MiB
# per partition and drops older records, read or not.
BACKLOG_BYTES = 3_000_000
BACKLOG_RECORDS = 2_000
# A retry record due this long before the end must have resolved.
RETRY_GRACE_MS = 60_000
PUSH_PATHS = "^/(3/device|v1/projects)/"


def say(line: str) -> None:
    print(f"fuzz: {line}", flush=True)


class FuzzFailed(Exception):
    """The worker died or the run could not go on; the message says why."""


@dataclass
class Backlog:
    """Produced input records per partition (offset, size) against the group's committed offsets."""

    produced: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    committed: dict[int, int] = field(default_factory=dict)
    changed_at: float = field(default_factory=time.monotonic)
    dropped: dict[int, set[int]] = field(default_factory=dict)  # offsets the broker dropped before their commit

    def add(self, partition: int, offset: int, size: int) -> None:
        self.produced.setdefault(partition, []).append((offset, size))

    def commit(self, offsets: dict[int, int]) -> None:
        if offsets != self.committed:
            self.changed_at = time.monotonic()
        self.committed = offsets

    def log_starts(self, starts: dict[int, int]) -> None:
        """Notes each partition's first kept offset: produced records below it that the group had not committed
        were dropped by the broker, perhaps before the worker read them (then the pacing failed)."""
        for partition, start in starts.items():
            done = self.committed.get(partition, 0)
            if start > done:
                self.dropped.setdefault(partition, set()).update(
                    offset for offset, _ in self.produced.get(partition, []) if done <= offset < start)

    def waiting(self) -> dict[int, tuple[int, int]]:
        """Records and bytes produced but not yet committed, by partition."""
        waiting = {}
        for partition, entries in self.produced.items():
            done = self.committed.get(partition, 0)
            records = size = 0
            for offset, length in reversed(entries):
                if offset < done:
                    break
                records += 1
                size += length
            waiting[partition] = (records, size)
        return waiting

    def room_for(self, size: int, partitions: list[int], in_transit: tuple[int, int]) -> bool:
        """Whether a record of `size` bytes bound for one of `partitions` keeps their backlog within the limits,
        counting what is on its way to the broker (`in_transit`: records and bytes) against each of them."""
        waiting = self.waiting()
        if not any(records for records, _ in waiting.values()) and not in_transit[0]:
            return True  # an empty backlog takes even a record above the limits
        return all(waiting.get(partition, (0, 0))[0] + in_transit[0] < BACKLOG_RECORDS
                   and waiting.get(partition, (0, 0))[1] + in_transit[1] + size <= BACKLOG_BYTES
                   for partition in partitions)

    def first_waiting(self) -> tuple[int, int] | None:
        """(partition, offset) of the oldest uncommitted record."""
        for partition, entries in sorted(self.produced.items()):
            done = self.committed.get(partition, 0)
            if entries and entries[-1][0] >= done:
                return partition, max(done, entries[0][0])
        return None


@dataclass
class Findings:
    """What a run found; `problems` are the reasons it failed."""

    problems: list[str] = field(default_factory=list)
    crashes: int = 0
    stalls: int = 0
    idle_cpu: float = 0.0
    worker_status: int | None = None
    hostile: dict = field(default_factory=lambda: {"answers": 0, "kinds": {}})
    requests: int = 0  # HTTP/2 requests the push simulator received
    candidates: list[int] = field(default_factory=list)  # indexes of the records not committed at a crash
    file_swaps: int = 0  # times the rules file was swapped for a hostile one
    refused_reloads: int = 0  # rules reloads the worker refused (logged)


class FileSwapper:
    """Swaps the worker's rules file, every `hold` seconds, for a FIFO, a link to /dev/zero, a file over the 4 MiB
    a rules file may have, and the good file again, each by an atomic rename as a ConfigMap update would; on
    `stop` the good file is back."""

    KINDS = ("fifo", "/dev/zero", "huge", "good")

    def __init__(self, path: Path, hold: float = 1.0):
        self.path, self.hold = path, hold
        self.good = path.read_bytes()
        self.swaps = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, name="file-swapper", daemon=True)
        self.thread.start()

    def run(self) -> None:
        turn = 0
        while not self.stopping.wait(self.hold):
            kind = self.KINDS[turn % len(self.KINDS)]
            turn += 1
            self.swap(kind)
            self.swaps += kind != "good"

    def swap(self, kind: str) -> None:
        staged = self.path.with_name(f".{self.path.name}.{kind.strip('/').replace('/', '-')}")
        staged.unlink(missing_ok=True)
        if kind == "fifo":
            os.mkfifo(staged)
        elif kind == "/dev/zero":
            staged.symlink_to("/dev/zero")
        elif kind == "huge":
            staged.write_bytes(b" " * (5 << 20))
        else:
            staged.write_bytes(self.good)
        os.replace(staged, self.path)

    def stop(self) -> int:
        self.stopping.set()
        self.thread.join()
        self.swap("good")
        return self.swaps


class Fuzz:
    def __init__(self, arguments: argparse.Namespace, directory: Path):
        self.arguments = arguments
        self.directory = directory
        self.children: list[Child] = []
        self.refused: list[tuple[RecordSummary, str]] = []
        self.records: dict[tuple[str, int, int], RecordSummary] = {}  # by position, without their bytes
        self.simulator: Simulator | None = None
        self.worker: Child | None = None
        self.sampler: ResourceSampler | None = None
        self.tuned_at = 0.0
        self.total = 0  # records to produce
        self.ledger = Ledger(RECEIPTS_TOPIC, DEAD_LETTER_TOPIC, RETRY_TOPICS)
        self.backlog = Backlog()
        self.generator = Generator(arguments.seed, int(time.time() * 1000), ROOT / "schemas/examples/chat-message",
                                   INPUT_TOPIC, RETRY_TOPICS)

    def run(self, indexes: list[int]) -> Findings:
        """Starts everything, produces the records at `indexes`, waits for the worker to settle and stops it."""
        findings = Findings()
        began = time.monotonic()
        reader = swapper = None
        try:
            self.start()
            reader = OutputReader(self.servers, self.ledger, self.arguments.partitions)
            if self.arguments.file_swaps:
                swapper = FileSwapper(self.directory / "rules.json")
            self.produce(indexes)
            say(f"produced {len(self.records)} records ({len(self.refused)} refused by Kafka) in "
                f"{time.monotonic() - began:.0f} s; waiting for the worker to settle")
            findings.problems += self.settle()
            now = int(time.time() * 1000)
            unresolved = self.ledger.unresolved_retries(now - RETRY_GRACE_MS, self.ledger.parked_from(now))
            if unresolved:
                first = unresolved[0]
                findings.problems.append(
                    f"stall: {len(unresolved)} retry records the worker wrote were due over {RETRY_GRACE_MS // 1000} s "
                    f"ago and never resolved (first: {first.position}, source {first.source}, due {first.due_ms})")
            findings.idle_cpu = self.idle_cpu_percent()
            if reader.error:
                findings.problems.append(f"the fuzzer's output reader failed: {reader.error}")
        except FuzzFailed as failure:
            findings.problems.append(str(failure))
            if self.worker is not None and self.worker.process.poll() is not None:
                findings.crashes += 1
                findings.problems += self.crash_report(findings)
        except ProcessFailed as failure:
            findings.problems.append(str(failure))
        finally:
            if swapper is not None:
                findings.file_swaps = swapper.stop()
            if self.sampler is not None:
                self.sampler.stop()
            if self.simulator is not None and self.simulator.child.process.poll() is None:
                findings.hostile = self.simulator.control("POST", "/control/hostile-stats", {})
                findings.requests = self.simulator.control("GET", "/stats")["streams"]
            if reader is not None:
                reader.stop()  # before the broker goes
            findings.worker_status = self.stop().get("push-worker run")
        if self.worker is not None:
            findings.refused_reloads = self.worker.log.read_text(errors="replace").count("rules reload refused")
        if findings.file_swaps and not findings.refused_reloads:
            findings.problems.append(f"the rules file was swapped {findings.file_swaps} times for a FIFO, /dev/zero or "
                                     "a huge file, and the worker refused none")
        if self.worker is not None and not findings.crashes and findings.worker_status != 0:
            findings.problems.append(f"push-worker exited with status {findings.worker_status} after SIGTERM, not 0")
        if self.peak_rss_mb > self.arguments.max_rss_mb:
            findings.problems.append(f"peak RSS {self.peak_rss_mb:.0f} MB above {self.arguments.max_rss_mb:.0f} MB")
        if findings.idle_cpu > self.arguments.max_idle_cpu:
            findings.problems.append(f"hot loop: {findings.idle_cpu:.0f} % CPU once everything settled (limit "
                                     f"{self.arguments.max_idle_cpu:.0f} %)")
        if self.ledger.bad_receipts:
            findings.problems += [f"receipt: {line}" for line in self.ledger.bad_receipts[:10]]
        for partition, offsets in sorted(self.backlog.dropped.items()):
            say(f"the dev broker dropped {len(offsets)} records of {INPUT_TOPIC}/{partition} (offsets {min(offsets)} "
                f"to {max(offsets)}) before the worker committed them; those it had not read yet are unaccounted")
        if self.ledger.lost_outputs:
            findings.problems.append(f"the dev broker dropped {self.ledger.lost_outputs} outputs before the fuzzer "
                                     "read them (its reader fell behind; the accounting is incomplete)")
        findings.stalls = sum(problem.startswith("stall") for problem in findings.problems)
        return findings

    @property
    def peak_rss_mb(self) -> float:
        return self.sampler.peak_rss_kib / 1024 if self.sampler else 0.0

    @property
    def peak_cpu_percent(self) -> float:
        return self.sampler.peak_cpu_percent() if self.sampler else 0.0

    # Starting

    def start(self) -> None:
        arguments = self.arguments
        broker, self.servers = start_dev_broker(arguments.worker, self.directory, arguments.partitions)
        self.children.append(broker)
        self.simulator = Simulator(self.directory, ["--seed", str(arguments.seed)])
        self.children.append(self.simulator.child)
        settings = self.simulator.provider_settings()
        worker, _ = start_worker(arguments.worker, self.directory, {
            **settings, "KAFKA_BOOTSTRAP_SERVERS": self.servers, "KAFKA_GROUP_ID": GROUP,
            "KAFKA_AUTO_COMMIT_INTERVAL_MS": "1000", "PUSH_WORKER_ID": "fuzz-worker",
            "PUSH_RULES_FILE": str(rules_file(self.directory)), "PUSH_RETRY_BUDGET_MS": "2000",
            "PUSH_REQUEST_TIMEOUT_MS": "3000", "PUSH_SHUTDOWN_GRACE_SECONDS": "10", "PUSH_RULES_CHECK_MS": "200",
            **dict(setting.split("=", 1) for setting in arguments.worker_env),
        })
        self.worker = worker
        self.children.append(worker)
        self.sampler = ResourceSampler(worker.process.pid)
        say(f"seed {arguments.seed}; dev broker {self.servers}, push simulator {self.simulator.base_url}, "
            f"push-worker pid {worker.process.pid}; logs in {self.directory}")

    def tune_hostile_provider(self) -> None:
        """Sets the share of push requests that get a hostile answer so that the answers still to give spread over
        the requests still to come, estimated (at most every half second) by the devices still waiting for an
        outcome, plus a request for each record not yet produced. Not by the committed offsets: one record held by a
        stalled answer holds its partition's commit while the records behind it are sent."""
        answers = self.arguments.provider_answers
        if answers <= 0 or time.monotonic() - self.tuned_at < 0.5:
            return
        self.tuned_at = time.monotonic()
        given = self.simulator.control("POST", "/control/hostile-stats", {})["answers"]
        if given >= answers:
            return
        waiting = self.ledger.devices_waiting() + self.total - len(self.records) - len(self.refused)
        rate = min(1.0, 2 * (answers - given) / max(1, waiting))
        self.simulator.control("POST", "/faults", {"rules": [
            {"path": PUSH_PATHS, "rate": rate, "times": answers - given, "hostile": True}]})

    # Producing

    def produce(self, indexes: list[int]) -> None:
        generator, ledger, backlog = self.generator, self.ledger, self.backlog
        self.total = len(indexes)
        producer = Producer({"bootstrap.servers": self.servers, "message.max.bytes": 2_000_000, "linger.ms": 5,
                             "enable.idempotence": True, "log.connection.close": False})
        groups = Consumer({"bootstrap.servers": self.servers, "group.id": GROUP, "enable.auto.commit": False,
                           "log.connection.close": False})
        partitions = [TopicPartition(INPUT_TOPIC, partition) for partition in range(self.arguments.partitions)]
        last_check = 0.0
        in_transit = [0, 0]  # records and bytes handed to the producer, not yet delivered

        def delivered(record: FuzzRecord, size: int):
            def callback(error, message) -> None:
                in_transit[0] -= 1
                in_transit[1] -= size
                if error is not None:
                    self.refused.append((record.summary(), str(error)))
                    return
                position = (message.topic(), message.partition(), message.offset())
                self.records[position] = record.summary()
                ledger.produced(record, self.records[position], position)
                if message.topic() == INPUT_TOPIC:
                    backlog.add(message.partition(), message.offset(), size)
            return callback

        try:
            for count, index in enumerate(indexes, 1):
                record = generator.record(index)
                size = record.stored_size
                while True:
                    producer.poll(0)
                    if time.monotonic() - last_check > 0.5:
                        last_check = time.monotonic()
                        self.check_alive()
                        starts = log_starts(groups, partitions)  # first: a commit read after it is no older
                        backlog.commit(committed(groups, partitions))
                        backlog.log_starts(starts)
                        self.check_progress()
                    bound = partition_of(record.key, self.arguments.partitions)
                    if record.topic != INPUT_TOPIC or backlog.room_for(
                            size, list(range(self.arguments.partitions)) if bound is None else [bound],
                            (in_transit[0], in_transit[1])):
                        break
                    time.sleep(0.02)
                try:
                    producer.produce(record.topic, value=record.value, key=record.key, headers=record.headers,
                                     on_delivery=delivered(record, size))
                    in_transit[0] += 1
                    in_transit[1] += size
                except (KafkaException, BufferError) as error:
                    self.refused.append((record.summary(), str(error)))
                if count % 1000 == 0:
                    say(f"produced {count} of {len(indexes)} records")
                producer.poll(0)
            if producer.flush(60):
                raise FuzzFailed("the fuzzer's producer could not deliver every record within 60 s")
        finally:
            groups.close()

    # Watching

    def check_alive(self) -> None:
        status = self.worker.process.poll()
        if status is not None:
            how = f"signal {signal.Signals(-status).name}" if status < 0 else f"exit status {status}"
            raise FuzzFailed(f"push-worker died ({how})")

    def check_progress(self) -> None:
        """Fails on a stall; meanwhile keeps the hostile answers spread over the run."""
        backlog = self.backlog
        self.tune_hostile_provider()
        waiting = any(records for records, _ in backlog.waiting().values())
        if waiting and time.monotonic() - backlog.changed_at > self.arguments.stall_seconds:
            partition, offset = backlog.first_waiting() or (0, 0)
            record = self.records.get((INPUT_TOPIC, partition, offset))
            raise FuzzFailed(f"stall: the committed offset of {INPUT_TOPIC}/{partition} stayed at {offset} for "
                             f"{self.arguments.stall_seconds} s; there: "
                             f"{record.describe() if record else 'a record without delivery report'}")

    def settle(self) -> list[str]:
        """Waits until every input record is committed and accounted for (or the deadline); returns what is still
        missing."""
        ledger, backlog = self.ledger, self.backlog
        groups = Consumer({"bootstrap.servers": self.servers, "group.id": GROUP, "enable.auto.commit": False,
                           "log.connection.close": False})
        partitions = [TopicPartition(INPUT_TOPIC, partition) for partition in range(self.arguments.partitions)]
        started = time.monotonic()
        try:
            while True:
                self.check_alive()
                starts = log_starts(groups, partitions)  # first: a commit read after it is no older
                backlog.commit(committed(groups, partitions))
                backlog.log_starts(starts)
                ends = {partition.partition: groups.get_watermark_offsets(partition, timeout=5)[1]
                        for partition in partitions}
                behind = {partition: end for partition, end in ends.items()
                          if backlog.committed.get(partition, 0) < end}
                missing = self.unaccounted()
                if not behind and not missing:
                    say(f"settled {time.monotonic() - started:.0f} s after the last record")
                    return []
                if time.monotonic() - started > self.arguments.deadline:
                    lines = [f"stall: {INPUT_TOPIC}/{partition} committed {backlog.committed.get(partition)} of "
                             f"{end} after {self.arguments.deadline} s" for partition, end in sorted(behind.items())]
                    return lines + missing
                self.check_progress()
                time.sleep(0.5)
        finally:
            groups.close()

    def unaccounted(self) -> list[str]:
        ledger = self.ledger
        parked = ledger.parked_from(int(time.time() * 1000))
        return [f"unaccounted: seed {self.arguments.seed}, {record.describe()} at {position[0]}/{position[1]}@"
                f"{position[2]}: {missing}{self.dropped_note(position)}"
                for position, record in sorted(self.records.items())
                if (missing := ledger.missing(position, parked))]

    def dropped_note(self, position: tuple[str, int, int]) -> str:
        """Why a record may have no output that is not the worker's doing: the dev broker dropped it uncommitted."""
        topic, partition, offset = position
        if topic != INPUT_TOPIC or offset not in self.backlog.dropped.get(partition, set()):
            return ""
        return (" (the dev broker dropped it before the worker committed it: the fuzzer's pacing let the partition "
                "outgrow the broker's 5 MiB)")

    def idle_cpu_percent(self, seconds: float = 5.0) -> float:
        """The worker's CPU use over `seconds` once nothing is left to do (a hot loop shows here)."""
        pid = self.worker.process.pid
        try:
            before, started = cpu_seconds(pid), time.monotonic()
            time.sleep(seconds)
            return 100 * (cpu_seconds(pid) - before) / (time.monotonic() - started)
        except OSError:
            self.check_alive()
            raise

    # Stopping

    def stop(self) -> dict[str, int | None]:
        statuses = {}
        for child in reversed(self.children):
            statuses[child.name] = child.stop()
        self.children.clear()
        for secrets in [self.directory / "certs", *self.directory.glob("push-simulator-*")]:
            shutil.rmtree(secrets, ignore_errors=True)
        return statuses

    def crash_candidates(self) -> list[tuple[tuple[str, int, int], RecordSummary]]:
        """The records the worker had not committed when it died: the culprit, if a record, is among them."""
        return [(position, record) for position, record in sorted(self.records.items())
                if position[0] == INPUT_TOPIC and position[2] >= self.backlog.committed.get(position[1], 0)
                or position[0] in RETRY_TOPICS]

    def crash_report(self, findings: Findings) -> list[str]:
        """The records not committed (written to crash-candidates.txt for `--only`), the last hostile answers and
        the worker's last words."""
        candidates = self.crash_candidates()
        findings.candidates = [record.index for _, record in candidates]
        listing = self.directory / "crash-candidates.txt"
        listing.write_text(",".join(map(str, findings.candidates)) + "\n")
        lines = [f"{len(candidates)} records were not committed; replay them alone with --seed {self.arguments.seed} "
                 f"--provider-answers 0 --only $(cat {listing}), or find the one with --bisect"]
        for position, record in candidates[:8]:
            lines.append(f"  {position[0]}/{position[1]}@{position[2]}: {record.describe()}")
        answers = [request for request in self.simulator.control("GET", "/requests")["requests"]
                   if request.get("hostile")]
        lines += [f"  last hostile answer: {request['hostile']}" for request in answers[-3:]]
        lines += [f"  worker: {line.strip()[:300]}" for line in crash_lines(self.worker.log)]
        return lines


def crash_with(arguments: argparse.Namespace, indexes: list[int]) -> list[str] | None:
    """The worker's last words when it dies on the records at `indexes` alone (no hostile provider answer), or None
    when it does not."""
    trial = argparse.Namespace(**{**vars(arguments), "provider_answers": 0, "deadline": 60.0})
    findings = Fuzz(trial, Path(tempfile.mkdtemp(prefix="push-worker-fuzz-bisect-"))).run(indexes)
    say(f"bisect: {len(indexes)} records {'crash' if findings.crashes else 'do not crash'} the worker")
    if not findings.crashes:
        return None
    return [problem.strip() for problem in findings.problems if problem.strip().startswith("worker:")]


def bisect(arguments: argparse.Namespace, candidates: list[int]) -> str:
    """Halves `candidates` while one half alone still crashes the worker; says what it found and how it crashed."""
    last_words = crash_with(arguments, candidates)
    if last_words is None:
        return "the records alone do not crash the worker: look at the hostile answers above"
    while len(candidates) > 1:
        half = len(candidates) // 2
        for part in (candidates[:half], candidates[half:]):
            if (words := crash_with(arguments, part)) is not None:
                candidates, last_words = part, words
                break
        else:
            break  # it takes records of both halves together
    listed = ",".join(map(str, candidates))
    return (f"the worker dies on record(s) {listed} of seed {arguments.seed} alone (--only {listed}): "
            + " / ".join(last_words[:2]))


def rules_file(directory: Path) -> Path:
    """The built-in rules table (the ConfigMap's copy of it) with `unknownType: deadLetter`, so that a hostile type
    is quoted in a dead letter's headers; written into `directory`."""
    block = (ROOT / "deploy/kubernetes/base/configmap.yaml").read_text().split("rules.json: |\n", 1)[1]
    lines = []
    for line in block.splitlines():
        if line.strip() and not line.startswith("    "):
            break
        lines.append(line[4:])
    rules = json.loads("\n".join(lines))
    rules["unknownType"] = {"policy": "deadLetter"}
    path = directory / "rules.json"
    path.write_text(json.dumps(rules, ensure_ascii=False, indent=2))
    return path


def crash_lines(log: Path) -> list[str]:
    """The worker's last words: Swift's fatal error line and the first frames of the crashed thread in its code."""
    lines = log.read_text(errors="replace").splitlines()
    fatal = [line for line in lines if "Fatal error" in line or "Program crashed" in line]
    start = next((number for number, line in enumerate(lines) if line.rstrip().endswith("crashed:")), len(lines))
    frames = [line for line in lines[start:] if " in push-worker at " in line][:4]
    return fatal + frames or lines[-6:]


def partition_of(key: bytes | None, partitions: int) -> int | None:
    """The partition the producer's default partitioner (consistent_random) picks for `key`: CRC-32 of the key;
    None for a null or empty key (a random partition)."""
    return zlib.crc32(key) % partitions if key else None


def committed(consumer: Consumer, partitions: list[TopicPartition]) -> dict[int, int]:
    try:
        return {partition.partition: max(0, partition.offset)
                for partition in consumer.committed(partitions, timeout=5)}
    except KafkaException:
        return {}


def log_starts(consumer: Consumer, partitions: list[TopicPartition]) -> dict[int, int]:
    """The first offset the broker still keeps, by partition (its low watermark)."""
    try:
        return {partition.partition: consumer.get_watermark_offsets(partition, timeout=5)[0]
                for partition in partitions}
    except KafkaException:
        return {}


def parse_indexes(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part.strip()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", required=True, type=Path, help="the push-worker binary")
    parser.add_argument("--records", type=int, default=1000, help="hostile records to produce (default 1000)")
    parser.add_argument("--provider-answers", type=int, default=100,
                        help="hostile provider answers the simulator gives at most (default 100)")
    parser.add_argument("--seed", type=int, default=None, help="seed of records and answers (default: random)")
    parser.add_argument("--only", type=parse_indexes, default=None, help="comma-separated record indexes to replay")
    parser.add_argument("--partitions", type=int, default=3, help="partitions per topic (default 3)")
    parser.add_argument("--deadline", type=float, default=180, help="seconds for everything to settle after the "
                        "last record (default 180)")
    parser.add_argument("--stall-seconds", type=float, default=120,
                        help="seconds without any committed progress that count as a stall (default 120)")
    parser.add_argument("--max-rss-mb", type=float, default=1024, help="peak resident memory allowed (default 1024)")
    parser.add_argument("--max-idle-cpu", type=float, default=50,
                        help="CPU %% of one core allowed once everything settled (default 50)")
    parser.add_argument("--bisect", action="store_true",
                        help="after a crash, replay halves of the records not committed until one record is left")
    parser.add_argument("--no-file-swaps", dest="file_swaps", action="store_false",
                        help="keep the rules file in place (by default it is swapped for hostile files every second)")
    parser.add_argument("--worker-env", action="append", default=[], metavar="NAME=VALUE",
                        help="an extra setting for push-worker run (repeatable)")
    arguments = parser.parse_args()
    arguments.worker = arguments.worker.resolve()
    if arguments.seed is None:
        arguments.seed = random.SystemRandom().randrange(1_000_000)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    began = time.monotonic()
    fuzz = Fuzz(arguments, Path(tempfile.mkdtemp(prefix="push-worker-fuzz-")))
    findings = fuzz.run(arguments.only if arguments.only is not None else list(range(arguments.records)))
    problems = findings.problems
    if findings.crashes and arguments.bisect and findings.candidates:
        problems.insert(0, f"bisect: {bisect(arguments, findings.candidates)}")
    for problem in problems[:30]:
        say(f"FAILED: {problem}")
    if len(problems) > 30:
        say(f"FAILED: … and {len(problems) - 30} more")
    unaccounted = sum(problem.startswith("unaccounted") for problem in problems)
    say(f"records {len(fuzz.records)}, provider answers {findings.hostile['answers']}, crashes {findings.crashes}, "
        f"stalls {findings.stalls}, unaccounted {unaccounted}, peak RSS {fuzz.peak_rss_mb:.0f} MB, peak CPU "
        f"{fuzz.peak_cpu_percent:.0f} %, idle CPU {findings.idle_cpu:.0f} %, refused by Kafka {len(fuzz.refused)}, "
        f"outputs naming no record {fuzz.ledger.strays()}, file swaps {findings.file_swaps} "
        f"({findings.refused_reloads} refused), seed {arguments.seed}, {time.monotonic() - began:.0f} s")
    say(f"{findings.requests} provider requests; hostile answers by kind: "
        f"{json.dumps(findings.hostile['kinds'], sort_keys=True)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
