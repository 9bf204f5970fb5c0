"""FCM HTTP v1 semantics for the push simulator: `POST /v1/projects/<project>/messages:send`.

Requires `authorization: Bearer <token>` with an access token issued by oauth.py and still valid on the
simulated clock (else 401 UNAUTHENTICATED); the project must be that of the service account the token was
issued to (else 403 SENDER_ID_MISMATCH). The body must pass PushCore's FCM validator (Tests/PushCoreTests/Validators/
validate_requests.py: `{"message": {...}}` against Google's FCM v1 discovery document `fcm.v1.json` from the
google-api-python-client wheel, one of token / topic / condition, at most 4000 bytes, no reserved data keys);
the first violation is answered 400 INVALID_ARGUMENT with a `google.rpc.BadRequest` field violation. Unregistered tokens answer 404 UNREGISTERED. Success: `{"name": "projects/<p>/messages/<id>"}`.
Errors use Google's format with a `google.firebase.fcm.v1.FcmError` detail carrying `errorCode`.

Control commands:
  fcm-unregister {"tokens": [...]}  → those registration tokens answer 404 UNREGISTERED
  fcm-reset {}                      → forgets unregistered tokens and counters
  fcm-stats {}                      → {"accepted", "accepted_by_project": {project: count},
                                       "rejections": {errorCode or status: count}}
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import simclock
from server import Request, Response, Simulator

# The FCM body checks PushCore's tests use (fcm.v1.json walked field by field), shared rather than copied.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "PushCoreTests" / "Validators"))
import validate_requests  # noqa: E402

FCM_ERROR = "type.googleapis.com/google.firebase.fcm.v1.FcmError"


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
        self.reset()

    def reset(self) -> None:
        self.unregistered: set[str] = set()
        self.accepted = 0
        self.accepted_by_project: Counter[str] = Counter()
        self.rejections: Counter[str] = Counter()
        self.next_id = 1

    def reject(self, response: Response, key: str) -> Response:
        self.rejections[key] += 1
        return response

    async def send(self, request: Request) -> Response:
        oauth = self.simulator.state["oauth"]
        scheme, _, token = (request.header("authorization") or "").partition(" ")
        token_project = oauth.access_token_project(token) if scheme == "Bearer" else None
        if token_project is None:
            return self.reject(
                google_error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."),
                "UNAUTHENTICATED",
            )
        project = request.match["project"]
        if project != token_project:
            return self.reject(
                google_error(403, "PERMISSION_DENIED", "SenderId mismatch", "SENDER_ID_MISMATCH"), "SENDER_ID_MISMATCH"
            )
        try:
            body = request.json()
        except ValueError:
            return self.invalid(("", "Invalid JSON payload received."))
        errors: list[str] = []
        validate_requests.check_fcm({"body": request.body.decode("utf-8"), "path": request.path}, body, errors)
        if errors:
            field, _, description = errors[0].partition(": ")
            return self.invalid((field.removeprefix("body."), description))
        message = body["message"]
        if message.get("token") in self.unregistered:
            return self.reject(
                google_error(404, "NOT_FOUND", "Requested entity was not found.", "UNREGISTERED"), "UNREGISTERED"
            )
        self.accepted += 1
        self.accepted_by_project[project] += 1
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
        return {
            "accepted": self.accepted,
            "accepted_by_project": dict(self.accepted_by_project),
            "rejections": dict(self.rejections),
        }

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
