"""Runs the analytics kit in embedded ClickHouse (chdb) on receipts from a file, without a server or Kafka.

The kit's DDL is applied as it is, except the Kafka-engine queue, which becomes a Null-engine table of the
same shape plus the Kafka engine's virtual columns (`_topic`, `_partition`, `_offset`, `_timestamp_ms`,
`_error`, `_raw_message`); its materialized views fire on inserts just the same. The receipts are inserted
into it, every query in queries/ runs over the window, and the results are printed as one JSON object shaped
like `push-worker receipts stats --format json`, for comparison.

    python deploy/analytics/chdb_check.py --receipts receipts.jsonl
    python deploy/analytics/chdb_check.py --records records.jsonl [--from T] [--to T] [--run ID]

--receipts: one receipt JSON object a line, as one partition in line order (no record timestamps).
--records: one Kafka record a line, {"topic", "partition", "offset", "timestampMs", "value": "<receipt JSON>"}.
"""

import argparse
import json
import pathlib
import re
import tempfile

from chdb import session

KIT = pathlib.Path(__file__).resolve().parent
QUEUE = (
    "CREATE TABLE IF NOT EXISTS push.receipts_queue (raw String, _topic String, _partition UInt64, "
    "_offset UInt64, _timestamp_ms Nullable(DateTime64(3)), _error String, _raw_message String) ENGINE = Null"
)


def statements(path):
    text = "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("--"))
    return [statement.strip() for statement in text.split(";") if statement.strip()]


def rows(db, sql):
    return json.loads(db.query(sql, "JSON").bytes() or b'{"data": []}')["data"]


def create(db):
    for path in sorted((KIT / "clickhouse").glob("*.sql")):
        for statement in statements(path):
            db.query(QUEUE if re.search(r"ENGINE\s*=\s*Kafka", statement) else statement)


def insert(db, records, block=10_000):
    """Inserts `records` (dicts with the queue's columns) in blocks: each block is a part, as the Kafka engine
    writes them, so copies stand in separate parts until a merge."""
    for start in range(0, len(records), block):
        lines = "\n".join(json.dumps(record) for record in records[start : start + block])
        db.query("INSERT INTO push.receipts_queue FORMAT JSONEachRow\n" + lines)


def from_receipts(path):
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    return [{"raw": line, "_topic": "push.receipts", "_partition": 0, "_offset": index} for index, line in enumerate(lines)]


def from_records(path):
    records = []
    for line in path.read_text().splitlines():
        if line.strip():
            record = json.loads(line)
            timestamp = record.get("timestampMs")
            records.append(
                {
                    "raw": record["value"],
                    "_topic": record["topic"],
                    "_partition": record["partition"],
                    "_offset": record["offset"],
                    "_timestamp_ms": None if timestamp is None else timestamp / 1000,
                }
            )
    return records


def window(db, start, end, run):
    for name, value in (("from", start), ("to", end), ("run", run)):
        db.query(f"SET param_{name} = '{value}'")


def query(db, name):
    (statement,) = statements(KIT / "queries" / f"{name}.sql")
    return rows(db, statement)


def nested(result, outer):
    counts = {}
    for row in result:
        counts.setdefault(row[outer], {})[row["status"]] = int(row["receipts"])
    return counts


def report(db):
    latency = query(db, "latency")[0]
    copies = query(db, "copies")[0]
    by_status = {row["status"]: int(row["receipts"]) for row in query(db, "by_status")}
    return {
        "total": sum(by_status.values()),
        "rows": int(rows(db, "SELECT count() AS n FROM push.receipts")[0]["n"]),
        "copies": {"dropped": int(copies["copiesDropped"]), "records": int(copies["records"])},
        "byStatus": by_status,
        "suspect": int(query(db, "suspect")[0]["receipts"]),
        "byPlatform": nested(query(db, "by_platform_status"), "platform"),
        "byType": nested(query(db, "by_type_status"), "type"),
        "deliveryRate": query(db, "delivery_rate")[0]["deliveryRate"],
        "latencyMs": {
            "count": int(latency["sends"]),
            **{name: latency[name] if int(latency["sends"]) else None for name in ("p50", "p95", "p99")},
        },
        "attempts": {str(row["attempts"]): int(row["receipts"]) for row in query(db, "attempts")},
        "topFailureReasons": [
            {"status": row["status"], "reason": row["reason"], "count": int(row["receipts"])}
            for row in query(db, "top_failure_reasons")
        ],
        "perMinute": [
            {
                "minute": row["minute"],
                "receipts": int(row["total"]),
                "delivered": int(row["delivered"]),
                "skipped": int(row["skipped"]),
            }
            for row in query(db, "per_minute")
        ],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--receipts", type=pathlib.Path, help="receipts, one JSON object a line")
    source.add_argument("--records", type=pathlib.Path, help="Kafka records of the receipts topic, one a line")
    parser.add_argument("--from", dest="start", default="1970-01-01 00:00:00", help="window start (UTC)")
    parser.add_argument("--to", dest="end", default="2100-01-01 00:00:00", help="window end, exclusive (UTC)")
    parser.add_argument("--run", default="*", help="'' live sends only, a replay run id, or '*' all (default)")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="push-chdb-") as directory:
        db = session.Session(directory)
        create(db)
        insert(db, from_receipts(arguments.receipts) if arguments.receipts else from_records(arguments.records))
        window(db, arguments.start, arguments.end, arguments.run)
        print(json.dumps(report(db), sort_keys=True))
        db.close()


if __name__ == "__main__":
    main()
