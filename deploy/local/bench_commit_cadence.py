"""The broker cost of the consumer's commit cadence: the benchmark's stream case once per `auto.commit.interval.ms`.

    python deploy/local/bench_commit_cadence.py --bin .build/release/push-worker [--intervals 250,500,1000,5000]

For each interval, runs deploy/local/bench.py (stream case only, one transport) with
`KAFKA_AUTO_COMMIT_INTERVAL_MS` set, scrapes the worker's `kafka_commits_total` while it runs, and prints one line:
pushes/s, the worker's CPU per 10k pushes, the dev broker's CPU (the mock cluster answers every commit), and the
commits per second the group coordinator answered while the stream ran. Arguments after `--` go to bench.py.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
PORT = 19_464
COMMITS = re.compile(r'^kafka_commits_total\{result="(success|failure)",stage="input"\} ([0-9.e+]+)$', re.MULTILINE)


class CommitScraper(threading.Thread):
    """Reads the worker's answered commits every 0.2 s; `rate` is their count per second between the first and the
    last change seen (the stream: auto-commit sends nothing while no stored offset moves)."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.samples: list[tuple[float, float]] = []
        self.running = True

    def run(self) -> None:
        while self.running:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{PORT}/metrics", timeout=1) as response:
                    text = response.read().decode()
                total = sum(float(value) for _, value in COMMITS.findall(text))
                if not self.samples or total != self.samples[-1][1]:
                    self.samples.append((time.monotonic(), total))
            except OSError:
                pass
            time.sleep(0.2)

    def rate(self) -> tuple[float, float]:
        """(commits, commits per second) over the samples that changed."""
        if len(self.samples) < 2:
            return 0.0, 0.0
        (first_time, first), (last_time, last) = self.samples[0], self.samples[-1]
        return last - first, (last - first) / max(last_time - first_time, 1e-9)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="the push-worker binary")
    parser.add_argument("--intervals", default="250,500,1000,5000", help="auto.commit.interval.ms values, in order")
    parser.add_argument("--events", type=int, default=30_000, help="events of the stream case")
    parser.add_argument("--transport", default="nghttp2")
    arguments, extra = parser.parse_known_args()
    extra = [argument for argument in extra if argument != "--"]
    for interval in arguments.intervals.split(","):
        scraper = CommitScraper()
        scraper.start()
        command = [sys.executable, str(HERE / "bench.py"), "--bin", arguments.bin, "--transport", arguments.transport,
                   "--events", str(arguments.events), "--backlog-events", "0", "--fanout-events", "0", "--no-replay",
                   "--h2load", "0", "--peer", "0", "--node-peer", "0", "--nghttp2-peer", "0",
                   "--worker-env", f"KAFKA_AUTO_COMMIT_INTERVAL_MS={interval}",
                   "--worker-env", f"PUSH_HTTP_PORT={PORT}", *extra]
        finished = subprocess.run(command, capture_output=True, text=True)
        scraper.running = False
        scraper.join()
        commits, per_second = scraper.rate()
        table = [line for line in finished.stdout.splitlines() if line.strip()]
        print(f"auto.commit.interval.ms={interval}: {commits:.0f} commits answered, {per_second:.2f}/s "
              f"(exit {finished.returncode})")
        for line in table:
            print(f"  {line}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
