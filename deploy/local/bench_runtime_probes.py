"""Uprobes on the Swift runtime's entry points (bench_runtime_events.PROBES: the concurrency runtime's, and the core
runtime's heap allocation) and the recording of one worker's calls through them, for `bench.py --runtime-events`.

The probes live in a group of this process's own (`pushbench_PID`), created at the start and deleted at the end,
also on an exception, Ctrl-C or SIGTERM, so that another user's probes on the same functions (perf's default group
`probe_libswift_Concurrency`) are never touched. Creating probes needs root and `perf probe`; where it fails, the
benchmark says why and runs without counts.

`perf record -p PID` records the worker's calls alone (other processes that map the runtime do not take the probes'
cost) and follows the threads it creates later (their events are inherited). It attaches while the worker is stopped
(SIGSTOP, then SIGCONT once perf records): attached to a worker that was starting up, it recorded none of its calls,
though the probes fired (the worker's CPU tripled), presumably because perf lists a process's threads before it opens
an event on each, and a thread created in between, with every thread it creates later (the Swift pool's), is
followed by neither. perf starts with its events disabled and enables them through its control FIFO, so recording
has begun when `record` returns.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from bench_runtime_events import PROBES, RuntimeEventCounts, Symbols, short_name
from processes import popen, stop

# Per-CPU buffer of perf record: a record costs about 110 calls, tens of thousands of records a second.
BUFFER = "64M"
LOST = re.compile(r"lost (\d+) chunks")


def runtime_libraries(binary: str, probes=PROBES) -> dict[str, str]:
    """The path of each Swift runtime library the probes are on (`Probe.library`) that `binary` loads (from `ldd`);
    none where it loads them not (a static stdlib)."""
    try:
        output = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    paths = {}
    for library in {probe.library for probe in probes}:
        match = re.search(rf"{re.escape(library)}\S* => (\S+)", output)
        if match:
            paths[library] = match[1]
    return paths


class RuntimeProbes:
    """The probes, created by `__enter__` (`ready` tells whether they were) and deleted by `__exit__`."""

    def __init__(self, binary: str, probes=PROBES):
        self.binary = binary
        self.probes = probes
        self.group = f"pushbench_{os.getpid()}"
        self.ready = False
        self.previous_sigterm = None

    def __enter__(self) -> "RuntimeProbes":
        libraries = runtime_libraries(self.binary, self.probes)
        missing = sorted({probe.library for probe in self.probes} - libraries.keys())
        if missing:
            print(f"bench: no runtime event counts: {self.binary} loads no {', '.join(missing)} (ldd)", file=sys.stderr)
            return self
        if shutil.which("perf") is None:
            print("bench: no runtime event counts: perf is not installed (linux-perf)", file=sys.stderr)
            return self
        # SIGTERM raises SystemExit as Ctrl-C raises KeyboardInterrupt, so that `__exit__` deletes the probes.
        self.previous_sigterm = signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))
        for probe in self.probes:
            # Not `-q`: that silences the reason of a failure too.
            result = subprocess.run(["perf", "probe", "-x", libraries[probe.library], "-a",
                                     probe.definition(self.group)],
                                    capture_output=True, text=True)
            if result.returncode != 0:
                print(f"bench: no runtime event counts: perf probe could not add {probe.function} "
                      f"({failure_reason(result)}); it needs root, uprobes (CONFIG_UPROBE_EVENTS), the runtime's "
                      "symbols, and no probe of the same event name in another group (perf probe -l lists them)",
                      file=sys.stderr)
                self.delete()
                return self
        self.ready = True
        return self

    def __exit__(self, *exception) -> None:
        self.delete()
        if self.previous_sigterm is not None:
            signal.signal(signal.SIGTERM, self.previous_sigterm)

    def delete(self) -> None:
        subprocess.run(["perf", "probe", "-q", "-d", f"{self.group}:*"], capture_output=True)
        self.ready = False

    def record(self, pid: int, directory: Path, name: str) -> "Recording":
        """Starts recording the calls of process `pid` into `directory/name.data`; returns once it records."""
        return Recording(self.group, pid, directory, name)


class Recording:
    """`perf record` of the probes' calls in one process, enabled before it returns, until `stop`."""

    def __init__(self, group: str, pid: int, directory: Path, name: str):
        self.data = directory / f"{name}.data"
        self.log = directory / f"{name}.log"
        control, acknowledgement = directory / f"{name}.control", directory / f"{name}.ack"
        for fifo in (control, acknowledgement):
            os.mkfifo(fifo)
        # Read-write, so that neither open waits for perf's end of the FIFO.
        self.control = os.open(control, os.O_RDWR)
        self.acknowledgement = os.open(acknowledgement, os.O_RDWR)
        os.kill(pid, signal.SIGSTOP)
        try:
            wait_until_stopped(pid)
            with open(self.log, "w") as log:
                self.process = popen(["perf", "record", "-e", f"{group}:*", "-p", str(pid), "-m", BUFFER, "-D", "-1",
                                      "--control", f"fifo:{control},{acknowledgement}", "-o", str(self.data)],
                                     stdin=subprocess.DEVNULL, stdout=log, stderr=log)
            os.write(self.control, b"enable\n")
            ready, _, _ = select.select([self.acknowledgement], [], [], 30)
        finally:
            os.kill(pid, signal.SIGCONT)
        if not ready or not os.read(self.acknowledgement, 64).startswith(b"ack"):
            self.stop()
            raise RuntimeError(f"perf record did not start recording process {pid} within 30 s")

    def stop(self) -> None:
        stop(self.process, timeout=60, signal_number=signal.SIGINT)
        os.close(self.control)
        os.close(self.acknowledgement)

    def counts(self) -> tuple[RuntimeEventCounts, int]:
        """The recorded calls counted (streamed from `perf script`), and the chunks of them perf lost."""
        counts = RuntimeEventCounts()
        with open(self.log, "a") as log:
            script = subprocess.Popen(["perf", "script", "-i", str(self.data), "-F", "comm,tid,event,trace"],
                                      stdout=subprocess.PIPE, stderr=log, text=True, errors="replace")
            counts.read(script.stdout)
            script.wait()
        # perf record and perf script each report the loss of the same file.
        lost = max((int(count) for count in LOST.findall(self.log.read_text())), default=0)
        return counts, lost


def failure_reason(result: subprocess.CompletedProcess) -> str:
    """What a failed `perf probe` said first (`Error: event "retain" already exists.`), else its status."""
    lines = [line.strip() for line in result.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("Error:")]
    return (errors or lines or [f"status {result.returncode}"])[0]


def wait_until_stopped(pid: int, timeout: float = 10) -> None:
    """Waits until every thread of process `pid` is stopped (state `T`), after a SIGSTOP."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        states = []
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                states.append((task / "stat").read_text().rsplit(")", 1)[1].split()[0])
            except OSError:
                continue
        if states and all(state in "Tt" for state in states):
            return
        time.sleep(0.001)
    raise RuntimeError(f"process {pid} did not stop within {timeout:.0f} s")


def symbols(pid: int) -> Symbols:
    """The code addresses of the running process `pid`, named by its files' symbols (`nm`)."""
    return Symbols(Path(f"/proc/{pid}/maps").read_text(), lambda path: subprocess.run(
        ["nm", "-n", "--defined-only", path], capture_output=True, text=True).stdout)


def demangle(names: list[str]) -> list[str]:
    """`names` demangled short (`bench_runtime_events.short_name`; as they are where `swift` is not on PATH)."""
    if not names or shutil.which("swift") is None:
        return names
    forms = [subprocess.run(["swift", "demangle", *options], input="\n".join(names) + "\n", capture_output=True,
                            text=True).stdout.splitlines() for options in ([], ["--simplified"])]
    if any(len(form) != len(names) for form in forms):
        return names
    return [short_name(full, simplified) for full, simplified in zip(*forms)]
