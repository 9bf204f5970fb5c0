"""Times the analytics kit's queries in embedded ClickHouse (chdb) on generated receipts with copies, and checks
that each receiptId counts once before any merge.

    python deploy/analytics/chdb_bench.py [--receipts 1000000] [--copies 0.05]

Writes `--receipts` distinct receipts over 12 partitions, then a copy of a `--copies` share of them (a later
`sentAt`, as a worker taking over uncommitted sends writes it), in blocks of 10,000 records as the Kafka engine
inserts them, so copies stand in other parts than their first. Prints the rows the table holds (copies not yet
merged away), the distinct count and copies each query reports against the generated numbers, and each
query's wall time.
"""

import argparse
import json
import pathlib
import random
import sys
import tempfile
import time

from chdb import session

import chdb_check

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "local"))
import bench_receipts  # noqa: E402  (deploy/local: the receipts generator of the stats benchmark)

START_MS = 1_795_953_600_000  # 2026-11-29T12:00:00Z


def receipt(index, sent_ms, worker):
    """Receipt `index` as deploy/local/bench_receipts.py draws it (seeded by its index, so a copy has the same
    outcome), with its receiptId, `sent_ms` and `worker`."""
    value = json.loads(bench_receipts.receipt(index, random.Random(index), 0))
    value["receiptId"] = f"receipt-{index}"
    value["sentAt"] = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(sent_ms / 1000)) + ".%03dZ" % (sent_ms % 1000)
    value["replayRunId"] = "run-a" if index % 10 == 0 else None
    value["worker"] = worker
    return value


def records(count, copy_share, seed=7):
    rng = random.Random(seed)
    offsets = [0] * 12
    out = []

    def add(index, value):
        partition = index % 12
        out.append({"raw": json.dumps(value), "_topic": "push.receipts", "_partition": partition,
                    "_offset": offsets[partition], "_timestamp_ms": None})
        offsets[partition] += 1

    statuses = {}
    for index in range(count):
        value = receipt(index, START_MS + index * 3, "w-0")
        statuses[value["status"]] = statuses.get(value["status"], 0) + 1
        add(index, value)
    copied = rng.sample(range(count), int(count * copy_share))
    for index in copied:
        add(index, receipt(index, START_MS + index * 3 + 60_000, "w-1"))
    return out, statuses, len(copied)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--receipts", type=int, default=1_000_000)
    parser.add_argument("--copies", type=float, default=0.05)
    arguments = parser.parse_args()
    generated, statuses, copies = records(arguments.receipts, arguments.copies)
    with tempfile.TemporaryDirectory(prefix="push-chdb-") as directory:
        db = session.Session(directory)
        chdb_check.create(db)
        began = time.monotonic()
        chdb_check.insert(db, generated)
        print(f"inserted {len(generated)} records in {time.monotonic() - began:.1f} s")
        chdb_check.window(db, "1970-01-01 00:00:00", "2100-01-01 00:00:00", "*")
        rows = int(chdb_check.rows(db, "SELECT count() AS n FROM push.receipts")[0]["n"])
        print(f"table rows before merges: {rows} (distinct {arguments.receipts}, copies {copies})")
        for name in sorted(path.stem for path in (chdb_check.KIT / "queries").glob("*.sql")):
            began = time.monotonic()
            result = chdb_check.query(db, name)
            elapsed = time.monotonic() - began
            summary = ""
            if name == "by_status":
                counted = {row["status"]: int(row["receipts"]) for row in result}
                summary = f"distinct {sum(counted.values())}, equal to generated: {counted == statuses}"
            if name == "copies":
                summary = f"copies dropped {result[0]['copiesDropped']} (generated {copies})"
            print(f"{name:22} {elapsed * 1000:8.0f} ms  {summary}")
        db.close()


if __name__ == "__main__":
    main()
