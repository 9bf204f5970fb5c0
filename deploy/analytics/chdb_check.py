"""Runs the analytics kit in embedded ClickHouse (chdb) on receipts from a file, without a server or Kafka.

The kit's DDL is applied as it is, except the Kafka-engine queue, which becomes a Null-engine table of the
same shape (its materialized view fires on inserts just the same). The receipts (one JSON object a line,
as on the topic) are inserted into it, every query in queries/ runs, and the results are printed as one
JSON object shaped like `push-worker receipts stats --format json`, for comparison.

    python deploy/analytics/chdb_check.py --receipts receipts.jsonl
"""

import argparse
import json
import pathlib
import re
import tempfile

from chdb import session

KIT = pathlib.Path(__file__).resolve().parent


def statements(path):
    text = "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("--"))
    return [statement.strip() for statement in text.split(";") if statement.strip()]


def rows(db, sql):
    return json.loads(db.query(sql, "JSON").bytes() or b'{"data": []}')["data"]


def load(db, receipts):
    for path in sorted((KIT / "clickhouse").glob("*.sql")):
        for statement in statements(path):
            if re.search(r"ENGINE\s*=\s*Kafka", statement):
                statement = "CREATE TABLE IF NOT EXISTS push.receipts_queue (raw String) ENGINE = Null"
            db.query(statement)
    lines = [line for line in receipts.read_text().splitlines() if line.strip()]
    for start in range(0, len(lines), 10_000):
        db.query("INSERT INTO push.receipts_queue FORMAT JSONAsString\n" + "\n".join(lines[start : start + 10_000]))


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
    return {
        "total": int(rows(db, "SELECT count() AS n FROM push.receipts")[0]["n"]),
        "byStatus": {row["status"]: int(row["receipts"]) for row in query(db, "by_status")},
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
    parser.add_argument("--receipts", required=True, type=pathlib.Path, help="receipts, one JSON object a line")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="push-chdb-") as directory:
        db = session.Session(directory)
        load(db, arguments.receipts)
        print(json.dumps(report(db), sort_keys=True))
        db.close()


if __name__ == "__main__":
    main()
