"""What the benchmark reads back: every receipt of `push.receipts` (through `bench_receipt_reader.c`), counted as it
arrives."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from processes import build_c, popen, stop


@dataclass
class ReceiptStats:
    """What the receipts reader has seen so far (updated from its thread)."""

    count: int = 0
    statuses: dict = field(default_factory=dict)
    first_ms: int | None = None
    last_ms: int | None = None
    provider_latency_ms: list = field(default_factory=list)
    end_to_end_ms: list = field(default_factory=list)


def build_receipt_reader(directory: Path) -> Path:
    """Compiles `bench_receipt_reader.c` into `directory`: the reader `ReceiptReader` runs."""
    return build_c("bench_receipt_reader", directory, ["-lrdkafka"])


class ReceiptReader:
    """Tails `push.receipts` from the beginning with `bench_receipt_reader` (librdkafka; it prints a receipt's
    timestamp, messageId, status and latencyMs), counting receipts whose messageId has `prefix`."""

    def __init__(self, binary: Path, bootstrap: str, topic: str, prefix: str, created: dict[str, int]):
        self.prefix = prefix + "-"
        self.created = created
        self.stats = ReceiptStats()
        self.everything = 0  # receipts of any message, warm-up included
        self.lock = threading.Lock()
        self.process = popen([str(binary), bootstrap, topic], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True, bufsize=1 << 16)
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self) -> None:
        for line in self.process.stdout:
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 4:
                continue
            timestamp, message_id, status, latency = fields
            with self.lock:
                self.everything += 1
                if not message_id.startswith(self.prefix):
                    continue
                at = int(timestamp)
                stats = self.stats
                stats.count += 1
                stats.statuses[status] = stats.statuses.get(status, 0) + 1
                stats.first_ms = at if stats.first_ms is None else min(stats.first_ms, at)
                stats.last_ms = at if stats.last_ms is None else max(stats.last_ms, at)
                if latency not in ("-", "null"):
                    stats.provider_latency_ms.append(float(latency))
                created = self.created.get(message_id)
                if created is not None:
                    stats.end_to_end_ms.append(at - created)

    @property
    def count(self) -> int:
        with self.lock:
            return self.stats.count

    def wait_for(self, total: int, stall_timeout: float) -> None:
        """Returns when `total` receipts arrived, or when none arrived for `stall_timeout` seconds."""
        last, last_change = -1, time.monotonic()
        while (seen := self.count) < total:
            if seen != last:
                last, last_change = seen, time.monotonic()
            elif time.monotonic() - last_change > stall_timeout:
                print(f"bench: receipts stalled at {seen} of {total}", file=sys.stderr)
                return
            time.sleep(0.05)

    def stop(self) -> None:
        stop(self.process, timeout=10)
        self.thread.join(timeout=10)
