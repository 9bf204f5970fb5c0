"""APNs semantics for the push simulator: `POST /3/device/<token>`, strict like Apple's service.

Token auth: the bearer JWT must be ES256 with the `kid` of the simulator's test key, `iss` its team id, a
signature that verifies against the key's public half, and `iat` no older than one hour on the simulated clock
(else 403 ExpiredProviderToken). A new token for the same key less than 20 simulated minutes after the previous
new one gets 429 TooManyProviderTokenUpdates. Requests are checked as Apple documents: push type, priority
(background must be 5), topic (`.voip` suffix exactly for voip pushes), apns-id, expiration, collapse id,
duplicate headers, a JSON object body with `aps`, 4096 bytes (5120 for voip). A body that is not such an object
gets 400 `BadPayload`, a reason of this simulator only. Success answers 200 with `apns-id`.

Certificate auth (requests on the mutual-TLS listener, see simulator.py): the verified client certificate
authenticates the connection, so no provider token is checked (Apple's requests on such connections carry none;
Apple documents no rejection of one, so an `authorization` header there is ignored). The certificate's topic is
its subject UID (Apple's provider certificates name the bundle id there); it may push to that topic and its
`.voip` and `.complication` variants, anything else is 400 TopicDisallowed; without `apns-topic` the
certificate's topic is used.

Control commands:
  apns-credentials {}                   → {"key_file", "key_id", "team_id", "topic"} (the test key, PKCS#8 PEM
                                          written to a temporary directory at start; never committed)
  apns-unregister {"tokens": [...], "timestamp": ms?}  → those tokens answer 410 Unregistered with the timestamp
  apns-client-certificate {"topic": bundle id?, "password": str?, "unrelated_ca": bool?}
                                        → {"certificate_file", "key_file"}: a client certificate for the mutual-TLS
                                          listener (issued by its client CA, or by an unrelated one), key
                                          encrypted with `password` if given
  apns-config {"topics": [...]}         → the bundle ids accepted as apns-topic (each also with `.voip`);
                                          default com.example.chat and com.example.chat.beta
  apns-reset {}                         → forgets unregistered tokens and provider-token history
  apns-stats {}                         → {"accepted", "provider_tokens_seen", "rejections": {reason: count}}
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import uuid
from collections import Counter
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

import jwt_check
import simclock
from server import Request, Response, Simulator

KEY_ID = "SIMKEY0001"
TEAM_ID = "SIMTEAM001"
TOPIC = "com.example.chat"
# The bundle ids of the sample events (a device may name its own topic, e.g. a beta app).
DEFAULT_TOPICS = {TOPIC, "com.example.chat.beta"}
TOKEN_LIFETIME = 3600
TOKEN_UPDATE_INTERVAL = 20 * 60
PUSH_TYPES = {
    "alert", "background", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity",
    "pushtotalk", "widgets", "controls",
}
PRIORITIES = {"1", "5", "10"}
UUID_PATTERN = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
DEVICE_TOKEN_PATTERN = re.compile(r"(?:[0-9a-fA-F]{2}){32,100}")


class Rejection(Exception):
    def __init__(self, status: int, reason: str):
        super().__init__(reason)
        self.status = status
        self.reason = reason


class APNs:
    def __init__(self, simulator: Simulator, key_directory: str):
        self.simulator = simulator
        private_key = ec.generate_private_key(ec.SECP256R1())
        self.public_key = private_key.public_key()
        self.key_file = os.path.join(key_directory, f"AuthKey_{KEY_ID}.p8")
        with open(os.open(self.key_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as file:
            file.write(
                private_key.private_bytes(
                    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
                )
            )
        self.key_directory = key_directory
        self.topics = set(DEFAULT_TOPICS)
        self.reset()

    def reset(self) -> None:
        self.unregistered: dict[str, int] = {}
        self.current_token: str | None = None
        self.current_issued_at = 0
        self.current_token_first_seen = 0.0
        self.tokens_seen = 0
        self.accepted = 0
        self.rejections: Counter[str] = Counter()

    async def send(self, request: Request) -> Response:
        apns_id = request.header("apns-id") or str(uuid.uuid4()).upper()
        try:
            self.check(request)
        except Rejection as rejection:
            self.rejections[rejection.reason] += 1
            body = {"reason": rejection.reason}
            if rejection.reason == "Unregistered":
                body["timestamp"] = self.unregistered[request.match["token"]]
            return Response.json(rejection.status, body, headers=[("apns-id", apns_id)])
        self.accepted += 1
        return Response(200, [("apns-id", apns_id)])

    def check(self, request: Request) -> None:
        names = [name for name, _ in request.headers if name.startswith("apns-") or name == "authorization"]
        if len(names) != len(set(names)):
            raise Rejection(400, "DuplicateHeaders")
        if not request.client_certificate:
            self.check_provider_token(request.header("authorization"))
        token = request.match["token"]
        if not DEVICE_TOKEN_PATTERN.fullmatch(token):
            raise Rejection(400, "BadDeviceToken")
        push_type = request.header("apns-push-type")
        if push_type not in PUSH_TYPES:
            raise Rejection(400, "InvalidPushType")
        topic = self.topic(request)
        if (push_type == "voip") != topic.endswith(".voip"):
            raise Rejection(400, "BadTopic")
        priority = request.header("apns-priority")
        if priority is not None and priority not in PRIORITIES:
            raise Rejection(400, "BadPriority")
        if push_type == "background" and priority != "5":
            raise Rejection(400, "BadPriority")
        apns_id = request.header("apns-id")
        if apns_id is not None and not UUID_PATTERN.fullmatch(apns_id):
            raise Rejection(400, "BadMessageId")
        expiration = request.header("apns-expiration")
        if expiration is not None and not expiration.isdigit():
            raise Rejection(400, "BadExpirationDate")
        collapse_id = request.header("apns-collapse-id")
        if collapse_id is not None and len(collapse_id.encode()) > 64:
            raise Rejection(400, "BadCollapseId")
        self.check_body(request.body, push_type)
        if token in self.unregistered:
            raise Rejection(410, "Unregistered")

    def topic(self, request: Request) -> str:
        """The request's topic, allowed for its credentials: the team's topics for token auth, the certificate's
        topic (and its .voip / .complication variants) for certificate auth."""
        topic = request.header("apns-topic")
        if request.client_certificate:
            certified = request.certificate_topic
            topic = topic or certified
            if not topic:
                raise Rejection(400, "MissingTopic")
            if certified is None or topic not in {certified, f"{certified}.voip", f"{certified}.complication"}:
                raise Rejection(400, "TopicDisallowed")
            return topic
        if not topic:
            raise Rejection(400, "MissingTopic")
        if topic.removesuffix(".voip") not in self.topics:
            raise Rejection(400, "TopicDisallowed")
        return topic

    def check_provider_token(self, authorization: str | None) -> None:
        if not authorization:
            raise Rejection(403, "MissingProviderToken")
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise Rejection(403, "InvalidProviderToken")
        issued_at = self.current_issued_at if token == self.current_token else self.verified_issued_at(token)
        now = simclock.now(self.simulator)
        if now - issued_at > TOKEN_LIFETIME:
            raise Rejection(403, "ExpiredProviderToken")
        if issued_at > now + 60:
            raise Rejection(403, "InvalidProviderToken")
        if token != self.current_token:
            if self.current_token is not None and now - self.current_token_first_seen < TOKEN_UPDATE_INTERVAL:
                raise Rejection(429, "TooManyProviderTokenUpdates")
            self.current_token = token
            self.current_issued_at = issued_at
            self.current_token_first_seen = now
            self.tokens_seen += 1

    def verified_issued_at(self, token: str) -> int:
        """The `iat` of a provider token whose header, signature and issuer check out (checked once per token)."""
        try:
            header, claims, signing_input, signature = jwt_check.parse(token)
        except jwt_check.InvalidToken:
            raise Rejection(403, "InvalidProviderToken")
        if header.get("alg") != "ES256" or header.get("kid") != KEY_ID:
            raise Rejection(403, "InvalidProviderToken")
        try:
            jwt_check.verify(self.public_key, signing_input, signature)
        except jwt_check.InvalidToken:
            raise Rejection(403, "InvalidProviderToken")
        issued_at = claims.get("iat")
        if claims.get("iss") != TEAM_ID or not isinstance(issued_at, int):
            raise Rejection(403, "InvalidProviderToken")
        return issued_at

    @staticmethod
    def check_body(body: bytes, push_type: str) -> None:
        if not body:
            raise Rejection(400, "PayloadEmpty")
        if len(body) > (5120 if push_type == "voip" else 4096):
            raise Rejection(413, "PayloadTooLarge")
        try:
            payload = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise Rejection(400, "BadPayload")
        if not isinstance(payload, dict) or not isinstance(payload.get("aps"), dict):
            raise Rejection(400, "BadPayload")
        if push_type == "background" and payload["aps"].get("content-available") != 1:
            raise Rejection(400, "BadPayload")

    # Control commands

    def credentials(self, arguments: dict) -> dict:
        return {"key_file": self.key_file, "key_id": KEY_ID, "team_id": TEAM_ID, "topic": TOPIC}

    def client_certificate(self, arguments: dict) -> dict:
        topic = arguments.get("topic", TOPIC)
        password = arguments.get("password")
        if not isinstance(topic, str) or not topic or not (password is None or isinstance(password, str)):
            raise ValueError("topic must be a bundle id and password a string")
        issuer = self.simulator.client_authorities["unrelated" if arguments.get("unrelated_ca") else "simulator"]
        certificate_file, key_file = issuer.issue(Path(self.key_directory), topic, password)
        return {"certificate_file": str(certificate_file), "key_file": str(key_file)}

    def config(self, arguments: dict) -> dict:
        topics = arguments.get("topics")
        if not isinstance(topics, list) or not topics or not all(isinstance(topic, str) for topic in topics):
            raise ValueError("topics must be a non-empty list of bundle ids")
        self.topics = set(topics)
        return {"topics": sorted(self.topics)}

    def unregister(self, arguments: dict) -> dict:
        tokens = arguments.get("tokens")
        if not isinstance(tokens, list) or not all(isinstance(token, str) for token in tokens):
            raise ValueError("tokens must be a list of strings")
        timestamp = arguments.get("timestamp", int(simclock.now(self.simulator) * 1000))
        for token in tokens:
            self.unregistered[token] = int(timestamp)
        return {"unregistered": len(self.unregistered)}

    def stats(self, arguments: dict) -> dict:
        return {
            "accepted": self.accepted,
            "provider_tokens_seen": self.tokens_seen,
            "rejections": dict(self.rejections),
        }

    def reset_command(self, arguments: dict) -> dict:
        self.reset()
        return {}


def register(simulator: Simulator) -> None:
    simclock.register(simulator)
    key_directory = tempfile.mkdtemp(prefix="push-simulator-apns-")
    apns = APNs(simulator, key_directory)
    simulator.state["apns"] = apns
    simulator.route("POST", r"/3/device/(?P<token>[^/]*)", apns.send)
    for method in ("GET", "PUT", "DELETE", "PATCH", "HEAD"):
        simulator.route(method, r"/3/device/[^/]*", lambda request: Response.json(405, {"reason": "MethodNotAllowed"}))
    simulator.route("POST", r"/3/.*", lambda request: Response.json(404, {"reason": "BadPath"}))
    simulator.control_command("apns-credentials", apns.credentials)
    simulator.control_command("apns-client-certificate", apns.client_certificate)
    simulator.control_command("apns-config", apns.config)
    simulator.control_command("apns-unregister", apns.unregister)
    simulator.control_command("apns-stats", apns.stats)
    simulator.control_command("apns-reset", apns.reset_command)
