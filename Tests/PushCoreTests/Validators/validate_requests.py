"""Strict checks of provider requests produced by PushCore, batched: one process for many requests.

Usage: validate_requests.py REQUESTS.json  ->  prints a JSON list, per request {"name", "errors": [...]}.
Each request is {"name", "platform": "apns" | "apns-voip" | "fcm", "path", "headers": {..}, "body": "<text>"}.

FCM bodies are walked against Google's FCM v1 discovery document (fcm.v1.json, shipped in the
google-api-python-client wheel): every field must exist in the schema (under its JSON name or its proto
snake_case name, both accepted by the proto3 JSON mapping), with the schema's type, enum and format.
APNs requests are checked against Apple's documented request headers and payload keys, types and limits.
"""
import json
import pathlib
import re
import sys

import googleapiclient

DISCOVERY = json.loads(
    (pathlib.Path(googleapiclient.__file__).parent / "discovery_cache" / "documents" / "fcm.v1.json").read_text()
)
SCHEMAS = DISCOVERY["schemas"]
DURATION = re.compile(r"^-?\d+(\.\d{1,9})?s$")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
FCM_LIMIT = 4000


def snake(name):
    return re.sub(r"([A-Z])", lambda match: "_" + match.group(1).lower(), name)


def check_fcm_value(value, schema, path, errors):
    if "$ref" in schema:
        schema = SCHEMAS[schema["$ref"]]
    kind = schema.get("type")
    if kind == "object" and "properties" in schema:
        if not isinstance(value, dict):
            errors.append(f"{path}: must be an object")
            return
        names = {}
        for prop in schema["properties"]:
            names[prop] = prop
            names[snake(prop)] = prop
        seen = set()
        for key, item in value.items():
            prop = names.get(key)
            if prop is None:
                errors.append(f"{path}.{key}: unknown field")
                continue
            if prop in seen:
                errors.append(f"{path}.{key}: given twice (JSON and proto name)")
            seen.add(prop)
            check_fcm_value(item, schema["properties"][prop], f"{path}.{key}", errors)
    elif kind == "object":
        if not isinstance(value, dict):
            errors.append(f"{path}: must be an object")
            return
        inner = schema.get("additionalProperties", {})
        for key, item in value.items():
            check_fcm_value(item, inner, f"{path}.{key}", errors)
    elif kind == "array":
        if not isinstance(value, list):
            errors.append(f"{path}: must be an array")
            return
        for index, item in enumerate(value):
            check_fcm_value(item, schema.get("items", {}), f"{path}[{index}]", errors)
    elif kind == "string":
        if not isinstance(value, str):
            errors.append(f"{path}: must be a string")
            return
        if "enum" in schema and value not in schema["enum"]:
            errors.append(f"{path}: must be one of {schema['enum']}")
        if schema.get("format") == "google-duration" and not DURATION.match(value):
            errors.append(f"{path}: must be a duration like '3600s'")
    elif kind == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            errors.append(f"{path}: must be an integer")
        elif schema.get("format") == "int32" and not -(2**31) <= value < 2**31:
            errors.append(f"{path}: out of int32 range")
    elif kind == "boolean":
        if not isinstance(value, bool):
            errors.append(f"{path}: must be a boolean")


def check_fcm(request, body, errors):
    if len(request["body"].encode()) > FCM_LIMIT:
        errors.append(f"body: more than {FCM_LIMIT} bytes")
    if not re.fullmatch(r"/v1/projects/[^/]+/messages:send", request["path"]):
        errors.append("path: not /v1/projects/<project>/messages:send")
    check_fcm_value(body, {"$ref": "SendMessageRequest"}, "body", errors)
    message = body.get("message") if isinstance(body, dict) else None
    if not isinstance(message, dict):
        errors.append("body.message: required")
        return
    if sum(key in message for key in ("token", "topic", "condition")) != 1:
        errors.append("body.message: needs exactly one of token, topic, condition")
    for key in (message.get("data") or {}):
        if key in ("from", "message_type") or key.startswith("google.") or key.startswith("gcm.notification."):
            errors.append(f"body.message.data.{key}: reserved key")


ALERT_KEYS = {
    "title", "subtitle", "body", "launch-image", "title-loc-key", "title-loc-args", "subtitle-loc-key",
    "subtitle-loc-args", "loc-key", "loc-args",
}
APS_KEYS = {
    "alert", "badge", "sound", "thread-id", "category", "content-available", "mutable-content", "target-content-id",
    "interruption-level", "relevance-score", "filter-criteria", "stale-date", "content-state", "timestamp", "event",
    "dismissal-date",
}
HEADERS = {"apns-push-type", "apns-topic", "apns-priority", "apns-expiration", "apns-collapse-id", "apns-id"}
PUSH_TYPES = {"alert", "background", "voip", "location", "complication", "fileprovider", "mdm", "liveactivity",
              "pushtotalk"}


def check_aps(aps, errors):
    if not isinstance(aps, dict):
        errors.append("body.aps: must be an object")
        return
    for key, value in aps.items():
        if key not in APS_KEYS:
            errors.append(f"body.aps.{key}: not an aps key")
    alert = aps.get("alert")
    if isinstance(alert, dict):
        for key, value in alert.items():
            if key not in ALERT_KEYS:
                errors.append(f"body.aps.alert.{key}: not an alert key")
            elif key.endswith("-args"):
                if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
                    errors.append(f"body.aps.alert.{key}: must be an array of strings")
            elif not isinstance(value, str):
                errors.append(f"body.aps.alert.{key}: must be a string")
    elif alert is not None and not isinstance(alert, str):
        errors.append("body.aps.alert: must be a string or an object")
    badge = aps.get("badge")
    if badge is not None and (isinstance(badge, bool) or not isinstance(badge, int) or badge < 0):
        errors.append("body.aps.badge: must be a non-negative integer")
    for key in ("content-available", "mutable-content"):
        if key in aps and aps[key] != 1:
            errors.append(f"body.aps.{key}: must be 1")
    for key in ("thread-id", "category", "sound"):
        if key in aps and not isinstance(aps[key], (str, dict) if key == "sound" else str):
            errors.append(f"body.aps.{key}: must be a string")
    if "interruption-level" in aps and aps["interruption-level"] not in ("passive", "active", "time-sensitive",
                                                                          "critical"):
        errors.append("body.aps.interruption-level: not a documented level")


def check_apns(request, body, errors):
    headers = request["headers"]
    voip = request["platform"] == "apns-voip"
    limit = 5120 if voip else 4096
    if len(request["body"].encode()) > limit:
        errors.append(f"body: more than {limit} bytes")
    if not re.fullmatch(r"/3/device/[0-9a-fA-F]{64,200}", request["path"]):
        errors.append("path: not /3/device/<hex token>")
    for name in headers:
        if name not in HEADERS:
            errors.append(f"header {name}: not an APNs request header")
    push_type = headers.get("apns-push-type")
    if push_type not in PUSH_TYPES:
        errors.append("header apns-push-type: missing or unknown")
    topic = headers.get("apns-topic", "")
    if not topic:
        errors.append("header apns-topic: required with token authentication")
    if (push_type == "voip") != topic.endswith(".voip") or (push_type == "voip") != voip:
        errors.append("header apns-topic: .voip suffix exactly for VoIP pushes to PushKit tokens")
    priority = headers.get("apns-priority")
    if priority not in ("1", "5", "10"):
        errors.append("header apns-priority: must be 1, 5 or 10")
    if push_type == "background" and priority != "5":
        errors.append("header apns-priority: background pushes must use 5")
    if not re.fullmatch(r"\d+", headers.get("apns-expiration", "")):
        errors.append("header apns-expiration: must be epoch seconds")
    if len(headers.get("apns-collapse-id", "").encode()) > 64:
        errors.append("header apns-collapse-id: more than 64 bytes")
    if not UUID.match(headers.get("apns-id", "")):
        errors.append("header apns-id: not a canonical UUID")
    if not isinstance(body, dict):
        errors.append("body: must be an object")
        return
    if not isinstance(body.get("aps"), dict):
        errors.append("body.aps: required (an object)")
        return
    if push_type == "voip":
        if body["aps"]:
            errors.append("body.aps: a PushKit payload carries call data, not aps keys")
        return
    check_aps(body["aps"], errors)
    if push_type == "background" and body["aps"] != {"content-available": 1}:
        errors.append("body.aps: a background push holds only content-available")
    # Apple: the alert push type is for "notifications that trigger a user interaction—for example, an alert,
    # badge, or sound".
    if push_type == "alert" and not {"alert", "badge", "sound"} & body["aps"].keys():
        errors.append("body.aps: an alert push needs an alert, a badge or a sound")


def check(request):
    errors = []
    try:
        body = json.loads(request["body"])
    except ValueError as error:
        return [f"body: not JSON ({error})"]
    if request["platform"] == "fcm":
        check_fcm(request, body, errors)
    else:
        check_apns(request, body, errors)
    return errors


def main():
    requests = json.loads(pathlib.Path(sys.argv[1]).read_text())
    json.dump([{"name": request["name"], "errors": check(request)} for request in requests], sys.stdout)


if __name__ == "__main__":
    main()
