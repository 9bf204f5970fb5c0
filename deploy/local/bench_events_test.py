"""Tests of the benchmark's event shapes (bench_events.py) and its CPU figures against the peers (bench_endpoint.py,
bench_report.py).

    python deploy/local/bench_events_test.py     # run by DeploymentTests' BenchmarkEventsTests too
"""

from __future__ import annotations

import json
import os
import sys
import unittest
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_endpoint import cpu_per_10k_requests
from bench_events import EventFactory
from bench_outcomes import ReceiptStats
from bench_report import Result, cpu_per_peer_request


def events(factory: EventFactory, count: int) -> list[tuple[str, dict]]:
    return [(key, json.loads(value)) for key, value, _, _ in (factory.next() for _ in range(count))]


def devices(event: dict) -> list[dict]:
    return [device for recipient in event["recipients"] for device in recipient["devices"]]



class PreparedEventsTests(unittest.TestCase):
    def test_a_prepared_event_stamped_is_the_event_made_then(self):
        prepared = EventFactory(seed=3, rooms=50, prefix="t").prepared(200)
        made = EventFactory(seed=3, rooms=50, prefix="t")
        sends = 0
        for key, value, message_id, sends_so_far in prepared:
            expected_key, expected_value, expected_id, _ = made.next(created=1_796_537_345_978)
            sends += len(devices(json.loads(expected_value)))
            self.assertEqual((key, message_id, sends_so_far), (expected_key, expected_id, sends))
            self.assertEqual(EventFactory.stamped(value, 1_796_537_345_978), expected_value)
            self.assertEqual(json.loads(EventFactory.stamped(value, 42))["createdAt"], 42)
        self.assertEqual(made.sends, sends)

class OneDeviceTests(unittest.TestCase):
    def test_every_event_has_one_device_apns_and_fcm_alternating(self):
        factory = EventFactory(seed=1, rooms=1_000, prefix="t", single="alternate")
        written = events(factory, 400)
        platforms = [devices(event)[0]["platform"] for _, event in written]
        self.assertTrue(all(len(devices(event)) == 1 for _, event in written))
        self.assertEqual(platforms, ["apns", "fcm"] * 200)
        self.assertEqual(factory.sends, 400)
        self.assertGreater(len({key for key, _ in written}), 300)
        self.assertTrue(all(0 <= int(key[2:]) < 1_000 for key, _ in written))

    def test_an_fcm_token_has_the_fcm_shape(self):
        fcm = [devices(event)[0] for _, event in events(EventFactory(seed=1, rooms=10, prefix="t", single="alternate"),
                                                        4)][1]
        self.assertEqual((fcm["platform"], len(fcm["token"]), fcm["token"][0]), ("fcm", 141, "f"))

    def test_the_apns_case_is_unchanged_apns_only(self):
        written = events(EventFactory(seed=1, rooms=10, prefix="t", single="apns"), 50)
        self.assertEqual({devices(event)[0]["platform"] for _, event in written}, {"apns"})


class HotRoomsTests(unittest.TestCase):
    def test_a_rooms_events_go_to_its_own_twenty_members_devices(self):
        factory = EventFactory(seed=3, rooms=24, prefix="t", members=20)
        written = events(factory, 10_000)
        tokens_by_room: dict[str, set[str]] = {}
        for key, event in written:
            self.assertEqual(len(devices(event)), 1)
            tokens_by_room.setdefault(key, set()).update(device["token"] for device in devices(event))
        self.assertEqual(len(tokens_by_room), 24)
        self.assertTrue(all(len(tokens) == 20 for tokens in tokens_by_room.values()))
        every_token = [token for tokens in tokens_by_room.values() for token in tokens]
        self.assertEqual(len(every_token), len(set(every_token)))
        platforms = Counter(devices(event)[0]["platform"] for _, event in written)
        self.assertGreater(min(platforms["apns"], platforms["fcm"]), 4_000)

    def test_recipients_are_distinct_members_and_count_as_sends(self):
        factory = EventFactory(seed=3, rooms=24, prefix="t", members=20, recipients=5)
        written = events(factory, 100)
        for _, event in written:
            users = [recipient["userId"] for recipient in event["recipients"]]
            self.assertEqual(len(users), 5)
            self.assertEqual(len(set(users)), 5)
        self.assertEqual(factory.sends, 500)

    def test_the_members_are_the_same_in_every_run_of_a_seed(self):
        first = events(EventFactory(seed=3, rooms=24, prefix="t", members=20), 50)
        second = events(EventFactory(seed=3, rooms=24, prefix="t", members=20), 50)
        self.assertEqual([event["recipients"] for _, event in first], [event["recipients"] for _, event in second])


class PeerCPUTests(unittest.TestCase):
    @staticmethod
    def result(receipts: int, worker_cpu_s: float, peer_cpu_10k: float) -> Result:
        stats = ReceiptStats()
        stats.count = receipts
        return Result("one-device", receipts, receipts, stats, 0, 0, worker_cpu_s, {}, 1.0, "",
                      peer_cpu_10k=peer_cpu_10k)

    def test_cpu_per_push_is_set_against_the_peers_cpu_per_request(self):
        self.assertAlmostEqual(cpu_per_peer_request(self.result(20_000, 3.0, 0.5)), 3.0)

    def test_a_peers_cpu_per_10k_requests_is_read_from_its_summary_line(self):
        cases = {
            "peer: 100000 requests in 5.12 s: 19531 requests/s, CPU 5.40 s, failed 0": 0.54,
            "node peer: 50000 requests in 2.00 s: 25000 requests/s, CPU 4.00 s, failed 0": 0.8,
            "node is not installed": 0.0,
        }
        for line, expected in cases.items():
            with self.subTest(line=line):
                self.assertAlmostEqual(cpu_per_10k_requests(line, 100_000 if line.startswith("peer") else 50_000),
                                       expected)

    def test_without_a_peer_there_is_no_ratio(self):
        self.assertIsNone(cpu_per_peer_request(self.result(20_000, 3.0, 0.0)))


if __name__ == "__main__":
    unittest.main()
