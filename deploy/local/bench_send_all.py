"""What a group of sends costs the HTTP/2 transport: the TransportBenchmark executable sends groups of APNs-like
requests to the benchmark's nginx (bench_endpoint.py), one group at a time, each as one `send` per request in a task
group or as one `sendAll`, directly or through an `APNsClient` (--apns), and this prints, per mode and group size, requests/s, the driver's CPU per 10k requests and,
with --runtime-events (root and perf probe), the Swift concurrency runtime's calls per request (uprobes, as
`bench.py --runtime-events` counts them per record).

    PUSH_WORKER_INTEGRATION=1 swift build -c release --product TransportBenchmark
    .venv/bin/python deploy/local/bench_send_all.py --driver .build/release/TransportBenchmark --runtime-events
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_endpoint import Endpoint, cpu_per_10k_requests
from bench_runtime_events import figures
from bench_runtime_probes import RuntimeProbes
from processes import ROOT, popen, stop

SIMULATOR = ROOT / "Tests" / "PushSimulator" / "simulator.py"


def certificates(directory: Path) -> tuple[Path, str]:
    """The push simulator's certificates (it makes them at start; it is stopped at once): their folder and CA file."""
    folder = directory / "certs"
    simulator = popen([sys.executable, str(SIMULATOR), "--cert-dir", str(folder), "--exit-on-stdin-eof"],
                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = simulator.stdout.readline()
        while line and not line.startswith("{"):
            line = simulator.stdout.readline()
        if not line:
            raise RuntimeError("the push simulator exited before it was ready")
        return folder, json.loads(line)["ca_file"]
    finally:
        stop(simulator)


def run(arguments: argparse.Namespace, url: str, ca_file: str, mode: str, size: int,
        probes: RuntimeProbes | None, directory: Path, name: str) -> str:
    """One run of the driver: its summary line, with the runtime's calls per request where probes record them."""
    groups = max(1, arguments.requests // size)
    driver = popen([arguments.driver, url, ca_file, mode, str(size), str(groups), arguments.transport],
                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        if driver.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the driver did not get ready ({mode}, {size})")
        recording = probes.record(driver.pid, directory, name) if probes and probes.ready else None
        driver.stdin.write("go\n")
        driver.stdin.flush()
        line = driver.stdout.readline().strip()
        driver.wait(timeout=60)
    finally:
        stop(driver)
    requests = size * groups
    text = f"{line}; CPU per 10k requests {cpu_per_10k_requests(line, requests):.3f} s"
    if recording:
        recording.stop()
        counts, lost = recording.counts()
        # Counted from the go to the driver's exit: its shutdown is in the counts, a few calls in all.
        text += f"\n    runtime per request: {figures(counts, requests)}"
        if lost:
            text += f" (perf lost {lost} chunks: the counts are short)"
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--driver", required=True, help="the TransportBenchmark executable")
    parser.add_argument("--sizes", default="1,10,100", help="group sizes, comma-separated (default 1,10,100)")
    parser.add_argument("--requests", type=int, default=50_000, help="requests per run (default 50,000)")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each mode and size, alternating (default 1)")
    parser.add_argument("--transport", default="nghttp2", choices=["nghttp2", "curl"])
    parser.add_argument("--apns", action="store_true", help="send through an APNsClient, its answers classified")
    parser.add_argument("--runtime-events", action="store_true",
                        help="count the Swift runtime's calls per request (root and perf probe; they slow the driver)")
    arguments = parser.parse_args()
    directory = Path(tempfile.mkdtemp(prefix="push-bench-send-all-"))
    folder, ca_file = certificates(directory)
    endpoint = Endpoint(directory, folder)
    try:
        url = f"https://127.0.0.1:{endpoint.apns_port}"
        with RuntimeProbes(arguments.driver) if arguments.runtime_events else contextlib.nullcontext() as probes:
            for round in range(1, arguments.rounds + 1):
                for size in (int(size) for size in arguments.sizes.split(",")):
                    modes = ("apns-send", "apns-sendAll") if arguments.apns else ("send", "sendAll")
                    for mode in modes if round % 2 else tuple(reversed(modes)):
                        line = run(arguments, url, ca_file, mode, size, probes, directory, f"{mode}-{size}-{round}")
                        print(f"round {round}: {line}", flush=True)
    finally:
        stop(endpoint.process)


if __name__ == "__main__":
    main()
