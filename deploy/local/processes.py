"""The local stack's processes, shared by demo.py, fuzz.py and the benchmarks (bench*.py): the dev broker, the push
simulator and `push-worker run` as children that die with their driver, and the /proc figures of a running process.

Every child is started through `popen` (or `run`): with a parent-death signal and in its own session, so Ctrl-C,
a failure or even a killed driver leaves no process behind; the driver stops them in reverse order of start with
`stop` (SIGTERM, then SIGKILL after a timeout). `Child` output goes to log files in the caller's directory.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 30
STOP_TIMEOUT = 30
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def popen(command: list[str], **options) -> subprocess.Popen:
    """`subprocess.Popen(command, **options)` as a child that gets SIGTERM when the driver dies (parent-death
    signal, through `setpriv`, which execs the command: the pid is the command's) and runs in its own session (a
    Ctrl-C on the terminal reaches only the driver, which then stops its children in order)."""
    return subprocess.Popen(["setpriv", "--pdeathsig", "TERM", "--", *command], start_new_session=True, **options)


def run(command: list[str], **options) -> subprocess.CompletedProcess:
    """`subprocess.run(command, **options)` for a short-lived child, started as `popen` starts one."""
    return subprocess.run(["setpriv", "--pdeathsig", "TERM", "--", *command], start_new_session=True, **options)


def build_c(name: str, directory: Path, libraries: list[str]) -> Path:
    """Compiles `NAME.c` (next to this file) with `libraries` into `directory`; returns the binary."""
    binary = directory / name
    run(["cc", "-O2", "-o", str(binary), str(Path(__file__).with_name(f"{name}.c")), *libraries], check=True)
    return binary


def stop(process: subprocess.Popen, timeout: float = STOP_TIMEOUT, signal_number: int = signal.SIGTERM) -> int | None:
    """`signal_number` (SIGTERM), then SIGKILL after `timeout`; returns the exit status (None if it had to be
    killed)."""
    if process.poll() is None:
        process.send_signal(signal_number)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            return None
    return process.returncode


class ProcessFailed(Exception):
    """A child did not start, report or stop as expected; the message says which and where its log is."""


class Child:
    """One child process with its output in a log file; dies with the driver (parent-death signal)."""

    def __init__(self, name: str, command: list[str], log: Path, environment: dict[str, str] | None = None,
                 stdout: Path | None = None):
        self.name = name
        self.log = log
        self.stdout = stdout or log
        with contextlib.ExitStack() as files:
            log_file = files.enter_context(open(log, "wb"))
            out_file = files.enter_context(open(stdout, "wb")) if stdout else log_file
            self.process = popen(command, stdin=subprocess.PIPE, stdout=out_file, stderr=log_file, env=environment,
                                 cwd=ROOT)

    def wait_for_output(self, predicate, what: str, timeout: float = START_TIMEOUT) -> str:
        """Polls the output file until `predicate(text)` returns something truthy; returns the text."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.stdout.read_text(errors="replace")
            if predicate(text):
                return text
            if self.process.poll() is not None:
                raise ProcessFailed(f"{self.name} exited with status {self.process.returncode} before {what}; "
                                    f"see {self.log}")
            time.sleep(0.05)
        raise ProcessFailed(f"{self.name} did not report {what} within {timeout} s; see {self.log}")

    def ready(self, predicate, what: str, timeout: float = START_TIMEOUT) -> str:
        """`wait_for_output`, stopping the child when it fails to report."""
        try:
            return self.wait_for_output(predicate, what, timeout)
        except ProcessFailed:
            self.stop()
            raise

    def stop(self, timeout: float = STOP_TIMEOUT) -> int | None:
        """SIGTERM, then SIGKILL after `timeout`; returns the exit status (None if it had to be killed)."""
        status = stop(self.process, timeout)
        if self.process.stdin:
            self.process.stdin.close()
        return status


def start_dev_broker(worker_binary: Path, directory: Path, partitions: int,
                     topics: list[str] | None = None) -> tuple[Child, str]:
    """`push-worker dev-broker` with one broker and `topics` (default: its default topics); returns it and its
    bootstrap servers."""
    topic_arguments = ["--topics", ",".join(topics)] if topics else []
    broker = Child("the dev broker", [str(worker_binary), "dev-broker", "--brokers", "1", "--partitions",
                                      str(partitions), *topic_arguments],
                   directory / "broker.log", stdout=directory / "broker.out")
    text = broker.ready(lambda out: "\n" in out, "its bootstrap servers")
    line = text.splitlines()[0]
    if not line.startswith("bootstrap.servers="):
        broker.stop()
        raise ProcessFailed(f"the dev broker printed {line!r} instead of its bootstrap servers")
    return broker, line.removeprefix("bootstrap.servers=")


class Simulator:
    """The push simulator (Tests/PushSimulator) as a child, and its control API."""

    def __init__(self, directory: Path, arguments: list[str] = ()):
        python = ROOT / ".venv/bin/python"
        self.child = Child("the push simulator",
                           [str(python), "Tests/PushSimulator/simulator.py", "--cert-dir", str(directory / "certs"),
                            "--exit-on-stdin-eof", *arguments],
                           directory / "simulator.log", {**os.environ, "TMPDIR": str(directory)},
                           stdout=directory / "simulator.out")
        text = self.child.ready(lambda out: "\n" in out, "its ready line")
        self.ready = json.loads(text.splitlines()[0])
        self.control_url = f"http://127.0.0.1:{self.ready['control_port']}"
        self.base_url = f"https://127.0.0.1:{self.ready['port']}"

    def control(self, method: str, path: str, body: object | None = None) -> dict:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.control_url + path, data=data, method=method,
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    def provider_settings(self) -> dict[str, str]:
        """Test credentials for APNs token auth and FCM; returns the worker's provider and CA settings."""
        apns = self.control("POST", "/control/apns-credentials", {})
        fcm = self.control("POST", "/control/oauth-credentials", {"token_uri": f"{self.base_url}/token"})
        return {
            "APNS_URL": self.base_url, "APNS_SANDBOX_URL": self.base_url, "APNS_KEY_FILE": apns["key_file"],
            "APNS_KEY_ID": apns["key_id"], "APNS_TEAM_ID": apns["team_id"], "APNS_TOPIC": apns["topic"],
            "FCM_URL": self.base_url, "FCM_SERVICE_ACCOUNT_FILE": fcm["service_account_file"],
            "PUSH_CA_FILE": self.ready["ca_file"],
        }


def start_worker(worker_binary: Path, directory: Path, settings: dict[str, str]) -> tuple[Child, int]:
    """`push-worker run` with a clean environment (the caller's KAFKA_* or PUSH_* variables must not leak in) plus
    `settings`; returns it, once it logged "started", and the port of its status endpoints."""
    environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LOG_LEVEL": "info",
                   "PUSH_HTTP_HOST": "127.0.0.1", "PUSH_HTTP_PORT": "0", **settings}
    worker = Child("push-worker run", [str(worker_binary), "run"], directory / "worker.log", environment)
    worker.ready(lambda log: '"message":"started"' in log, "'started'")
    return worker, started_port(worker.log.read_text(errors="replace"))


def started_port(log: str) -> int:
    for line in log.splitlines():
        if '"message":"started"' in line:
            return int(json.loads(line)["metadata"]["http.port"])
    raise ProcessFailed("push-worker logged no 'started' line")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of `pid` so far (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def memory_kib(pid: int) -> dict[str, int]:
    """VmRSS (resident now) and VmHWM (peak resident) of `pid` in KiB (/proc/PID/status)."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            values[name] = int(rest.split()[0])
    return values


class ResourceSampler:
    """Samples a process's CPU time and resident memory on a thread of its own (/proc), until it ends or `stop`."""

    def __init__(self, pid: int, interval: float = 0.5):
        self.pid = pid
        self.samples: list[tuple[float, float, int]] = []  # (monotonic time, CPU seconds, VmRSS KiB)
        self.running = True
        self.thread = threading.Thread(target=self.run, args=(interval,), name="resource-sampler", daemon=True)
        self.thread.start()

    def run(self, interval: float) -> None:
        while self.running:
            try:
                self.samples.append((time.monotonic(), cpu_seconds(self.pid), memory_kib(self.pid).get("VmRSS", 0)))
            except (OSError, IndexError, ValueError):
                return
            time.sleep(interval)

    @property
    def peak_rss_kib(self) -> int:
        return max((rss for _, _, rss in self.samples), default=0)

    def peak_cpu_percent(self, window: float = 5.0) -> float:
        """The highest CPU use (percent of one core) over any `window` seconds sampled."""
        peak, start = 0.0, 0
        for end in range(len(self.samples)):
            while self.samples[end][0] - self.samples[start][0] > window:
                start += 1
            elapsed = self.samples[end][0] - self.samples[start][0]
            if elapsed >= window / 2:
                peak = max(peak, 100 * (self.samples[end][1] - self.samples[start][1]) / elapsed)
        return peak

    def stop(self) -> None:
        self.running = False
        self.thread.join(timeout=5)
