"""FCM HTTP v1 semantics for the push simulator: `POST /v1/projects/<project>/messages:send`.

Requires `authorization: Bearer <token>` with an access token issued by oauth.py and still valid on the
simulated clock (else 401 UNAUTHENTICATED); the project must be the service account's (else 403
SENDER_ID_MISMATCH). The body must be `{"message": {...}}` valid against Google's FCM v1 discovery document
(`fcm.v1.json` from the google-api-python-client wheel: known fields only, in camelCase or snake_case, types,
enums, string-only `data` maps, durations like "3600s"), address exactly one of token / topic / condition, and
be at most 4096 bytes of message; violations are 400 INVALID_ARGUMENT with a `google.rpc.BadRequest` field
violation. Unregistered tokens answer 404 UNREGISTERED. Success: `{"name": "projects/<p>/messages/<id>"}`.
Errors use Google's format with a `google.firebase.fcm.v1.FcmError` detail carrying `errorCode`.

Control commands:
  fcm-unregister {"tokens": [...]}  → those registration tokens answer 404 UNREGISTERED
  fcm-reset {}                      → forgets unregistered tokens and counters
  fcm-stats {}                      → {"accepted", "rejections": {errorCode or status: count}}
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
from collections import Counter

import simclock
from server import Request, Response, Simulator

MAX_MESSAGE_BYTES = 4096
DURATION = re.compile(r"-?\d+(\.\d{1,9})?s")
FCM_ERROR = "type.googleapis.com/google.firebase.fcm.v1.FcmError"


def discovery_document() -> dict:
    """Google's FCM v1 discovery document, as shipped in the google-api-python-client wheel."""
    spec = importlib.util.find_spec("googleapiclient")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("google-api-python-client is not installed (deploy/local/requirements.txt)")
    base = list(spec.submodule_search_locations)[0]
    with open(os.path.join(base, "discovery_cache", "documents", "fcm.v1.json"), encoding="utf-8") as file:
        return json.load(file)


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


class BodyValidator:
    """Checks JSON values against the discovery document's schemas; returns (field path, description) or None."""

    def __init__(self, document: dict):
        self.schemas = document["schemas"]

    def check(self, value, schema: dict, path: str) -> tuple[str, str] | None:
        if "$ref" in schema:
            return self.check_object(value, self.schemas[schema["$ref"]], path)
        kind = schema.get("type")
        if kind == "object":
            if not isinstance(value, dict):
                return path, "must be an object"
            if "additionalProperties" in schema:
                for key, item in value.items():
                    problem = self.check(item, schema["additionalProperties"], f"{path}[{key}]")
                    if problem:
                        return problem
                return None
            return self.check_object(value, schema, path)
        if kind == "array":
            if not isinstance(value, list):
                return path, "must be an array"
            for index, item in enumerate(value):
                problem = self.check(item, schema.get("items", {}), f"{path}[{index}]")
                if problem:
                    return problem
            return None
        if kind == "string":
            return self.check_string(value, schema, path)
        if kind == "boolean":
            return None if isinstance(value, bool) else (path, "must be a boolean")
        if kind == "integer":
            ok = (isinstance(value, int) and not isinstance(value, bool)) or (
                isinstance(value, str) and re.fullmatch(r"-?\d+", value)
            )
            return None if ok else (path, "must be an integer")
        if kind == "number":
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            return None if ok else (path, "must be a number")
        return None

    def check_string(self, value, schema: dict, path: str) -> tuple[str, str] | None:
        fmt = schema.get("format")
        if fmt in ("int64", "uint64", "int32") and isinstance(value, int) and not isinstance(value, bool):
            return None
        if not isinstance(value, str):
            return path, "must be a string"
        if "enum" in schema and value.upper() not in schema["enum"]:
            return path, f"must be one of {schema['enum']}"
        if fmt == "google-duration" and not DURATION.fullmatch(value):
            return path, "must be a duration such as \"3600s\""
        if fmt in ("int64", "uint64") and not re.fullmatch(r"-?\d+", value):
            return path, "must be an integer"
        return None

    def check_object(self, value, schema: dict, path: str) -> tuple[str, str] | None:
        if not isinstance(value, dict):
            return path, "must be an object"
        properties = schema.get("properties", {})
        for key, item in value.items():
            name = key if key in properties else camel(key)
            if name not in properties:
                return f"{path}.{key}" if path else key, "unknown name"
            problem = self.check(item, properties[name], f"{path}.{key}" if path else key)
            if problem:
                return problem
        return None


def google_error(status: int, canonical: str, message: str, error_code: str | None = None, violation=None) -> Response:
    details = []
    if error_code:
        details.append({"@type": FCM_ERROR, "errorCode": error_code})
    if violation:
        details.append(
            {
                "@type": "type.googleapis.com/google.rpc.BadRequest",
                "fieldViolations": [{"field": violation[0], "description": violation[1]}],
            }
        )
    error = {"code": status, "message": message, "status": canonical}
    if details:
        error["details"] = details
    return Response.json(status, {"error": error})


class FCM:
    def __init__(self, simulator: Simulator):
        self.simulator = simulator
        self.validator = BodyValidator(discovery_document())
        self.reset()

    def reset(self) -> None:
        self.unregistered: set[str] = set()
        self.accepted = 0
        self.rejections: Counter[str] = Counter()
        self.next_id = 1

    def reject(self, response: Response, key: str) -> Response:
        self.rejections[key] += 1
        return response

    async def send(self, request: Request) -> Response:
        oauth = self.simulator.state["oauth"]
        scheme, _, token = (request.header("authorization") or "").partition(" ")
        if scheme != "Bearer" or not oauth.access_token_valid(token):
            return self.reject(
                google_error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."),
                "UNAUTHENTICATED",
            )
        project = request.match["project"]
        if project != "sim-project":
            return self.reject(
                google_error(403, "PERMISSION_DENIED", "SenderId mismatch", "SENDER_ID_MISMATCH"), "SENDER_ID_MISMATCH"
            )
        try:
            body = request.json()
        except ValueError:
            return self.invalid(("", "Invalid JSON payload received."))
        if not isinstance(body, dict) or not isinstance(body.get("message"), dict):
            return self.invalid(("message", "is required"))
        problem = self.validator.check_object(body, self.validator.schemas["SendMessageRequest"], "")
        if problem:
            return self.invalid(problem)
        message = body["message"]
        targets = [key for key in ("token", "topic", "condition") if message.get(key)]
        if len(targets) != 1:
            return self.invalid(("message", "exactly one of token, topic, condition is required"))
        if len(json.dumps(message, separators=(",", ":")).encode()) > MAX_MESSAGE_BYTES:
            return self.invalid(("message", "Message is too big"))
        if message.get("token") in self.unregistered:
            return self.reject(
                google_error(404, "NOT_FOUND", "Requested entity was not found.", "UNREGISTERED"), "UNREGISTERED"
            )
        self.accepted += 1
        message_id = f"0:{int(simclock.now(self.simulator) * 1000)}%{self.next_id:016x}"
        self.next_id += 1
        return Response.json(200, {"name": f"projects/{project}/messages/{message_id}"})

    def invalid(self, violation: tuple[str, str]) -> Response:
        message = f"Invalid value at '{violation[0]}': {violation[1]}" if violation[0] else violation[1]
        return self.reject(
            google_error(400, "INVALID_ARGUMENT", message, "INVALID_ARGUMENT", violation), "INVALID_ARGUMENT"
        )

    # Control commands

    def unregister(self, arguments: dict) -> dict:
        tokens = arguments.get("tokens")
        if not isinstance(tokens, list) or not all(isinstance(token, str) for token in tokens):
            raise ValueError("tokens must be a list of strings")
        self.unregistered.update(tokens)
        return {"unregistered": len(self.unregistered)}

    def stats(self, arguments: dict) -> dict:
        return {"accepted": self.accepted, "rejections": dict(self.rejections)}

    def reset_command(self, arguments: dict) -> dict:
        self.reset()
        return {}


def register(simulator: Simulator) -> None:
    fcm = FCM(simulator)
    simulator.state["fcm"] = fcm
    simulator.route("POST", r"/v1/projects/(?P<project>[^/]+)/messages:send", fcm.send)
    simulator.control_command("fcm-unregister", fcm.unregister)
    simulator.control_command("fcm-stats", fcm.stats)
    simulator.control_command("fcm-reset", fcm.reset_command)
