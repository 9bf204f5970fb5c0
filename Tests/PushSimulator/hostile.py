"""Hostile provider mode for the push simulator: seeded answers that no real APNs or FCM should give, for fuzzing.

Armed as a fault rule with `"hostile": true` (control.py), e.g. every tenth push request, 10,000 times:

    curl -s -X POST $C/faults/rules -d '{"path": "^/(3/device|v1/projects)/", "rate": 0.1, "times": 10000,
                                         "hostile": true}'

Each matching request then gets one answer drawn from the simulator's seeded random source (`--seed`): 429 and
503 with a Retry-After that is huge, negative, fractional, a date or garbage; APNs 410 Unregistered with an
absurd `timestamp`; statuses no provider documents; bodies that are not JSON, not UTF-8, empty or huge; 200
without an apns-id or with a garbage FCM name; slow answers, bodies trickling out 16 bytes at a time, stalled
streams, reset streams and reset connections. The answer is described in the request's record (`"hostile": "KIND: status=429 retry_after=…"`).

Control commands:
  hostile-stats {}   → {"answers": N, "kinds": {kind: count}}
"""

from __future__ import annotations

import random
from collections import Counter

from server import FaultRule, Simulator

INT64_MAX = 2**63 - 1
HUGE_RETRY_AFTER = [str(INT64_MAX), str(2**64), "99999999999999999999999999", "1e308", "-1", "-9223372036854775808",
                    "0", "-0", "3.5", "NaN", "inf", "", " ", "garbage", "Wed, 21 Oct 2015 07:28:00 GMT",
                    "Fri, 31 Dec 9999 23:59:59 GMT", "86401", "2147483648", "\u00e9t\u00e9"]
ABSURD_TIMESTAMPS = [INT64_MAX, -INT64_MAX - 1, 2**64, 1e308, -1, 0, 253402300800000, -62135596800001, "garbage",
                     "9223372036854775807", None, [], {"ms": 1}, 1.5, True]
UNKNOWN_STATUSES = [201, 204, 299, 301, 400, 401, 402, 403, 404, 405, 409, 413, 418, 422, 451, 499, 502, 504, 505,
                    599, 600, 799, 999]
GARBAGE_BODIES: list[object] = [
    "", "not json", "{", "[1,2", "null", "[]", "\"reason\"", "{\"reason\": 7}", "{\"reason\": null}",
    "{\"reason\": \"\\u0000\\u0001\"}", "{\"error\": \"nope\"}", "{\"error\": {\"code\": \"x\", \"details\": 5}}",
    b"\xff\xfe\xfd", b"{\"reason\": \"\xc3\x28\"}", "{\"reason\": \"" + "R" * 70_000 + "\"}",
    {"reason": "NoSuchReason"}, {"reason": "Unregistered", "timestamp": "soon"},
    {"error": {"code": 404, "status": "NOT_FOUND", "details": [{"errorCode": ["UNREGISTERED"]}]}},
    {"error": {"code": 1e308, "status": None, "message": 12}}, {"name": 7}, {"name": ""},
]


def answer(path: str, rng: random.Random) -> tuple[str, FaultRule]:
    """One hostile answer for a request to `path`: its kind and the fault rule that gives it."""
    apns = path.startswith("/3/")
    kind = rng.choice(["retry_after", "retry_after", "absurd_410" if apns else "retry_after", "unknown_status",
                       "garbage_body", "garbage_success", "slow", "trickle", "reset_stream", "reset_connection",
                       "stall"])
    if kind == "retry_after":
        status = rng.choice([429, 503, 500, 429])
        return kind, FaultRule(status=status, retry_after=rng.choice(HUGE_RETRY_AFTER),
                               body=rng.choice(GARBAGE_BODIES + [{"reason": "TooManyRequests"}]))
    if kind == "absurd_410":
        return kind, FaultRule(status=410, body={"reason": "Unregistered", "timestamp": rng.choice(ABSURD_TIMESTAMPS)})
    if kind == "unknown_status":
        return kind, FaultRule(status=rng.choice(UNKNOWN_STATUSES), body=rng.choice(GARBAGE_BODIES),
                               retry_after=rng.choice([None, *HUGE_RETRY_AFTER]))
    if kind == "garbage_body":
        return kind, FaultRule(status=rng.choice([400, 403, 404, 410, 429, 500, 503]), body=rng.choice(GARBAGE_BODIES))
    if kind == "garbage_success":
        return kind, FaultRule(status=200, body=rng.choice(GARBAGE_BODIES))
    if kind == "slow":
        return kind, FaultRule(latency_ms=rng.randint(500, 4000))
    if kind == "trickle":  # a body of 200 bytes to 2 KB, 16 bytes every 20–300 ms: some outlast any deadline
        body = {"reason": "TooManyRequests", "padding": "p" * rng.randint(150, 2000)}
        return kind, FaultRule(status=rng.choice([200, 400, 429, 503]), body=body, trickle_ms=rng.randint(20, 300))
    if kind == "reset_stream":
        return kind, FaultRule(reset_stream=rng.choice([0, 1, 2, 7, 8, 11, 0xFFFF]))
    if kind == "reset_connection":
        return kind, FaultRule(reset_connection=True)
    return kind, FaultRule(stall=True)


class Hostile:
    def __init__(self) -> None:
        self.kinds: Counter[str] = Counter()

    def answer(self, path: str, rng: random.Random) -> tuple[str, FaultRule]:
        """A hostile answer for `path` and its description (kind, status, Retry-After, start of the body)."""
        kind, rule = answer(path, rng)
        self.kinds[kind] += 1
        details = [f"{name}={value!r}"[:80] for name, value in vars(rule).items()
                   if value not in (None, False, 0) and name not in ("rate", "hostile")]
        return f"{kind}: {' '.join(details)}", rule

    def stats(self, arguments: dict) -> dict:
        return {"answers": sum(self.kinds.values()), "kinds": dict(self.kinds)}

    def reset(self) -> None:
        self.kinds.clear()


def register(simulator: Simulator) -> None:
    hostile = Hostile()
    simulator.state["hostile"] = hostile
    simulator.control_command("hostile-stats", hostile.stats)
    simulator.on_reset(hostile.reset)
