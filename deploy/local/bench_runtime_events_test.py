"""Tests of bench_runtime_events.py: probe definitions, `perf script` lines counted by probe and thread kind, task
switches by resume function and target, symbols from a memory map, short names, the printed figures.

    python deploy/local/bench_runtime_events_test.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_runtime_events import (FIGURES, PROBES, REFCOUNT_FIGURES, REFCOUNT_PROBES, RuntimeEventCounts, Symbols,
                                  per_record, per_record_and_send, ratios, short_name, switch_targets, top_hops)
from bench_runtime_probes import failure_reason
from bench_stages import OTHER_THREADS

WORKER = "/build/release/push-worker"
CONCURRENCY = "/opt/swift/usr/lib/swift/linux/libswift_Concurrency.so"
MAPS = (
    f"5580000000-5580400000 r-xp 00000000 fe:00 11 {WORKER}\n"
    f"5580400000-5580450000 rw-p 003c7000 fe:00 11 {WORKER}\n"
    "5590000000-5590100000 rw-p 00000000 00:00 0 [heap]\n"
    f"7f0000000000-7f0000094000 r-xp 00000000 fe:00 22 {CONCURRENCY}\n"
)
NM = {
    WORKER: "0000000000001000 T $sSettle\n0000000000002000 t $sSettleTY1_\n0000000000003000 T $sProduce\n"
            "0000000000000000 U swift_task_switch\n0000000000003800 D $sData\n",
    CONCURRENCY: "0000000000000800 t swift_task_future_wait_resume\n",
}


def line(comm: str, tid: int, event: str, trace: str = "") -> str:
    return f"{comm:>16} {tid:6} pushbench_42:{event}: (7f0000000900){' ' + trace if trace else ''}\n"


def switch(comm: str, resume: int, executor: int = 0) -> str:
    return line(comm, 7, "task_switch", f"resume={resume:#x} executor={executor:#x}")


class ProbeTests(unittest.TestCase):
    def test_definitions_name_the_group_the_function_and_its_arguments(self):
        definitions = {probe.event: probe.definition("pushbench_42") for probe in PROBES}
        self.assertEqual(definitions["job_run"], "pushbench_42:job_run=swift_job_run")
        self.assertEqual(definitions["task_switch"],
                         "pushbench_42:task_switch=swift_task_switch resume=%di:x64 executor=%si:x64")

    def test_a_failed_probe_is_explained_by_perfs_first_error_else_its_status(self):
        said = 'Error: event "retain" already exists.\n Hint: Remove existing event\n  Error: Failed to add events.\n'
        self.assertEqual(failure_reason(subprocess.CompletedProcess([], 239, "", said)),
                         'Error: event "retain" already exists.')
        self.assertEqual(failure_reason(subprocess.CompletedProcess([], 239, "", "")), "status 239")

    def test_heap_objects_are_counted_in_the_core_runtime_and_the_rest_in_the_concurrency_runtime(self):
        libraries = {probe.event: probe.library for probe in PROBES}
        self.assertEqual(libraries.pop("alloc_object"), "libswiftCore.so")
        self.assertEqual(set(libraries.values()), {"libswift_Concurrency.so"})


class CountTests(unittest.TestCase):
    def test_calls_count_by_probe_and_thread_kind(self):
        counts = RuntimeEventCounts().read([
            line("oot.default-qos", 11, "enqueue_global"), line("oot.default-qos", 12, "enqueue_global"),
            line("http2-nghttp2", 13, "enqueue_global"), line("kafka-poll", 14, "enqueue_global"),
            line("oot.default-qos", 11, "job_run"),
        ])
        self.assertEqual(counts.figure(("enqueue_global",)),
                         {"Swift pool": 2, "HTTP/2 loop": 1, OTHER_THREADS: 1})
        self.assertEqual(counts.figure(("job_run",)), {"Swift pool": 1})

    def test_a_thread_name_with_spaces_is_read_whole(self):
        counts = RuntimeEventCounts().read([line("my worker 2", 15, "job_run")])
        self.assertEqual(counts.calls, {("job_run", OTHER_THREADS): 1})
        self.assertEqual(counts.unread, 0)

    def test_task_switches_count_by_resume_function_and_target(self):
        counts = RuntimeEventCounts().read([
            switch("oot.default-qos", 0x5580001010), switch("oot.default-qos", 0x5580001010),
            switch("oot.default-qos", 0x5580001010, executor=0x7f00deadbeef),
        ])
        self.assertEqual(counts.switches, {(0x5580001010, True): 2, (0x5580001010, False): 1})
        self.assertEqual(counts.figure(("task_switch",)), {"Swift pool": 3})

    def test_other_lines_are_counted_as_unread(self):
        counts = RuntimeEventCounts().read(["\n", "Warning: Processed 10 events and lost 1 chunks!\n",
                                            line("oot.default-qos", 11, "job_run")])
        self.assertEqual(counts.unread, 1)
        self.assertEqual(sum(counts.calls.values()), 1)


class SymbolTests(unittest.TestCase):
    def setUp(self):
        self.read = []

        def nm(path: str) -> str:
            self.read.append(path)
            return NM[path]

        self.symbols = Symbols(MAPS, nm)

    def test_an_address_is_named_by_its_files_symbols_from_the_files_base(self):
        self.assertEqual(self.symbols.name(0x5580002010), "$sSettleTY1_")
        self.assertEqual(self.symbols.name(0x5580001000), "$sSettle")
        self.assertEqual(self.symbols.name(0x5580003900), "$sProduce")  # data symbols do not end a function
        self.assertEqual(self.symbols.name(0x7f0000000900), "swift_task_future_wait_resume")

    def test_each_files_symbols_are_read_once(self):
        self.symbols.name(0x5580001000)
        self.symbols.name(0x5580002000)
        self.assertEqual(self.read, [WORKER])

    def test_an_address_before_every_symbol_or_unmapped_is_named_by_its_file_or_value(self):
        self.assertEqual(self.symbols.name(0x5580000010), "[push-worker]")
        self.assertEqual(self.symbols.name(0x1234), "0x1234")
        self.assertEqual(self.symbols.name(0x5590000010), "0x5590000010")


class NameTests(unittest.TestCase):
    def test_the_simplified_name_keeps_the_partial_functions_suspension_point(self):
        full = ("(4) suspend resume partial function for HTTP2.NGHTTP2Transport.send(HTTPTypes.HTTPRequest) async "
                "throws(HTTPTypes.HTTPError) -> HTTPTypes.HTTPResponse")
        self.assertEqual(short_name(full, "NGHTTP2Transport.send(_:)"),
                         "(4) suspend resume partial function for NGHTTP2Transport.send(_:)")
        self.assertEqual(short_name("(1) await resume partial function for A.f() async", "(1) await resume "
                                    "partial function for A.f()"), "(1) await resume partial function for A.f()")
        self.assertEqual(short_name("PushPipeline.Pipeline.perform(Int) -> ()", "Pipeline.perform(_:)"),
                         "Pipeline.perform(_:)")


class SummaryTests(unittest.TestCase):
    def counts(self) -> RuntimeEventCounts:
        lines = [line("oot.default-qos", 11, "job_run")] * 18
        lines += [line("oot.default-qos", 11, "enqueue_global")] * 12
        lines += [line("http2-nghttp2", 13, "enqueue_global")] * 4
        lines += [line("push-worker", 1, "enqueue_global")]  # at start-up: 0.00 per record of 1,000
        lines += [line("http2-nghttp2", 13, "continuation_resume")] * 2
        lines += [line("oot.default-qos", 11, "continuation_throwing_resume")] * 2
        return RuntimeEventCounts().read(lines)

    def test_figures_per_record_and_per_send_split_by_kind_where_several_kinds_call(self):
        counts = self.counts()
        counts.calls["job_run", "Swift pool"] += 18_000 - 18
        counts.calls["enqueue_global", "Swift pool"] += 12_000 - 12
        counts.calls["enqueue_global", "HTTP/2 loop"] += 4_000 - 4
        self.assertEqual(
            per_record_and_send(counts, records=2_000, sends=4_000),
            "runtime events per record: job runs 9.00, task switches 0.00, tasks created 0.00, enqueues 8.00 "
            "(Swift pool 6.00, HTTP/2 loop 2.00), continuation resumes 0.00, heap objects 0.00; per send: job runs "
            "4.50, task switches 0.00, tasks created 0.00, enqueues 4.00 (Swift pool 3.00, HTTP/2 loop 1.00), "
            "continuation resumes 0.00, heap objects 0.00")

    def test_retains_and_releases_are_shown_only_when_asked_for_and_count_both_forms(self):
        counts = RuntimeEventCounts().read([line("oot.default-qos", 11, "retain")] * 3
                                           + [line("oot.default-qos", 11, "bridge_retain")]
                                           + [line("http2-nghttp2", 13, "release")] * 2)
        self.assertNotIn("retains", per_record_and_send(counts, records=2, sends=2))
        self.assertIn("retains 2.00, releases 1.00; per send",
                      per_record_and_send(counts, records=2, sends=2, shown=FIGURES + REFCOUNT_FIGURES))
        self.assertEqual({probe.library for probe in REFCOUNT_PROBES}, {"libswiftCore.so"})

    def test_continuation_resumes_count_both_kinds_of_resume(self):
        self.assertIn("continuation resumes 2.00 (Swift pool 1.00, HTTP/2 loop 1.00)",
                      per_record_and_send(self.counts(), records=2, sends=2))

    def test_per_record_figures_sum_their_probes_over_thread_kinds(self):
        figures = per_record(self.counts(), records=2)
        self.assertEqual(list(figures), ["job runs", "task switches", "tasks created", "enqueues",
                                         "continuation resumes", "heap objects"])
        self.assertEqual(figures["enqueues"], 8.5)
        self.assertEqual(figures["continuation resumes"], 2.0)

    def test_ratios_compare_medians_per_figure(self):
        runs_a = [{"job runs": 10.0, "tasks created": 0.0}, {"job runs": 9.0, "tasks created": 0.0},
                  {"job runs": 30.0, "tasks created": 0.0}]
        runs_b = [{"job runs": 9.0, "tasks created": 1.0}]
        self.assertEqual(ratios(runs_b, runs_a),
                         "runtime events per record: job runs 0.900×, tasks created 1.00 (none before)")

    def test_switches_split_by_target(self):
        counts = RuntimeEventCounts().read([switch("oot.default-qos", 0x5580002010)] * 3
                                           + [switch("oot.default-qos", 0x5580003000, executor=0x7f00deadbeef)])
        self.assertEqual(switch_targets(counts, records=2),
                         "task switches per record by target: the generic executor 1.50, an actor 0.50")

    def test_top_hops_rank_resume_functions_of_one_name_together_per_record(self):
        symbols = Symbols(MAPS, NM.__getitem__)
        counts = RuntimeEventCounts().read(
            [switch("oot.default-qos", 0x5580002010)] * 3 + [switch("oot.default-qos", 0x5580002020)] * 3
            + [switch("oot.default-qos", 0x5580003000, executor=0x7f00deadbeef)] * 4
            + [switch("oot.default-qos", 0x5580001000)])
        hops = top_hops(counts, symbols, lambda names: [f"<{name}>" for name in names], records=2, top=2)
        self.assertEqual(hops, ["3.00 to the generic executor: <$sSettleTY1_>", "2.00 to an actor: <$sProduce>"])


if __name__ == "__main__":
    unittest.main()
