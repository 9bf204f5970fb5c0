"""The demo's IMKIT scene: one IMKIT v2 message (`pushToClients`) to clients subscribed through `push-worker
devices`, resolved through the device registry the worker follows. One client is muted in the room, one has two
phones and a browser, one has none; the report shows each client's resolution and what the browser's service worker
received (the push simulator's Web Push service decrypts it), and the scene checks both.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Callable

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

APP = "SampleApp"
ROOM = "demo-room"
MESSAGE_ID = "imkit-scene-1"
PARTITIONS = 3
WAIT_SECONDS = 30
# (client, type, device id, token): mina's iPhone, jun's iPhone and Android phone; sora subscribed nothing.
DEVICES = [
    ("mina", "ios", "mina-iphone", "1c" * 32),
    ("jun", "ios", "jun-iphone", "2d" * 32),
    ("jun", "fcm", "jun-android", "jun-android-registration-token"),
]
# (client, platform) → (status, reason) of its receipt.
EXPECTED = {
    ("mina", "apns"): ("skipped", "muted"),
    ("jun", "apns"): ("delivered", None),
    ("jun", "fcm"): ("delivered", None),
    ("jun", "web"): ("delivered", None),
    ("sora", "none"): ("skipped", "no_devices"),
}


def write_vapid_key(folder: Path) -> None:
    """The app's VAPID key and subject, for its browsers (docs/webpush.md)."""
    key = ec.generate_private_key(ec.SECP256R1())
    (folder / "webpush-vapid.pem").write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    (folder / "webpush.json").write_text(json.dumps({"subject": "mailto:push@example.com"}))


def run(worker_binary: Path, servers: str, metrics: Callable[[], str], say: Callable[[str], None],
        control: Callable[..., dict], simulator_url: str) -> list[str]:
    """Subscribes the devices (jun's browser at the simulator's Web Push service), mutes mina in the room, waits
    until the worker's registry holds them, sends the message and prints its resolution and what the browser
    received; returns what did not come out as expected."""
    environment = {"KAFKA_BOOTSTRAP_SERVERS": servers, "LOG_LEVEL": "warning"}
    devices_before, settings_before = registry_counts(metrics())
    browser = control("POST", "/control/webpush-subscribe", {"origin": simulator_url})
    for client, kind, device, token in DEVICES + [("jun", "web", "jun-browser", browser["subscription"])]:
        subprocess.run([str(worker_binary), "devices", "subscribe", "--app", APP, "--client", client, "--type", kind,
                        "--device", device, "--token", token], env=environment, check=True, capture_output=True)
    producer = Producer({"bootstrap.servers": servers})
    producer.produce("push.clients", key=f"{APP}/mina".encode(),
                     value=json.dumps({"appID": APP, "clientId": "mina", "mute": [ROOM]}).encode())
    producer.flush(10)
    say(f"IMKIT: subscribed {len(DEVICES) + 1} devices with `push-worker devices subscribe` (mina's iPhone, jun's "
        f"iPhone, Android phone and browser; sora none) and muted {ROOM} for mina on push.clients")
    if not registry_holds(metrics, devices=devices_before + len(DEVICES) + 1, settings=settings_before + 1):
        return [f"the worker's registry did not show {len(DEVICES) + 1} devices within {WAIT_SECONDS} s"]
    message = {"_id": MESSAGE_ID, "message": "See you at 7", "room": ROOM, "roomName": "Demo Room",
               "sender": {"_id": "sss", "nickname": "SSS"}, "messageType": "text", "appID": APP,
               "messageTimeMS": int(time.time() * 1000), "pushToClients": ["mina", "jun", "sora"]}
    producer.produce("chat.messages", key=ROOM.encode(), value=json.dumps(message).encode())
    producer.flush(10)
    receipts = read_receipts(servers)
    print(f"\n== IMKIT message {MESSAGE_ID} to pushToClients [mina, jun, sora], resolved through push.devices "
          f"and push.clients")
    for receipt in sorted(receipts, key=lambda r: (r["userId"], r["platform"])):
        print(f"   {receipt['userId']:<6}{receipt['platform']:<6}{receipt['status']:<11}{receipt['reason'] or ''}")
    messages = control("POST", "/control/webpush-messages", {"id": browser["id"]})["messages"]
    for message in messages:
        print(f"   jun's browser: the service worker read {json.dumps(message['payload'], ensure_ascii=False)[:300]}")
        print(f"   (Urgency {message['headers']['urgency']}, TTL {message['headers']['ttl']}, VAPID aud "
              f"{message['vapid']['aud']}, sub {message['vapid']['sub']})")
    seen = {(r["userId"], r["platform"]): (r["status"], r["reason"]) for r in receipts}
    if not any(message["payload"].get("mid") == MESSAGE_ID for message in messages):
        seen[("jun", "web")] = ("not decrypted by the simulator", None)
    return [f"IMKIT: {client} {platform} should be {status} {reason or ''}, not {seen.get((client, platform))}"
            for (client, platform), (status, reason) in EXPECTED.items() if seen.get((client, platform)) !=
            (status, reason)]


def registry_counts(scrape: str) -> tuple[float, float]:
    """The worker's `push_registry_devices` and `push_registry_settings` in a scrape (other scenes add theirs)."""
    values = dict(line.split(" ", 1) for line in scrape.splitlines()
                  if line.startswith(("push_registry_devices ", "push_registry_settings ")))
    return float(values.get("push_registry_devices", 0)), float(values.get("push_registry_settings", 0))


def registry_holds(metrics: Callable[[], str], devices: float, settings: float) -> bool:
    """Whether the worker's registry reaches `devices` and `settings` in time."""
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        held_devices, held_settings = registry_counts(metrics())
        if held_devices >= devices and held_settings >= settings:
            return True
        time.sleep(0.2)
    return False


def read_receipts(servers: str) -> list[dict]:
    """The message's receipts, read until one per expected device arrived (at most `WAIT_SECONDS`)."""
    consumer = Consumer({"bootstrap.servers": servers, "group.id": "demo-imkit-reader", "enable.auto.commit": False})
    consumer.assign([TopicPartition("push.receipts", partition, OFFSET_BEGINNING) for partition in range(PARTITIONS)])
    receipts: list[dict] = []
    deadline = time.monotonic() + WAIT_SECONDS
    try:
        while len(receipts) < len(EXPECTED) and time.monotonic() < deadline:
            for record in consumer.consume(500, 0.2):
                if not record.error() and record.value():
                    receipt = json.loads(record.value())
                    if receipt.get("messageId") == MESSAGE_ID:
                        receipts.append(receipt)
    finally:
        consumer.close()
    return receipts
