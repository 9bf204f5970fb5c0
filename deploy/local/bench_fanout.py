"""Per-pod share, memory, LMDB size and restore time of the assigned registry scope for fleets of 1, 2 and 4 workers;
a new pod's seconds from its assignment to its first send; the end-to-end rate of the assigned scope beside all's.

    .venv/bin/python deploy/local/bench_fanout.py --bin .build/release/push-worker [--devices 120000] [--pods 1,2,4]
    .venv/bin/python deploy/local/bench_fanout.py --bin .build/release/push-worker --broker tansu --devices 1000000

Starts the dev broker with `--partitions` partitions (8 by default) of `push.devices`, `push.clients` and `push.fanout`,
and writes `--devices` one-device clients to `push.devices`, each record in the partition of its client key
`appID/clientId` (Kafka's murmur2 partitioner, as `PUSH_REGISTRY_PARTITIONING=client` writes them). The mock cluster
keeps only the newest few megabytes of each partition (about 20,000 of these records): past that, `--broker tansu`.
Then, for each fleet size N of `--pods`, it starts N `push-worker run` at once with `PUSH_REGISTRY_SCOPE=assigned` and
an empty `PUSH_DEVICE_STORE=lmdb:` directory each (a consumer group per fleet), and waits until the fleet holds every
partition restored (`push_registry_partitions{state="restored"}` summing to the partition count, none restoring) and
every device. For each pod it prints the devices it holds (and their share of all), its resident memory (VmRSS), the
size of its LMDB directory (allocated blocks), the longest `registry.seconds` of its `registry partition restored` lines
(a partition's assignment to its restore), the seconds from the process's start to all its partitions restored and the
CPU seconds it used by then; a last row per fleet gives the CPU seconds the broker used meanwhile. Last,
one worker starts again on the LMDB directory the first fleet's first pod left (`PUSH_REGISTRY_RETAINED_COPIES` is the
partition count, so every copy is retained): the same figures, now a resume. Records a pod ignored as foreign
(`push_registry_ignored_total`) must be 0 (`--no-fleets` leaves this part out).

Then, with `--trickle` R (messages/s, 200 by default; 0 leaves it out), a new pod joining a fleet that sends, for each
fleet size N: N - 1 pods started together and restored, R one-device IMKIT messages a second written to the input
topic from then on, then one more pod on an empty store. For the new pod it prints the partitions the group moved to
it, the longest seconds from a partition's assignment to its restore, the longest from a partition's assignment to the
new pod's first send from it (its first receipt's `sentAt` for that fan-out partition; the assignment is the restored
line's time less its `registry.seconds`), and the seconds from its process's start to its last partition's first send
(the group's rebalance included), and the CPU seconds the new pod used by its last restore. The fleets read their input and fan-out topics from their end
(`KAFKA_AUTO_OFFSET_RESET=latest`), so each sends only what is written while it runs.

Then, with `--messages` M, the end-to-end rate of each scope on the same
broker and registry: M one-device IMKIT messages (`pushToClients` naming one client, over 1,000 rooms) written before
one worker starts with `PUSH_REGISTRY_SCOPE=all`, then M more before one with `assigned`, each sending to the bench's
nginx endpoint (bench_endpoint.py, APNs-shaped answers); the rate is the receipts' (all `delivered`) from the first
one's Kafka timestamp to the last's, and the table ends with assigned / all.
"""

import argparse
import json
import os
import random
import sys
import tempfile
import threading
import time
from datetime import datetime
import urllib.error
import urllib.request
from pathlib import Path

from confluent_kafka import Consumer, Producer, TopicPartition

from bench_replay import service_account
from bench_endpoint import Endpoint
from processes import Child, ProcessFailed, Simulator, start_dev_broker, started_port

HERE = Path(__file__).resolve().parent
APP = "BenchApp"
SCOPES = ("all", "assigned")
TOPICS = ["chat.messages", "push.devices", "push.clients", "push.fanout", "push.invalid-tokens", "push.receipts",
          "push.dlq"] + [f"bench.{scope}.{kind}" for scope in SCOPES for kind in ("messages", "receipts")]


def start_tansu(scratch: Path, partitions: int) -> tuple[Child, str]:
    """Tansu (deploy/local/tansu.py) with `TOPICS` of `partitions` each; returns it and its bootstrap servers."""
    broker = Child("Tansu", [sys.executable, str(HERE / "tansu.py"), "--partitions", str(partitions), "--topics",
                             ",".join(TOPICS)], scratch / "tansu.log", stdout=scratch / "tansu.out")
    line = broker.ready(lambda out: "\n" in out, "its bootstrap servers", timeout=120).splitlines()[0]
    if not line.startswith("bootstrap.servers="):
        broker.stop()
        raise ProcessFailed(f"Tansu printed {line!r} instead of its bootstrap servers")
    return broker, line.removeprefix("bootstrap.servers=")


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


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(root: int) -> float:
    """The CPU time `root` and its descendants still running have used so far (Tansu runs under deploy/local/tansu.py)."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rpartition(")")[2].split()[1])
        except (OSError, ValueError):
            continue
    tree, grown = {root}, True
    while grown:
        children = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= children
        grown = bool(children)
    total = 0.0
    for pid in tree:
        try:
            total += cpu_seconds(pid)
        except OSError:
            continue
    return total


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

    def restores(self) -> dict[int, tuple[float, float]]:
        """Per partition the pod restored (its last restore): when it was assigned (epoch s) and the seconds its
        restore took, from its `registry partition restored` lines."""
        last = {}
        for line in self.child.log.read_text(errors="replace").splitlines():
            if '"registry partition restored"' in line:
                entry = json.loads(line)
                seconds = float(entry["metadata"]["registry.seconds"])
                logged = datetime.fromisoformat(entry["timestamp"].replace("Z", "+00:00")).timestamp()
                last[int(entry["metadata"]["kafka.partition"])] = (logged - seconds, seconds)
        return last

    def restore_seconds(self) -> float:
        """The longest assignment-to-restored time over the partitions the pod held last (their last restore)."""
        return max((seconds for _, seconds in self.restores().values()), default=0.0)


def held(series: dict[str, float], state: str) -> int:
    return int(series.get(f'push_registry_partitions{{state="{state}"}}', 0))


def settle(pods: list[Pod], partitions: int, expected: int, timeout: float) -> list[dict]:
    """Waits until the pods hold every partition restored, checks they hold `expected` devices in all, then
    returns each pod's figures."""
    deadline = time.monotonic() + timeout
    while True:
        now = time.monotonic()
        try:
            snapshot = [pod.poll() for pod in pods]
        except (OSError, urllib.error.URLError):
            # A pod too busy to answer its metrics within the timeout (shared cores): asked again.
            snapshot = []
        if not snapshot:
            if now > deadline:
                raise SystemExit(f"the fleet of {len(pods)} did not answer its metrics in {timeout} s")
            time.sleep(0.2)
            continue
        for pod, series in zip(pods, snapshot):
            if held(series, "restoring") == 0 and held(series, "restored") > 0:
                pod.restored_at = pod.restored_at or now
            else:
                pod.restored_at = None
        # Every pod holds its share (the assignment is balanced), every partition restored.
        if sum(held(series, "restored") for series in snapshot) == partitions and all(
                held(series, "restoring") == 0 and held(series, "restored") >= partitions // len(pods)
                for series in snapshot):
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
                     "restore": pod.restore_seconds(), "ready": (pod.restored_at or now) - pod.started,
                     "cpu": cpu_seconds(pod.child.process.pid)})
    return rows


def write_messages(bootstrap: str, topic: str, messages: int, devices: int) -> None:
    """`messages` IMKIT messages over 1,000 rooms, each to one client of the registry (`pushToClients`)."""
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "queue.buffering.max.messages": 200000})
    generator = random.Random(7)
    for index in range(messages):
        room = f"r-{generator.randrange(1000)}"
        message = {"_id": f"m-{index}", "message": "Hello there, this is a benchmark message", "room": room,
                   "roomName": room, "sender": {"_id": "sender", "nickname": "Alice"}, "messageType": "text",
                   "appID": APP, "messageTimeMS": int(time.time() * 1000),
                   "pushToClients": [f"client-{generator.randrange(devices):08d}"]}
        producer.produce(topic, json.dumps(message, separators=(",", ":")).encode(), room.encode())
        if index % 10000 == 0:
            producer.poll(0)
    if producer.flush(120) != 0:
        raise SystemExit("the messages were not all acknowledged")


def receipts_rate(bootstrap: str, topic: str, partitions: int, expected: int, timeout: float) -> tuple[float, float]:
    """Reads `expected` receipts from `topic`, all `delivered`: the first one's timestamp (epoch s) and their rate
    (receipts/s from the first receipt's Kafka timestamp to the last's)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"bench-reader-{topic}",
                         "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, partition, 0) for partition in range(partitions)])
    stamps: list[int] = []
    deadline = time.monotonic() + timeout
    try:
        while len(stamps) < expected:
            if time.monotonic() > deadline:
                raise SystemExit(f"{len(stamps)} receipts of {expected} in {topic} within {timeout} s")
            for record in consumer.consume(1000, 0.5):
                if not record.error():
                    stamps.append(record.timestamp()[1])
                    status = json.loads(record.value()).get("status")
                    if status != "delivered":
                        raise SystemExit(f"a receipt in {topic} is {status!r}, not 'delivered': {record.value()!r}")
    finally:
        consumer.close()
    return min(stamps) / 1000, expected / max((max(stamps) - min(stamps)) / 1000, 0.001)


class Providers:
    """The bench's push endpoint (nginx, APNs-shaped answers) with the push simulator's credentials: the workers'
    provider settings."""

    def __init__(self, scratch: Path):
        self.simulator = Simulator(scratch)
        self.endpoint = Endpoint(scratch, scratch / "certs")
        self.settings = {**self.simulator.provider_settings(),
                         "APNS_URL": f"https://127.0.0.1:{self.endpoint.apns_port}",
                         "APNS_SANDBOX_URL": f"https://127.0.0.1:{self.endpoint.apns_port}",
                         "FCM_URL": f"https://127.0.0.1:{self.endpoint.fcm_port}"}

    def stop(self) -> None:
        self.endpoint.process.terminate()
        self.endpoint.process.wait(timeout=30)
        self.simulator.child.stop()


def scope_rates(binary: str, scratch: Path, base: dict[str, str], providers: dict[str, str], bootstrap: str,
                arguments) -> list[dict]:
    """The end-to-end rate of one-device IMKIT messages with each scope, one worker each, against nginx."""
    rows = []
    for scope in SCOPES:
        write_messages(bootstrap, f"bench.{scope}.messages", arguments.messages, arguments.devices)
        store = scratch / f"lmdb-rate-{scope}"
        store.mkdir()
        environment = {**base, **providers, "PUSH_REGISTRY_SCOPE": scope, "PUSH_WORKER_ID": f"rate-{scope}",
                       "KAFKA_GROUP_ID": f"bench-rate-{scope}", "PUSH_TOPICS": f"bench.{scope}.messages",
                       "PUSH_RECEIPTS_TOPIC": f"bench.{scope}.receipts", "PUSH_DEVICE_STORE": f"lmdb:{store}"}
        started = time.time()
        worker = Child(f"push-worker run ({scope})", [binary, "run"], scratch / f"rate-{scope}.log", environment)
        try:
            first, rate = receipts_rate(bootstrap, f"bench.{scope}.receipts", arguments.partitions,
                                        arguments.messages, arguments.timeout)
        finally:
            worker.stop()
        rows.append({"scope": scope, "rate": rate, "first": first - started})
    return rows


class Trickle:
    """A steady stream of one-device IMKIT messages (`rate` a second, over 1,000 rooms, each to a random client of
    the registry) to `topic` until stopped, so that every fan-out partition has records to send."""

    def __init__(self, bootstrap: str, topic: str, devices: int, rate: int):
        self.producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
        self.topic, self.devices, self.rate = topic, devices, rate
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        generator = random.Random(11)
        index = 0
        while not self.stopping.wait(1 / self.rate):
            room = f"r-{generator.randrange(1000)}"
            message = {"_id": f"t-{index}", "message": "Hello there", "room": room, "roomName": room,
                       "sender": {"_id": "sender", "nickname": "Alice"}, "messageType": "text", "appID": APP,
                       "messageTimeMS": int(time.time() * 1000),
                       "pushToClients": [f"client-{generator.randrange(self.devices):08d}"]}
            self.producer.produce(self.topic, json.dumps(message, separators=(",", ":")).encode(), room.encode())
            self.producer.poll(0)
            index += 1

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join()
        self.producer.flush(30)


def first_sends(bootstrap: str, topic: str, partitions: int, worker: str, wanted: set[int],
                timeout: float) -> dict[int, float]:
    """Per fan-out partition of `wanted`, the `sentAt` (epoch s) of `worker`'s first receipt from it in `topic`."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"bench-first-sends-{worker}",
                         "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, partition, 0) for partition in range(partitions)])
    first: dict[int, float] = {}
    deadline = time.monotonic() + timeout
    try:
        while not wanted <= first.keys():
            if time.monotonic() > deadline:
                raise SystemExit(f"{worker} sent from partitions {sorted(first)} of {sorted(wanted)} in {timeout} s")
            for record in consumer.consume(1000, 0.5):
                if record.error():
                    continue
                receipt = json.loads(record.value())
                if receipt.get("worker") != worker or not receipt.get("sentAt"):
                    continue
                partition = receipt["source"]["partition"]
                sent = datetime.fromisoformat(receipt["sentAt"].replace("Z", "+00:00")).timestamp()
                first[partition] = min(first.get(partition, sent), sent)
    finally:
        consumer.close()
    return {partition: first[partition] for partition in wanted}


def scale_out(binary: str, scratch: Path, base: dict[str, str], providers: dict[str, str], bootstrap: str,
              size: int, arguments) -> dict:
    """A fleet of `size - 1` pods restored and sending a trickle of messages, then one new pod: the partitions the
    group moves to it, the seconds from each one's assignment to its restore and to its first send (its first
    receipt's `sentAt`), and from its process's start to its last partition's first send."""
    environment = {**base, **providers, "KAFKA_GROUP_ID": f"bench-scale-out-{size}",
                   "KAFKA_AUTO_OFFSET_RESET": "latest"}
    fleet = [Pod(binary, scratch, f"s{size}-pod{index}", environment, scratch / f"lmdb-s{size}-{index}")
             for index in range(size - 1)]
    trickle = None
    try:
        if fleet:
            settle(fleet, arguments.partitions, arguments.devices, arguments.timeout)
        trickle = Trickle(bootstrap, "chat.messages", arguments.devices, arguments.trickle)
        new = Pod(binary, scratch, f"s{size}-new", environment, scratch / f"lmdb-s{size}-new")
        fleet.append(new)
        settle(fleet, arguments.partitions, arguments.devices, arguments.timeout)
        restores = new.restores()
        cpu = cpu_seconds(new.child.process.pid)
        sends = first_sends(bootstrap, "push.receipts", arguments.partitions, new.name, set(restores),
                            arguments.timeout)
        started = time.time() - (time.monotonic() - new.started)
        return {"size": size, "pod": new.name, "partitions": len(restores),
                "devices": int(new.poll().get("push_registry_devices", 0)),
                "restore": max(seconds for _, seconds in restores.values()),
                "first send": max(sends[partition] - assigned for partition, (assigned, _) in restores.items()),
                "start": max(sends.values()) - started, "cpu": cpu}
    finally:
        if trickle:
            trickle.stop()
        for pod in fleet:
            pod.child.stop()


def print_fleet(fleet: str, rows: list[dict], devices: int) -> None:
    for row in rows:
        share = row["devices"] / devices if devices else 0.0
        print(f"{fleet:<28} {row['pod']:<14} {row['partitions']:>5} {row['devices']:>9} {share:>6.1%}"
              f" {row['rss']:>8.0f} {row['lmdb']:>9.0f} {row['restore']:>9.2f} {row['ready']:>16.1f}"
              f" {row['cpu']:>6.1f} {row['foreign']:>7}", flush=True)


def fleets_together(arguments, scratch: Path, base: dict[str, str], fleets: list[int], broker: int) -> None:
    """Each fleet size's pods started together on empty stores, then the first fleet's first pod again on the copies
    it retained; with each fleet, the CPU seconds the broker (the process `broker` and its children) used meanwhile."""
    print(f"{'fleet':<28} {'pod':<14} {'parts':>5} {'devices':>9} {'share':>6} {'RSS MiB':>8} {'LMDB MiB':>9}"
          f" {'restore s':>9} {'start→restored s':>16} {'CPU s':>6} {'foreign':>7}")
    for size in fleets:
        broker_cpu = tree_cpu_seconds(broker)
        pods = [Pod(arguments.bin, scratch, f"n{size}-pod{index}", base, scratch / f"lmdb-n{size}-{index}")
                for index in range(size)]
        try:
            print_fleet(f"N={size}", settle(pods, arguments.partitions, arguments.devices, arguments.timeout),
                        arguments.devices)
            print(f"{f'N={size}':<28} {'the broker':<14} {'':>5} {'':>9} {'':>6} {'':>8} {'':>9} {'':>9} {'':>16}"
                  f" {tree_cpu_seconds(broker) - broker_cpu:>6.1f}", flush=True)
        finally:
            for pod in pods:
                pod.child.stop()
    first = fleets[0]
    pod = Pod(arguments.bin, scratch, f"restart-n{first}", base, scratch / f"lmdb-n{first}-0")
    try:
        print_fleet(f"N={first} restart (retained LMDB)",
                    settle([pod], arguments.partitions, arguments.devices, arguments.timeout), arguments.devices)
    finally:
        pod.child.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="the push-worker executable (a release build)")
    parser.add_argument("--devices", type=int, default=120_000)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--pods", default="1,2,4", help="the fleet sizes, in order")
    parser.add_argument("--broker", choices=("mock", "tansu"), default="mock",
                        help="the dev broker (librdkafka's mock cluster) or Tansu, for registries the mock cannot keep")
    parser.add_argument("--messages", type=int, default=20_000,
                        help="one-device IMKIT messages for each scope's end-to-end rate (0: none)")
    parser.add_argument("--trickle", type=int, default=200,
                        help="messages/s written while a new pod joins a sending fleet of each size (0: no such phase)")
    parser.add_argument("--fleets", action=argparse.BooleanOptionalAction, default=True,
                        help="fleets started together, and a restart on retained copies")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds a fleet may take to restore")
    arguments = parser.parse_args()
    fleets = [int(size) for size in arguments.pods.split(",")]
    with tempfile.TemporaryDirectory(prefix="push-bench-fanout-") as scratch_name:
        scratch = Path(scratch_name)
        if arguments.broker == "tansu":
            broker, bootstrap = start_tansu(scratch, arguments.partitions)
        else:
            broker, bootstrap = start_dev_broker(Path(arguments.bin), scratch, arguments.partitions, TOPICS)
        try:
            base = {"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": os.environ.get("LD_LIBRARY_PATH", ""),
                    "LOG_LEVEL": "info", "PUSH_HTTP_HOST": "127.0.0.1", "PUSH_HTTP_PORT": "0",
                    "KAFKA_BOOTSTRAP_SERVERS": bootstrap,
                    "FCM_SERVICE_ACCOUNT_FILE": str(service_account(scratch)), "FCM_URL": "https://127.0.0.1:9",
                    "PUSH_REGISTRY_SCOPE": "assigned", "PUSH_REGISTRY_PARTITIONING": "client",
                    "PUSH_REGISTRY_RETAINED_COPIES": str(arguments.partitions), "PUSH_DEVICES_LOAD_MS": "1800000"}
            fill_seconds = fill(bootstrap, arguments.devices, arguments.partitions)
            print(f"{arguments.devices} devices over {arguments.partitions} partitions written in {fill_seconds:.1f} s",
                  flush=True)
            if arguments.fleets:
                fleets_together(arguments, scratch, base, fleets, broker.process.pid)
            providers = Providers(scratch) if arguments.trickle or arguments.messages else None
            try:
                if arguments.trickle:
                    print(f"{'a new pod joins':<28} {'parts':>5} {'devices':>9} {'restore s':>9}"
                          f" {'first send s':>12} {'start→sending s':>15} {'CPU s':>6}", flush=True)
                    for size in fleets:
                        row = scale_out(arguments.bin, scratch, base, providers.settings, bootstrap, size, arguments)
                        print(f"{f'N={size - 1} → {size}':<28} {row['partitions']:>5} {row['devices']:>9}"
                              f" {row['restore']:>9.2f} {row['first send']:>12.2f} {row['start']:>15.1f}"
                              f" {row['cpu']:>6.1f}", flush=True)
                rates = (scope_rates(arguments.bin, scratch, base, providers.settings, bootstrap, arguments)
                         if arguments.messages else [])
            finally:
                if providers:
                    providers.stop()
        finally:
            broker.stop()
    for row in rates:
        print(f"scope {row['scope']:<9} {arguments.messages} one-device IMKIT messages: {row['rate']:.0f} receipts/s"
              f" (first receipt {row['first']:.1f} s after the worker's start)")
    if len(rates) == 2:
        print(f"assigned / all: {rates[1]['rate'] / rates[0]['rate']:.2f}")


if __name__ == "__main__":
    sys.exit(main())
