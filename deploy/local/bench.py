"""End-to-end benchmark of `push-worker run`: Kafka in, HTTP/2 out, receipts in Kafka.

    python deploy/local/bench.py --bin .build/release/push-worker [--events 100000] [--backlog-events 30000]
    python deploy/local/bench.py --bin A=old/push-worker --bin B=new/push-worker --rounds 3   # A/B (ab.sh)

Starts the dev broker (librdkafka mock cluster), a fast TLS HTTP/2 push endpoint (nginx with the echo module:
it reads every request body before answering; APNs-shaped answers carry `apns-id`, FCM-shaped ones a message
`name`), the push simulator for the one OAuth token exchange, and the worker. Two cases:

- backlog: events written before the worker starts (a size the mock cluster keeps), then drained;
- stream: events written while the worker runs, as fast as it takes them (the writer keeps at most
  `--max-lag-sends` device sends unanswered, so the mock cluster never drops unread input), or at a fixed
  `--rate` (events/s) to see the end-to-end latency below saturation.

For each case it reads every receipt from `push.receipts` and prints pushes/s (first to last receipt, by the
receipts' Kafka timestamps), receipts vs. sends, provider latency p50/p99 (the receipts' `latencyMs`),
end-to-end latency p50/p99 (event `createdAt` → receipt timestamp; stream case), the worker's peak resident
memory (sampled VmRSS and the kernel's VmHWM) and its CPU time.

A/B mode (`deploy/local/ab.sh`): with several `--bin LABEL=PATH`, every round runs the cases for each binary in
turn (the order alternating between rounds: A B, B A, …) against the same broker and endpoint, each on topics of
its own, then the bare libcurl peer; it prints every run with its ratio to that round's peer, then the median per
binary and case.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from processes import ResourceSampler, cpu_seconds, memory_kib

ROOT = Path(__file__).resolve().parents[2]
SIMULATOR = ROOT / "Tests" / "PushSimulator" / "simulator.py"
ECHO_MODULE = Path("/usr/lib/nginx/modules/ngx_http_echo_module.so")
CASES = ("backlog", "stream", "fanout")
# Cases whose events are all written before the worker starts.
PREWRITTEN = ("backlog", "fanout")

NGINX_CONF = """\
load_module {echo_module};
daemon off;
master_process off;  # one process: its CPU time is the endpoint's
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    client_body_buffer_size 16k;
    client_max_body_size 16k;
    keepalive_requests 1000000000;
    keepalive_timeout 600s;
    http2_max_concurrent_streams 1000;
    server {{
        listen 127.0.0.1:{apns_port} ssl http2;
        listen 127.0.0.1:{fcm_port} ssl http2;
        ssl_certificate {cert};
        ssl_certificate_key {key};
        # echo_read_request_body reads the whole body before the answer starts (curl issue 10433).
        location /3/device/ {{
            echo_read_request_body;
            add_header apns-id $http_apns_id always;
            echo_status 200;
        }}
        location ~ ^/v1/projects/([^/]+)/messages:send$ {{
            default_type application/json;
            echo_read_request_body;
            echo '{{"name": "projects/$1/messages/$request_id"}}';
        }}
    }}
}}
"""


def free_port() -> int:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        return listener.getsockname()[1]


def wait_for_line(process: subprocess.Popen, predicate, what: str, timeout: float = 60.0) -> str:
    """Reads `process`'s stdout until a line satisfies `predicate` (bounded in time)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            raise RuntimeError(f"{what} exited before it was ready (status {process.wait()})")
        if predicate(line):
            return line
    raise RuntimeError(f"{what} was not ready within {timeout:.0f} s")


def percentile(values: list[float], fraction: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class EventFactory:
    """Chat events with 1-3 devices each, APNs and FCM mixed, over `rooms` rooms; deterministic per seed."""

    TYPES = ("text", "text", "text", "image", "sticker", "file")

    def __init__(self, seed: int, rooms: int, prefix: str, fanout: int = 0):
        self.random = random.Random(seed)
        self.rooms = rooms
        self.prefix = prefix
        self.count = 0
        self.sends = 0
        # Group-chat fan-out: this many recipients with one APNs and one FCM device each (0: one recipient, 1-3).
        self.fanout = fanout

    def next(self) -> tuple[str, str, str, int]:
        """The next event as (room key, JSON value, message id, createdAt in epoch ms)."""
        index = self.count
        self.count += 1
        generator = self.random
        room = f"r-{generator.randrange(self.rooms)}"
        if self.fanout:
            recipients = [{"userId": f"u-{generator.randrange(100000)}", "badge": generator.randrange(20),
                           "muted": False,
                           "devices": [{"platform": "apns", "token": "%064x" % generator.getrandbits(256)},
                                       {"platform": "fcm", "token": "f%0140x" % generator.getrandbits(560)}]}
                          for _ in range(self.fanout)]
        else:
            devices = []
            for _ in range(generator.choice((1, 1, 2, 2, 3))):
                if generator.random() < 0.5:
                    devices.append({"platform": "apns", "token": "%064x" % generator.getrandbits(256)})
                else:
                    devices.append({"platform": "fcm", "token": "f%0140x" % generator.getrandbits(560)})
            recipients = [{"userId": f"u-{generator.randrange(100000)}", "badge": generator.randrange(20),
                           "muted": False, "devices": devices}]
        self.sends += sum(len(recipient["devices"]) for recipient in recipients)
        message_id = f"{self.prefix}-{index}"
        created = int(time.time() * 1000)
        event = {
            "id": message_id,
            "type": generator.choice(self.TYPES),
            "room": {"id": room, "name": f"Room {room}"},
            "sender": {"id": f"u-{generator.randrange(100000)}", "nickname": "Alice"},
            "content": "Hello there, this is a benchmark message " + "x" * generator.randrange(80),
            "createdAt": created,
            "recipients": recipients,
            "payload": {"messageId": message_id, "kind": "benchmark"},
        }
        return room, json.dumps(event, separators=(",", ":")), message_id, created


@dataclass
class ReceiptStats:
    """What the receipts reader has seen so far (updated from its thread)."""

    count: int = 0
    statuses: dict = field(default_factory=dict)
    first_ms: int | None = None
    last_ms: int | None = None
    provider_latency_ms: list = field(default_factory=list)
    end_to_end_ms: list = field(default_factory=list)


class ReceiptReader:
    """Tails `push.receipts` with kcat from the beginning, counting receipts whose messageId has `prefix`."""

    def __init__(self, bootstrap: str, topic: str, prefix: str, created: dict[str, int]):
        self.prefix = prefix + "-"
        self.created = created
        self.stats = ReceiptStats()
        self.everything = 0  # receipts of any message, warm-up included
        self.lock = threading.Lock()
        self.process = subprocess.Popen(
            ["kcat", "-C", "-b", bootstrap, "-t", topic, "-o", "beginning", "-q", "-u",
             "-f", "%T\t%s\n", "-X", "fetch.wait.max.ms=20"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1 << 16)
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self) -> None:
        for line in self.process.stdout:
            timestamp, _, value = line.partition("\t")
            try:
                receipt = json.loads(value)
            except ValueError:
                continue
            message_id = receipt.get("messageId", "")
            with self.lock:
                self.everything += 1
            if not message_id.startswith(self.prefix):
                continue
            at = int(timestamp)
            with self.lock:
                stats = self.stats
                stats.count += 1
                status = receipt.get("status")
                stats.statuses[status] = stats.statuses.get(status, 0) + 1
                stats.first_ms = at if stats.first_ms is None else min(stats.first_ms, at)
                stats.last_ms = at if stats.last_ms is None else max(stats.last_ms, at)
                if receipt.get("latencyMs") is not None:
                    stats.provider_latency_ms.append(receipt["latencyMs"])
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
        self.process.terminate()
        self.process.wait(timeout=10)
        self.thread.join(timeout=10)


class Producer:
    """Writes `key<TAB>value` lines into `chat.messages` through kcat (its own librdkafka producer)."""

    def __init__(self, bootstrap: str, topic: str):
        self.process = subprocess.Popen(
            ["kcat", "-P", "-b", bootstrap, "-t", topic, "-K", "\t",
             "-X", "linger.ms=5", "-X", "batch.num.messages=2000", "-X", "queue.buffering.max.messages=500000"],
            stdin=subprocess.PIPE, text=True, bufsize=1 << 20)

    def write(self, lines: list[tuple[str, str]]) -> None:
        self.process.stdin.write("".join(f"{key}\t{value}\n" for key, value in lines))
        self.process.stdin.flush()

    def close(self) -> None:
        self.process.stdin.close()
        if self.process.wait(timeout=120) != 0:
            raise RuntimeError(f"kcat producer exited with {self.process.returncode}")


@dataclass
class Variant:
    """A worker binary under test and its label (A/B mode)."""

    label: str
    path: str

    @staticmethod
    def parse(text: str) -> "Variant":
        label, separator, path = text.partition("=")
        return Variant(label, path) if separator and label and "/" not in label else Variant("worker", text)


@dataclass
class Result:
    case: str
    events: int
    sends: int
    stats: ReceiptStats
    peak_rss_kib: int
    hwm_kib: int
    worker_cpu_s: float
    others_cpu_s: dict
    wall_s: float
    load: str
    label: str = "worker"
    round: int = 1
    peer_rate: float = 0.0

    @property
    def span_s(self) -> float:
        if self.stats.first_ms is None or self.stats.last_ms is None:
            return 0.0
        return max(0.001, (self.stats.last_ms - self.stats.first_ms) / 1000)

    @property
    def rate(self) -> float:
        return self.stats.count / self.span_s if self.span_s else 0.0


class Bench:
    def __init__(self, arguments: argparse.Namespace):
        self.arguments = arguments
        self.directory = Path(tempfile.mkdtemp(prefix="push-bench-"))
        self.processes: list[subprocess.Popen] = []

    def spawn(self, command: list[str], **options) -> subprocess.Popen:
        process = subprocess.Popen(command, **options)
        self.processes.append(process)
        return process

    def start_services(self) -> None:
        arguments = self.arguments
        topics = [f"{self.topic_base(tag, case)}.{kind}" for tag in self.tags() for case in CASES
                  for kind in ("events", "receipts")] + ["bench.replay.receipts"]
        # The dead-letter topic and the worker's default retry tiers (PUSH_RETRY_TIERS 1s,10s,1m,10m,1h).
        topics += ["push.dlq"] + [f"push.retry-{delay_ms}" for delay_ms in (1_000, 10_000, 60_000, 600_000, 3_600_000)]
        broker = self.spawn([arguments.bin[0].path, "dev-broker", "--partitions", str(arguments.partitions),
                             "--topics", ",".join(topics)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.broker = broker
        line = wait_for_line(broker, lambda text: text.startswith("bootstrap.servers="), "dev broker")
        self.bootstrap = line.strip().split("=", 1)[1]

        certificates = self.directory / "certs"
        simulator = self.spawn([sys.executable, str(SIMULATOR), "--cert-dir", str(certificates),
                                "--exit-on-stdin-eof"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        ready = json.loads(wait_for_line(simulator, lambda text: text.startswith("{"), "push simulator"))
        self.ca_file = ready["ca_file"]
        base = f"https://127.0.0.1:{ready['port']}"
        control = f"http://127.0.0.1:{ready['control_port']}/control"
        self.apns = self.control(f"{control}/apns-credentials", {})
        self.fcm = self.control(f"{control}/oauth-credentials", {"token_uri": f"{base}/token"})

        nginx_directory = self.directory / "nginx"
        nginx_directory.mkdir()
        self.apns_port, self.fcm_port = free_port(), free_port()
        configuration = nginx_directory / "nginx.conf"
        configuration.write_text(NGINX_CONF.format(
            echo_module=ECHO_MODULE, dir=nginx_directory,
            apns_port=self.apns_port, fcm_port=self.fcm_port,
            cert=certificates / "server.pem", key=certificates / "server-key.pem"))
        self.nginx = self.spawn(["nginx", "-p", str(nginx_directory), "-c", str(configuration),
                                 "-e", str(nginx_directory / "error.log")],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.wait_for_port(self.apns_port, "nginx")

    def tags(self) -> list[str]:
        """One topic tag per binary and round in A/B mode ("A1", "B1", …); a single run uses the plain topics."""
        if len(self.arguments.bin) == 1 and self.arguments.rounds == 1:
            return [""]
        return [f"{variant.label}{round}" for round in range(1, self.arguments.rounds + 1)
                for variant in self.arguments.bin]

    @staticmethod
    def topic_base(tag: str, case: str) -> str:
        return f"bench.{tag}.{case}" if tag else f"bench.{case}"

    @staticmethod
    def control(url: str, body: dict) -> dict:
        request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def wait_for_port(self, port: int, what: str) -> None:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"{what} did not listen on port {port}")

    def worker_environment(self, case: str, tag: str = "") -> dict[str, str]:
        environment = {key: value for key, value in os.environ.items() if not key.startswith(("KAFKA_", "PUSH_"))}
        base = self.topic_base(tag, case)
        environment.update({
            "KAFKA_BOOTSTRAP_SERVERS": self.bootstrap, "KAFKA_GROUP_ID": f"bench-{tag}{case}",
            "PUSH_TOPICS": f"{base}.events", "PUSH_RECEIPTS_TOPIC": f"{base}.receipts",
            "APNS_URL": f"https://127.0.0.1:{self.apns_port}", "APNS_SANDBOX_URL": f"https://127.0.0.1:{self.apns_port}",
            "APNS_KEY_FILE": self.apns["key_file"], "APNS_KEY_ID": self.apns["key_id"],
            "APNS_TEAM_ID": self.apns["team_id"], "APNS_TOPIC": self.apns["topic"],
            "FCM_URL": f"https://127.0.0.1:{self.fcm_port}", "FCM_SERVICE_ACCOUNT_FILE": self.fcm["service_account_file"],
            "PUSH_CA_FILE": self.ca_file, "PUSH_HTTP_PORT": "0", "PUSH_HTTP_HOST": "127.0.0.1",
            "PUSH_WORKER_ID": "bench", "LOG_LEVEL": "warning", "PUSH_SHUTDOWN_GRACE_SECONDS": "10",
        })
        for setting in self.arguments.worker_env:
            name, _, value = setting.partition("=")
            environment[name] = value
        return environment

    def start_worker(self, case: str, variant: Variant, tag: str) -> subprocess.Popen:
        with open(self.directory / f"worker-{tag}{case}.log", "w") as log:
            return self.spawn([variant.path, "run"], env=self.worker_environment(case, tag),
                              stdin=subprocess.DEVNULL, stdout=log, stderr=log)

    def stop_worker(self, worker: subprocess.Popen) -> None:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()

    def endpoint_ceiling(self, requests: int) -> str:
        """What the endpoint alone takes from h2load (nghttp2-client): 4 connections x 100 streams, 600-byte POSTs."""
        body = self.directory / "body.json"
        body.write_text(json.dumps({"aps": {"alert": {"body": "x" * 560}}}))
        output = subprocess.run(
            ["h2load", "-n", str(requests), "-c", "4", "-m", "100", "-d", str(body),
             f"https://127.0.0.1:{self.apns_port}/3/device/{'ab' * 32}"],
            capture_output=True, text=True, timeout=300).stdout
        return next((line.strip() for line in output.splitlines() if line.startswith("finished in")), output.strip())

    def bare_peer(self, requests: int) -> tuple[str, float]:
        """The bare libcurl multi loop (`bench_peer.c`) on the same endpoint: its summary line and requests/s."""
        binary = self.directory / "bench_peer"
        subprocess.run(["cc", "-O2", "-o", str(binary), str(Path(__file__).with_name("bench_peer.c")), "-lcurl"],
                       check=True)
        output = subprocess.run(
            [str(binary), f"https://127.0.0.1:{self.apns_port}", f"https://127.0.0.1:{self.fcm_port}", self.ca_file,
             str(requests), "200"], capture_output=True, text=True, timeout=600)
        line = output.stdout.strip() or output.stderr.strip()
        match = re.search(r"([\d.]+) requests/s", line)
        rate = float(match.group(1)) if match else 0.0
        return line, rate

    def replay(self, topic: str) -> str:
        """`push-worker replay` of a whole events topic, sending for real to the same endpoint: its summary line."""
        environment = self.worker_environment("replay")
        began = time.monotonic()
        process = subprocess.Popen(
            [self.arguments.bin[0].path, "replay", "--topic", topic, "--format", "json"], env=environment,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        sampler = ResourceSampler(process.pid, interval=0.1)
        output, _ = process.communicate(timeout=900)
        elapsed = time.monotonic() - began
        sampler.stop()
        summary = json.loads(output)
        return (f"{summary['records']} records, {summary['sends']} sends in {elapsed:.1f} s: "
                f"{summary['sends'] / elapsed:,.0f} sends/s, receipts {summary['statuses']}, "
                f"peak RSS {sampler.peak_rss_kib / 1024:.0f} MB, exit {process.returncode}")

    def run_case(self, case: str, events: int, variant: Variant, tag: str = "", round: int = 1) -> Result:
        prefix = f"{tag}{case}-{int(time.time())}"
        factory = EventFactory(seed=self.arguments.seed, rooms=self.arguments.rooms, prefix=prefix,
                               fanout=self.arguments.fanout_recipients if case == "fanout" else 0)
        created: dict[str, int] = {}
        base = self.topic_base(tag, case)
        reader = ReceiptReader(self.bootstrap, f"{base}.receipts", prefix, created)
        others_before = {name: cpu_seconds(process.pid) for name, process in self.others().items()}
        driver_before = time.process_time()
        producer = Producer(self.bootstrap, f"{base}.events")
        if case in PREWRITTEN:
            while factory.count < events:
                producer.write([factory.next()[:2] for _ in range(min(1000, events - factory.count))])
            producer.close()
        started = time.monotonic()
        worker = self.start_worker(case, variant, tag)
        sampler = ResourceSampler(worker.pid, interval=0.1)
        profiler = None
        if self.arguments.perf and case == "stream":
            profiler = subprocess.Popen(["perf", "record", "-e", "cpu-clock", "-F", "499", "-g", "-a",
                                         "-o", str(self.arguments.perf)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            print(f"bench: recording a system-wide profile into {self.arguments.perf}; worker pid {worker.pid} "
                  f"(perf report -i {self.arguments.perf} --pid {worker.pid})", file=sys.stderr)
        if case == "stream":
            self.warm_up(producer, reader)
            started = time.monotonic()
            rate = self.arguments.rate
            while factory.count < events:
                behind = rate and factory.count >= rate * (time.monotonic() - started)
                if behind or factory.sends - reader.count > self.arguments.max_lag_sends:
                    time.sleep(0.002)
                    continue
                batch = []
                for _ in range(min(100 if rate else 500, events - factory.count)):
                    key, value, message_id, created_ms = factory.next()
                    created[message_id] = created_ms
                    batch.append((key, value))
                producer.write(batch)
            producer.close()
        reader.wait_for(factory.sends, stall_timeout=self.arguments.stall_timeout)
        if profiler:
            profiler.send_signal(signal.SIGINT)
            profiler.wait(timeout=60)
        sampler.stop()
        memory = memory_kib(worker.pid)
        worker_cpu = cpu_seconds(worker.pid)
        others = {name: cpu_seconds(process.pid) - others_before[name] for name, process in self.others().items()}
        others["bench driver (events, receipts)"] = time.process_time() - driver_before
        wall = time.monotonic() - started
        load = Path("/proc/loadavg").read_text().strip()
        self.stop_worker(worker)
        reader.stop()
        return Result(case, events, factory.sends, reader.stats, max(sampler.peak_rss_kib, memory.get("VmRSS", 0)),
                      memory.get("VmHWM", 0), worker_cpu, others, wall, load, variant.label, round)

    @staticmethod
    def warm_up(producer: Producer, reader: ReceiptReader) -> None:
        """Waits until the worker has joined its group and answers (so the stream's latency leaves start-up out)."""
        warm = EventFactory(seed=0, rooms=100, prefix="warm-up")
        producer.write([warm.next()[:2] for _ in range(100)])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with reader.lock:
                # Half: kcat holds its last input line back until the next one comes.
                if reader.everything >= warm.sends // 2:
                    return
            time.sleep(0.05)
        raise RuntimeError("the worker did not answer the warm-up events within 60 s")

    def others(self) -> dict[str, subprocess.Popen]:
        return {"dev-broker": self.broker, "nginx": self.nginx}

    def close(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
        if not self.arguments.keep:
            shutil.rmtree(self.directory, ignore_errors=True)
        else:
            print(f"bench: files kept in {self.directory}", file=sys.stderr)


def milliseconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def print_table(results: list[Result]) -> None:
    header = ("binary", "round", "case", "events", "sends", "receipts", "pushes/s", "/ peer", "send p50 ms",
              "send p99 ms", "e2e p50 ms", "e2e p99 ms", "peak RSS MB", "worker CPU s", "CPU s/10k pushes")
    rows = []
    for result in results:
        stats = result.stats
        rows.append((
            result.label, str(result.round), result.case, str(result.events), str(result.sends), str(stats.count),
            f"{result.rate:,.0f}", f"{result.rate / result.peer_rate:.2f}" if result.peer_rate else "-",
            milliseconds(percentile(stats.provider_latency_ms, 0.5)),
            milliseconds(percentile(stats.provider_latency_ms, 0.99)),
            milliseconds(percentile(stats.end_to_end_ms, 0.5)), milliseconds(percentile(stats.end_to_end_ms, 0.99)),
            f"{peak_mb(result):.0f}", f"{result.worker_cpu_s:.1f}", f"{cpu_per_10k(result):.2f}",
        ))
    widths = [max(len(row[index]) for row in [header, *rows]) for index in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.rjust(width) for cell, width in zip(row, widths)))
    for result in results:
        statuses = ", ".join(f"{name} {count}" for name, count in sorted(result.stats.statuses.items()))
        others = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in result.others_cpu_s.items())
        print(f"{result.label} {result.round} {result.case}: receipts by status: {statuses or 'none'}; first→last receipt {result.span_s:.2f} s; "
              f"wall {result.wall_s:.1f} s; CPU of {others}; load average at the end {result.load}")


def run_rounds(bench: Bench, arguments: argparse.Namespace) -> list[Result]:
    """A/B mode: every round runs each binary's cases in turn (the order reversed every other round), then the
    bare libcurl peer, whose rate becomes the round's yardstick."""
    results: list[Result] = []
    for round in range(1, arguments.rounds + 1):
        variants = arguments.bin if round % 2 else list(reversed(arguments.bin))
        this_round: list[Result] = []
        for variant in variants:
            tag = f"{variant.label}{round}"
            for case, events in (("backlog", arguments.backlog_events), ("stream", arguments.events),
                                 ("fanout", arguments.fanout_events)):
                if events:
                    result = bench.run_case(case, events, variant, tag, round)
                    print(f"bench: round {round} {variant.label} {case}: {result.rate:,.0f} pushes/s, "
                          f"{cpu_per_10k(result):.2f} s CPU per 10k, peak RSS {peak_mb(result):.0f} MB",
                          file=sys.stderr)
                    this_round.append(result)
        if arguments.peer:
            line, peer_rate = bench.bare_peer(arguments.peer)
            print(f"bench: round {round} bare libcurl peer: {line}", file=sys.stderr)
            for result in this_round:
                result.peer_rate = peer_rate
        results += this_round
    return results


def cpu_per_10k(result: Result) -> float:
    return result.worker_cpu_s / max(1, result.stats.count) * 10000


def peak_mb(result: Result) -> float:
    return max(result.peak_rss_kib, result.hwm_kib) / 1024


def print_medians(results: list[Result]) -> None:
    """A/B mode: the median of every figure per binary and case, and B's pushes/s and CPU relative to A's."""
    print("medians:")
    header = ("binary", "case", "runs", "pushes/s", "CPU s/10k", "peak RSS MB", "/ peer")
    rows, medians = [], {}
    for label in dict.fromkeys(result.label for result in results):
        for case in dict.fromkeys(result.case for result in results):
            runs = [result for result in results if result.label == label and result.case == case]
            if not runs:
                continue
            rate = statistics.median([result.rate for result in runs])
            cpu = statistics.median([cpu_per_10k(result) for result in runs])
            ratios = [result.rate / result.peer_rate for result in runs if result.peer_rate]
            medians[label, case] = (rate, cpu)
            rows.append((label, case, str(len(runs)), f"{rate:,.0f}", f"{cpu:.2f}",
                         f"{statistics.median([peak_mb(result) for result in runs]):.0f}",
                         f"{statistics.median(ratios):.2f}" if ratios else "-"))
    widths = [max(len(row[index]) for row in [header, *rows]) for index in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.rjust(width) for cell, width in zip(row, widths)))
    labels = list(dict.fromkeys(result.label for result in results))
    for case in dict.fromkeys(result.case for result in results):
        for label in labels[1:]:
            if (labels[0], case) in medians and (label, case) in medians:
                (rate_a, cpu_a), (rate_b, cpu_b) = medians[labels[0], case], medians[label, case]
                print(f"{case}: {label} / {labels[0]}: pushes/s {rate_b / max(rate_a, 1e-9):.3f}×, "
                      f"CPU per 10k {cpu_b / max(cpu_a, 1e-9):.3f}×")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, action="append", type=Variant.parse, metavar="[LABEL=]PATH",
                        help="the push-worker binary (a release build); several LABEL=PATH: A/B mode (ab.sh)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="A/B mode: rounds of every binary in turn (A B, B A, …), the peer once per round")
    parser.add_argument("--events", type=int, default=100_000, help="events of the stream case (0: skip it)")
    parser.add_argument("--backlog-events", type=int, default=25_000,
                        help="events of the backlog case (0: skip it); the mock cluster keeps ~5 MB per partition")
    parser.add_argument("--fanout-events", type=int, default=100,
                        help="events of the group-chat fan-out case, written before the worker starts (0: skip it)")
    parser.add_argument("--fanout-recipients", type=int, default=500,
                        help="fan-out case: recipients per event, each with one APNs and one FCM device")
    parser.add_argument("--partitions", type=int, default=6)
    parser.add_argument("--rooms", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rate", type=float, default=0,
                        help="stream case: events per second to write (0: as fast as the worker takes them)")
    parser.add_argument("--max-lag-sends", type=int, default=40_000,
                        help="stream case: device sends written but not yet answered by a receipt, at most")
    parser.add_argument("--stall-timeout", type=float, default=30.0)
    parser.add_argument("--worker-env", action="append", default=[], metavar="NAME=VALUE",
                        help="extra worker setting, e.g. PUSH_MAX_CONCURRENT_SENDS=2000")
    parser.add_argument("--perf", type=Path, help="record a system-wide perf profile during the stream case into this file")
    parser.add_argument("--h2load", type=int, default=100_000, metavar="N",
                        help="first measure the endpoint alone with N h2load requests (0: skip)")
    parser.add_argument("--replay", action=argparse.BooleanOptionalAction, default=True,
                        help="after the cases, replay the backlog's events topic with real sends (--no-replay skips)")
    parser.add_argument("--peer", type=int, default=100_000, metavar="N",
                        help="then run the bare libcurl peer (bench_peer.c) for N requests and print the ratio (0: skip)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (logs, certificates)")
    arguments = parser.parse_args()

    bench = Bench(arguments)
    results = []
    try:
        bench.start_services()
        if arguments.h2load:
            print(f"bench: endpoint alone (h2load): {bench.endpoint_ceiling(arguments.h2load)}", file=sys.stderr)
        if len(arguments.bin) > 1 or arguments.rounds > 1:
            results = run_rounds(bench, arguments)
            print_table(results)
            print_medians(results)
            return 0 if all(result.stats.count == result.sends for result in results) else 1
        variant = arguments.bin[0]
        if arguments.backlog_events:
            results.append(bench.run_case("backlog", arguments.backlog_events, variant))
        if arguments.events:
            results.append(bench.run_case("stream", arguments.events, variant))
        if arguments.fanout_events:
            results.append(bench.run_case("fanout", arguments.fanout_events, variant))
        if arguments.replay and arguments.backlog_events:
            print(f"bench: replay of bench.backlog.events (real sends): {bench.replay('bench.backlog.events')}",
                  file=sys.stderr)
        if arguments.peer:
            peer_line, peer_rate = bench.bare_peer(arguments.peer)
            print(f"bench: bare libcurl peer (200 streams, reused handles, the worker's requests): {peer_line}",
                  file=sys.stderr)
            for result in results:
                result.peer_rate = peer_rate
                if peer_rate and result.rate:
                    print(f"bench: {result.case}: worker / bare libcurl peer = {result.rate / peer_rate:.2f}",
                          file=sys.stderr)
    finally:
        bench.close()
    print(f"machine: {os.cpu_count()} cores; worker: {arguments.bin[0].path}")
    print_table(results)
    complete = all(result.stats.count == result.sends for result in results)
    if not complete:
        print("bench: some sends have no receipt (see above)", file=sys.stderr)
    return 0 if complete else 1


if __name__ == "__main__":
    sys.exit(main())
