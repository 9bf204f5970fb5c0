"""The benchmark's figures: one `Result` per case and the table printed from them."""

from __future__ import annotations

from dataclasses import dataclass

from bench_outcomes import ReceiptStats


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

    @property
    def span_s(self) -> float:
        if self.stats.first_ms is None or self.stats.last_ms is None:
            return 0.0
        return max(0.001, (self.stats.last_ms - self.stats.first_ms) / 1000)

    @property
    def rate(self) -> float:
        return self.stats.count / self.span_s if self.span_s else 0.0


def milliseconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def print_table(results: list[Result]) -> None:
    header = ("case", "events", "sends", "receipts", "pushes/s", "send p50 ms", "send p99 ms",
              "e2e p50 ms", "e2e p99 ms", "peak RSS MB", "worker CPU s", "CPU s/10k pushes")
    rows = []
    for result in results:
        stats = result.stats
        rows.append((
            result.case, str(result.events), str(result.sends), str(stats.count), f"{result.rate:,.0f}",
            milliseconds(percentile(stats.provider_latency_ms, 0.5)),
            milliseconds(percentile(stats.provider_latency_ms, 0.99)),
            milliseconds(percentile(stats.end_to_end_ms, 0.5)), milliseconds(percentile(stats.end_to_end_ms, 0.99)),
            f"{max(result.peak_rss_kib, result.hwm_kib) / 1024:.0f}", f"{result.worker_cpu_s:.1f}",
            f"{result.worker_cpu_s / max(1, stats.count) * 10000:.2f}",
        ))
    widths = [max(len(row[index]) for row in [header, *rows]) for index in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.rjust(width) for cell, width in zip(row, widths)))
    for result in results:
        statuses = ", ".join(f"{name} {count}" for name, count in sorted(result.stats.statuses.items()))
        others = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in result.others_cpu_s.items())
        print(f"{result.case}: receipts by status: {statuses or 'none'}; first→last receipt {result.span_s:.2f} s; "
              f"wall {result.wall_s:.1f} s; CPU of {others}; load average at the end {result.load}")
