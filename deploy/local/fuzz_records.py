"""The fuzzer's seeded generator of hostile Kafka records for push-worker (docs/testing.md, "Fuzzing").

Each record starts from an example of schemas/examples/chat-message/ with a fresh id, room and device tokens, then
gets one or more mutations drawn from a seeded random source: extreme numbers, huge strings, invalid UTF-8,
duplicate keys, control characters in room ids, far-future and far-past times, wrong types, deep nesting, byte
damage, oversize values near 1 MB, hostile keys and hostile failure headers. About one record in twenty goes to
a retry tier instead of the input topic, with hostile `x-retry-due`, `x-retry-not-before`, `x-attempts` and
`x-source-*` headers. On every topic, the headers a worker carries to its outputs (`x-replay-run-id`, `traceparent`)
come hostile too: up to 350 KB, control characters, malformed, repeated.
The same seed always gives the same records (times are relative to the `now` given).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import time
from dataclasses import dataclass
from pathlib import Path

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)
# Values around Kafka's size limits: the producer's message.max.bytes (1,000,000) and 1 MiB.
NEAR_ONE_MB = [900_000, 999_000, 999_900, 1_000_000, 1_000_100, 1_040_000, 1_048_576]
FORGED_TOPIC = "fuzz.forged"
WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+")
Position = tuple[str, int, int]  # topic, partition, offset
# The share of records whose mutations are huge (hundreds of kilobytes to a megabyte, thousands of devices).
BIG_SHARE = 0.01

# Numbers and number-like texts that break careless conversions.
EXTREME_NUMBERS: list[object] = [
    INT64_MAX, INT64_MIN, INT64_MAX + 1, INT64_MIN - 1, 2**64, -(2**64), 10**30, 1e308, -1e308, 5e-324, -0.0, 0,
    -1, 1.5, 9.3e18, -9.3e18, 2**53 + 1, "NaN", "Infinity", "-Infinity", "1e308", "9223372036854775807", "", True,
    None, [], {},
]
HEADER_NUMBERS = [str(INT64_MAX), str(INT64_MIN), str(2**64), "99999999999999999999999", "-1", "-0", "0", "1e308",
                  "NaN", "", " 5", "5 ", "+5", "0x10", "garbage", "\u00e9", "1.5", "-9223372036854775809"]
# createdAt: epoch milliseconds and RFC 3339 texts far from now, malformed, or of the wrong type.
HOSTILE_TIMES: list[object] = [
    INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1, 2**64, 1e308, -1e308, -0.0, 0, -1, 253_402_300_800_000,
    -62_135_596_800_001, "9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z", "2026-13-45T99:99:99Z",
    "2026-11-29T12:00:00+99:99", "2026-11-29T12:00:00.9999999999999999999Z", "+275760-09-13T00:00:00Z",
    "1970-01-01T00:00:00Z", "now", "", "NaN", True, None, [], {"ms": 1},
]
HOSTILE_ROOM_IDS = ["r\t1", "r\u00011", "r\u007f1", "r\n1", "r\r\n1", "r\u00001", "r\u20281", "r-\U0001F600",
                    "r-" + "x" * 70, "r-" + "\u00e9" * 40, "", " ", "r:1\"}", "\u200b", "r-\ud800"]
HOSTILE_STRINGS = ["", "\u0000", "\t\n\r", "\u202e\u202d", "\U0001F469\u200d\U0001F469\u200d\U0001F467" * 50,
                   "\u0301" * 5000, "\\", "\"", "%s%n%x", "${jndi:ldap://x}", "{content}{content}{sender.nickname}",
                   "$1$2$3", "\ud800", "\udfff\ud800", "\ufffe\uffff"]
INVALID_UTF8 = [b"\xff", b"\xfe\xff", b"\xc0\xaf", b"\xe0\x80\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc3",
                b"\xe2\x82", b"\x80", b"\xf8\x88\x80\x80\x80"]
FAILURE_HEADERS = ["x-attempts", "x-retry-due", "x-retry-not-before", "x-first-failure", "x-source-topic",
                   "x-source-partition", "x-source-offset", "x-source-timestamp", "x-dlq-reason", "x-replay-run-id",
                   "x-worker", "traceparent"]
# Headers a worker carries from a record to its outputs: well-formed values, hostile ones, huge ones. The run id a
# well-formed one names the topic kind, so the accounting can tell that an input record's was not taken.
TRACE_PARENT = b"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
INPUT_RUN_ID = b"fuzz-input-run"
RETRY_RUN_ID = b"fuzz-retry-run"
CARRIED_HEADER_VALUES: dict[str, list[bytes | None]] = {
    "x-replay-run-id": [b"", None, b"run\n1\x00", b"r" * 201, b"r" * 100_000, b"\xff\xfe"],
    "traceparent": [TRACE_PARENT, TRACE_PARENT.upper(), TRACE_PARENT + b"-extra", b"ff" + TRACE_PARENT[2:],
                    b"00-" + b"0" * 32 + b"-00f067aa0ba902b7-01", b"", None, b"\xff" * 55, b"t" * 100_000],
}


@dataclass(frozen=True)
class FuzzRecord:
    """One hostile record, as produced."""

    index: int
    topic: str
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes | None]]
    mutations: tuple[str, ...]
    retry_due_ms: int | None  # the latest whole-number x-retry-due or x-retry-not-before of a retry record

    @property
    def stored_size(self) -> int:
        """The bytes the broker keeps for this record: key, value and headers (names and values), plus the
        record's own framing (varints, timestamps; generously 64 bytes). The dev broker's 5 MiB per partition
        counts all of it: 100 KB headers on a few small records weigh more than their values."""
        headers = sum(len(name.encode()) + len(value or b"") for name, value in self.headers)
        return len(self.key or b"") + len(self.value or b"") + headers + 64

    def summary(self) -> "RecordSummary":
        return RecordSummary(self.index, self.topic, len(self.value) if self.value is not None else None,
                             self.mutations, claimed_positions(self.headers), self.retry_due_ms,
                             hashlib.sha256(self.value or b"").hexdigest())


@dataclass(frozen=True)
class RecordSummary:
    """What the runner and the accounting keep of a produced record: everything but its bytes."""

    index: int
    topic: str
    size: int | None  # None: a null value
    mutations: tuple[str, ...]
    claimed: tuple[Position, ...]  # source positions its x-source-* headers name (a worker may believe them)
    retry_due_ms: int | None
    value_hash: str  # SHA-256 of the value (of nothing for a null value)

    def describe(self) -> str:
        size = "null" if self.size is None else self.size
        return f"record {self.index} ({self.topic}, {size} bytes, mutations: {', '.join(self.mutations) or 'none'})"


def claimed_positions(headers: list[tuple[str, bytes | None]]) -> tuple[Position, ...]:
    """The source positions that `x-source-topic`, `-partition` and `-offset` name, read as Swift reads whole
    numbers (optional sign, digits only), from the first and from the last header of each name."""
    def named(pick) -> Position | None:
        values = {}
        for name in ("x-source-topic", "x-source-partition", "x-source-offset"):
            texts = [value.decode("utf-8", "replace") for header, value in headers if header == name and value]
            if not texts:
                return None
            values[name] = pick(texts)
        partition, offset = values["x-source-partition"], values["x-source-offset"]
        if not WHOLE_NUMBER.fullmatch(partition) or not WHOLE_NUMBER.fullmatch(offset):
            return None
        return (values["x-source-topic"], int(partition), int(offset))
    return tuple({position for position in (named(lambda texts: texts[0]), named(lambda texts: texts[-1]))
                  if position is not None})


def token_hash(token: str) -> str:
    """The receipts' `tokenHash` of a device token."""
    return "sha256:" + hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def devices_of(value: bytes | None) -> tuple[bool, set[str] | None]:
    """How Python reads `value`: (is a JSON object, the token hashes of its devices or None when a device's token is
    not a text). A decoding worker must account for each of these devices; one that refuses the record must
    dead-letter it."""
    if value is None:
        return False, set()
    try:
        event = json.loads(value)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False, set()
    if not isinstance(event, dict):
        return False, set()
    hashes: set[str] = set()
    recipients = event.get("recipients")
    for recipient in recipients if isinstance(recipients, list) else []:
        devices = recipient.get("devices") if isinstance(recipient, dict) else None
        for device in devices if isinstance(devices, list) else []:
            token = device.get("token") if isinstance(device, dict) else None
            if not isinstance(token, str):
                return True, None
            hashes.add(token_hash(token))
    return True, hashes


def section(event: dict, name: str) -> dict:
    """`event[name]` as an object to mutate, made one if an earlier mutation left something else there."""
    if not isinstance(event.get(name), dict):
        event[name] = {}
    return event[name]


def first_recipient(event: dict) -> dict:
    """The first recipient as an object to mutate, made one if an earlier mutation left something else there."""
    if not isinstance(event.get("recipients"), list) or not event["recipients"]:
        event["recipients"] = [{"userId": "u-0", "devices": []}]
    if not isinstance(event["recipients"][0], dict):
        event["recipients"][0] = {"userId": "u-0", "devices": []}
    return event["recipients"][0]


def put(event: dict, field: str, value: object) -> None:
    """Sets `field` of `event`: a top-level member, one of `room.*`, `sender.*` and `target.*`, a first recipient's
    `badge`, `userId`, `muted` or `locale`, or `devices.sandbox` (every device of the first recipient)."""
    owner, _, name = field.rpartition(".")
    if field in ("badge", "userId", "muted", "locale"):
        first_recipient(event)[field] = value
    elif field == "devices.sandbox":
        devices = first_recipient(event).get("devices")
        for device in devices if isinstance(devices, list) else []:
            if isinstance(device, dict):
                device["sandbox"] = value
    elif owner:
        section(event, owner)[name] = value
    else:
        event[field] = value


class Generator:
    """Seeded hostile records; `record(index)` is the same for the same seed, index and `now_ms`."""

    def __init__(self, seed: int, now_ms: int, examples: Path, input_topic: str, retry_topics: list[str],
                 rooms: int = 64):
        self.seed = seed
        self.now_ms = now_ms
        self.input_topic = input_topic
        self.retry_topics = retry_topics
        self.rooms = rooms
        self.examples = [json.loads(path.read_text()) for path in sorted(examples.glob("*.json"))]
        self.value_mutations = [
            self.extreme_created_at, self.extreme_numbers, self.huge_type, self.long_ids, self.huge_content,
            self.hostile_room_id, self.hostile_strings, self.wrong_types, self.many_devices, self.deep_nesting,
            self.missing_fields, self.hostile_devices, self.near_one_megabyte,
        ]
        self.text_mutations = [self.duplicate_keys, self.invalid_utf8, self.lone_surrogate_escape]
        self.byte_mutations = [self.truncate, self.flip_bytes, self.not_json, self.null_value, self.bom_and_spaces]

    def record(self, index: int) -> FuzzRecord:
        rng = random.Random(f"{self.seed}:{index}")
        event = self.fresh_event(rng, index)
        mutations: list[str] = []
        on_retry_topic = rng.random() < 0.05
        draw = rng.random()
        if draw >= 0.2:  # one in five stays well-formed, so deliveries keep flowing beside the hostile ones
            big = rng.random() < BIG_SHARE and not on_retry_topic  # a paused retry partition must not fill up
            for mutation in rng.sample(self.value_mutations, rng.choice([1, 1, 1, 2, 3])):
                mutations.append(mutation(rng, event, big))
        value: bytes | None = self.encode(event, ascii_only=rng.random() < 0.5)
        if draw >= 0.2 and rng.random() < 0.25:
            mutation = rng.choice(self.text_mutations)
            mutations.append(mutation.__name__)
            value = mutation(rng, value)
        if draw >= 0.2 and rng.random() < 0.15:
            mutation = rng.choice(self.byte_mutations)
            mutations.append(mutation.__name__)
            value = mutation(rng, value)
        key = self.key(rng, event, mutations)
        headers = self.headers(rng, index, mutations, on_retry_topic)
        dues = [int(text) for name, text in headers if name in ("x-retry-due", "x-retry-not-before")
                and text is not None and text.removeprefix(b"-").isdigit()]
        topic = rng.choice(self.retry_topics) if on_retry_topic else self.input_topic
        return FuzzRecord(index, topic, key, value, headers, tuple(mutations),
                          max(dues) if on_retry_topic and dues else None)

    @staticmethod
    def encode(event: dict, ascii_only: bool) -> bytes:
        """The event as JSON, with the generator's placeholders spliced in: deep nesting and padding."""
        depth = event.pop("__deep__", None)
        size = event.pop("__pad_to__", None)
        value = json.dumps(event, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
        if depth:
            value = value.replace(b'"__DEEP__"', b"[" * depth + b"]" * depth, 1)
        if size and len(value) + 16 < size and value.startswith(b"{"):
            value = b'{"padding": "' + b"p" * (size - len(value) - 16) + b'", ' + value[1:]
        return value

    # The well-formed start

    def fresh_event(self, rng: random.Random, index: int) -> dict:
        event = json.loads(json.dumps(rng.choice(self.examples)))
        event["id"] = f"fz{self.seed}-{index}"
        room = f"r-{rng.randrange(self.rooms)}"
        section(event, "room")["id"] = room
        event["createdAt"] = self.rfc3339(self.now_ms + rng.randint(-60_000, 0))
        if isinstance(event.get("payload"), dict):
            event["payload"]["messageId"] = event["id"]
            event["payload"]["roomId"] = room
        for recipient in event.get("recipients", []):
            for device in recipient.get("devices", []):
                device["token"] = self.token(rng, device.get("platform", "apns"))
        return event

    @staticmethod
    def token(rng: random.Random, platform: str) -> str:
        if platform == "fcm":
            return "fz" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789-_:") for _ in range(60))
        return "".join(rng.choice("0123456789abcdef") for _ in range(64))

    @staticmethod
    def rfc3339(milliseconds: int) -> str:
        seconds, millis = divmod(milliseconds, 1000)
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"

    # Mutations of the decoded event; each returns its name

    def extreme_created_at(self, rng: random.Random, event: dict, big: bool) -> str:
        choice = rng.choice(HOSTILE_TIMES + ["future", "past"])
        if choice == "future":
            choice = self.now_ms + rng.choice([10**9, 10**11, 10**13, 3_155_760_000_000 * 2])
        elif choice == "past":
            choice = self.now_ms - rng.choice([10**11, 3_155_760_000_000 * 2, 10**15])
        event["createdAt"] = choice
        return f"createdAt={choice!r}"[:60]

    @staticmethod
    def extreme_numbers(rng: random.Random, event: dict, big: bool) -> str:
        number = rng.choice(EXTREME_NUMBERS)
        field = rng.choice(["badge", "id", "room.id", "sender.id", "content", "userId", "muted", "devices.sandbox"])
        put(event, field, number)
        return f"{field}={number!r}"[:60]

    @staticmethod
    def huge_type(rng: random.Random, event: dict, big: bool) -> str:
        size = rng.choice([100_000, 1_000_000] if big else [300, 5_000])
        event["type"] = rng.choice(["x", "\u00e9", "\U0001F600", "\u0001"]) * size
        return f"type of {size} characters"

    @staticmethod
    def long_ids(rng: random.Random, event: dict, big: bool) -> str:
        size = rng.choice([70_000, 500_000] if big else [256, 4_096])
        field = rng.choice(["id", "room.id", "sender.id", "sender.nickname", "room.name", "userId", "locale"])
        put(event, field, f"{event.get('id')}{'i' * size}" if field == "id" else "i" * size)
        return f"{field} of {size} characters"

    @staticmethod
    def huge_content(rng: random.Random, event: dict, big: bool) -> str:
        size = rng.choice([50_000, 200_000] if big else [300, 5_000])
        event["content"] = "".join(rng.choice(["a", "\u00e9", "\u4e2d", "\U0001F600", "e\u0301", " "])
                                   for _ in range(size // 50)) * 50
        if rng.random() < 0.5:
            count = rng.choice([200, 2_000] if big else [2, 10])
            first_recipient(event)["devices"] = [{"platform": "fcm", "token": Generator.token(rng, "fcm")}
                                                 for _ in range(count)]
        return f"content of {size} characters"

    @staticmethod
    def hostile_room_id(rng: random.Random, event: dict, big: bool) -> str:
        room = rng.choice(HOSTILE_ROOM_IDS)
        section(event, "room")["id"] = room
        return f"room.id={room[:20]!r}"

    @staticmethod
    def hostile_strings(rng: random.Random, event: dict, big: bool) -> str:
        text = rng.choice(HOSTILE_STRINGS)
        field = rng.choice(["content", "sender.nickname", "room.name", "target.nickname", "type", "locale"])
        put(event, field, text)
        return f"{field}={text[:12]!r}"

    @staticmethod
    def wrong_types(rng: random.Random, event: dict, big: bool) -> str:
        field = rng.choice(["recipients", "room", "sender", "payload", "devices", "target", "type", "createdAt"])
        value = rng.choice([None, 5, "x", [], {}, [[]], [None], True, -1.5])
        if field == "devices":
            first_recipient(event)["devices"] = value
        else:
            event[field] = value
        return f"{field}={value!r}"

    @staticmethod
    def many_devices(rng: random.Random, event: dict, big: bool) -> str:
        count = rng.choice([1_000, 2_000] if big else [0, 1, 20])
        users = rng.choice([1, count // 10 or 1])
        event["recipients"] = [
            {"userId": f"u-{user}", "badge": user,
             "devices": [{"platform": rng.choice(["apns", "fcm", "apns-voip"]),
                          "token": ""} for _ in range(count // users)]}
            for user in range(users)
        ] if count else []
        for recipient in event["recipients"]:
            for device in recipient["devices"]:
                device["token"] = Generator.token(rng, device["platform"])
        return f"{count} devices"

    @staticmethod
    def deep_nesting(rng: random.Random, event: dict, big: bool) -> str:
        depth = rng.choice([100_000, 500_000] if big else [100, 1_000])
        # Built as text: Python's own encoder would recurse. Spliced into the payload by a placeholder.
        event["payload"] = {"deep": "__DEEP__"}
        event["__deep__"] = depth
        return f"payload nested {depth} deep"

    @staticmethod
    def missing_fields(rng: random.Random, event: dict, big: bool) -> str:
        field = rng.choice(["id", "type", "room", "sender", "recipients", "createdAt"])
        event.pop(field, None)
        return f"no {field}"

    @staticmethod
    def hostile_devices(rng: random.Random, event: dict, big: bool) -> str:
        recipients = [first_recipient(event)]
        devices = recipients[0].get("devices")
        devices = [device for device in devices if isinstance(device, dict)] if isinstance(devices, list) else []
        if not devices:
            return "no devices to spoil"
        device = rng.choice(devices)
        change = rng.choice(["platform", "token", "topic", "duplicate"])
        if change == "platform":
            device["platform"] = rng.choice(["", "APNS", "web", "apns\u0000", "fcm " * 100])
        elif change == "token":
            device["token"] = rng.choice(["", "zz" * 32, "ab" * 5000, "a/b", "../../x", "\u00e9" * 64, "0" * 63])
        elif change == "topic":
            device["topic"] = rng.choice(["", "com.evil\r\nx-injected: 1", "t" * 10_000, "com.example.chat.voip"])
        else:
            devices.extend([dict(device)] * 3)
            recipients[0]["devices"] = devices
        return f"device {change}"

    @staticmethod
    def near_one_megabyte(rng: random.Random, event: dict, big: bool) -> str:
        target = rng.choice(NEAR_ONE_MB if big else [4_000, 65_536])
        event["__pad_to__"] = target
        return f"value of {target} bytes"

    # Mutations of the encoded text

    @staticmethod
    def duplicate_keys(rng: random.Random, value: bytes) -> bytes:
        name = rng.choice([b'"id"', b'"type"', b'"room"', b'"recipients"', b'"createdAt"', b'"token"'])
        duplicate = {b'"id"': b'"id": "dup"', b'"type"': b'"type": "encrypted"', b'"room"': b'"room": {"id": "r-x"}',
                     b'"recipients"': b'"recipients": []', b'"createdAt"': b'"createdAt": 0',
                     b'"token"': b'"token": "00"'}[name]
        if value.startswith(b"{"):
            return b"{" + duplicate + b", " + value[1:]
        return value

    @staticmethod
    def invalid_utf8(rng: random.Random, value: bytes) -> bytes:
        position = value.find(b'"', rng.randrange(max(1, len(value))))
        if position < 0:
            return value + rng.choice(INVALID_UTF8)
        return value[:position + 1] + rng.choice(INVALID_UTF8) + value[position + 1:]

    @staticmethod
    def lone_surrogate_escape(rng: random.Random, value: bytes) -> bytes:
        high = value.replace(b'"content": "', b'"content": "\\ud83d', 1)
        return high.replace(b'"nickname": "', b'"nickname": "\\udc00', 1)

    # Damage to the bytes

    @staticmethod
    def truncate(rng: random.Random, value: bytes) -> bytes:
        return value[:rng.randrange(max(1, len(value)))]

    @staticmethod
    def flip_bytes(rng: random.Random, value: bytes) -> bytes:
        damaged = bytearray(value)
        for _ in range(rng.randint(1, 8)):
            if damaged:
                damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        return bytes(damaged)

    @staticmethod
    def not_json(rng: random.Random, value: bytes) -> bytes:
        return rng.choice([b"", b"\x00" * 100, b"null", b"[]", b"42", b'"text"', b"{}", b"{" * 10_000, b"\xef\xbb\xbf"])

    @staticmethod
    def null_value(rng: random.Random, value: bytes) -> None:
        return None

    @staticmethod
    def bom_and_spaces(rng: random.Random, value: bytes) -> bytes:
        return rng.choice([b"\xef\xbb\xbf", b" \n\t", b"\x00"]) + value + rng.choice([b"", b" ", b"\x00", b"}"])

    # Keys and headers

    @staticmethod
    def key(rng: random.Random, event: dict, mutations: list[str]) -> bytes | None:
        room = section(event, "room").get("id")
        key = str(room).encode("utf-8", "surrogatepass") if room is not None else b"none"
        if rng.random() < 0.05:
            key = rng.choice([None, b"", b"\xff\xfe", b"k" * 100_000, b"\x00"])
            mutations.append(f"key={key[:8] if key else key!r}")
        return key

    def headers(self, rng: random.Random, index: int, mutations: list[str], on_retry_topic: bool
                ) -> list[tuple[str, bytes | None]]:
        headers: list[tuple[str, bytes | None]] = []
        if on_retry_topic:
            headers.append(("x-retry-due", self.hostile_due(rng).encode()))
            headers.append(("x-attempts", rng.choice(HEADER_NUMBERS + ["1", "7", "8", "9"]).encode()))
            if rng.random() < 0.3:
                headers.append(("x-retry-not-before", self.hostile_due(rng).encode()))
            mutations.append("retry headers " + ", ".join(value.decode() for _, value in headers)[:60])
        if rng.random() < (0.6 if on_retry_topic else 0.15):
            if rng.random() < 0.5:
                headers += [("x-source-topic", FORGED_TOPIC.encode()), ("x-source-partition", b"0"),
                            ("x-source-offset", str(index).encode())]
                mutations.append("forged x-source-*")
            else:
                headers += [("x-source-topic", b"\xff\x00"), ("x-source-partition", b"x"),
                            ("x-source-offset", b"-")]
                mutations.append("garbage x-source-*")
        if rng.random() < (0.5 if on_retry_topic else 0.15):
            for _ in range(rng.randint(1, 4)):
                name = rng.choice(FAILURE_HEADERS + ["x-attempts", "x-attempts"])
                value = rng.choice([*[number.encode() for number in HEADER_NUMBERS], None, b"\xff", b"h" * 100_000])
                headers.append((name, value))
            mutations.append("hostile failure headers")
        if rng.random() < (0.5 if on_retry_topic else 0.2):
            for name in rng.sample(sorted(CARRIED_HEADER_VALUES), rng.choice([1, 2])):
                own = RETRY_RUN_ID if on_retry_topic else INPUT_RUN_ID
                for _ in range(rng.choice([1, 1, 2])):
                    headers.append((name, rng.choice([*CARRIED_HEADER_VALUES[name], own, own]) if name ==
                                    "x-replay-run-id" else rng.choice(CARRIED_HEADER_VALUES[name])))
            # Once in a hundred, the 350 KB run id that once made every receipt 350 KB.
            if rng.random() < BIG_SHARE and not on_retry_topic:
                headers.append(("x-replay-run-id", b"r" * 350_000))
            mutations.append("hostile carried headers")
        return headers

    def hostile_due(self, rng: random.Random) -> str:
        return rng.choice([*HEADER_NUMBERS, str(self.now_ms - 1000), str(self.now_ms + 2000), str(self.now_ms),
                           str(self.now_ms + 10**12), str(self.now_ms - 10**12)])

