"""The demo's ingress scene: `push-worker ingress` as IMKIT's external push service.

Three devices of app SampleApp go into the device registry; then an IMKIT v2 callback (`PUSH_GENERIC`, the key in
the URL as IMKIT's setting carries it) and a custom push (`/push/push2clients` with `IM-API-KEY`) are posted to the
ingress, which answers once Kafka has each record. The running worker delivers both through the registry; the
scene shows the answers, the receipts and what the simulator received.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

from processes import Child, ProcessFailed

APP = "SampleApp"
KEY = "demo-ingress-key"
DEVICES = [  # client, type, device id, token
    ("aaa", "ios", "D1", "a1" * 32),
    ("aaa", "fcm", "P1", "fcm-token-of-aaa"),
    ("bbb", "ios", "D2", "b2" * 32),
]
CALLBACK = {"_id": "imkit-demo-1", "message": "lala", "room": "demo-room", "roomName": "Demo Room",
            "sender": {"_id": "sss", "nickname": "SSS"}, "messageType": "text", "appID": APP,
            "messageTimeMS": 0, "pushToClients": ["aaa", "bbb", "zzz"]}
CUSTOM = {"clients": ["aaa", "bbb"],
          "payload": {"type": "promotion", "alert": "Your order has shipped", "title": "Order update", "badge": 1,
                      "sound": "default", "icon": "ic_box", "collapseKey": "orders", "orderId": "o-1042"}}
WAIT = 60


def say(line: str) -> None:
    print(f"demo: {line}", flush=True)


def run(demo, servers: str) -> list[str]:
    """Plays the scene against the demo's broker, worker and simulator; returns what went wrong (empty if all
    was seen)."""
    say("ingress scene: IMKIT's PUSH_GENERIC callback and a push2clients call through push-worker ingress")
    register_devices(demo, servers)
    ingress = Child("push-worker ingress", [str(demo.worker_binary), "ingress"], demo.directory / "ingress.log", {
        "LOG_LEVEL": "info", "KAFKA_BOOTSTRAP_SERVERS": servers, "PUSH_INGRESS_KEYS": f"{APP}:{KEY}",
        "PUSH_INGRESS_HOST": "127.0.0.1", "PUSH_INGRESS_PORT": "0", "PUSH_HTTP_HOST": "127.0.0.1",
        "PUSH_HTTP_PORT": "0"})
    demo.children.append(ingress)
    log = ingress.ready(lambda text: '"message":"ingress listening"' in text, "'ingress listening'")
    port = next(json.loads(line)["metadata"]["http.port"] for line in log.splitlines()
                if '"message":"ingress listening"' in line)
    base = f"http://127.0.0.1:{port}"
    since = max((request["seq"] for request in demo.control("GET", "/requests")["requests"]), default=0)
    callback = dict(CALLBACK, messageTimeMS=int(time.time() * 1000))
    answers = [post(f"{base}/imkit/push/v2?key=<key>", f"{base}/imkit/push/v2?key={KEY}", callback, {}),
               post(f"{base}/push/push2clients", f"{base}/push/push2clients", CUSTOM, {"IM-API-KEY": KEY}),
               post(f"{base}/push/push2clients (wrong key)", f"{base}/push/push2clients", CUSTOM,
                    {"IM-API-KEY": "not-the-key"})]
    receipts = read_receipts(servers, count=7)
    requests = demo.control("GET", f"/requests?since={since}")["requests"]
    status = ingress.stop()
    demo.children.remove(ingress)
    for receipt in receipts:
        say(f"  receipt {receipt['type']:>9} {receipt['messageId'][:13]:<13} {receipt['userId']} "
            f"{receipt['platform']:<4} {receipt['status']}{' ' + receipt['reason'] if receipt['reason'] else ''}")
    # The pushes only: an app's first FCM message also fetches its OAuth token (/token).
    for request in requests:
        if request["path"].startswith("/3/device/") or request["path"].endswith("messages:send"):
            say(f"  simulator got {request['method']} {shorten(request['path'])}: {summary(request)}")
    say(f"push-worker ingress stopped with SIGTERM: exit status {status}")
    problems = []
    if [answer for answer, _ in answers] != [200, 200, 401]:
        problems.append(f"ingress answers {[answer for answer, _ in answers]}, expected [200, 200, 401]")
    delivered = sum(receipt["status"] == "delivered" for receipt in receipts)
    if len(receipts) != 7 or delivered != 6:
        problems.append(f"ingress scene: {len(receipts)} receipts ({delivered} delivered), expected 7 (6 delivered)")
    if status != 0:
        problems.append(f"push-worker ingress exited with status {status} after SIGTERM, not 0")
    return problems


def register_devices(demo, servers: str) -> None:
    """Writes the subscriptions to push.devices and waits until the worker's registry holds them."""
    producer = Producer({"bootstrap.servers": servers})
    for client, kind, device, token in DEVICES:
        value = {"appID": APP, "clientId": client, "type": kind, "token": token, "deviceId": device}
        producer.produce("push.devices", key=f"{APP}/{client}/{kind}/{device}".encode(), value=json.dumps(value))
    if producer.flush(30):
        raise ProcessFailed("writing the ingress scene's devices timed out")
    deadline = time.monotonic() + WAIT
    while registry_devices(demo.metrics()) < len(DEVICES):
        if time.monotonic() > deadline:
            raise ProcessFailed(f"the worker's registry did not list the {len(DEVICES)} devices within {WAIT} s")
        time.sleep(0.1)
    say(f"registered {len(DEVICES)} devices of {APP} (aaa: ios + fcm, bbb: ios) in push.devices; "
        f"the worker follows them")


def registry_devices(metrics: str) -> float:
    for line in metrics.splitlines():
        if line.startswith("push_registry_devices "):
            return float(line.split()[1])
    return 0


def post(shown: str, url: str, body: dict, headers: dict[str, str]) -> tuple[int, str]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json; charset=utf-8", **headers})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            answer = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        answer = error.code, error.read().decode()
    say(f"POST {shown} → {answer[0]} {answer[1]}")
    return answer


def read_receipts(servers: str, count: int) -> list[dict]:
    """The receipts of the scene's two pushes (the callback's id and type `promotion`), until `count` arrived."""
    consumer = Consumer({"bootstrap.servers": servers, "group.id": "demo-ingress-reader", "enable.auto.commit": False})
    partitions = consumer.list_topics("push.receipts", timeout=10).topics["push.receipts"].partitions
    consumer.assign([TopicPartition("push.receipts", partition, OFFSET_BEGINNING) for partition in partitions])
    receipts: list[dict] = []
    deadline = time.monotonic() + WAIT
    try:
        while len(receipts) < count and time.monotonic() < deadline:
            for message in consumer.consume(500, 0.2):
                if message.error() or not message.value():
                    continue
                receipt = json.loads(message.value())
                if receipt["messageId"] == CALLBACK["_id"] or receipt["type"] == CUSTOM["payload"]["type"]:
                    receipts.append(receipt)
    finally:
        consumer.close()
    return sorted(receipts, key=lambda receipt: (receipt["messageId"], receipt["userId"], receipt["platform"]))


def shorten(path: str) -> str:
    """A device path with its token cut short."""
    head, _, token = path.rpartition("/")
    return f"{head}/{token[:8]}…" if head == "/3/device" else path


def summary(request: dict) -> str:
    body = json.loads(request["body"])
    if "aps" in body:
        return f"aps {json.dumps(body['aps'], ensure_ascii=False)}, topic {request['headers'].get('apns-topic')}"
    message = body["message"]
    parts = [f"notification {json.dumps(message.get('notification'), ensure_ascii=False)}",
             f"android.notification {json.dumps(message['android'].get('notification'), ensure_ascii=False)}"]
    if "collapse_key" in message["android"]:
        parts.append(f"collapse_key {message['android']['collapse_key']}")
    parts.append(f"data.type {message['data'].get('type')}")
    return ", ".join(parts)
