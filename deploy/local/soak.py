"""Soaks push-worker's two HTTP/2 transports side by side against the push simulator with faults on.

    .venv/bin/python deploy/local/soak.py --worker .build/release/push-worker --minutes 30

(deploy/local/soak.sh builds the worker and runs this.) Starts the dev broker and, per transport (`PUSH_HTTP_TRANSPORT`), a push simulator
and a `push-worker run` with topics and a consumer group of its own, and
writes the same chat events to both input topics at `--rate` events/s for `--minutes`. Meanwhile the simulator
answers a share of the push requests with faults: 429 and 503 with Retry-After, slow answers, reset streams; every
connection sends GOAWAY after `--goaway-after` streams; OAuth access tokens live 2 minutes, and every
`--expire-every` seconds they are revoked (FCM answers 401); with `--apns-token-expiry` APNs also calls the next
provider token expired (403 ExpiredProviderToken). Then it waits for the receipts of every
send (retries included) and prints, per transport: sends, receipts, statuses, latency percentiles, worker CPU and
peak RSS, and the difference in statuses between the two. Exits 1 if a worker died or receipts are missing.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from confluent_kafka import Consumer

from bench_events import EventFactory, Producer
from bench_report import percentile
from processes import ResourceSampler, Simulator, cpu_seconds, memory_kib, start_dev_broker, start_worker

RETRY_DELAYS_MS = (1_000, 10_000, 60_000, 600_000, 3_600_000)  # the worker's default PUSH_RETRY_TIERS
PUSH_PATHS = "^/(3/device|v1/projects)/"


def say(line: str) -> None:
    print(f"soak: {line}", flush=True)


def topics(transport: str) -> dict[str, str]:
    """The topics of the worker on `transport`."""
    base = f"soak.{transport}"
    return {"PUSH_TOPICS": f"{base}.events", "PUSH_RECEIPTS_TOPIC": f"{base}.receipts",
            "PUSH_DLQ_TOPIC": f"{base}.dlq", "PUSH_RETRY_TOPIC": f"{base}.retry",
            "PUSH_INVALID_TOKENS_TOPIC": f"{base}.invalid-tokens", "PUSH_DEVICES_TOPIC": f"{base}.devices",
            "PUSH_CLIENTS_TOPIC": f"{base}.clients"}


def all_topics(transport: str) -> list[str]:
    named = topics(transport)
    retry = named["PUSH_RETRY_TOPIC"]
    # The tables the worker follows (invalid tokens, the device registry) must exist: with librdkafka 2.16 a missing
    # one is not created by reading it, and the worker waits for it before it reports started.
    return [named[name] for name in ("PUSH_TOPICS", "PUSH_RECEIPTS_TOPIC", "PUSH_DLQ_TOPIC",
                                     "PUSH_INVALID_TOKENS_TOPIC", "PUSH_DEVICES_TOPIC", "PUSH_CLIENTS_TOPIC")] + [
        f"{retry}-{delay}" for delay in RETRY_DELAYS_MS]


class Receipts:
    """Reads every receipt of the soak's workers from the start, on a thread of its own."""

    def __init__(self, servers: str, transports: list[str]):
        self.by_topic = {topics(transport)["PUSH_RECEIPTS_TOPIC"]: transport for transport in transports}
        self.statuses = {transport: Counter() for transport in transports}
        self.latencies: dict[str, list[float]] = {transport: [] for transport in transports}
        self.attempts = {transport: Counter() for transport in transports}
        self.lock = threading.Lock()
        self.running = True
        self.consumer = Consumer({"bootstrap.servers": servers, "group.id": "soak-reader", "enable.auto.commit": False,
                                  "auto.offset.reset": "earliest"})
        self.consumer.subscribe(list(self.by_topic))
        self.thread = threading.Thread(target=self.run, name="receipts", daemon=True)
        self.thread.start()

    def run(self) -> None:
        while self.running:
            for message in self.consumer.consume(500, timeout=0.2):
                if message.error() or message.value() is None:
                    continue
                transport = self.by_topic[message.topic()]
                receipt = json.loads(message.value())
                if not str(receipt.get("messageId", "")).startswith("soak-"):
                    continue
                with self.lock:
                    self.statuses[transport][receipt["status"]] += 1
                    self.attempts[transport][receipt.get("attempts") or 0] += 1
                    if isinstance(receipt.get("latencyMs"), (int, float)):
                        self.latencies[transport].append(float(receipt["latencyMs"]))

    def count(self, transport: str) -> int:
        with self.lock:
            return sum(self.statuses[transport].values())

    def stop(self) -> None:
        self.running = False
        self.thread.join(timeout=10)
        self.consumer.close()


def arm_faults(simulator: Simulator, arguments: argparse.Namespace) -> None:
    """The faults of the soak, each on a share of the push requests (the simulator draws them per request)."""
    share = arguments.fault_share
    rules = [
        {"path": PUSH_PATHS, "rate": share, "status": 429, "retry_after": 1, "body": {"reason": "TooManyRequests"}},
        {"path": PUSH_PATHS, "rate": share, "status": 503, "retry_after": 2,
         "body": {"reason": "ServiceUnavailable"}},
        {"path": PUSH_PATHS, "rate": share, "latency_ms": 1500},
        {"path": PUSH_PATHS, "rate": share / 2, "reset_stream": 2},
    ]
    simulator.control("POST", "/faults", {"rules": rules, "goaway_after_streams": arguments.goaway_after})
    simulator.control("POST", "/control/oauth-config", {"expires_in": 120})


def expire_tokens(simulator: Simulator, apns: bool) -> None:
    """Every OAuth access token stops working (FCM answers 401: each worker must fetch a new one and send again);
    with `apns`, the next APNs request is also told its provider token expired (403 ExpiredProviderToken)."""
    simulator.control("POST", "/control/oauth-revoke", {})
    if apns:
        simulator.control("POST", "/faults/rules", {"path": "^/3/device/", "times": 1, "status": 403,
                                                    "body": {"reason": "ExpiredProviderToken"}})


def summary(transport: str, receipts: Receipts, sends: int, cpu: float, peak_rss_kib: int) -> str:
    with receipts.lock:
        statuses = dict(sorted(receipts.statuses[transport].items()))
        latencies = list(receipts.latencies[transport])
        attempts = dict(sorted(receipts.attempts[transport].items()))
    figures = " ".join(f"p{int(fraction * 100)}={percentile(latencies, fraction) or 0:.0f}ms"
                       for fraction in (0.5, 0.9, 0.99))
    return (f"{transport:8} sends {sends}, receipts {sum(statuses.values())}: {statuses}; attempts {attempts}; "
            f"latency {figures} max={max(latencies, default=0):.0f}ms; worker CPU {cpu:.1f} s, "
            f"peak RSS {peak_rss_kib / 1024:.0f} MB")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", required=True, help="the push-worker binary")
    parser.add_argument("--minutes", type=float, default=30.0, help="how long events are written (default 30)")
    parser.add_argument("--short", action="store_true", help="a smoke test: 1 minute, tokens expire every 20 s")
    parser.add_argument("--rate", type=float, default=20.0, help="events per second to each worker (default 20)")
    parser.add_argument("--transports", default="curl,nghttp2")
    parser.add_argument("--fault-share", type=float, default=0.02, help="share of requests per fault kind")
    parser.add_argument("--goaway-after", type=int, default=1000, help="streams per connection before GOAWAY")
    parser.add_argument("--expire-every", type=float, default=300.0,
                        help="seconds between token expiries (OAuth tokens revoked, one APNs ExpiredProviderToken)")
    parser.add_argument("--apns-token-expiry", action="store_true",
                        help="also answer one APNs request per expiry with 403 ExpiredProviderToken")
    parser.add_argument("--drain-timeout", type=float, default=180.0,
                        help="seconds to wait for the last receipts (retries due later count as missing)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the logs' directory")
    arguments = parser.parse_args()
    if arguments.short:
        arguments.minutes, arguments.expire_every = 1.0, 20.0
    transports = [name for name in arguments.transports.split(",") if name]
    worker_binary = Path(arguments.worker)
    directory = Path(tempfile.mkdtemp(prefix="push-soak-"))
    children = []
    failed = False
    try:
        broker, servers = start_dev_broker(worker_binary, directory, partitions=4,
                                           topics=[topic for transport in transports for topic in all_topics(transport)])
        children.append(broker)
        workers, samplers, simulators = {}, {}, {}
        for transport in transports:
            (directory / transport).mkdir()
            # A simulator each: APNs refuses a second provider token of one key within 20 minutes, and two workers
            # sign one each.
            simulator = simulators[transport] = Simulator(directory / transport, ["--seed", str(arguments.seed)])
            children.append(simulator.child)
            worker, _ = start_worker(worker_binary, directory / transport, {
                **simulator.provider_settings(), **topics(transport), "KAFKA_BOOTSTRAP_SERVERS": servers,
                "KAFKA_GROUP_ID": f"soak-{transport}", "PUSH_HTTP_TRANSPORT": transport,
                "PUSH_WORKER_ID": f"soak-{transport}"})
            children.append(worker)
            workers[transport] = worker
            samplers[transport] = ResourceSampler(worker.process.pid, interval=1.0)
        receipts = Receipts(servers, transports)
        for simulator in simulators.values():
            arm_faults(simulator, arguments)
        producers = {transport: Producer(servers, topics(transport)["PUSH_TOPICS"]) for transport in transports}
        factory = EventFactory(seed=arguments.seed, rooms=200, prefix="soak")
        say(f"{', '.join(transports)} for {arguments.minutes:g} min at {arguments.rate:g} events/s each, "
            f"faults {arguments.fault_share:.0%} each, GOAWAY every {arguments.goaway_after} streams, tokens "
            f"expire every {arguments.expire_every:g} s; logs in {directory}")
        started = time.monotonic()
        end = started + arguments.minutes * 60
        next_expiry = started + arguments.expire_every
        next_report = started + 60
        while time.monotonic() < end:
            due = int((time.monotonic() - started) * arguments.rate) - factory.count
            if due > 0:
                batch = [factory.next()[:2] for _ in range(due)]
                for producer in producers.values():
                    producer.write(batch)
            if time.monotonic() >= next_expiry:
                for simulator in simulators.values():
                    expire_tokens(simulator, arguments.apns_token_expiry)
                next_expiry += arguments.expire_every
            if time.monotonic() >= next_report:
                say(f"{(time.monotonic() - started) / 60:.0f} min: {factory.sends} sends each; receipts "
                    + ", ".join(f"{transport} {receipts.count(transport)}" for transport in transports))
                next_report += 60
            for transport, worker in workers.items():
                if worker.process.poll() is not None:
                    raise RuntimeError(f"the {transport} worker exited with {worker.process.returncode}; "
                                       f"see {worker.log}")
            time.sleep(0.05)
        for producer in producers.values():
            producer.close()
        for simulator in simulators.values():
            simulator.control("DELETE", "/faults")
        drain_end = time.monotonic() + arguments.drain_timeout
        while time.monotonic() < drain_end and any(receipts.count(t) < factory.sends for t in transports):
            time.sleep(0.5)
        for transport in transports:
            samplers[transport].stop()
            memory = memory_kib(workers[transport].process.pid)
            say(summary(transport, receipts, factory.sends, cpu_seconds(workers[transport].process.pid),
                        max(samplers[transport].peak_rss_kib, memory.get("VmHWM", 0))))
            missing = factory.sends - receipts.count(transport)
            if missing > 0:
                say(f"{transport}: {missing} receipts missing after {arguments.drain_timeout:g} s")
                failed = True
        if len(transports) == 2:
            first, second = (receipts.statuses[transport] for transport in transports)
            difference = {status: second[status] - first[status] for status in sorted(set(first) | set(second))
                          if second[status] != first[status]}
            say(f"statuses {transports[1]} minus {transports[0]}: {difference or 'none'}")
        for transport, simulator in simulators.items():
            stats = simulator.control("GET", "/stats")
            say(f"{transport} simulator: {stats.get('streams')} streams, {stats.get('goaways_sent')} GOAWAYs, "
                f"{stats.get('connections_opened')} connections")
        receipts.stop()
    except Exception as error:  # noqa: BLE001 - any failure ends the soak with its reason
        say(f"failed: {error}")
        failed = True
    finally:
        for child in reversed(children):
            child.stop()
        if arguments.keep or failed:
            say(f"files kept in {directory}")
        else:
            shutil.rmtree(directory, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
