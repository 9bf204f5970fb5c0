"""Memory and loading rate of the device registry with each store, over a large registry topic.

    .venv/bin/python deploy/local/bench_registry.py --bin .build/release/push-worker [--devices 1000000]
    .venv/bin/python deploy/local/bench_registry.py --bin before=/tmp/a/push-worker --bin after=.build/release/push-worker

Starts the dev broker with enough partitions that the mock cluster keeps every record, writes `--devices` subscriptions
to `push.devices` (half `ios` with 64-hex tokens, half `fcm` with 163-character tokens, two devices per client), then
times the ceiling: `kcat` reading the whole topic from its beginning to its end (librdkafka with its defaults, no
processing), before the workers and after each round of them. Then, for each `--bin` (several compare builds in one run,
against one broker; `--rounds N` repeats them in alternating order and prints the medians), it starts `push-worker run`
once per store of `--stores` and waits each time for its "device registry loaded" line: with `PUSH_DEVICE_STORE=memory`,
with `lmdb:` on an empty directory, and with the same directory again (the resume). For each it prints the seconds from
the process's start to the registry loaded, the records read per second over that time (startup included, so a lower
bound), the worker's CPU seconds until then, the resident memory once loaded (VmRSS, with its anonymous and file-backed
parts) and the registry's own `push_registry_bytes`. A worker with an empty registry is the baseline. With `--lookup-bin
.build/release/RegistryBenchmark` (built with `PUSH_WORKER_INTEGRATION=1 swift build -c release --product
RegistryBenchmark`) it adds what a lookup in each store costs against planning one send. With `--settings N --rooms R`
it also writes N client settings records muting R rooms each (`--devices 0` for settings alone), and `--small-fetch`
runs the workers with 1 MiB fetches and prefetch, so that RSS follows what the tables hold rather than librdkafka's
buffers: compare the RSS over the empty worker's with `push_registry_bytes`.
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from confluent_kafka import Producer

from bench_replay import service_account
from processes import Child, cpu_seconds, run, start_dev_broker, started_port

HERE = Path(__file__).resolve().parent
APP = "BenchApp"


def subscriptions(count: int):
    """(key, value) of `count` subscriptions: client i has an `ios` device (even i) and an `fcm` one (odd i)."""
    for index in range(count):
        client = f"client-{index // 2:07d}"
        if index % 2 == 0:
            kind, device, token = "ios", "phone", f"{index:064x}"
        else:
            kind, device, token = "fcm", "tablet", (f"fcm:{index:012d}:" + "A" * 163)[:163]
        value = {"appID": APP, "clientId": client, "type": kind, "token": token, "deviceId": device,
                 "locale": "ko-KR", "updatedAtMS": 1764590400000}
        yield f"{APP}/{client}/{kind}/{device}".encode(), json.dumps(value, separators=(",", ":")).encode()


def settings_records(count: int, rooms: int):
    """(key, value) of `count` client settings records, each muting `rooms` rooms of 6-character ids."""
    for index in range(count):
        client = f"settings-{index:07d}"
        value = {"appID": APP, "clientId": client, "mute": [f"r{room:05d}" for room in range(rooms)]}
        yield f"{APP}/{client}".encode(), json.dumps(value, separators=(",", ":")).encode()


def fill(bootstrap: str, count: int, settings: int = 0, rooms: int = 0) -> float:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 50, "batch.num.messages": 10000,
                         "queue.buffering.max.messages": 100000})
    started = time.monotonic()
    records = [("push.devices", record) for record in subscriptions(count)]
    records += [("push.clients", record) for record in settings_records(settings, rooms)]
    for index, (topic, (key, value)) in enumerate(records):
        if index % 10000 == 0:
            producer.poll(0)
        while True:
            try:
                producer.produce(topic, value, key)
                break
            except BufferError:
                producer.poll(0.1)
    producer.produce("push.clients", json.dumps({"appID": APP, "clientId": "client-0000000", "mute": ["r"]})
                     .encode(), f"{APP}/client-0000000".encode())
    if producer.flush(300) != 0:
        raise SystemExit("the registry records were not all acknowledged")
    return time.monotonic() - started


def memory(pid: int) -> dict[str, int]:
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("VmRSS", "RssAnon", "RssFile"):
            values[name] = int(rest.split()[0]) // 1024
    return values


def metric(port: int, name: str) -> float | None:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        for line in response.read().decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
    return None


def ceiling(bootstrap: str, records: int) -> dict:
    """A bare reader of the topic: kcat (librdkafka's defaults) from the beginning to the end, counting records."""
    started = time.monotonic()
    reader = run(["kcat", "-C", "-b", bootstrap, "-t", "push.devices", "-o", "beginning", "-e", "-q", "-f", "%p\\n"],
                 stdout=subprocess.PIPE, check=True)
    seconds = time.monotonic() - started
    count = reader.stdout.count(b"\n")
    if count != records:
        raise SystemExit(f"kcat read {count} records, not {records}")
    return {"seconds": seconds, "rate": count / seconds}


def measure(binary: str, scratch: Path, name: str, settings: dict[str, str], records: int) -> dict:
    environment = {"PATH": "/usr/bin:/bin", "LOG_LEVEL": "info", "PUSH_HTTP_HOST": "127.0.0.1",
                   "PUSH_HTTP_PORT": "0", "PUSH_DEVICES_LOAD_MS": "1800000", **settings}
    started = time.monotonic()
    worker = Child(f"push-worker run ({name})", [binary, "run"], scratch / f"worker-{name}.log", environment)
    try:
        worker.ready(lambda log: '"message":"device registry loaded"' in log, "the registry loaded", timeout=1800)
        seconds = time.monotonic() - started
        cpu = cpu_seconds(worker.process.pid)
        log = worker.wait_for_output(lambda log: '"message":"started"' in log, "'started'")
        time.sleep(2)  # the allocator's decay (1 s) returns what the load freed
        figures = memory(worker.process.pid)
        figures["cpu"] = cpu
        port = started_port(log)
        figures.update(name=name, seconds=seconds, rate=records / seconds if records else 0.0,
                       bytes=(metric(port, "push_registry_bytes") or 0) / 2**20,
                       devices=int(metric(port, "push_registry_devices") or 0))
        return figures
    finally:
        worker.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, action="append",
                        help="the push-worker executable, or LABEL=PATH; repeat to compare builds in one run")
    parser.add_argument("--stores", default="memory,lmdb", help="memory and/or lmdb (lmdb includes the resume)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="repeat the builds' loads (in alternating order) and the ceiling; prints the medians")
    parser.add_argument("--devices", type=int, default=1_000_000)
    parser.add_argument("--partitions", type=int, default=128)
    parser.add_argument("--lookup-bin", help="the RegistryBenchmark executable (its lookup figures), if built")
    parser.add_argument("--settings", type=int, default=0, help="client settings records to write besides the devices")
    parser.add_argument("--rooms", type=int, default=1000, help="muted rooms in each of those settings records")
    parser.add_argument("--small-fetch", action="store_true",
                        help="1 MiB fetches and prefetch (KAFKA_QUEUED_MAX_MESSAGES_KBYTES, KAFKA_FETCH_MAX_BYTES)")
    arguments = parser.parse_args()
    binaries = [(binary.partition("=")[0], binary.partition("=")[2]) if "=" in binary else ("", binary)
                for binary in arguments.bin]
    stores = arguments.stores.split(",")
    ceilings = []
    with tempfile.TemporaryDirectory(prefix="push-bench-registry-") as scratch_name:
        scratch = Path(scratch_name)
        account = service_account(scratch)
        broker, bootstrap = start_dev_broker(
            Path(binaries[0][1]), scratch, arguments.partitions,
            ["chat.messages", "push.devices", "push.clients", "push.invalid-tokens", "push.receipts", "push.dlq"])
        try:
            base = {"KAFKA_BOOTSTRAP_SERVERS": bootstrap, "FCM_SERVICE_ACCOUNT_FILE": str(account),
                    "FCM_URL": "https://127.0.0.1:9", "PUSH_WORKER_ID": "bench-registry"}
            if arguments.small_fetch:
                base.update(KAFKA_QUEUED_MAX_MESSAGES_KBYTES="1024", KAFKA_FETCH_MAX_BYTES="1048576",
                            KAFKA_MAX_PARTITION_FETCH_BYTES="1048576")
            rows = [measure(binaries[0][1], scratch, "empty", base, 0)]
            produce_seconds = fill(bootstrap, arguments.devices, arguments.settings, arguments.rooms)
            if arguments.devices:
                ceilings.append(ceiling(bootstrap, arguments.devices))
            file_mib = 0.0
            for round_index in range(arguments.rounds):
                # Alternate the order (A B, then B A, ...): the machine's load drifts over a run.
                order = binaries if round_index % 2 == 0 else list(reversed(binaries))
                for label, binary in order:
                    prefix = f"{label}:" if label else ""
                    if "memory" in stores:
                        rows.append(measure(binary, scratch, prefix + "memory", base, arguments.devices + 1))
                    if "lmdb" in stores:
                        store = scratch / f"lmdb-{label}-{round_index}"
                        store.mkdir()
                        lmdb = {**base, "PUSH_DEVICE_STORE": f"lmdb:{store}"}
                        rows.append(measure(binary, scratch, prefix + "lmdb", lmdb, arguments.devices + 1))
                        rows.append(measure(binary, scratch, prefix + "lmdb-resume", lmdb, 0))
                        file_mib = (store / "data.mdb").stat().st_size / 2**20
                if arguments.devices:
                    ceilings.append(ceiling(bootstrap, arguments.devices))
        finally:
            broker.stop()
    print(f"{arguments.devices} devices written in {produce_seconds:.1f} s; LMDB file {file_mib:.0f} MiB")
    reference = statistics.median(row["rate"] for row in ceilings) if ceilings else 0.0
    if ceilings:
        print("ceiling (kcat, whole topic): " + ", ".join(f"{row['rate']:.0f} records/s ({row['seconds']:.1f} s)"
                                                           for row in ceilings) + f"; median {reference:.0f}")
    width = max(12, *(len(row["name"]) for row in rows))
    header = (f"{'store':<{width}} {'devices':>9} {'load s':>8} {'records/s':>10} {'/ ceiling':>9} {'CPU s':>6}"
              f" {'RSS MiB':>8} {'anon':>6} {'file':>6} {'bytes MiB':>9}")

    def line(row):
        ratio = f"{row['rate'] / reference:.2f}" if row["rate"] and reference else "—"
        return (f"{row['name']:<{width}} {row['devices']:>9} {row['seconds']:>8.1f} {row['rate']:>10.0f} {ratio:>9}"
                f" {row['cpu']:>6.1f} {row['VmRSS']:>8.0f} {row['RssAnon']:>6.0f} {row['RssFile']:>6.0f}"
                f" {row['bytes']:>9.1f}")

    print(header)
    for row in rows:
        print(line(row))
    if arguments.rounds > 1:
        print(f"medians of {arguments.rounds} rounds:")
        print(header)
        for name in dict.fromkeys(row["name"] for row in rows):
            same = [row for row in rows if row["name"] == name]
            print(line({key: same[0][key] if key in ("name", "devices") else statistics.median(row[key] for row in same)
                        for key in ("name", "devices", "seconds", "rate", "cpu", "VmRSS", "RssAnon", "RssFile",
                                    "bytes")}))
    if arguments.lookup_bin:
        lookups = run([arguments.lookup_bin, str(arguments.devices)], capture_output=True, text=True, check=True)
        figures = dict(line.split()[:2] for line in lookups.stdout.replace("memory ", "memory_").replace(
            "lmdb ", "lmdb_").splitlines())
        plan = float(figures["planning_one_send_ns"])
        for store in ("memory", "lmdb"):
            lookup = float(figures[f"{store}_lookup_ns"])
            print(f"lookup ({store}): {lookup / 1000:.1f} µs, {lookup / plan:.2f}× planning one send"
                  f" ({plan / 1000:.1f} µs)")


if __name__ == "__main__":
    sys.exit(main())
