"""Google's OAuth2 token endpoint for the push simulator: `POST /token` with the JWT-bearer grant (RFC 7523).

The assertion must be RS256, signed by the simulator's test service account (its public key verifies it), with
`iss` the account's e-mail, `aud` this endpoint's URL (the `token_uri` of the written service-account file), the firebase.messaging scope, and `iat` / `exp` valid on
the simulated clock (at most one hour apart). Answers `{"access_token", "expires_in", "token_type": "Bearer"}`;
errors are `{"error": "invalid_grant" | "unsupported_grant_type" | "invalid_request", "error_description"}`.

Control commands:
  oauth-credentials {"token_uri": url}  → {"service_account_file", "project_id", "client_email"}: writes the
                                          service-account JSON (fresh RSA key, temporary directory) for that URL
  oauth-config {"expires_in": seconds}  → lifetime of tokens issued from now on (default 3599)
  oauth-revoke {}                       → every access token issued so far stops working (FCM answers 401)
  oauth-stats {}                        → {"token_requests", "tokens_issued", "rejections": {error: count}}
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile
from collections import Counter
from urllib.parse import parse_qs

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

import jwt_check
import simclock
from server import Request, Response, Simulator

PROJECT_ID = "sim-project"
CLIENT_EMAIL = f"push-worker@{PROJECT_ID}.iam.gserviceaccount.com"
SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
GRANT_TYPE = "urn:ietf:params:oauth:grant-type:jwt-bearer"


class Rejection(Exception):
    def __init__(self, error: str, description: str, status: int = 400):
        super().__init__(description)
        self.error = error
        self.description = description
        self.status = status


class OAuth:
    def __init__(self, simulator: Simulator, key_directory: str):
        self.simulator = simulator
        self.key_directory = key_directory
        self.private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.public_key = self.private_key.public_key()
        self.key_id = secrets.token_hex(20)
        self.expires_in = 3599
        self.token_uri: str | None = None
        self.tokens: dict[str, float] = {}
        self.token_requests = 0
        self.tokens_issued = 0
        self.rejections: Counter[str] = Counter()

    def access_token_valid(self, token: str) -> bool:
        """Whether `token` was issued here, is not revoked and not expired on the simulated clock."""
        expires_at = self.tokens.get(token)
        return expires_at is not None and simclock.now(self.simulator) < expires_at

    async def token(self, request: Request) -> Response:
        self.token_requests += 1
        try:
            self.check(request)
        except Rejection as rejection:
            self.rejections[rejection.error] += 1
            return Response.json(
                rejection.status, {"error": rejection.error, "error_description": rejection.description}
            )
        access_token = "ya29.sim-" + secrets.token_urlsafe(32)
        self.tokens[access_token] = simclock.now(self.simulator) + self.expires_in
        self.tokens_issued += 1
        return Response.json(200, {"access_token": access_token, "expires_in": self.expires_in, "token_type": "Bearer"})

    def check(self, request: Request) -> None:
        content_type = (request.header("content-type") or "").split(";")[0].strip()
        if content_type != "application/x-www-form-urlencoded":
            raise Rejection("invalid_request", "content-type must be application/x-www-form-urlencoded")
        try:
            form = parse_qs(request.body.decode("ascii"), strict_parsing=True)
        except (UnicodeDecodeError, ValueError):
            raise Rejection("invalid_request", "body is not a form")
        if form.get("grant_type") != [GRANT_TYPE]:
            raise Rejection("unsupported_grant_type", "grant_type must be the JWT-bearer grant")
        assertions = form.get("assertion", [])
        if len(assertions) != 1:
            raise Rejection("invalid_request", "exactly one assertion is required")
        try:
            header, claims, signing_input, signature = jwt_check.parse(assertions[0])
            if header.get("alg") != "RS256":
                raise jwt_check.InvalidToken("alg must be RS256")
            jwt_check.verify(self.public_key, signing_input, signature)
        except jwt_check.InvalidToken as error:
            raise Rejection("invalid_grant", f"Invalid JWT Signature: {error}")
        if claims.get("iss") != CLIENT_EMAIL:
            raise Rejection("invalid_grant", "iss is not the service account")
        audience = claims.get("aud")
        if not isinstance(audience, str) or audience != (self.token_uri or audience) or not audience.endswith("/token"):
            raise Rejection("invalid_grant", "aud is not this token endpoint")
        if SCOPE not in str(claims.get("scope", "")).split():
            raise Rejection("invalid_scope", "the firebase.messaging scope is required")
        issued_at, expires_at = claims.get("iat"), claims.get("exp")
        if not isinstance(issued_at, int) or not isinstance(expires_at, int):
            raise Rejection("invalid_grant", "iat and exp must be integers")
        now = simclock.now(self.simulator)
        if expires_at - issued_at > 3600 or expires_at <= now or issued_at > now + 60:
            raise Rejection("invalid_grant", "Invalid JWT: Token must be a short-lived token and in a reasonable timeframe")

    # Control commands

    def credentials(self, arguments: dict) -> dict:
        token_uri = arguments.get("token_uri")
        if not isinstance(token_uri, str) or not token_uri.startswith("https://"):
            raise ValueError("token_uri must be an https URL")
        self.token_uri = token_uri
        pem = self.private_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()
        account = {
            "type": "service_account", "project_id": PROJECT_ID, "private_key_id": self.key_id,
            "private_key": pem, "client_email": CLIENT_EMAIL, "client_id": "100000000000000000001",
            "token_uri": token_uri,
        }
        path = os.path.join(self.key_directory, "service-account.json")
        with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as file:
            json.dump(account, file)
        return {"service_account_file": path, "project_id": PROJECT_ID, "client_email": CLIENT_EMAIL}

    def config(self, arguments: dict) -> dict:
        expires_in = arguments.get("expires_in", self.expires_in)
        if not isinstance(expires_in, int) or expires_in <= 0:
            raise ValueError("expires_in must be a positive integer")
        self.expires_in = expires_in
        return {"expires_in": self.expires_in}

    def revoke(self, arguments: dict) -> dict:
        revoked = len(self.tokens)
        self.tokens.clear()
        return {"revoked": revoked}

    def stats(self, arguments: dict) -> dict:
        return {
            "token_requests": self.token_requests,
            "tokens_issued": self.tokens_issued,
            "rejections": dict(self.rejections),
        }


def register(simulator: Simulator) -> None:
    simclock.register(simulator)
    oauth = OAuth(simulator, tempfile.mkdtemp(prefix="push-simulator-oauth-"))
    simulator.state["oauth"] = oauth
    simulator.route("POST", r"/token", oauth.token)
    simulator.control_command("oauth-credentials", oauth.credentials)
    simulator.control_command("oauth-config", oauth.config)
    simulator.control_command("oauth-revoke", oauth.revoke)
    simulator.control_command("oauth-stats", oauth.stats)
