"""End-to-end benchmark of `push-worker run`: Kafka in, HTTP/2 out, receipts in Kafka.

    python deploy/local/bench.py --bin .build/release/push-worker [--events 100000] [--backlog-events 30000]
    python deploy/local/bench.py --bin A=old/push-worker --bin B=new/push-worker --rounds 3   # A/B (ab.sh)

Starts the dev broker (librdkafka mock cluster), a fast TLS HTTP/2 push endpoint (nginx with the echo module:
it reads every request body before answering; APNs-shaped answers carry `apns-id`, FCM-shaped ones a message
`name`), the push simulator for the one OAuth token exchange, and the worker. Three cases:

- backlog: events written before the worker starts (a size the mock cluster keeps), then drained;
- stream: events written while the worker runs, as fast as it takes them (the writer keeps at most
  `--max-lag-sends` device sends unanswered, so the mock cluster never drops unread input), or at a fixed
  `--rate` (events/s) to see the end-to-end latency below saturation;
- fanout: group-chat events of `--fanout-recipients` recipients with two devices each, written before the worker
  starts (the memory target: peak RSS ≤ 150 MB);
- apns1 and web: `--single-events` one-device events, to APNs and to Web Push subscriptions at the endpoint (each
  message encrypted and VAPID-signed), written before the worker starts: Web Push's cost beside APNs' in one run.
- one-device: `--one-device-events` events of one device each, APNs and FCM alternating, over 1,000 rooms, written
  before the worker starts: the shape that costs most per push (a one-to-one room, a user with one phone);
- hot-rooms: `--hot-rooms-events` events over 24 rooms whose members (20 per room, one APNs or FCM device each) are
  the same in every event of the room, each event to `--hot-room-recipients` of them (default 1), written before
  the worker starts: few rooms, so the per-room order (`PUSH_ROOM_ORDER`) bounds what runs at once.

For each case it reads every receipt from `push.receipts` and prints pushes/s (first to last receipt, by the
receipts' Kafka timestamps), receipts vs. sends, provider latency p50/p99 (the receipts' `latencyMs`),
end-to-end latency p50/p99 (event `createdAt` → receipt timestamp; stream case), the worker's peak resident
memory (sampled VmRSS and the kernel's VmHWM) and its CPU time, split by thread kind (the Swift pool, the HTTP/2
loop, librdkafka's threads, the rest) beside the broker's, nginx's and the driver's; with --perf, the worker's
samples of the stream case (or --perf-case) by stage (bench_stages.py); with --runtime-events, the Swift concurrency runtime's calls
per record and per send of the stream case (or --runtime-events-case), counted by uprobes (bench_runtime_events.py,
bench_runtime_probes.py).

By concern: bench_events.py writes the events, bench_outcomes.py reads the receipts back, bench_endpoint.py is
the nginx endpoint (and h2load, the bare libcurl peer, the Node.js http2 peer, the bare nghttp2 peer),
bench_report.py prints the table; every child process is started through processes.py (own session, parent-death
signal) and stopped in reverse order.

Transports: every binary runs every case once per HTTP/2 transport of `--transport` (default `curl,nghttp2`, in that
order, `PUSH_HTTP_TRANSPORT` set in the worker's environment), each on topics of its own; rows are labelled by the
transport (`curl`, `nghttp2`) or, for labelled binaries, `LABEL/transport` (with one transport, as before: `worker`,
`LABEL`). The replay runs once, on the first transport.

A/B mode (`deploy/local/ab.sh`): with several `--bin LABEL=PATH`, every round runs the cases for each binary in
turn (the order alternating between rounds: A B, B A, …; each binary's transports in the order given) against the
same broker and endpoint, each on topics of its own, then the bare libcurl peer, (where `node` is installed) the
Node.js http2 peer and the bare nghttp2 peer (bench_nghttp2_peer.c); it prints every run with its ratios to that
round's peers, then the median per binary and case, and B / A per transport.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from bench_endpoint import Endpoint, cpu_per_10k_requests
from bench_events import EventFactory, Producer
from bench_outcomes import ReceiptReader, build_receipt_reader
from bench_report import Result, cpu_per_10k, peak_mb, print_medians, print_table, print_transport_ratios
from bench_runtime_events import (FIGURES, PROBES, REFCOUNT_FIGURES, REFCOUNT_PROBES, per_record, per_record_and_send,
                                  switch_targets, top_hops)
from bench_runtime_probes import RuntimeProbes, demangle, symbols
from bench_stages import ThreadSampler, cpu_by_kind, stage_split, thread_times
from processes import ResourceSampler, cpu_seconds, memory_kib, popen, stop

ROOT = Path(__file__).resolve().parents[2]
SIMULATOR = ROOT / "Tests" / "PushSimulator" / "simulator.py"
CASES = ("backlog", "stream", "fanout", "apns1", "web", "one-device", "hot-rooms")
# Cases whose events are all written before the worker starts.
PREWRITTEN = ("backlog", "fanout", "apns1", "web", "one-device", "hot-rooms")
# One device per event: the provider of each case's devices (EventFactory's `single`).
SINGLE = {"apns1": "apns", "web": "web", "one-device": "alternate"}
# Rooms of the cases that do not take --rooms.
ROOMS = {"one-device": 1_000, "hot-rooms": 24}
# Hot rooms: members per room, each with one device.
HOT_ROOM_MEMBERS = 20
# The worker's HTTP/2 transports (PUSH_HTTP_TRANSPORT), in the order --transport defaults to.
TRANSPORTS = ("curl", "nghttp2")
# The label of a --bin given without one.
UNLABELLED = "worker"


@dataclass
class Variant:
    """A worker binary under test, its label (A/B mode) and the HTTP/2 transport it runs on ("": the worker's
    default)."""

    label: str
    path: str
    transport: str = ""

    @staticmethod
    def parse(text: str) -> "Variant":
        label, separator, path = text.partition("=")
        return Variant(label, path) if separator and label and "/" not in label else Variant(UNLABELLED, text)

    def on(self, transport: str, transports: int) -> "Variant":
        """This binary on `transport`, one of `transports` chosen: labelled by the transport (`LABEL/transport` for
        a labelled binary) when there are several, as it is when there is one."""
        if transports == 1:
            label = self.label
        elif self.label == UNLABELLED:
            label = transport
        else:
            label = f"{self.label}/{transport}"
        return Variant(label, self.path, transport)

    def tag(self, round: int) -> str:
        """The tag of its topics, consumer group and log files in `round` ("A1", "A-curl1", "nghttp21", …)."""
        return f"{self.label.replace('/', '-')}{round}"


def transports(text: str) -> list[str]:
    """--transport's comma-separated list of transports, each known and given once."""
    names = [name.strip() for name in text.split(",")]
    unknown = [name for name in names if name not in TRANSPORTS]
    if unknown or not names or len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(f"{text!r}: a comma-separated list of distinct transports from "
                                         f"{', '.join(TRANSPORTS)}")
    return names


def workers(arguments: argparse.Namespace, round: int) -> list[Variant]:
    """The workers of `round`, in the order they run: every binary (the order reversed every other round) on every
    transport (in the order given)."""
    variants = arguments.bin if round % 2 else list(reversed(arguments.bin))
    return [variant.on(transport, len(arguments.transport))
            for variant in variants for transport in arguments.transport]


def case_sizes(arguments: argparse.Namespace) -> list[tuple[str, int]]:
    """The cases asked for (events > 0) and their events, in the order they run."""
    sizes = (("backlog", arguments.backlog_events), ("stream", arguments.events), ("fanout", arguments.fanout_events),
             ("apns1", arguments.single_events), ("web", arguments.single_events),
             ("one-device", arguments.one_device_events), ("hot-rooms", arguments.hot_rooms_events))
    return [(case, events) for case, events in sizes if events]


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


class Bench:
    """The stack (dev broker, push simulator, endpoint) and the worker of each case, stopped in reverse order."""

    def __init__(self, arguments: argparse.Namespace, probes: RuntimeProbes | None = None):
        self.arguments = arguments
        # The runtime's probes (--runtime-events), where they could be created.
        self.probes = probes
        self.directory = Path(tempfile.mkdtemp(prefix="push-bench-"))
        self.receipt_reader = build_receipt_reader(self.directory)
        self.processes: list[subprocess.Popen] = []

    def spawn(self, command: list[str], **options) -> subprocess.Popen:
        process = popen(command, **options)
        self.processes.append(process)
        return process

    def start_services(self) -> None:
        arguments = self.arguments
        topics = [f"{self.topic_base(tag, case)}.{kind}" for tag in self.tags() for case in CASES
                  for kind in ("events", "receipts")] + ["bench.replay.receipts"]
        # The dead-letter topic and the worker's default retry tiers (PUSH_RETRY_TIERS 1s,10s,1m,10m,1h).
        topics += ["push.dlq"] + [f"push.retry-{delay_ms}" for delay_ms in (1_000, 10_000, 60_000, 600_000, 3_600_000)]
        # The tables every worker follows: with librdkafka 2.16 a missing one is not created by reading it, and the
        # worker would wait for it (PUSH_INVALID_TOKENS_LOAD_MS) before consuming.
        topics += ["push.invalid-tokens", "push.devices", "push.clients"]
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

        self.endpoint = Endpoint(self.directory, certificates)
        self.processes.append(self.endpoint.process)
        self.apns_port, self.fcm_port = self.endpoint.apns_port, self.endpoint.fcm_port
        # Web Push: a VAPID key of the bench's own (the endpoint checks nothing; the worker signs and encrypts).
        self.vapid_key_file = self.directory / "vapid.pem"
        subprocess.run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out",
                        str(self.vapid_key_file)], check=True, capture_output=True)

    def single(self) -> bool:
        """Whether one worker runs (one binary, one transport, one round): it uses the plain topics."""
        return len(self.arguments.bin) == 1 and len(self.arguments.transport) == 1 and self.arguments.rounds == 1

    def tag(self, worker: Variant, round: int) -> str:
        """The topic tag of `worker` in `round` ("" for a single worker)."""
        return "" if self.single() else worker.tag(round)

    def tags(self) -> list[str]:
        """One topic tag per worker and round ("A1", "B-nghttp21", …); a single worker uses the plain topics."""
        return [self.tag(worker, round) for round in range(1, self.arguments.rounds + 1)
                for worker in workers(self.arguments, round)]

    @staticmethod
    def topic_base(tag: str, case: str) -> str:
        return f"bench.{tag}.{case}" if tag else f"bench.{case}"

    @staticmethod
    def control(url: str, body: dict) -> dict:
        request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def worker_environment(self, case: str, tag: str = "", transport: str = "") -> dict[str, str]:
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
            "WEBPUSH_VAPID_KEY_FILE": str(self.vapid_key_file), "WEBPUSH_VAPID_SUBJECT": "mailto:bench@example.com",
            "WEBPUSH_ALLOW_PRIVATE_ENDPOINTS": "true",
        })
        for setting in self.arguments.worker_env:
            name, _, value = setting.partition("=")
            environment[name] = value
        if transport:
            environment["PUSH_HTTP_TRANSPORT"] = transport
        return environment

    def start_worker(self, case: str, variant: Variant, tag: str) -> subprocess.Popen:
        with open(self.directory / f"worker-{tag}{case}.log", "w") as log:
            return self.spawn([variant.path, "run"], env=self.worker_environment(case, tag, variant.transport),
                              stdin=subprocess.DEVNULL, stdout=log, stderr=log)

    def stop_worker(self, worker: subprocess.Popen) -> None:
        stop(worker, timeout=30)

    def replay(self, topic: str, transport: str) -> str:
        """`push-worker replay` of a whole events topic on `transport`, sending for real to the same endpoint: its
        summary line."""
        environment = self.worker_environment("replay", transport=transport)
        began = time.monotonic()
        process = self.spawn(
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
        factory = EventFactory(seed=self.arguments.seed, rooms=ROOMS.get(case, self.arguments.rooms), prefix=prefix,
                               fanout=self.arguments.fanout_recipients if case == "fanout" else 0,
                               single=SINGLE.get(case, ""), web_origin=f"https://127.0.0.1:{self.apns_port}",
                               members=HOT_ROOM_MEMBERS if case == "hot-rooms" else 0,
                               recipients=self.arguments.hot_room_recipients)
        created: dict[str, int] = {}
        base = self.topic_base(tag, case)
        reader = ReceiptReader(self.receipt_reader, self.bootstrap, f"{base}.receipts", prefix, created)
        producer = Producer(self.bootstrap, f"{base}.events")
        written_before = time.process_time()
        if case in PREWRITTEN:
            while factory.count < events:
                producer.write([factory.next()[:2] for _ in range(min(1000, events - factory.count))])
            producer.close()
        prepared = factory.prepared(events) if case == "stream" else []
        written_in_advance = time.process_time() - written_before
        competing = self.others() | {"the receipt reader": reader.process}
        others_before = {name: cpu_seconds(process.pid) for name, process in competing.items()}
        driver_before = time.process_time()
        started = time.monotonic()
        worker = self.start_worker(case, variant, tag)
        recording = None
        if self.probes and case == self.arguments.runtime_events_case:
            recording = self.probes.record(worker.pid, self.directory, f"runtime-events-{tag}{case}")
            self.processes.append(recording.process)
        threads_before, process_before = thread_times(worker.pid), cpu_seconds(worker.pid)
        threads_sampler = ThreadSampler(worker.pid)
        sampler = ResourceSampler(worker.pid, interval=0.1)
        profiler = None
        if self.arguments.perf and case == self.arguments.perf_case:
            profiler = self.spawn(["perf", "record", "-e", "cpu-clock", "-F", "499", "-g", "-a",
                                         "-o", str(self.arguments.perf)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            print(f"bench: recording a system-wide profile into {self.arguments.perf}; worker pid {worker.pid} "
                  f"(perf report -i {self.arguments.perf} --pid {worker.pid})", file=sys.stderr)
        if recording:
            print(f"bench: counting the Swift runtime's calls in worker pid {worker.pid} with uprobes (they slow it: "
                  "this case's pushes/s and CPU are not comparable to a run without)", file=sys.stderr)
        warm_up_events = warm_up_sends = 0
        if case == "stream":
            warm_up_events, warm_up_sends = self.warm_up(producer, reader)
            started = time.monotonic()
            rate = self.arguments.rate
            written = 0
            while written < len(prepared):
                behind = rate and written >= rate * (time.monotonic() - started)
                sends_written = prepared[written - 1][3] if written else 0
                if behind or sends_written - reader.count > self.arguments.max_lag_sends:
                    time.sleep(0.002)
                    continue
                batch = prepared[written:written + (100 if rate else 500)]
                now_ms = int(time.time() * 1000)
                for _, _, message_id, _ in batch:
                    created[message_id] = now_ms
                producer.write([(key, EventFactory.stamped(value, now_ms)) for key, value, _, _ in batch])
                written += len(batch)
            producer.close()
        reader.wait_for(factory.sends, stall_timeout=self.arguments.stall_timeout)
        if profiler:
            stop(profiler, timeout=60, signal_number=signal.SIGINT)
        if recording:
            recording.stop()
            addresses = symbols(worker.pid)
        sampler.stop()
        memory = memory_kib(worker.pid)
        threads_after = threads_sampler.stop()
        worker_cpu = cpu_seconds(worker.pid)
        threads = cpu_by_kind(threads_before, threads_after, worker_cpu - process_before)
        others = {name: cpu_seconds(process.pid) - others_before[name] for name, process in competing.items()}
        others["bench driver (events, receipts)"] = time.process_time() - driver_before
        if written_in_advance:
            others["events made or written before the worker's start"] = written_in_advance
        wall = time.monotonic() - started
        load = Path("/proc/loadavg").read_text().strip()
        self.stop_worker(worker)
        reader.stop()
        stages = self.profile_stages(worker.pid) if profiler else {}
        runtime_events, runtime_per_record = [], {}
        if recording:
            counts, lost = recording.counts()
            records, sends = events + warm_up_events, factory.sends + warm_up_sends
            shown = FIGURES + (REFCOUNT_FIGURES if self.arguments.runtime_events_refcounts else ())
            runtime_events = [f"{per_record_and_send(counts, records, sends, shown)} (counted from the worker's "
                              f"start, the "
                              f"{warm_up_events} warm-up events included; under uprobes)"]
            if lost:
                runtime_events.append(f"perf lost {lost} chunks of the calls: the counts are short")
            runtime_events.append(switch_targets(counts, records))
            runtime_per_record = per_record(counts, records, shown)
            runtime_events += [f"task switches per record: {hop}" for hop in
                               top_hops(counts, addresses, demangle, records, self.arguments.runtime_events_top)]
        return Result(case, events, factory.sends, reader.stats, max(sampler.peak_rss_kib, memory.get("VmRSS", 0)),
                      memory.get("VmHWM", 0), worker_cpu, others, wall, load, variant.label, round,
                      variant.transport, threads=threads, stages=stages, runtime_events=runtime_events,
                      runtime_per_record=runtime_per_record)

    def profile_stages(self, pid: int) -> dict[str, int]:
        """The worker's samples in the --perf profile, by stage (bench_stages.py), its symbols demangled by
        `swift demangle` where it is on PATH."""
        script = subprocess.run(["perf", "script", "-i", str(self.arguments.perf), "--pid", str(pid),
                                 "-F", "comm,tid,ip,sym,dso"],
                                capture_output=True, text=True, errors="replace", check=True).stdout
        if shutil.which("swift"):
            script = subprocess.run(["swift", "demangle"], input=script, capture_output=True, text=True,
                                    errors="replace", check=True).stdout
        return dict(stage_split(script))

    @staticmethod
    def warm_up(producer: Producer, reader: ReceiptReader) -> tuple[int, int]:
        """Waits until the worker has joined its group and answers (so the stream's latency leaves start-up out);
        returns the warm-up's events and their sends."""
        warm = EventFactory(seed=0, rooms=100, prefix="warm-up")
        producer.write([warm.next()[:2] for _ in range(100)])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with reader.lock:
                # Half: kcat's producer holds the last line it was given back until the next one comes, so the
                # warm-up's last event goes out with the case's first.
                if reader.everything >= warm.sends // 2:
                    return warm.count, warm.sends
            time.sleep(0.05)
        raise RuntimeError(f"the worker did not answer the warm-up events within 60 s: {reader.everything} receipts "
                           f"of {warm.sends} read")

    def others(self) -> dict[str, subprocess.Popen]:
        return {"dev-broker": self.broker, "nginx": self.endpoint.process}

    def close(self) -> None:
        for process in reversed(self.processes):
            stop(process, timeout=10)
        if not self.arguments.keep:
            shutil.rmtree(self.directory, ignore_errors=True)
        else:
            print(f"bench: files kept in {self.directory}", file=sys.stderr)


# The peers measured after the cases: the argument giving their requests, the endpoint's method that runs one, its
# name, what it is, and the Result fields its rate and its CPU seconds per 10k requests go to.
PEERS = (
    ("peer", "bare_peer", "bare libcurl peer", "200 streams, reused handles, the worker's requests", "peer_rate",
     "peer_cpu_10k"),
    ("node_peer", "node_peer", "Node.js http2 peer", "200 streams on 2 sessions per origin, the same requests",
     "node_rate", "node_cpu_10k"),
    ("nghttp2_peer", "nghttp2_peer", "bare nghttp2 peer",
     "200 streams on 2 connections per origin, one write per connection per loop turn, the same requests",
     "nghttp2_rate", "nghttp2_cpu_10k"),
)


def run_peers(bench: Bench, arguments: argparse.Namespace, results: list[Result], prefix: str = "",
              ratios: bool = False) -> None:
    """Runs every peer asked for on the endpoint and gives its rate to `results` (and prints the worker's ratio to
    it per case with `ratios`)."""
    for argument, method, name, about, field, cpu_field in PEERS:
        requests = getattr(arguments, argument)
        if not requests:
            continue
        line, rate = getattr(bench.endpoint, method)(requests, bench.ca_file)
        print(f"bench: {prefix}{name} ({about}): {line}", file=sys.stderr)
        for result in results:
            setattr(result, field, rate)
            setattr(result, cpu_field, cpu_per_10k_requests(line, requests))
            if ratios and rate and result.rate:
                print(f"bench: {result.case}: {result.label} / {name} = {result.rate / rate:.2f}", file=sys.stderr)


def run_rounds(bench: Bench, arguments: argparse.Namespace) -> list[Result]:
    """A/B mode: every round runs each worker's cases in turn (the binaries' order reversed every other round, each
    binary's transports in the order given), then the bare libcurl peer, the Node.js http2 peer and the bare nghttp2
    peer, whose rates become the round's yardsticks."""
    results: list[Result] = []
    for round in range(1, arguments.rounds + 1):
        this_round: list[Result] = []
        for worker in workers(arguments, round):
            for case, events in case_sizes(arguments):
                result = bench.run_case(case, events, worker, bench.tag(worker, round), round)
                print(f"bench: round {round} {worker.label} {case}: {result.rate:,.0f} pushes/s, "
                      f"{cpu_per_10k(result):.2f} s CPU per 10k, peak RSS {peak_mb(result):.0f} MB",
                      file=sys.stderr)
                this_round.append(result)
        run_peers(bench, arguments, this_round, prefix=f"round {round} ")
        results += this_round
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, action="append", type=Variant.parse, metavar="[LABEL=]PATH",
                        help="the push-worker binary (a release build); several LABEL=PATH: A/B mode (ab.sh)")
    parser.add_argument("--transport", type=transports, default=list(TRANSPORTS), metavar="LIST",
                        help=f"the worker's HTTP/2 transports, comma-separated from {','.join(TRANSPORTS)} "
                             f"(default: {','.join(TRANSPORTS)}): every binary runs every case once per transport, "
                             "with PUSH_HTTP_TRANSPORT set after --worker-env (so this wins); rows labelled by "
                             "transport (LABEL/transport for labelled binaries), as before with one transport; the "
                             "replay runs on the first")
    parser.add_argument("--rounds", type=int, default=1,
                        help="A/B mode: rounds of every binary in turn (A B, B A, …), the peer once per round")
    parser.add_argument("--events", type=int, default=100_000, help="events of the stream case (0: skip it)")
    parser.add_argument("--backlog-events", type=int, default=25_000,
                        help="events of the backlog case (0: skip it); the mock cluster keeps ~5 MB per partition")
    parser.add_argument("--fanout-events", type=int, default=100,
                        help="events of the group-chat fan-out case, written before the worker starts (0: skip it)")
    parser.add_argument("--single-events", type=int, default=20_000,
                        help="events of the apns1 and web cases (one device each), written before the worker starts "
                             "(0: skip both)")
    parser.add_argument("--one-device-events", type=int, default=20_000,
                        help="events of the one-device case (one device each, APNs and FCM alternating, 1,000 rooms), "
                             "written before the worker starts (0: skip it)")
    parser.add_argument("--hot-rooms-events", type=int, default=20_000,
                        help=f"events of the hot-rooms case (24 rooms of {HOT_ROOM_MEMBERS} members with one device "
                             "each), written before the worker starts (0: skip it)")
    parser.add_argument("--hot-room-recipients", type=int, default=1, choices=range(1, HOT_ROOM_MEMBERS + 1),
                        metavar="N", help="hot-rooms case: the room's members each event goes to (default 1)")
    parser.add_argument("--fanout-recipients", type=int, default=500,
                        help="fan-out case: recipients per event, each with one APNs and one FCM device")
    parser.add_argument("--partitions", type=int, default=6)
    parser.add_argument("--rooms", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rate", type=float, default=0,
                        help="stream case: events per second to write (0: as fast as the worker takes them)")
    parser.add_argument("--max-lag-sends", type=int, default=30_000,
                        help="stream case: device sends written but not yet answered by a receipt, at most (the "
                             "mock cluster drops a partition's oldest records past 5 MB, read or not)")
    parser.add_argument("--stall-timeout", type=float, default=30.0)
    parser.add_argument("--worker-env", action="append", default=[], metavar="NAME=VALUE",
                        help="extra worker setting, e.g. PUSH_MAX_CONCURRENT_SENDS=2000 (PUSH_HTTP_TRANSPORT: "
                             "--transport's)")
    parser.add_argument("--perf", type=Path, help="record a system-wide perf profile during one case (--perf-case) into "
                                                  "this file")
    parser.add_argument("--perf-case", default="stream", choices=CASES,
                        help="with --perf: the case profiled (default stream)")
    parser.add_argument("--runtime-events", action="store_true",
                        help="count the Swift runtime's calls (jobs run, task switches, tasks created, enqueues, "
                             "continuation resumes, heap objects made) per record and per send of one case "
                             "(--runtime-events-case), by thread kind, with uprobes (root and perf probe; they slow "
                             "the worker)")
    parser.add_argument("--runtime-events-case", default="stream", choices=CASES,
                        help="with --runtime-events: the case counted (default stream)")
    parser.add_argument("--runtime-events-refcounts", action="store_true",
                        help="with --runtime-events: also count retains and releases (swift_retain, swift_release and "
                             "their bridge-object forms), about 2,000 a one-device record: the recording is some 40 "
                             "times larger, so count a few thousand events")
    parser.add_argument("--runtime-events-top", type=int, default=10, metavar="N",
                        help="with --runtime-events: the N functions whose awaits switch tasks most, per record")
    parser.add_argument("--h2load", type=int, default=100_000, metavar="N",
                        help="first measure the endpoint alone with N h2load requests (0: skip)")
    parser.add_argument("--replay", action=argparse.BooleanOptionalAction, default=True,
                        help="after the cases, replay the backlog's events topic with real sends (--no-replay skips)")
    parser.add_argument("--peer", type=int, default=100_000, metavar="N",
                        help="then run the bare libcurl peer (bench_peer.c) for N requests and print the ratio (0: skip)")
    parser.add_argument("--node-peer", type=int, default=100_000, metavar="N",
                        help="then run Node.js's http2 client (bench_node_peer.mjs, where node is installed) for N "
                             "requests and print the ratio (0: skip)")
    parser.add_argument("--nghttp2-peer", type=int, default=100_000, metavar="N",
                        help="then run the bare nghttp2 client loop (bench_nghttp2_peer.c) for N requests and print "
                             "the ratio (0: skip)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (logs, certificates)")
    arguments = parser.parse_args()

    probed = PROBES + (REFCOUNT_PROBES if arguments.runtime_events_refcounts else ())
    with RuntimeProbes(arguments.bin[0].path, probed) if arguments.runtime_events else contextlib.nullcontext() as probes:
        return run(arguments, probes if probes and probes.ready else None)


def run(arguments: argparse.Namespace, probes: RuntimeProbes | None) -> int:
    """The benchmark: the stack, the cases (in rounds for several binaries), the replay and the peers; the table."""
    bench = Bench(arguments, probes)
    results = []
    try:
        bench.start_services()
        if arguments.h2load:
            print(f"bench: endpoint alone (h2load): {bench.endpoint.ceiling(arguments.h2load)}", file=sys.stderr)
        if len(arguments.bin) > 1 or arguments.rounds > 1:
            results = run_rounds(bench, arguments)
            print_table(results)
            print_medians(results)
            print_transport_ratios(results, TRANSPORTS)
            return 0 if complete(results) else 1
        for worker in workers(arguments, 1):
            for case, events in case_sizes(arguments):
                results.append(bench.run_case(case, events, worker, bench.tag(worker, 1)))
        if arguments.replay and arguments.backlog_events:
            first = workers(arguments, 1)[0]
            topic = f"{bench.topic_base(bench.tag(first, 1), 'backlog')}.events"
            summary = bench.replay(topic, first.transport)
            print(f"bench: replay of {topic} on {first.transport} (real sends): {summary}", file=sys.stderr)
        run_peers(bench, arguments, results, ratios=True)
    finally:
        bench.close()
    print(f"machine: {os.cpu_count()} cores; worker: {arguments.bin[0].path}")
    print_table(results)
    print_transport_ratios(results, TRANSPORTS)
    return 0 if complete(results) else 1


def complete(results: list[Result]) -> bool:
    """Whether every send of every case has its receipt; says which cases fall short when not (a topic written in
    advance larger than the dev broker keeps, about 5 MB a partition, loses its oldest events)."""
    short = [f"{result.label} {result.round} {result.case} ({result.stats.count} of {result.sends})"
             for result in results if result.stats.count != result.sends]
    if short:
        print(f"bench: some sends have no receipt: {', '.join(short)}", file=sys.stderr)
    return not short


if __name__ == "__main__":
    sys.exit(main())
