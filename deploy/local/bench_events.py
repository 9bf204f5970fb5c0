"""What the benchmark writes: chat events (deterministic per seed) and the kcat producer that writes them."""

from __future__ import annotations

import json
import random
import subprocess
import time

from processes import popen


class EventFactory:
    """Chat events with 1-3 devices each, APNs and FCM mixed, over `rooms` rooms; deterministic per seed. With
    `single`, one device each: `apns`, `alternate` (APNs for even events, FCM for odd ones), or `web` (a push
    subscription at `web_origin`/wp/<n>, every one with the same keys: each message is still encrypted with a fresh
    key). With `members` (hot rooms), every room has that many members with one device each (APNs and FCM
    alternating), the same in every event of the room, and each event goes to `recipients` of them."""

    TYPES = ("text", "text", "text", "image", "sticker", "file")
    # A browser's keys (RFC 8291 Appendix A's receiver).
    WEB_KEYS = {"p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
                "auth": "BTBZMqHH6r4Tts7J_aSIgg"}

    def __init__(self, seed: int, rooms: int, prefix: str, fanout: int = 0, single: str = "", web_origin: str = "",
                 members: int = 0, recipients: int = 1):
        self.seed = seed
        self.random = random.Random(seed)
        self.rooms = rooms
        self.prefix = prefix
        self.count = 0
        self.sends = 0
        # Group-chat fan-out: this many recipients with one APNs and one FCM device each (0: one recipient, 1-3).
        self.fanout = fanout
        self.single = single
        self.web_origin = web_origin
        self.members = members
        self.recipients = recipients
        self.rooms_members: dict[str, list[dict]] = {}

    def room_members(self, room: str) -> list[dict]:
        """Hot rooms: `room`'s members, each with one device, drawn once from the seed and the room."""
        if room not in self.rooms_members:
            generator = random.Random(f"{self.seed}-{room}")
            self.rooms_members[room] = [
                {"userId": f"u-{generator.randrange(100000)}", "badge": generator.randrange(20), "muted": False,
                 "devices": [self.device("apns" if index % 2 == 0 else "fcm", generator)]}
                for index in range(self.members)]
        return self.rooms_members[room]

    @staticmethod
    def device(platform: str, generator: random.Random) -> dict:
        """An APNs or FCM device with a random token of its provider's shape."""
        if platform == "apns":
            return {"platform": "apns", "token": "%064x" % generator.getrandbits(256)}
        return {"platform": "fcm", "token": "f%0140x" % generator.getrandbits(560)}

    # The `createdAt` of a prepared event, replaced when it is written (`stamped`).
    UNSTAMPED_MS = 1
    UNSTAMPED = f'"createdAt":{UNSTAMPED_MS},'

    def prepared(self, count: int) -> list[tuple[str, str, str, int]]:
        """The next `count` events made ahead, as (room key, JSON value, message id, sends up to this event), their
        `createdAt` left to `stamped` when each is written: making them costs the driver about 0.1 s of CPU per 10k
        sends, which the worker would otherwise share during the case."""
        events = []
        for _ in range(count):
            key, value, message_id, _ = self.next(created=self.UNSTAMPED_MS)
            events.append((key, value, message_id, self.sends))
        return events

    @classmethod
    def stamped(cls, value: str, created: int) -> str:
        """A prepared event's value with `createdAt` = `created` (epoch ms)."""
        return value.replace(cls.UNSTAMPED, f'"createdAt":{created},', 1)

    def next(self, created: int | None = None) -> tuple[str, str, str, int]:
        """The next event as (room key, JSON value, message id, createdAt in epoch ms: `created`, else now)."""
        index = self.count
        self.count += 1
        generator = self.random
        room = f"r-{generator.randrange(self.rooms)}"
        if self.fanout:
            recipients = [{"userId": f"u-{generator.randrange(100000)}", "badge": generator.randrange(20),
                           "muted": False,
                           "devices": [self.device("apns", generator), self.device("fcm", generator)]}
                          for _ in range(self.fanout)]
        elif self.members:
            recipients = generator.sample(self.room_members(room), min(self.recipients, self.members))
        elif self.single:
            device = self.device("fcm" if self.single == "alternate" and index % 2 else "apns", generator)
            if self.single == "web":
                subscription = {"endpoint": f"{self.web_origin}/wp/{generator.getrandbits(96):024x}",
                                "keys": self.WEB_KEYS}
                device = {"platform": "web", "token": json.dumps(subscription, separators=(",", ":"))}
            recipients = [{"userId": f"u-{generator.randrange(100000)}", "badge": generator.randrange(20),
                           "muted": False, "devices": [device]}]
        else:
            devices = []
            for _ in range(generator.choice((1, 1, 2, 2, 3))):
                devices.append(self.device("apns" if generator.random() < 0.5 else "fcm", generator))
            recipients = [{"userId": f"u-{generator.randrange(100000)}", "badge": generator.randrange(20),
                           "muted": False, "devices": devices}]
        self.sends += sum(len(recipient["devices"]) for recipient in recipients)
        message_id = f"{self.prefix}-{index}"
        created = int(time.time() * 1000) if created is None else created
        event = {
            "id": message_id,
            "type": generator.choice(self.TYPES),
            "room": {"id": room, "name": f"Room {room}"},
            "sender": {"id": f"u-{generator.randrange(100000)}", "nickname": "Alice"},
            "content": "Hello there, this is a benchmark message " + "x" * generator.randrange(80),
            "createdAt": created,
            "recipients": recipients,
            "payload": {"messageId": message_id, "kind": "benchmark"},
        }
        return room, json.dumps(event, separators=(",", ":")), message_id, created


class Producer:
    """Writes `key<TAB>value` lines into `chat.messages` through kcat (its own librdkafka producer)."""

    def __init__(self, bootstrap: str, topic: str):
        self.process = popen(
            ["kcat", "-P", "-b", bootstrap, "-t", topic, "-K", "\t",
             "-X", "linger.ms=5", "-X", "batch.num.messages=2000", "-X", "queue.buffering.max.messages=500000"],
            stdin=subprocess.PIPE, text=True, bufsize=1 << 20)

    def write(self, lines: list[tuple[str, str]]) -> None:
        self.process.stdin.write("".join(f"{key}\t{value}\n" for key, value in lines))
        self.process.stdin.flush()

    def close(self) -> None:
        self.process.stdin.close()
        if self.process.wait(timeout=120) != 0:
            raise RuntimeError(f"kcat producer exited with {self.process.returncode}")
