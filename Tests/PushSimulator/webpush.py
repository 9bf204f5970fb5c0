"""A Web Push service (RFC 8030) for the push simulator: `POST /wp/<id>`, one id per subscription.

The simulator holds each subscription's private key and auth secret, so it decrypts every body (RFC 8291:
aes128gcm, one record, padding delimiter 0x02) and verifies the VAPID authorization (RFC 8292): `vapid t=<JWT>,
k=<key>`, the JWT signed ES256 by `k`'s key, `aud` this service's origin (`https://` + the request's authority),
`exp` in the future and at most 24 hours ahead, `sub` a `mailto:` or `https:` URI. It checks `TTL` (a
non-negative integer), `Urgency` (very-low, low, normal, high), `Topic` (at most 32 URL-safe base64 characters),
`Content-Encoding: aes128gcm`, `Content-Type: application/octet-stream` and a body of at most 4096 bytes. The
first violation is answered 400 with the reason as text (401 for VAPID problems); an unknown or unsubscribed id
404 / 410. Delivered: 201 with a `Location`. Faults (429 + Retry-After, 413, 5xx, 4xx with a text, a 3xx with a
`location`) come from the control API's generic fault rules on the path `/wp/…`.

Control commands:
  webpush-subscribe {"origin": "https://localhost:PORT"} → {"id", "subscription": PushSubscription JSON text}
  webpush-unsubscribe {"id"}                              → later sends to it answer 410
  webpush-messages {"id"?}                                → {"messages": [{"id", "payload", "headers", "vapid"}]}
  webpush-stats {}                                        → {"accepted", "rejections": {reason: count}}
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections import Counter

from cryptography.hazmat.primitives import hashes, hmac, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

import jwt_check
import simclock
from server import Request, Response, Simulator

URGENCIES = {"very-low", "low", "normal", "high"}
TOPIC = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def hmac_sha256(key: bytes, message: bytes) -> bytes:
    mac = hmac.HMAC(key, hashes.SHA256())
    mac.update(message)
    return mac.finalize()


class Rejection(Exception):
    def __init__(self, status: int, reason: str):
        super().__init__(reason)
        self.status = status
        self.reason = reason


class Subscription:
    def __init__(self, identifier: str, origin: str):
        self.id = identifier
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.public_point = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.auth = os.urandom(16)
        self.endpoint = f"{origin}/wp/{identifier}"
        self.gone = False

    def json(self) -> str:
        keys = {"p256dh": b64url(self.public_point), "auth": b64url(self.auth)}
        return json.dumps({"endpoint": self.endpoint, "expirationTime": None, "keys": keys}, separators=(",", ":"))

    def decrypt(self, body: bytes) -> bytes:
        """RFC 8291 §3.4 and RFC 8188: the receiver's side of one aes128gcm record."""
        if len(body) < 86 + 17:
            raise Rejection(400, "body shorter than an aes128gcm header and tag")
        salt, record_size, id_length = body[:16], int.from_bytes(body[16:20], "big"), body[20]
        if id_length != 65:
            raise Rejection(400, "keyid is not a 65-byte P-256 point")
        sender_point = body[21:86]
        if record_size < len(body) - 86:
            raise Rejection(400, "more than one record")
        try:
            sender = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), sender_point)
        except ValueError as error:
            raise Rejection(400, "sender key is not a P-256 point") from error
        shared = self.private_key.exchange(ec.ECDH(), sender)
        key_info = b"WebPush: info\x00" + self.public_point + sender_point
        input_key = hmac_sha256(hmac_sha256(self.auth, shared), key_info + b"\x01")
        prk = hmac_sha256(salt, input_key)
        cek = hmac_sha256(prk, b"Content-Encoding: aes128gcm\x00\x01")[:16]
        nonce = hmac_sha256(prk, b"Content-Encoding: nonce\x00\x01")[:12]
        try:
            padded = AESGCM(cek).decrypt(nonce, body[86:], None)
        except Exception as error:  # cryptography raises InvalidTag
            raise Rejection(400, "decryption failed") from error
        plaintext = padded.rstrip(b"\x00")
        if not plaintext.endswith(b"\x02"):
            raise Rejection(400, "the last record's padding delimiter is not 0x02")
        return plaintext[:-1]


class WebPush:
    def __init__(self, simulator: Simulator):
        self.simulator = simulator
        self.subscriptions: dict[str, Subscription] = {}
        self.reset()

    def reset(self) -> None:
        self.messages: list[dict] = []
        self.accepted = 0
        self.rejections: Counter[str] = Counter()

    async def send(self, request: Request) -> Response:
        subscription = self.subscriptions.get(request.match["id"])
        if subscription is None:
            return self.reject(404, "no such subscription")
        if subscription.gone:
            return self.reject(410, "unsubscribed")
        try:
            headers = self.check_headers(request)
            vapid = self.check_vapid(request)
            payload = subscription.decrypt(request.body)
            parsed = json.loads(payload.decode("utf-8"))
        except Rejection as rejection:
            return self.reject(rejection.status, rejection.reason)
        except (UnicodeDecodeError, json.JSONDecodeError):
            return self.reject(400, "the plaintext is not UTF-8 JSON")
        self.accepted += 1
        self.messages.append({"id": subscription.id, "payload": parsed, "headers": headers, "vapid": vapid})
        return Response(201, headers=[("location", f"/m/{self.accepted}")])

    def reject(self, status: int, reason: str) -> Response:
        self.rejections[reason] += 1
        return Response(status, headers=[("content-type", "text/plain")], body=reason.encode())

    @staticmethod
    def check_headers(request: Request) -> dict:
        ttl = request.header("ttl")
        if ttl is None or not ttl.isdigit():
            raise Rejection(400, "TTL must be a non-negative integer")
        urgency = request.header("urgency") or "normal"
        if urgency not in URGENCIES:
            raise Rejection(400, "Urgency must be very-low, low, normal or high")
        topic = request.header("topic")
        if topic is not None and not TOPIC.match(topic):
            raise Rejection(400, "Topic must be at most 32 URL-safe base64 characters")
        if request.header("content-encoding") != "aes128gcm":
            raise Rejection(400, "Content-Encoding must be aes128gcm")
        if request.header("content-type") != "application/octet-stream":
            raise Rejection(400, "Content-Type must be application/octet-stream")
        if len(request.body) > 4096:
            raise Rejection(413, "the body is more than 4096 bytes")
        return {"ttl": int(ttl), "urgency": urgency, "topic": topic}

    def check_vapid(self, request: Request) -> dict:
        match = re.fullmatch(r"vapid t=([A-Za-z0-9_.-]+), ?k=([A-Za-z0-9_-]+)", request.header("authorization") or "")
        if match is None:
            raise Rejection(401, "Authorization must be vapid t=<JWT>, k=<key>")
        token, key = match.groups()
        try:
            public_key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), jwt_check.b64url_decode(key))
            header, claims, signing_input, signature = jwt_check.parse(token)
            jwt_check.verify(public_key, signing_input, signature)
        except (ValueError, jwt_check.InvalidToken) as error:
            raise Rejection(401, f"VAPID token does not verify with k: {error}") from error
        if header.get("alg") != "ES256":
            raise Rejection(401, "VAPID token is not ES256")
        if claims.get("aud") != f"https://{request.authority}":
            raise Rejection(401, "VAPID aud is not this push service's origin")
        now = simclock.now(self.simulator)
        expiry = claims.get("exp")
        if not isinstance(expiry, int) or expiry <= now or expiry > now + 86_400:
            raise Rejection(401, "VAPID exp must lie within the next 24 hours")
        subject = claims.get("sub")
        if not isinstance(subject, str) or not (subject.startswith("mailto:") or subject.startswith("https:")):
            raise Rejection(401, "VAPID sub must be a mailto: or https: URI")
        return {"aud": claims["aud"], "exp": expiry, "sub": subject, "k": key}

    # Control commands

    def subscribe(self, arguments: dict) -> dict:
        origin = arguments.get("origin")
        if not isinstance(origin, str) or not origin.startswith("https://"):
            raise ValueError("origin must be an https origin")
        subscription = Subscription(b64url(os.urandom(12)), origin)
        self.subscriptions[subscription.id] = subscription
        return {"id": subscription.id, "subscription": subscription.json()}

    def unsubscribe(self, arguments: dict) -> dict:
        subscription = self.subscriptions.get(arguments.get("id"))
        if subscription is None:
            raise ValueError("no such subscription")
        subscription.gone = True
        return {}

    def messages_command(self, arguments: dict) -> dict:
        identifier = arguments.get("id")
        return {"messages": [m for m in self.messages if identifier is None or m["id"] == identifier]}

    def stats(self, arguments: dict) -> dict:
        return {"accepted": self.accepted, "rejections": dict(self.rejections)}


def register(simulator: Simulator) -> None:
    webpush = WebPush(simulator)
    simulator.state["webpush"] = webpush
    simulator.route("POST", r"/wp/(?P<id>[A-Za-z0-9_-]+)", webpush.send)
    simulator.control_command("webpush-subscribe", webpush.subscribe)
    simulator.control_command("webpush-unsubscribe", webpush.unsubscribe)
    simulator.control_command("webpush-messages", webpush.messages_command)
    simulator.control_command("webpush-stats", webpush.stats)
    simulator.on_reset(webpush.reset)
