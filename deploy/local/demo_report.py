"""The demo's report: what each device received, the receipts, the retry and dead-letter records, a few metrics
and the worker's log, followed by the checks that make the demo pass or fail. Device tokens are always shortened.
"""

from __future__ import annotations

import base64
import contextlib
import json
import textwrap
from collections import Counter, defaultdict
from pathlib import Path

from demo_traffic import APPS, FALLBACK_BODIES, LANGUAGES_MESSAGE, POISON, Traffic, short

PLATFORMS = ("apns", "apns-voip", "fcm")
STATUSES = ("delivered", "skipped", "invalid_token", "dead_lettered", "expired", "rejected")
# Statuses the simulator answers in this demo: success, the injected 503s, and the two unregistered tokens.
EXPECTED_HTTP = {200, 503, 410, 404}


def clip(text: str, limit: int = 34) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def heading(title: str) -> None:
    print(f"\n== {title}")


def print_report(traffic: Traffic, outputs, requests: list[dict], metrics: str, log: Path) -> list[str]:
    """Prints the report; returns what is missing or wrong (empty when the demo passed)."""
    receipts = outputs.receipts()
    print_devices(traffic, receipts, requests)
    languages = print_languages(traffic, requests)
    apps = print_apps(requests)
    dead_tokens = print_receipts(receipts, outputs.invalid_tokens())
    print_failure_records("Retry records on the retry tiers push.retry-<delay ms>", outputs.retries())
    print_failure_records("Dead letters on push.dlq", outputs.records["push.dlq"])
    print_metrics(metrics)
    print_log(log)
    print()
    return check(traffic, receipts, outputs.records["push.dlq"], requests) + languages + apps + dead_tokens + room_order_problems(
        traffic, requests, outputs.retries())


# What each device received

def request_token(request: dict) -> str | None:
    if request["path"].startswith("/3/device/"):
        return request["path"].removeprefix("/3/device/")
    if request["path"].endswith("messages:send"):
        try:
            return json.loads(request["body"])["message"]["token"]
        except (ValueError, KeyError, TypeError):
            return None
    return None


COLUMNS = "   {:<8}{:<13}{:<5}{:<13}{:<20}{:<30}{:<40}{:<6}{}"


def alert_columns(kind: str, loc_key, loc_args, title, body, badge, sound) -> list[str]:
    return [kind, loc_key or "-", clip(json.dumps(loc_args or [], ensure_ascii=False), 28),
            clip(f"{title or '-'} / {body or '-'}", 38), str(badge if badge is not None else "-"), sound or "-"]


def describe_apns(headers: dict, body: dict) -> tuple[str, str, list[str]]:
    """(message id, type, columns from push type to sound) of an APNs request."""
    aps = body.get("aps", {})
    push_type = headers.get("apns-push-type", "?")
    if push_type == "voip":
        caller = body.get("caller", {}).get("name", "?")
        columns = ["voip", "-", "-", clip(f"call from {caller}: {json.dumps(body.get('payload'))}", 38), "-", "-"]
    elif push_type == "background":
        columns = ["background", "-", "-", "content-available: 1", str(body.get("badge", "-")), "-"]
    else:
        alert = aps.get("alert", {})
        columns = alert_columns(push_type, alert.get("loc-key"), alert.get("loc-args"), alert.get("title"),
                                alert.get("body"), aps.get("badge"), aps.get("sound"))
    return body.get("mid", "?"), body.get("type", "?"), columns


def describe_fcm(body: dict) -> tuple[str, str, list[str]]:
    """(message id, type, columns from message kind to sound) of an FCM request."""
    message = body.get("message", {})
    data = message.get("data", {})
    android = message.get("android", {})
    card = android.get("notification")
    if card is None:
        extra = {key: value for key, value in data.items() if key not in ("type", "room", "mid", "payload")}
        columns = ["data", "-", "-", clip(f"{android.get('priority', '-')} priority, {json.dumps(extra)}", 38),
                   data.get("badge", "-"), "-"]
    else:
        notification = message.get("notification", {})
        columns = alert_columns("notification", card.get("body_loc_key"), card.get("body_loc_args"),
                                notification.get("title"), notification.get("body"), card.get("notification_count"),
                                card.get("sound"))
    return data.get("mid", "?"), data.get("type", "?"), columns


def describe(request: dict) -> tuple[str, str, list[str]]:
    try:
        body = json.loads(request["body"])
    except ValueError:
        return "?", "?", ["body is not JSON"]
    if request["path"].startswith("/3/device/"):
        return describe_apns(request["headers"], body)
    return describe_fcm(body)


def answer(request: dict) -> str:
    """What a request that did not succeed was answered, in a few words."""
    status = request["status"]
    if request["fault"] == "status":
        return "injected fault" + (": the worker retries" if status == 429 or (status or 0) >= 500 else "")
    return {410: "Unregistered: the app is gone", 404: "UNREGISTERED: the app is gone"}.get(status, "refused")


def print_devices(traffic: Traffic, receipts: list[dict], requests: list[dict]) -> None:
    by_token: dict[str, list[dict]] = defaultdict(list)
    for request in sorted(requests, key=lambda request: request["seq"]):
        token = request_token(request)
        if token is not None:
            by_token[token].append(request)
    order = {event["id"]: index for index, event in enumerate(traffic.events)}
    types = {event["id"]: event["type"] for event in traffic.events}
    heading("What each device received (the push simulator's recorded requests, in order)")
    print(COLUMNS.format("message", "type", "HTTP", "kind", "loc-key", "loc-args", "title / body", "badge",
                         "sound"))
    for device in traffic.devices():
        print(f"\n{device.label}")
        for request in by_token.get(device.token, []):
            message, kind, columns = describe(request)
            if request["status"] != 200:
                columns = [answer(request)]
            print(COLUMNS.format(message, kind, request["status"] or "-", *columns, *[""] * (6 - len(columns)))
                  .rstrip())
        not_sent: dict[str, list[str]] = defaultdict(list)
        for receipt in sorted(receipts, key=lambda receipt: order.get(receipt["messageId"], 0)):
            if receipt["tokenHash"] == device.token_hash and receipt["status"] in ("skipped", "dead_lettered"):
                not_sent[f"{receipt['status']}, {receipt['reason']}"].append(types[receipt["messageId"]])
        for why, kinds in not_sent.items():
            print(textwrap.fill(f"not sent ({why}): {', '.join(kinds)}", 120, initial_indent="   ",
                                subsequent_indent="      "))


# The message in every language

def fallback_text(request: dict) -> tuple[str | None, str | None, list]:
    """(title, body, loc-args) of an alert request: APNs aps.alert, FCM message.notification."""
    body = json.loads(request["body"])
    if request["path"].startswith("/3/device/"):
        alert = body.get("aps", {}).get("alert", {})
        return alert.get("title"), alert.get("body"), alert.get("loc-args", [])
    message = body.get("message", {})
    notification = message.get("notification", {})
    card = message.get("android", {}).get("notification", {})
    return notification.get("title"), notification.get("body"), card.get("body_loc_args", [])


def print_languages(traffic: Traffic, requests: list[dict]) -> list[str]:
    """Prints what each recipient of the message in every language read; returns the bodies that are wrong."""
    heading(f"One image message ({LANGUAGES_MESSAGE}) to a recipient per language: the fallback body each read")
    problems = []
    delivered = {request_token(request): request for request in requests
                 if request["status"] == 200 and describe(request)[0] == LANGUAGES_MESSAGE}
    for locale, device in traffic.localized_sends():
        request = delivered.get(device.token)
        if request is None:
            problems.append(f"{LANGUAGES_MESSAGE} {device.label} ({locale}): no request delivered")
            continue
        title, body, loc_args = fallback_text(request)
        print(f"   {device.user} locale {locale:<6} {device.label.split(' ', 1)[1]:<22} title {title!r}  body {body!r}"
              f"  loc-args {json.dumps(loc_args, ensure_ascii=False)}")
        if body != FALLBACK_BODIES[locale]:
            problems.append(f"{LANGUAGES_MESSAGE} {device.label} ({locale}): body {body!r}, expected "
                            f"{FALLBACK_BODIES[locale]!r}")
    return problems


# Receipts

def signing_key(request: dict) -> str | None:
    """The `kid` of an APNs request's provider token."""
    token = request["headers"].get("authorization", "").partition(" ")[2]
    try:
        segment = token.split(".")[0]
        return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))).get("kid")
    except (ValueError, AttributeError):
        return None


def print_apps(requests: list[dict]) -> list[str]:
    """Which key signed each app's APNs pushes and which project its FCM messages went to; returns the apps
    whose accepted pushes went with another app's credentials."""
    heading("Apps of PUSH_APPS_DIR: which key signed, which project")
    problems = []
    keys = {request["headers"].get("apns-topic"): signing_key(request) for request in requests
            if request["path"].startswith("/3/device/") and request["status"] == 200}
    for app in APPS:
        key = keys.get(f"com.example.{app}")
        project = f"{app}-project"
        sent = [request for request in requests if request["path"] == f"/v1/projects/{project}/messages:send"
                and request["status"] == 200]
        print(f"   {app:<8} APNs topic com.example.{app} signed by key {key or '—'};  FCM project "
              f"{project if sent else '—'}")
        if key is None or key == keys.get("com.example.chat") or not sent:
            problems.append(f"app {app}: no APNs push signed with its own key or no FCM message to {project}")
    print(f"   default  APNs topic com.example.chat signed by key {keys.get('com.example.chat') or '—'}")
    return problems


def print_receipts(receipts: list[dict], invalid_tokens: dict[str, dict]) -> list[str]:
    """Prints the receipts; returns the problems with dead tokens (a raw token in a receipt, a dead token missing
    from push.invalid-tokens)."""
    problems = [f"receipt of {receipt['messageId']} {receipt['platform']} carries a raw token"
                for receipt in receipts if "token" in receipt]
    counts = Counter((receipt["status"], receipt["platform"]) for receipt in receipts)
    heading(f"Receipts on push.receipts: {len(receipts)}, one per device of every event")
    print(f"   {'status':<14}" + "".join(f"{platform:>10}" for platform in PLATFORMS) + f"{'total':>8}")
    for status in STATUSES:
        row = [counts[status, platform] for platform in PLATFORMS]
        if sum(row):
            print(f"   {status:<14}" + "".join(f"{count:>10}" for count in row) + f"{sum(row):>8}")
    reasons = Counter(receipt["reason"] for receipt in receipts if receipt["status"] == "skipped")
    print("   skipped because: " + ", ".join(f"{reason} {count}" for reason, count in reasons.most_common())
          + "  (platform: PushKit tokens get only calls, plain APNs tokens no calls)")
    for receipt in receipts:
        who = f"{receipt['messageId']} {receipt['type']} {receipt['userId']} {receipt['platform']}"
        if receipt["status"] == "invalid_token":
            record = invalid_tokens.get(f"{receipt['platform']}:{receipt['tokenHash']}")
            if record is None:
                problems.append(f"no push.invalid-tokens record for {who}")
                continue
            print(f"   invalid_token: {who}; push.invalid-tokens holds token {short(record['token'])} for its owner "
                  f"to delete ({record['reason']}, invalid since {record['invalidSince']}); later sends skip it")
        if receipt["status"] == "dead_lettered":
            print(f"   dead_lettered: {who} ({receipt['reason']})")
    retried = [receipt for receipt in receipts if receipt["attempts"] > 1]
    print(f"   attempts > 1: {len(retried)}")
    for receipt in retried:
        print(f"      {receipt['messageId']} {receipt['type']} {receipt['userId']} {receipt['platform']}: "
              f"{receipt['status']} after {receipt['attempts']} attempts")
    return problems


# Retry and dead-letter records

def headers(message) -> dict[str, str]:
    return {name: (value or b"").decode(errors="replace") for name, value in message.headers() or []}


def print_failure_records(title: str, messages: list) -> None:
    heading(f"{title}: {len(messages)}")
    for message in messages:
        fields = headers(message)
        print(f"   {message.topic()}  key {(message.key() or b'').decode()}  "
              f"x-dlq-reason {fields.get('x-dlq-reason')}  "
              f"x-attempts {fields.get('x-attempts')}  from {fields.get('x-source-topic')} "
              f"partition {fields.get('x-source-partition')} offset {fields.get('x-source-offset')}"
              + (f"  x-dlq-status {fields['x-dlq-status']}" if "x-dlq-status" in fields else ""))
        if "x-retry-due" in fields and "x-first-failure" in fields:
            delay = (int(fields["x-retry-due"]) - int(fields["x-first-failure"])) / 1000
            print(f"      x-retry-due: {delay:.1f} s after the first failure (the tier's delay after it was written)")
        print(f"      x-dlq-error: {clip(fields.get('x-dlq-error', '-'), 110)}")
        print(f"      value: {describe_value(message.value() or b'')}")


def describe_value(value: bytes) -> str:
    """The original bytes when they are not an event; an event only by its ids (it holds device tokens)."""
    try:
        event = json.loads(value)
        devices = [(recipient["userId"], device["platform"], device["token"])
                   for recipient in event["recipients"] for device in recipient["devices"]]
    except (ValueError, KeyError, TypeError):
        return f"the original {len(value)} bytes: {clip(value.decode(errors='replace'), 80)}"
    listed = ", ".join(f"{user} {platform} {short(token)}" for user, platform, token in devices)
    return f"event {event.get('id')} ({event.get('type')}) narrowed to the failed device(s): {listed}"


# Metrics and log

def print_metrics(metrics: str) -> None:
    heading("Worker metrics (GET /metrics, before the shutdown)")
    wanted = ("push_sends_total", "push_retries_total", "push_dlq_total", "kafka_records_consumed_total")
    for line in metrics.splitlines():
        if line.startswith(wanted):
            print(f"   {line}")


def print_log(log: Path) -> None:
    levels: Counter[str] = Counter()
    lines = log.read_text(errors="replace").splitlines()
    for line in lines:
        try:
            levels[json.loads(line).get("level", "?")] += 1
        except ValueError:
            levels["not JSON"] += 1
    heading(f"Worker log: {log}")
    print(f"   {len(lines)} JSON lines: " + ", ".join(f"{level} {count}" for level, count in sorted(levels.items())))


# Checks

def check(traffic: Traffic, receipts: list[dict], dead_letters: list, requests: list[dict]) -> list[str]:
    problems = []
    by_send: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    for receipt in receipts:
        by_send[receipt["messageId"], receipt["userId"], receipt["tokenHash"]].append(receipt)
    special = set()
    for expectation in traffic.expectations():
        key = (expectation.message, expectation.device.user, expectation.device.token_hash)
        special.add(key)
        found = by_send.get(key, [])
        good = [receipt for receipt in found if receipt["status"] == expectation.status
                and (expectation.reason is None or receipt["reason"] == expectation.reason)
                and receipt["attempts"] >= expectation.min_attempts]
        if not good:
            problems.append(f"{expectation.message} {expectation.device.label}: expected {expectation.status} "
                            f"({expectation.reason or 'any reason'}, attempts ≥ {expectation.min_attempts}), got "
                            f"{[(r['status'], r['reason'], r['attempts']) for r in found] or 'no receipt'}")
    for key, found in by_send.items():
        for receipt in found:
            ordinary = receipt["status"] == "delivered" or (
                receipt["status"], receipt["reason"]) == ("skipped", "platform")
            if key not in special and not ordinary:
                problems.append(f"unexpected receipt {receipt['messageId']} {receipt['userId']} {receipt['platform']}:"
                                f" {receipt['status']} ({receipt['reason']})")
    if missing := traffic.receipt_keys() - set(by_send):
        problems.append(f"{len(missing)} device sends have no receipt")
    for platform in ("apns", "fcm"):
        if not any(receipt["platform"] == platform and receipt["attempts"] > 1 for receipt in receipts):
            problems.append(f"no {platform} receipt shows a retry through the 503 burst")
    reasons = sorted(headers(message).get("x-dlq-reason") for message in dead_letters)
    if reasons != ["decode_error", "decode_error"] or not any(message.value() == POISON for message in dead_letters):
        problems.append(f"expected the poison record and u-5's device as decode_error dead letters, got {reasons}")
    refused = Counter(request["status"] for request in requests if request["status"] not in EXPECTED_HTTP)
    if refused:
        problems.append(f"the simulator refused requests: {dict(refused)} (see its strict checks)")
    return problems


def room_order_problems(traffic: Traffic, requests: list[dict], retries: list) -> list[str]:
    """Strict room order (the worker's default): every request of a message, its in-process retries included,
    comes before the first request of the room's next message. Only a message handed to a retry tier may be sent
    again after later messages of its room."""
    handed_off = set()
    for message in retries:
        with contextlib.suppress(ValueError, AttributeError):
            handed_off.add(json.loads(message.value()).get("id"))
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for request in requests:
        if request_token(request) is None:
            continue
        message = describe(request)[0]
        first[message] = min(first.get(message, request["seq"]), request["seq"])
        last[message] = max(last.get(message, request["seq"]), request["seq"])
    rooms: dict[str, list[str]] = defaultdict(list)
    for event in traffic.events:
        rooms[event["room"]["id"]].append(event["id"])
    problems = []
    for room, messages in rooms.items():
        for index, message in enumerate(messages):
            if message in handed_off or message not in last:
                continue
            for later in messages[index + 1:]:
                if first.get(later, last[message] + 1) < last[message]:
                    problems.append(f"room {room}: {later} was sent before {message}'s last retry (strict room order)")
    return problems
