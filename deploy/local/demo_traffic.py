"""The demo's sample chat traffic, the provider faults it meets, and what the worker must make of it.

Every event of schemas/examples/chat-message/ (each IMKIT type, plus unreadCount, call and poll, a type the
rules do not know) goes out stamped with the current time. Each reaches user u-2 (an iPhone on production APNs,
its PushKit token, an Android phone on FCM) and u-3 (an iPhone on sandbox APNs, muted for the text message).
On top of that: u-4, whose two tokens the simulator calls unregistered, gets the text message; u-5, whose token
is not a device token at all, gets the file message; and one record that is not JSON goes in between.
One more image message (image-four-languages.json) goes to u-11 to u-14, whose apps run in Korean, Japanese,
Traditional Chinese and English: each must get the fallback body in their own language.
Two text messages of the apps alpha and beta (`appID`, folders of PUSH_APPS_DIR with their own APNs key and FCM
project) go to u-21 and u-22: each must be signed with its app's key and sent to its app's project.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

TOPIC = "chat.messages"
ROOM = "r-42"
UNREGISTERED_APNS = "0f" * 32
UNREGISTERED_FCM = "fcm-token-of-an-uninstalled-app"
UNREGISTERED_SINCE_MS = 1_764_000_000_000  # 2025-11-24T16:00:00Z
MALFORMED_TOKEN = "not-a-device-token"
POISON = b'{"id": "m-poison", "type": "text", "room": {"id": "r-42"'
# The poison record goes in after this message, so the room's later messages show the partition flowing on.
POISON_AFTER = "m-1005"
# The image message sent to one recipient per language, and the fallback body each must read (the seeds' wording).
LANGUAGES_MESSAGE = "m-1401"
FALLBACK_BODIES = {
    "ko-KR": "Alice님이 사진을 보냈습니다",
    "ja": "Alice が画像を送信しました",
    "zh-TW": "Alice 傳送了一張圖片",
    "en-US": "Alice sent a photo",
}
# The apps of PUSH_APPS_DIR (demo.py writes their folders): the simulator gives each its own APNs key and FCM
# project `<app>-project`.
APPS = ["alpha", "beta"]


@dataclass(frozen=True)
class Device:
    user: str
    platform: str  # apns, apns-voip or fcm, as in the event
    token: str
    sandbox: bool = False

    @property
    def token_hash(self) -> str:
        return "sha256:" + hashlib.sha256(self.token.encode()).hexdigest()

    @property
    def label(self) -> str:
        kind = {"apns": "APNs sandbox" if self.sandbox else "APNs", "apns-voip": "PushKit", "fcm": "FCM"}
        return f"{self.user} {kind[self.platform]} {short(self.token)}"


@dataclass(frozen=True)
class Expectation:
    """An outcome other than 'delivered' or 'skipped (platform)' that one device send must have."""

    message: str
    device: Device
    status: str
    reason: str | None = None
    min_attempts: int = 0


@dataclass(frozen=True)
class Fault:
    """A fault rule for the simulator's control API, with the sentence the demo prints about it."""

    rule: dict
    description: str


def short(token: str) -> str:
    """A device token shortened for printing: never the whole token."""
    return token if len(token) <= 10 else f"{token[:6]}…{token[-4:]}"


def rfc3339_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Traffic:
    """The events (in the order they are produced), their devices, and the expected exceptional outcomes."""

    def __init__(self, examples: Path):
        self.events: list[dict] = []
        for path in sorted(examples.glob("*.json")):
            event = json.loads(path.read_text())
            event["createdAt"] = rfc3339_now()
            self.events.append(event)
        self.events.sort(key=lambda event: event["id"])
        by_type = {event["type"]: event for event in self.events}
        by_type["text"]["recipients"].append({"userId": "u-4", "badge": 1, "devices": [
            {"platform": "apns", "token": UNREGISTERED_APNS},
            {"platform": "fcm", "token": UNREGISTERED_FCM},
        ]})
        by_type["file"]["recipients"].append(
            {"userId": "u-5", "badge": 1, "devices": [{"platform": "apns", "token": MALFORMED_TOKEN}]})
        for number, app in enumerate(APPS, start=1):
            self.events.append({
                "id": f"m-20{number:02d}", "type": "text", "appID": app, "room": {"id": f"r-{app}"},
                "sender": {"id": "u-1", "nickname": "Alice"}, "content": f"Hello from {app}",
                "createdAt": rfc3339_now(),
                "recipients": [{"userId": f"u-2{number}", "devices": [
                    {"platform": "apns", "token": f"2{number}" * 32},
                    {"platform": "fcm", "token": f"fcm-token-of-{app}"},
                ]}],
            })

    def records(self) -> list[tuple[str, bytes]]:
        """(key, value) of every record to produce, in order: the events, and the poison record among them."""
        records = []
        for event in self.events:
            records.append((event["room"]["id"], json.dumps(event).encode()))
            if event["id"] == POISON_AFTER:
                records.append((ROOM, POISON))
        return records

    def devices(self) -> list[Device]:
        """Every device once, in the order of first appearance."""
        seen: dict[str, Device] = {}
        for _, _, device in self.sends():
            seen.setdefault(device.token_hash, device)
        return list(seen.values())

    def sends(self) -> list[tuple[dict, dict, Device]]:
        """(event, recipient, device) for every device of every event: one receipt each."""
        return [
            (event, recipient, Device(recipient["userId"], device["platform"], device["token"],
                                      bool(device.get("sandbox"))))
            for event in self.events
            for recipient in event["recipients"]
            for device in recipient["devices"]
        ]

    def localized_sends(self) -> list[tuple[str, Device]]:
        """(the recipient's locale, device) of every device of the message sent in every language."""
        return [(recipient["locale"], device) for event, recipient, device in self.sends()
                if event["id"] == LANGUAGES_MESSAGE]

    def receipt_keys(self) -> set[tuple[str, str, str]]:
        return {(event["id"], recipient["userId"], device.token_hash) for event, recipient, device in self.sends()}

    def expectations(self) -> list[Expectation]:
        devices = {(device.user, device.platform): device for device in self.devices()}
        return [
            Expectation("m-1000", devices["u-3", "apns"], "skipped", "muted"),
            Expectation("m-1000", devices["u-4", "apns"], "invalid_token", "Unregistered"),
            Expectation("m-1000", devices["u-4", "fcm"], "invalid_token", "UNREGISTERED"),
            Expectation("m-1006", devices["u-5", "apns"], "dead_lettered"),
            Expectation("m-1014", devices["u-2", "apns-voip"], "delivered", min_attempts=2),
        ]

    # Dead letters: the poison record as it was, and the file message narrowed to u-5's malformed token.
    expected_dead_letters = 2
    # Retry records: the call to the PushKit token, whose Retry-After is longer than the in-process budget.
    expected_retries = 1


RETRY_BUDGET_MS = 2000

FAULTS = [
    Fault({"path": "^/3/device/3f1c6a2b", "times": 2, "status": 503, "retry_after": 1,
           "body": {"reason": "ServiceUnavailable"}},
          "APNs answers 503 ServiceUnavailable, Retry-After 1 s, to the first 2 pushes to u-2's iPhone"),
    Fault({"path": "messages:send$", "times": 2, "status": 503, "retry_after": 1,
           "body": {"error": {"code": 503, "message": "The service is currently unavailable.", "status": "UNAVAILABLE",
                              "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                                           "errorCode": "UNAVAILABLE"}]}}},
          "FCM answers 503 UNAVAILABLE, Retry-After 1 s, to the first 2 messages"),
    Fault({"path": "^/3/device/a1b2c3d4", "times": 1, "status": 503, "retry_after": 3,
           "body": {"reason": "ServiceUnavailable"}},
          f"APNs answers 503, Retry-After 3 s, to the first VoIP push: longer than the {RETRY_BUDGET_MS // 1000} s "
          "in-process budget, so it goes through the 10 s retry tier push.retry-10000"),
]
