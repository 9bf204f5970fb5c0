"""The benchmark's figures: one `Result` per case and the table printed from them."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from bench_outcomes import ReceiptStats
from bench_runtime_events import ratios
from bench_stages import ORDER


def percentile(values: list[float], fraction: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


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
    transport: str = ""
    peer_rate: float = 0.0
    node_rate: float = 0.0
    nghttp2_rate: float = 0.0
    # The peers' CPU seconds (user + system) per 10k requests in the same round (0: not run).
    peer_cpu_10k: float = 0.0
    node_cpu_10k: float = 0.0
    nghttp2_cpu_10k: float = 0.0
    # The worker's CPU seconds by thread kind (bench_stages.cpu_by_kind).
    threads: dict = field(default_factory=dict)
    # The worker's perf samples by stage (bench_stages.stage_split; with --perf, the stream case).
    stages: dict = field(default_factory=dict)
    # The Swift runtime's calls per record, as printed, and each figure per record (bench_runtime_events; with
    # --runtime-events, the stream case).
    runtime_events: list = field(default_factory=list)
    runtime_per_record: dict = field(default_factory=dict)

    @property
    def span_s(self) -> float:
        if self.stats.first_ms is None or self.stats.last_ms is None:
            return 0.0
        return max(0.001, (self.stats.last_ms - self.stats.first_ms) / 1000)

    @property
    def rate(self) -> float:
        return self.stats.count / self.span_s if self.span_s else 0.0


def cpu_per_10k(result: Result) -> float:
    return result.worker_cpu_s / max(1, result.stats.count) * 10000


def cpu_per_peer_request(result: Result) -> float | None:
    """The worker's CPU per push over the bare libcurl peer's CPU per request in the same round (None: no peer)."""
    return cpu_per_10k(result) / result.peer_cpu_10k if result.peer_cpu_10k else None


def seconds_or_dash(value: float) -> str:
    return f"{value:.2f}" if value else "-"


def peak_mb(result: Result) -> float:
    return max(result.peak_rss_kib, result.hwm_kib) / 1024


def milliseconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def print_table(results: list[Result]) -> None:
    header = ("binary", "round", "case", "events", "sends", "receipts", "pushes/s", "/ peer", "/ node", "/ nghttp2",
              "send p50 ms", "send p99 ms", "e2e p50 ms", "e2e p99 ms", "peak RSS MB", "worker CPU s",
              "CPU s/10k pushes", "peer CPU s/10k", "node CPU s/10k", "CPU / peer")
    rows = []
    for result in results:
        stats = result.stats
        rows.append((
            result.label, str(result.round), result.case, str(result.events), str(result.sends), str(stats.count),
            f"{result.rate:,.0f}", f"{result.rate / result.peer_rate:.2f}" if result.peer_rate else "-",
            f"{result.rate / result.node_rate:.2f}" if result.node_rate else "-",
            f"{result.rate / result.nghttp2_rate:.2f}" if result.nghttp2_rate else "-",
            milliseconds(percentile(stats.provider_latency_ms, 0.5)),
            milliseconds(percentile(stats.provider_latency_ms, 0.99)),
            milliseconds(percentile(stats.end_to_end_ms, 0.5)), milliseconds(percentile(stats.end_to_end_ms, 0.99)),
            f"{peak_mb(result):.0f}", f"{result.worker_cpu_s:.1f}", f"{cpu_per_10k(result):.2f}",
            seconds_or_dash(result.peer_cpu_10k), seconds_or_dash(result.node_cpu_10k),
            seconds_or_dash(cpu_per_peer_request(result) or 0.0),
        ))
    widths = [max(len(row[index]) for row in [header, *rows]) for index in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.rjust(width) for cell, width in zip(row, widths)))
    for result in results:
        statuses = ", ".join(f"{name} {count}" for name, count in sorted(result.stats.statuses.items()))
        others = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in result.others_cpu_s.items())
        print(f"{result.label} {result.round} {result.case}: receipts by status: {statuses or 'none'}; first→last receipt {result.span_s:.2f} s; "
              f"wall {result.wall_s:.1f} s; CPU of {others}; load average at the end {result.load}")
        print(f"{result.label} {result.round} {result.case}: {cpu_breakdown(result)}")
        if result.stages:
            print(f"{result.label} {result.round} {result.case}: {stage_breakdown(result.stages)}")
        for line in result.runtime_events:
            print(f"{result.label} {result.round} {result.case}: {line}")


def cpu_breakdown(result: Result) -> str:
    """CPU seconds per 10k pushes: the worker's by thread kind, then every other process's."""
    def per_10k(seconds: float) -> str:
        return f"{seconds / max(1, result.stats.count) * 10000:.2f}"
    threads = ", ".join(f"{kind} {per_10k(seconds)}" for kind, seconds in result.threads.items())
    others = ", ".join(f"{name} {per_10k(seconds)} s" for name, seconds in result.others_cpu_s.items())
    return f"CPU per 10k pushes: worker {per_10k(result.worker_cpu_s)} s ({threads}); {others}"


def stage_breakdown(stages: dict) -> str:
    """The worker's profile samples by stage, as shares of them all."""
    total = sum(stages.values())
    shares = ", ".join(f"{name} {100 * stages[name] / total:.1f} %" for name in ORDER if stages.get(name))
    return f"worker's profile by stage ({total} samples): {shares}"


def print_medians(results: list[Result]) -> None:
    """A/B mode: the median of every figure per binary and case, and the other binaries' pushes/s and CPU relative
    to the first's on the same transport."""
    print("medians:")
    header = ("binary", "case", "runs", "pushes/s", "CPU s/10k", "peak RSS MB", "/ peer", "/ node", "/ nghttp2",
              "peer CPU s/10k", "CPU / peer")
    rows = []
    labels = list(dict.fromkeys(result.label for result in results))
    cases = list(dict.fromkeys(result.case for result in results))
    for label in labels:
        for case in cases:
            runs = [result for result in results if result.label == label and result.case == case]
            if not runs:
                continue
            rate, cpu = median_rate_and_cpu(runs)
            ratios = [result.rate / result.peer_rate for result in runs if result.peer_rate]
            node_ratios = [result.rate / result.node_rate for result in runs if result.node_rate]
            nghttp2_ratios = [result.rate / result.nghttp2_rate for result in runs if result.nghttp2_rate]
            peer_cpus = [result.peer_cpu_10k for result in runs if result.peer_cpu_10k]
            cpu_ratios = [ratio for ratio in map(cpu_per_peer_request, runs) if ratio is not None]
            rows.append((label, case, str(len(runs)), f"{rate:,.0f}", f"{cpu:.2f}",
                         f"{statistics.median([peak_mb(result) for result in runs]):.0f}",
                         f"{statistics.median(ratios):.2f}" if ratios else "-",
                         f"{statistics.median(node_ratios):.2f}" if node_ratios else "-",
                         f"{statistics.median(nghttp2_ratios):.2f}" if nghttp2_ratios else "-",
                         f"{statistics.median(peer_cpus):.2f}" if peer_cpus else "-",
                         f"{statistics.median(cpu_ratios):.2f}" if cpu_ratios else "-"))
    widths = [max(len(row[index]) for row in [header, *rows]) for index in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.rjust(width) for cell, width in zip(row, widths)))
    for case in cases:
        for transport in dict.fromkeys(result.transport for result in results):
            on_it = [result for result in results if result.case == case and result.transport == transport]
            labels_on_it = list(dict.fromkeys(result.label for result in on_it))
            for label in labels_on_it[1:]:
                print_ratio(case, [result for result in on_it if result.label == label],
                            [result for result in on_it if result.label == labels_on_it[0]])


def print_transport_ratios(results: list[Result], order: tuple[str, ...]) -> None:
    """A run of one binary on several transports: per case, every other transport's median pushes/s and CPU per 10k
    relative to the first's in `order`, whichever order they ran in ("nghttp2 / curl")."""
    transports = [transport for transport in order if any(result.transport == transport for result in results)]
    if len(transports) < 2 or len({result.label for result in results}) != len(transports):
        return
    for case in dict.fromkeys(result.case for result in results):
        runs = {transport: [result for result in results if result.case == case and result.transport == transport]
                for transport in transports}
        for transport in transports[1:]:
            if runs[transport] and runs[transports[0]]:
                print_ratio(case, runs[transport], runs[transports[0]], f"{transport} / {transports[0]}")


def median_rate_and_cpu(runs: list[Result]) -> tuple[float, float]:
    """The median pushes/s and CPU per 10k pushes of `runs`."""
    return (statistics.median([result.rate for result in runs]),
            statistics.median([cpu_per_10k(result) for result in runs]))


def print_ratio(case: str, runs_b: list[Result], runs_a: list[Result], name: str = "") -> None:
    """`case: B / A: pushes/s X×, CPU per 10k Y×` of the medians of `runs_b` and `runs_a` (named by their labels
    unless `name` is given), then, where both were counted (--runtime-events), each runtime figure per record."""
    (rate_a, cpu_a), (rate_b, cpu_b) = median_rate_and_cpu(runs_a), median_rate_and_cpu(runs_b)
    name = name or f"{runs_b[0].label} / {runs_a[0].label}"
    print(f"{case}: {name}: pushes/s {rate_b / max(rate_a, 1e-9):.3f}×, CPU per 10k {cpu_b / max(cpu_a, 1e-9):.3f}×")
    counted_a = [result.runtime_per_record for result in runs_a if result.runtime_per_record]
    counted_b = [result.runtime_per_record for result in runs_b if result.runtime_per_record]
    if counted_a and counted_b:
        print(f"{case}: {name}: {ratios(counted_b, counted_a)}")
