"""APNs semantics for the push simulator: `POST /3/device/<token>`, strict like Apple's service.

Token auth: the bearer JWT must be ES256 with the `kid` of one of the simulator's test keys, `iss` that key's
team id, a signature that verifies against that key's public half, and `iat` no older than one hour on the
simulated clock (else 403 ExpiredProviderToken); the topic must be one of that key's (its team's apps). A new
token for the same key less than 20 simulated minutes after the previous new one gets 429
TooManyProviderTokenUpdates. There is one key from the start and one more per app named in `apns-credentials`. Requests are checked as Apple documents: push type, priority
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
  apns-credentials {"app": name?}       → {"key_file", "key_id", "team_id", "topic"} (the test key, PKCS#8 PEM
                                          written to a temporary directory at start; never committed); with
                                          `app`, that app's own key (made at its first call), team and topic
                                          `com.example.<app>`
  apns-unregister {"tokens": [...], "timestamp": ms?}  → those tokens answer 410 Unregistered with the timestamp
  apns-client-certificate {"topic": bundle id?, "password": str?, "unrelated_ca": bool?}
                                        → {"certificate_file", "key_file"}: a client certificate for the mutual-TLS
                                          listener (issued by its client CA, or by an unrelated one), key
                                          encrypted with `password` if given
  apns-config {"topics": [...]}         → the bundle ids accepted as apns-topic (each also with `.voip`);
                                          default com.example.chat and com.example.chat.beta
  apns-reset {}                         → forgets unregistered tokens and provider-token history
  apns-stats {}                         → {"accepted", "accepted_by_key": {key id: count}, "provider_tokens_seen",
                                          "rejections": {reason: count}}
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


class SigningKey:
    """One token-auth key: its id, team, public half, the topics its team may push to, and its token history."""

    def __init__(self, key_directory: str, key_id: str, team_id: str, topics: set[str]):
        private_key = ec.generate_private_key(ec.SECP256R1())
        self.public_key = private_key.public_key()
        self.key_id = key_id
        self.team_id = team_id
        self.topics = topics
        self.key_file = os.path.join(key_directory, f"AuthKey_{key_id}.p8")
        with open(os.open(self.key_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as file:
            file.write(
                private_key.private_bytes(
                    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
                )
            )
        self.reset()

    def reset(self) -> None:
        self.current_token: str | None = None
        self.current_issued_at = 0
        self.current_token_first_seen = 0.0


class APNs:
    def __init__(self, simulator: Simulator, key_directory: str):
        self.simulator = simulator
        self.key_directory = key_directory
        self.topics = set(DEFAULT_TOPICS)
        self.default_key = SigningKey(key_directory, KEY_ID, TEAM_ID, self.topics)
        self.keys: dict[str, SigningKey] = {KEY_ID: self.default_key}
        self.app_keys: dict[str, SigningKey] = {}
        self.reset()

    def reset(self) -> None:
        self.unregistered: dict[str, int] = {}
        for key in self.keys.values():
            key.reset()
        self.tokens_seen = 0
        self.accepted = 0
        self.accepted_by_key: Counter[str] = Counter()
        self.rejections: Counter[str] = Counter()

    async def send(self, request: Request) -> Response:
        apns_id = request.header("apns-id") or str(uuid.uuid4()).upper()
        try:
            key = self.check(request)
        except Rejection as rejection:
            self.rejections[rejection.reason] += 1
            body = {"reason": rejection.reason}
            if rejection.reason == "Unregistered":
                body["timestamp"] = self.unregistered[request.match["token"]]
            return Response.json(rejection.status, body, headers=[("apns-id", apns_id)])
        self.accepted += 1
        self.accepted_by_key[key.key_id if key else "certificate"] += 1
        return Response(200, [("apns-id", apns_id)])

    def check(self, request: Request) -> SigningKey | None:
        """Checks the request; the key whose token signed it (None for certificate auth)."""
        names = [name for name, _ in request.headers if name.startswith("apns-") or name == "authorization"]
        if len(names) != len(set(names)):
            raise Rejection(400, "DuplicateHeaders")
        key = None if request.client_certificate else self.check_provider_token(request.header("authorization"))
        token = request.match["token"]
        if not DEVICE_TOKEN_PATTERN.fullmatch(token):
            raise Rejection(400, "BadDeviceToken")
        push_type = request.header("apns-push-type")
        if push_type not in PUSH_TYPES:
            raise Rejection(400, "InvalidPushType")
        topic = self.topic(request, key)
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
        return key

    def topic(self, request: Request, key: SigningKey | None) -> str:
        """The request's topic, allowed for its credentials: the topics of the token's key for token auth, the
        certificate's topic (and its .voip / .complication variants) for certificate auth."""
        topic = request.header("apns-topic")
        if key is None:
            certified = request.certificate_topic
            topic = topic or certified
            if not topic:
                raise Rejection(400, "MissingTopic")
            if certified is None or topic not in {certified, f"{certified}.voip", f"{certified}.complication"}:
                raise Rejection(400, "TopicDisallowed")
            return topic
        if not topic:
            raise Rejection(400, "MissingTopic")
        if topic.removesuffix(".voip") not in key.topics:
            raise Rejection(400, "TopicDisallowed")
        return topic

    def check_provider_token(self, authorization: str | None) -> SigningKey:
        if not authorization:
            raise Rejection(403, "MissingProviderToken")
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise Rejection(403, "InvalidProviderToken")
        key, issued_at = self.verified(token)
        now = simclock.now(self.simulator)
        if now - issued_at > TOKEN_LIFETIME:
            raise Rejection(403, "ExpiredProviderToken")
        if issued_at > now + 60:
            raise Rejection(403, "InvalidProviderToken")
        if token != key.current_token:
            if key.current_token is not None and now - key.current_token_first_seen < TOKEN_UPDATE_INTERVAL:
                raise Rejection(429, "TooManyProviderTokenUpdates")
            key.current_token = token
            key.current_issued_at = issued_at
            key.current_token_first_seen = now
            self.tokens_seen += 1
        return key

    def verified(self, token: str) -> tuple[SigningKey, int]:
        """The key of a provider token whose header, signature and issuer check out, and its `iat` (the signature
        is checked once per token: the key's current token is known)."""
        try:
            header, claims, signing_input, signature = jwt_check.parse(token)
        except jwt_check.InvalidToken:
            raise Rejection(403, "InvalidProviderToken")
        key = self.keys.get(header.get("kid"))
        if header.get("alg") != "ES256" or key is None:
            raise Rejection(403, "InvalidProviderToken")
        if token == key.current_token:
            return key, key.current_issued_at
        try:
            jwt_check.verify(key.public_key, signing_input, signature)
        except jwt_check.InvalidToken:
            raise Rejection(403, "InvalidProviderToken")
        issued_at = claims.get("iat")
        if claims.get("iss") != key.team_id or not isinstance(issued_at, int):
            raise Rejection(403, "InvalidProviderToken")
        return key, issued_at

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
        app = arguments.get("app")
        if app is None:
            return {"key_file": self.default_key.key_file, "key_id": KEY_ID, "team_id": TEAM_ID, "topic": TOPIC}
        if not isinstance(app, str) or not re.fullmatch(r"[A-Za-z0-9]{1,9}", app):
            raise ValueError("app must be 1 to 9 letters or digits")
        key = self.app_keys.get(app)
        if key is None:
            # Ten characters, like Apple's key and team ids.
            key_id, team_id = f"K{app.upper():0<9}"[:10], f"T{app.upper():0<9}"[:10]
            key = SigningKey(self.key_directory, key_id, team_id, {f"com.example.{app}"})
            self.keys[key_id] = key
            self.app_keys[app] = key
        return {"key_file": key.key_file, "key_id": key.key_id, "team_id": key.team_id, "topic": f"com.example.{app}"}

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
        self.topics.clear()
        self.topics.update(topics)
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
            "accepted_by_key": dict(self.accepted_by_key),
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
