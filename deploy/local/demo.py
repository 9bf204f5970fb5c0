"""The embedded demo: dev broker + push simulator + push-worker + sample chat traffic, then a report.

    .venv/bin/python deploy/local/demo.py --worker .build/debug/push-worker

(deploy/local/demo.sh installs, builds and runs this.) Everything runs on loopback in a fresh temporary
directory, which is kept afterwards for the logs. Every child is started with a parent-death signal and in its
own session, so Ctrl-C, a failure or even a killed driver leaves no process behind; on a normal stop the worker
gets SIGTERM and must exit 0.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

import demo_imkit
import demo_ingress
import demo_report
from demo_traffic import (APPS, FAULTS, RETRY_BUDGET_MS, TOPIC, UNREGISTERED_APNS, UNREGISTERED_FCM,
                          UNREGISTERED_SINCE_MS, Traffic, short)
from processes import ROOT, Child, ProcessFailed, Simulator, start_dev_broker, start_worker

PARTITIONS = 3
# The worker's default retry tiers (PUSH_RETRY_TIERS 1s,10s,1m,10m,1h): one topic each, named by the delay in ms.
RETRY_TOPICS = tuple(f"push.retry-{delay_ms}" for delay_ms in (1_000, 10_000, 60_000, 600_000, 3_600_000))
OUTPUT_TOPICS = ("push.receipts", "push.dlq", "push.invalid-tokens", *RETRY_TOPICS)
ARRIVAL_TIMEOUT = 60


class DemoFailed(ProcessFailed):
    """The demo cannot go on or did not see what it expected; the message says what and where to look."""


class Interrupted(Exception):
    """SIGINT, SIGTERM or SIGHUP reached the driver."""


def say(line: str) -> None:
    print(f"demo: {line}", flush=True)


@dataclass
class Outputs:
    """What the worker wrote to Kafka, as confluent_kafka messages by topic."""

    records: dict[str, list] = field(default_factory=lambda: {topic: [] for topic in OUTPUT_TOPICS})

    def receipts(self) -> list[dict]:
        return [json.loads(message.value()) for message in self.records["push.receipts"]]

    def invalid_tokens(self) -> dict[str, dict]:
        """The invalid-token topic as a table: key (platform:tokenHash) → its newest record."""
        return {message.key().decode(): json.loads(message.value())
                for message in self.records["push.invalid-tokens"] if message.value()}

    def retries(self) -> list:
        """Retry records of every tier."""
        return [message for topic in RETRY_TOPICS for message in self.records[topic]]


class Demo:
    def __init__(self, worker_binary: Path, directory: Path):
        self.worker_binary = worker_binary
        self.directory = directory
        self.children: list[Child] = []

    # Starting

    def start_broker(self) -> str:
        broker, servers = start_dev_broker(self.worker_binary, self.directory, PARTITIONS)
        self.children.append(broker)
        say(f"dev broker ready at {servers} (topics chat.messages, push.receipts, push.dlq, push.retry-1000 … "
            f"push.retry-3600000; "
            f"{PARTITIONS} partitions each)")
        return servers

    def start_simulator(self) -> Simulator:
        self.simulator = Simulator(self.directory)
        self.children.append(self.simulator.child)
        say(f"push simulator ready at {self.simulator.base_url} (APNs, FCM and Google OAuth over TLS HTTP/2; "
            f"control API {self.simulator.control_url})")
        return self.simulator

    def control(self, method: str, path: str, body: object | None = None) -> dict:
        return self.simulator.control(method, path, body)

    def prepare_simulator(self) -> dict[str, str]:
        """Credentials, unregistered tokens and fault rules; returns the worker's provider settings."""
        settings = self.simulator.provider_settings()
        # APNs says since when a token is invalid; the receipt carries that time.
        self.control("POST", "/control/apns-unregister",
                     {"tokens": [UNREGISTERED_APNS], "timestamp": UNREGISTERED_SINCE_MS})
        self.control("POST", "/control/fcm-unregister", {"tokens": [UNREGISTERED_FCM]})
        say(f"the simulator treats APNs token {short(UNREGISTERED_APNS)} (410 Unregistered) and FCM token "
            f"{short(UNREGISTERED_FCM)} (404 UNREGISTERED) as uninstalled apps")
        for fault in FAULTS:
            self.control("POST", "/faults/rules", fault.rule)
            say(f"fault armed: {fault.description}")
        return settings

    def prepare_apps(self) -> dict[str, str]:
        """The folders of PUSH_APPS_DIR, one per app (the ingress scene's too) with its own APNs key and FCM service
        account; returns the worker's setting."""
        apps = self.directory / "apps"
        token_uri = f"{self.simulator.base_url}/token"
        for app in [*APPS, demo_ingress.APP]:
            self.write_app(apps / app, self.control("POST", "/control/apns-credentials", {"app": app}),
                           self.control("POST", "/control/oauth-credentials",
                                        {"token_uri": token_uri, "project": f"{app.lower()}-project"}))
        # The simulator's Web Push service listens on 127.0.0.1: allowed here, never in production.
        return {"PUSH_APPS_DIR": str(apps), "WEBPUSH_ALLOW_PRIVATE_ENDPOINTS": "true"}

    @staticmethod
    def write_app(folder: Path, apns: dict, fcm: dict) -> None:
        folder.mkdir(parents=True)
        settings = {"apns": {"keyId": apns["key_id"], "teamId": apns["team_id"], "topic": apns["topic"]}}
        (folder / "app.json").write_text(json.dumps(settings))
        shutil.copyfile(apns["key_file"], folder / "apns-key.p8")
        shutil.copyfile(fcm["service_account_file"], folder / "fcm-service-account.json")
        say(f"app {folder.name}: APNs key {apns['key_id']} (team {apns['team_id']}, topic {apns['topic']}) and FCM "
            f"project {fcm['project_id']} in {folder}")
        if folder.name == demo_imkit.APP:
            demo_imkit.write_vapid_key(folder)
            say(f"app {folder.name}: a VAPID key for Web Push (webpush-vapid.pem, webpush.json)")

    def start_worker(self, servers: str, settings: dict[str, str]) -> Child:
        worker, self.metrics_port = start_worker(self.worker_binary, self.directory, {
            "KAFKA_BOOTSTRAP_SERVERS": servers, "PUSH_WORKER_ID": "demo-worker", "PUSH_SHUTDOWN_GRACE_SECONDS": "5",
            "PUSH_RETRY_BUDGET_MS": str(RETRY_BUDGET_MS), **settings,
        })
        self.children.append(worker)
        say(f"push-worker run started (pid {worker.process.pid}, LOG_LEVEL info, status endpoints on "
            f"127.0.0.1:{self.metrics_port})")
        return worker

    # Traffic and results

    @staticmethod
    def produce(servers: str, traffic: Traffic) -> None:
        producer = Producer({"bootstrap.servers": servers, "enable.idempotence": True, "linger.ms": 5})
        failures: list[str] = []
        for key, value in traffic.records():
            producer.produce(TOPIC, value=value, key=key.encode(), headers=[("source", b"demo")],
                             on_delivery=lambda error, _: error and failures.append(str(error)))
        if producer.flush(30) or failures:
            raise DemoFailed(f"producing the sample traffic failed: {failures or 'delivery timed out'}")
        say(f"produced {len(traffic.events)} chat events (every IMKIT type, unreadCount, call, an unknown type, "
            f"and an image to recipients in ko-KR, ja, zh-TW and en-US) and 1 poison record to {TOPIC}")

    @staticmethod
    def collect(servers: str, traffic: Traffic, worker: Child) -> Outputs:
        """Reads the output topics until every receipt, dead letter and retry record arrived (bounded)."""
        consumer = Consumer({"bootstrap.servers": servers, "group.id": "demo-reader", "enable.auto.commit": False})
        consumer.assign([TopicPartition(topic, partition, OFFSET_BEGINNING)
                         for topic in OUTPUT_TOPICS for partition in range(PARTITIONS)])
        outputs = Outputs()
        wanted = traffic.receipt_keys()
        started = time.monotonic()
        say(f"waiting for {len(wanted)} receipts, {traffic.expected_dead_letters} dead letters and "
            f"{traffic.expected_retries} retry record (at most {ARRIVAL_TIMEOUT} s)")
        try:
            while True:
                missing = wanted - receipt_keys(outputs.receipts())
                dead_letters = len(outputs.records["push.dlq"])
                retries = len(outputs.retries())
                if not missing and dead_letters >= traffic.expected_dead_letters \
                        and retries >= traffic.expected_retries:
                    break
                if time.monotonic() - started > ARRIVAL_TIMEOUT:
                    raise DemoFailed(f"timed out after {ARRIVAL_TIMEOUT} s with only "
                                     f"{shortfall(traffic, missing, dead_letters, retries)}; see {worker.log}")
                if worker.process.poll() is not None:
                    raise DemoFailed(f"push-worker exited with status {worker.process.returncode} while working; "
                                     f"see {worker.log}")
                for message in consumer.consume(500, 0.2):
                    if message.error():
                        raise DemoFailed(f"reading {message.topic()} failed: {message.error()}")
                    outputs.records[message.topic()].append(message)
        finally:
            consumer.close()
        say(f"everything arrived {time.monotonic() - started:.1f} s after the traffic was produced")
        return outputs

    def metrics(self) -> str:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=5) as response:
                return response.read().decode()
        except OSError as error:
            raise DemoFailed(f"GET /metrics failed: {error}") from error

    # Stopping

    def stop(self) -> dict[str, int | None]:
        """Stops the worker first (it must drain, commit and exit 0), then the simulator and the broker.
        Interrupted meanwhile, it kills whatever still runs."""
        statuses = {}
        try:
            for child in reversed(self.children):
                statuses[child.name] = child.stop()
        except Interrupted:
            for child in self.children:
                child.process.kill()
            raise
        finally:
            self.children.clear()
            # The test keys and certificates go; the logs stay.
            for secrets in [self.directory / "certs", self.directory / "apps", *self.directory.glob("push-simulator-*")]:
                shutil.rmtree(secrets, ignore_errors=True)
        return statuses


def shortfall(traffic: Traffic, missing: set[tuple[str, str, str]], dead_letters: int, retries: int) -> str:
    """What has arrived of what is still awaited, with a few of the device sends that have no receipt yet."""
    wanted = len(traffic.receipt_keys())
    counts = [(wanted - len(missing), wanted, "receipts"),
              (dead_letters, traffic.expected_dead_letters, "dead letters"),
              (retries, traffic.expected_retries, "retry records")]
    text = "; ".join(f"{count} of {expected} {what}" for count, expected, what in counts if count < expected)
    if missing:
        devices = {device.token_hash: device for device in traffic.devices()}
        examples = sorted(f"{message} {devices[token].label}" for message, _, token in missing)
        text += f" (no receipt yet for {', '.join(examples[:3])}…)"
    return text


def receipt_keys(receipts: list[dict]) -> set[tuple[str, str, str]]:
    return {(receipt["messageId"], receipt["userId"], receipt["tokenHash"]) for receipt in receipts}


def raise_interrupted(signal_number: int, _frame) -> None:
    raise Interrupted(signal.Signals(signal_number).name)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", required=True, type=Path, help="the push-worker binary")
    arguments = parser.parse_args()
    for signal_number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signal_number, raise_interrupted)

    began = time.monotonic()
    directory = Path(tempfile.mkdtemp(prefix="push-worker-demo-"))
    demo = Demo(arguments.worker.resolve(), directory)
    traffic = Traffic(ROOT / "schemas/examples/chat-message")
    try:
        servers = demo.start_broker()
        demo.start_simulator()
        settings = demo.prepare_simulator() | demo.prepare_apps()
        worker = demo.start_worker(servers, settings)
        demo.produce(servers, traffic)
        outputs = demo.collect(servers, traffic, worker)
        requests = demo.control("GET", "/requests")["requests"]
        metrics = demo.metrics()
        ingress_problems = demo_ingress.run(demo, servers)
        # After the snapshot of requests and metrics: the main report's checks count only the chat events.
        imkit_problems = demo_imkit.run(demo.worker_binary, servers, demo.metrics, say, demo.control,
                                        demo.simulator.base_url)
        worker_status = demo.stop()["push-worker run"]
    except Interrupted as interruption:
        demo.stop()
        say(f"interrupted by {interruption}; every process stopped (logs in {directory})")
        return 130
    except Exception as error:  # whatever went wrong, nothing may be left running
        demo.stop()
        say(f"FAILED: {error}" if isinstance(error, ProcessFailed) else f"FAILED: {type(error).__name__}: {error}")
        return 1
    finally:
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    say(f"worker stopped with SIGTERM: exit status {worker_status}; simulator and broker stopped")
    problems = demo_report.print_report(traffic, outputs, requests, metrics, directory / "worker.log")
    problems += ingress_problems + imkit_problems
    if worker_status != 0:
        problems.append(f"push-worker exited with status {worker_status} after SIGTERM, not 0")
    for problem in problems:
        say(f"FAILED: {problem}")
    if problems:
        return 1
    say(f"OK: every expected push, receipt and dead letter seen; {time.monotonic() - began:.0f} s "
        f"from start to stop")
    return 0

if __name__ == "__main__":
    try:
        sys.exit(main())
    except Interrupted:
        say("interrupted again while stopping: every process killed")
        sys.exit(130)
    except BrokenPipeError:  # the reader of our output went away (`| head`); the children were stopped
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)
