"""Per-pod memory, LMDB size and restore time of the assigned registry scope for fleets of 1, 2 and 4 workers.

    .venv/bin/python deploy/local/bench_fanout.py --bin .build/release/push-worker [--devices 640000] [--pods 1,2,4]

Starts the dev broker with `--partitions` partitions (8 by default) of `push.devices`, `push.clients` and
`push.fanout`, and writes `--devices` one-device clients to `push.devices`, each record in the partition of its client
key `appID/clientId` (Kafka's murmur2 partitioner, as `PUSH_REGISTRY_PARTITIONING=client` writes them). The mock
cluster keeps about 100,000 records per partition: past that, more partitions or Tansu. Then, for each fleet size N of
`--pods`, it starts N `push-worker run` at once with `PUSH_REGISTRY_SCOPE=assigned` and an empty
`PUSH_DEVICE_STORE=lmdb:` directory each (a consumer group per fleet), and waits until the fleet holds every
partition restored (`push_registry_partitions{state="restored"}` summing to the partition count, none restoring) and
every device. For each pod it prints the devices it holds (and their share of all), its resident memory (VmRSS), the
size of its LMDB directory (allocated blocks), the longest `registry.seconds` of its `registry partition restored`
lines (a partition's assignment to its restore) and the seconds from the process's start to all its partitions
restored. Last, one worker starts again on the LMDB directory the first fleet's first pod left (its copies retained):
the same figures, now a resume. Records a pod ignored as foreign (`push_registry_ignored_total`) must be 0.
"""

import argparse
import json
import os
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from confluent_kafka import Producer

from bench_replay import service_account
from processes import Child, start_dev_broker, started_port

APP = "BenchApp"
TOPICS = ["chat.messages", "push.devices", "push.clients", "push.fanout", "push.invalid-tokens", "push.receipts",
          "push.dlq"]


def murmur2(data: bytes) -> int:
    """Kafka's murmur2 hash (the Java client's default partitioner, librdkafka's `murmur2_random`)."""
    multiplier, mask = 0x5BD1E995, 0xFFFFFFFF
    length = len(data)
    value = (0x9747B28C ^ length) & mask
    for start in range(0, length - length % 4, 4):
        word = int.from_bytes(data[start:start + 4], "little")
        word = (word * multiplier) & mask
        word ^= word >> 24
        word = (word * multiplier) & mask
        value = ((value * multiplier) & mask) ^ word
    tail = data[length - length % 4:]
    if len(tail) == 3:
        value ^= tail[2] << 16
    if len(tail) >= 2:
        value ^= tail[1] << 8
    if tail:
        value ^= tail[0]
        value = (value * multiplier) & mask
    value ^= value >> 13
    value = (value * multiplier) & mask
    return value ^ (value >> 15)


def fill(bootstrap: str, devices: int, partitions: int) -> float:
    """Writes `devices` one-device clients, each in its client key's partition; returns the seconds it took."""
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 50, "batch.num.messages": 10000,
                         "queue.buffering.max.messages": 200000})
    started = time.monotonic()
    for index in range(devices):
        client = f"client-{index:08d}"
        value = json.dumps({"appID": APP, "clientId": client, "type": "ios", "token": f"{index:064x}",
                            "deviceId": "phone", "locale": "ko-KR", "updatedAtMS": 1764590400000},
                           separators=(",", ":")).encode()
        partition = (murmur2(f"{APP}/{client}".encode()) & 0x7FFFFFFF) % partitions
        if index % 10000 == 0:
            producer.poll(0)
        while True:
            try:
                producer.produce("push.devices", value, f"{APP}/{client}/ios/phone".encode(), partition=partition)
                break
            except BufferError:
                producer.poll(0.1)
    if producer.flush(600) != 0:
        raise SystemExit("the registry records were not all acknowledged")
    return time.monotonic() - started


def metrics(port: int) -> dict[str, float]:
    """The worker's metrics, keyed by the series as printed (name and labels)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        series = {}
        for line in response.read().decode().splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.rpartition(" ")
                series[name] = float(value)
        return series


def allocated_mib(directory: Path) -> float:
    return sum(path.stat().st_blocks * 512 for path in directory.rglob("*") if path.is_file()) / 2**20


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Pod:
    """One `push-worker run` with the assigned scope on its own LMDB directory."""

    def __init__(self, binary: str, scratch: Path, name: str, base: dict[str, str], store: Path):
        self.name, self.store = name, store
        store.mkdir(exist_ok=True)
        environment = {**base, "PUSH_WORKER_ID": name, "KAFKA_GROUP_ID": f"bench-{name.partition('-')[0]}",
                       "PUSH_DEVICE_STORE": f"lmdb:{store}"}
        self.started = time.monotonic()
        self.child = Child(f"push-worker run ({name})", [binary, "run"], scratch / f"{name}.log", environment)
        self.port: int | None = None
        self.restored_at: float | None = None

    def poll(self) -> dict[str, float]:
        if self.port is None:
            log = self.child.wait_for_output(lambda text: '"message":"started"' in text, "'started'", timeout=600)
            self.port = started_port(log)
        return metrics(self.port)

    def restore_seconds(self) -> float:
        """The longest assignment-to-restored time over the partitions the pod held last (their last restore)."""
        last = {}
        for line in self.child.log.read_text(errors="replace").splitlines():
            if '"registry partition restored"' in line:
                metadata = json.loads(line)["metadata"]
                last[metadata["kafka.partition"]] = float(metadata["registry.seconds"])
        return max(last.values(), default=0.0)


def held(series: dict[str, float], state: str) -> int:
    return int(series.get(f'push_registry_partitions{{state="{state}"}}', 0))


def settle(pods: list[Pod], partitions: int, expected: int, timeout: float) -> list[dict]:
    """Waits until the pods hold every partition restored, checks they hold `expected` devices in all, then
    returns each pod's figures."""
    deadline = time.monotonic() + timeout
    while True:
        now = time.monotonic()
        snapshot = [pod.poll() for pod in pods]
        for pod, series in zip(pods, snapshot):
            if held(series, "restoring") == 0 and held(series, "restored") > 0:
                pod.restored_at = pod.restored_at or now
            else:
                pod.restored_at = None
        if sum(held(series, "restored") for series in snapshot) == partitions and all(
                held(series, "restoring") == 0 for series in snapshot):
            break
        if now > deadline:
            raise SystemExit(f"the fleet of {len(pods)} did not restore {partitions} partitions in {timeout} s")
        time.sleep(0.2)
    devices = sum(int(series.get("push_registry_devices", 0)) for series in snapshot)
    if devices != expected:
        raise SystemExit(f"the fleet of {len(pods)} holds {devices} devices, not {expected}")
    rows = []
    for pod, series in zip(pods, snapshot):
        foreign = sum(value for name, value in series.items()
                      if name.startswith("push_registry_ignored_total") and 'reason="foreign"' in name)
        rows.append({"pod": pod.name, "partitions": held(series, "restored"),
                     "devices": int(series.get("push_registry_devices", 0)), "foreign": int(foreign),
                     "rss": rss_mib(pod.child.process.pid), "lmdb": allocated_mib(pod.store),
                     "restore": pod.restore_seconds(), "ready": (pod.restored_at or now) - pod.started})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="the push-worker executable (a release build)")
    parser.add_argument("--devices", type=int, default=640_000)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--pods", default="1,2,4", help="the fleet sizes, in order")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds a fleet may take to restore")
    arguments = parser.parse_args()
    fleets = [int(size) for size in arguments.pods.split(",")]
    results = []
    with tempfile.TemporaryDirectory(prefix="push-bench-fanout-") as scratch_name:
        scratch = Path(scratch_name)
        broker, bootstrap = start_dev_broker(Path(arguments.bin), scratch, arguments.partitions, TOPICS)
        try:
            base = {"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": os.environ.get("LD_LIBRARY_PATH", ""),
                    "LOG_LEVEL": "info", "PUSH_HTTP_HOST": "127.0.0.1", "PUSH_HTTP_PORT": "0",
                    "KAFKA_BOOTSTRAP_SERVERS": bootstrap,
                    "FCM_SERVICE_ACCOUNT_FILE": str(service_account(scratch)), "FCM_URL": "https://127.0.0.1:9",
                    "PUSH_REGISTRY_SCOPE": "assigned", "PUSH_REGISTRY_PARTITIONING": "client"}
            fill_seconds = fill(bootstrap, arguments.devices, arguments.partitions)
            print(f"{arguments.devices} devices over {arguments.partitions} partitions written in {fill_seconds:.1f} s",
                  flush=True)
            for size in fleets:
                pods = [Pod(arguments.bin, scratch, f"n{size}-pod{index}", base, scratch / f"lmdb-n{size}-{index}")
                        for index in range(size)]
                try:
                    results.append((f"N={size}", settle(pods, arguments.partitions, arguments.devices,
                                                        arguments.timeout)))
                finally:
                    for pod in pods:
                        pod.child.stop()
            first = fleets[0]
            pod = Pod(arguments.bin, scratch, f"restart-n{first}", base, scratch / f"lmdb-n{first}-0")
            try:
                results.append((f"N={first} restart (retained LMDB)", settle([pod], arguments.partitions,
                                                                              arguments.devices, arguments.timeout)))
            finally:
                pod.child.stop()
        finally:
            broker.stop()
    print(f"{'fleet':<28} {'pod':<14} {'parts':>5} {'devices':>9} {'share':>6} {'RSS MiB':>8} {'LMDB MiB':>9}"
          f" {'restore s':>9} {'start→restored s':>16} {'foreign':>7}")
    for fleet, rows in results:
        for row in rows:
            share = row["devices"] / arguments.devices if arguments.devices else 0.0
            print(f"{fleet:<28} {row['pod']:<14} {row['partitions']:>5} {row['devices']:>9} {share:>6.1%}"
                  f" {row['rss']:>8.0f} {row['lmdb']:>9.0f} {row['restore']:>9.2f} {row['ready']:>16.1f}"
                  f" {row['foreign']:>7}")


if __name__ == "__main__":
    sys.exit(main())
