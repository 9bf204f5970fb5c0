"""Tests of bench_stages.py: thread kinds, the stage of a call chain, `perf script` parsing, CPU by thread kind.

    python deploy/local/bench_stages_test.py     # run by DeploymentTests' BenchmarkToolsTests too
"""

from __future__ import annotations

import os
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_stages import (ENDED_THREADS, LIBRDKAFKA_THREADS, OTHER, OTHER_THREADS, Frame, ThreadSampler, cpu_by_kind,
                          function_name, samples, stage, stage_split, thread_kind, thread_times)

WORKER = "/build/release/push-worker"
CORE = "/opt/swift/usr/lib/swift/linux/libswiftCore.so"
CONCURRENCY = "/opt/swift/usr/lib/swift/linux/libswift_Concurrency.so"
LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6"
KERNEL = "[kernel.kallsyms]"


def chain(*frames: tuple[str, str]) -> list[Frame]:
    return [Frame(symbol, library) for symbol, library in frames]


class ThreadKindTests(unittest.TestCase):
    def test_threads_are_told_by_their_names(self):
        cases = {
            "oot.default-qos": "Swift pool", "http2-curl": "HTTP/2 loop", "http2-nghttp2": "HTTP/2 loop",
            "rdk:main": "librdkafka", "rdk:broker-1": "librdkafka", "rdk:broker3": "librdkafka",
            "kafka-poll": OTHER_THREADS, "http2-resolve": OTHER_THREADS, "-qos.overcommit": OTHER_THREADS,
            "push-worker": OTHER_THREADS, "MHD-worker": OTHER_THREADS,
        }
        for name, kind in cases.items():
            with self.subTest(name=name):
                self.assertEqual(thread_kind(name), kind)


class StageTests(unittest.TestCase):
    def test_runtime_is_told_by_the_first_user_frame_past_the_c_library(self):
        cases = {
            "swift_retain": "runtime: retain/release", "swift_bridgeObjectRelease": "runtime: retain/release",
            "swift_allocObject": "runtime: malloc", "swift_task_switch": "runtime: task switching",
            "swift_getGenericMetadata": "runtime: metadata", "_dispatch_worker_thread2": "runtime: task switching",
        }
        for symbol, expected in cases.items():
            with self.subTest(symbol=symbol):
                frames = chain(("futex_wait", KERNEL), ("syscall", LIBC), (symbol, CORE),
                               ("PushPipeline.RecordProcessor.settle(_:)", WORKER))
                self.assertEqual(stage(frames, "oot.default-qos"), expected)

    def test_the_allocator_library_is_malloc_whatever_its_symbols(self):
        frames = chain(("[unknown]", "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"),
                       ("PushCore.PushPlanner.plan(_:now:)", WORKER))
        self.assertEqual(stage(frames, "oot.default-qos"), "runtime: malloc")

    def test_the_first_frame_naming_a_stage_from_the_leaf_up_decides(self):
        cases = [
            ("PushCore.EventDecoder.decode(_:now:)", "decode"),
            ("PushCore.JSONParser.parseObject()", "decode"),
            ("PushCore.JSONTape.Reader.readObject(into:)", "decode"),
            ("PushCore.ObjectFields.requiredString(_:maxLength:)", "decode"),
            ("PushPipeline.RecordScan.init(_:)", "decode"),
            ("PushCore.SizeFitting.fittedBody(token:badge:)", "render"),
            ("static PushCore.FCMRequestBuilder.body(_: PushCore.RenderedPush, token: Swift.String)", "render"),
            ("static PushCore.DeterministicUUID.apnsID(messageID: Swift.String, device: PushCore.Device)", "render"),
            ("PushCore.PushPlanner.plan(_: PushCore.ChatMessageEvent, now: FoundationEssentials.Date)", "plan"),
            ("PushPipeline.CorePlanner.plan(_:nowMillis:)", "plan"),
            ("HTTP2.NGHTTP2EventLoop.turn()", "send/transport"),
            ("Providers.APNsClient.send(_:)", "send/transport"),
            ("PushPipeline.DeviceDelivery.attempt(_:to:context:)", "send/transport"),
            ("nghttp2_session_send", "send/transport"),
            ("PushPipeline.RecordOutputs.forEvent(record:)", "receipts/produce"),
            ("PushPipeline.ReceiptID.make(_:)", "receipts/produce"),
            ("Kafka.KafkaProducer.send(_:)", "receipts/produce"),
            ("Kafka.KafkaConsumer.poll(maxRecords:timeout:)", "poll"),
            ("Kafka.KafkaRecord.init(message: Swift.UnsafeMutablePointer<__C.rd_kafka_message_s>)", "poll"),
            ("Worker.KafkaRecordSource.poll(maxRecords: Swift.Int, timeout: Swift.Duration)", "poll"),
            ("rd_kafka_consume_batch_queue", "poll"),
            ("PushPipeline.OffsetTracker.end(_:)", "commit/Kafka"),
            ("PushPipeline.PipelineCore.(end in _7840)(_: PushPipeline.RecordTicket, done: Swift.Bool)", "commit/Kafka"),
            ("rd_kafka_commit0", "commit/Kafka"),
            ("PushPipeline.PipelineCore.(freeRoom in _7840)(of: PushPipeline.RecordTicket)", "admission/ordering"),
            ("PushPipeline.PipelineCore.(admit in _7840)(_: [PushPipeline.InputRecord], nowMillis: Swift.Int64)",
             "admission/ordering"),
            ("PushPipeline.Pipeline.(perform in _8BDA)([PushPipeline.PipelineCore.Action]) async -> ()",
             "admission/ordering"),
            ("Essentials.AsyncBudget.release(Swift.Int) -> ()", "admission/ordering"),
            ("PushPipeline.Pipeline.spawn(_:_:inLane:)", "pipeline"),
            ("PipelineMetrics.ObservabilityObserver.observe(_:)", "pipeline"),
        ]
        for symbol, expected in cases:
            with self.subTest(symbol=symbol):
                # A shared building block at the leaf names no stage: its caller does.
                frames = chain(("Essentials.SHA256.update(_:)", WORKER), (symbol, WORKER),
                               ("PushPipeline.Pipeline.work(on:_:inLane:taskId:)", WORKER))
                self.assertEqual(stage(frames, "oot.default-qos"), expected)

    def test_a_specializations_arguments_do_not_decide(self):
        symbol = ("generic specialization <PushPipeline.ProviderSend, Providers.APNsClient> of "
                  "PushCore.PushPlanner.plan<A>(_:now:)")
        self.assertEqual(function_name(symbol), "PushCore.PushPlanner.plan<A>(_:now:)")
        self.assertEqual(stage(chain((symbol, WORKER)), "oot.default-qos"), "plan")
        self.assertEqual(function_name("PushCore.PushPlanner.plan(_:now:)"), "PushCore.PushPlanner.plan(_:now:)")

    def test_libraries_name_a_stage_where_symbols_do_not(self):
        frames = chain(("tcp_sendmsg", KERNEL), ("[unknown]", "/usr/lib/x86_64-linux-gnu/libssl.so.3"),
                       ("[unknown]", WORKER))
        self.assertEqual(stage(frames, "oot.default-qos"), "send/transport")
        frames = chain(("[unknown]", "/usr/lib/x86_64-linux-gnu/librdkafka.so.1"))
        self.assertEqual(stage(frames, "oot.default-qos"), "commit/Kafka")

    def test_librdkafkas_threads_count_as_theirs_whatever_their_frames(self):
        for frames in (chain(("__poll", LIBC), ("rd_kafka_transport_poll", "/usr/lib/librdkafka.so.1")),
                       chain(("rd_kafka_msgset_writer_write_msg_v2", "/usr/lib/librdkafka.so.1")),
                       chain(("swift_retain", CORE), ("Kafka.DeliveryBatch.filled()", WORKER))):
            with self.subTest(frames=frames):
                self.assertEqual(stage(frames, "rdk:broker1"), LIBRDKAFKA_THREADS)
                self.assertEqual(stage(frames, "rdk:main"), LIBRDKAFKA_THREADS)

    def test_a_chain_naming_nothing_counts_by_its_thread(self):
        frames = chain(("do_epoll_wait", KERNEL), ("epoll_wait", LIBC), ("[unknown]", WORKER))
        self.assertEqual(stage(frames, "http2-nghttp2"), "send/transport")
        self.assertEqual(stage(frames, "rdk:broker1"), LIBRDKAFKA_THREADS)
        self.assertEqual(stage(frames, "oot.default-qos"), OTHER)
        self.assertEqual(stage([], "push-worker"), OTHER)


class PerfScriptTests(unittest.TestCase):
    SCRIPT = (
        "oot.default-qos  4712 \n"
        "\t    7f0000001000 swift_retain (/opt/swift/usr/lib/swift/linux/libswiftCore.so)\n"
        "\t    55000000a000 PushCore.PushPlanner.plan(_:now:) (/build/release/push-worker)\n"
        "\n"
        "http2-nghttp2  4720 \n"
        "\tffffffff81000000 tcp_sendmsg ([kernel.kallsyms])\n"
        "\t    7f0000002000 __libc_write (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
        "\t    7f0000003000 [unknown] (/usr/lib/x86_64-linux-gnu/libssl.so.3)\n"
        "\n"
        "oot.default-qos  4713 \n"
        "\t    55000000b000 PushCore.EventDecoder.decode(_:now:)+0x3c (/build/release/push-worker)\n"
        "\n"
    )

    def test_samples_carry_their_thread_and_chain(self):
        parsed = samples(self.SCRIPT)
        self.assertEqual([thread for thread, _ in parsed], ["oot.default-qos", "http2-nghttp2", "oot.default-qos"])
        self.assertEqual(parsed[0][1][0], Frame("swift_retain", CORE))
        self.assertEqual(parsed[1][1][0], Frame("tcp_sendmsg", KERNEL))
        self.assertEqual(parsed[2][1][0].symbol, "PushCore.EventDecoder.decode(_:now:)")

    def test_stage_split_counts_samples(self):
        self.assertEqual(stage_split(self.SCRIPT),
                         {"runtime: retain/release": 1, "send/transport": 1, "decode": 1})


class ThreadTimeTests(unittest.TestCase):
    def test_cpu_by_kind_counts_new_threads_whole_and_the_rest_as_ended(self):
        before = {1: ("push-worker", 0.5), 2: ("oot.default-qos", 1.0), 3: ("rdk:main", 0.2)}
        after = {1: ("push-worker", 0.6), 2: ("oot.default-qos", 3.0), 4: ("http2-nghttp2", 0.75)}
        kinds = cpu_by_kind(before, after, process_seconds=4.0)
        self.assertAlmostEqual(kinds["Swift pool"], 2.0)
        self.assertAlmostEqual(kinds["HTTP/2 loop"], 0.75)
        self.assertAlmostEqual(kinds["librdkafka"], 0.0)
        self.assertAlmostEqual(kinds[OTHER_THREADS], 0.1)
        self.assertAlmostEqual(kinds[ENDED_THREADS], 1.15)

    def test_this_process_has_a_thread_with_its_time(self):
        times = thread_times(os.getpid())
        self.assertIn(os.getpid(), times)
        self.assertGreaterEqual(times[os.getpid()][1], 0.0)

    def test_the_sampler_keeps_a_thread_that_ended(self):
        sampler = ThreadSampler(os.getpid(), interval=0.01)

        def live_until_seen():
            deadline = time.monotonic() + 10
            while threading.get_native_id() not in sampler.latest and time.monotonic() < deadline:
                time.sleep(0.005)

        spin = threading.Thread(target=live_until_seen, name="short-lived")
        spin.start()
        spin.join()
        # join() returns before the kernel has reaped the thread.
        deadline = time.monotonic() + 10
        while spin.native_id in thread_times(os.getpid()) and time.monotonic() < deadline:
            time.sleep(0.005)
        self.assertNotIn(spin.native_id, thread_times(os.getpid()))
        self.assertIn(spin.native_id, sampler.stop())


if __name__ == "__main__":
    unittest.main()
