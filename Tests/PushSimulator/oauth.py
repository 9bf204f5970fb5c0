"""Google's OAuth2 token endpoint for the push simulator: `POST /token` with the JWT-bearer grant (RFC 7523).

The assertion must be RS256, signed by one of the simulator's test service accounts (its public key verifies it),
with `iss` that account's e-mail, `aud` this endpoint's URL (the `token_uri` of the written service-account file), the firebase.messaging scope, and `iat` / `exp` valid on
the simulated clock (at most one hour apart). Answers `{"access_token", "expires_in", "token_type": "Bearer"}`;
errors are `{"error": "invalid_grant" | "unsupported_grant_type" | "invalid_request", "error_description"}`.
An access token belongs to its account's project: FCM accepts it for that project only.

Control commands:
  oauth-credentials {"token_uri": url, "project": id?}
                                        → {"service_account_file", "project_id", "client_email"}: writes the
                                          service-account JSON (fresh RSA key, temporary directory) for that URL;
                                          with `project`, another account of that project (made at its first call)
  oauth-config {"expires_in": seconds}  → lifetime of tokens issued from now on (default 3599)
  oauth-revoke {}                       → every access token issued so far stops working (FCM answers 401)
  oauth-stats {}                        → {"token_requests", "tokens_issued", "rejections": {error: count}}
"""

from __future__ import annotations

import json
import os
import re
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


class Account:
    """One service account: its project, e-mail and RSA key."""

    def __init__(self, project_id: str):
        self.project_id = project_id
        self.client_email = f"push-worker@{project_id}.iam.gserviceaccount.com"
        self.private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.public_key = self.private_key.public_key()
        self.key_id = secrets.token_hex(20)


class OAuth:
    def __init__(self, simulator: Simulator, key_directory: str):
        self.simulator = simulator
        self.key_directory = key_directory
        self.accounts: dict[str, Account] = {PROJECT_ID: Account(PROJECT_ID)}
        self.expires_in = 3599
        self.token_uri: str | None = None
        # access token → (expiry on the simulated clock, the project of the account it was issued to)
        self.tokens: dict[str, tuple[float, str]] = {}
        self.token_requests = 0
        self.tokens_issued = 0
        self.rejections: Counter[str] = Counter()

    def access_token_project(self, token: str) -> str | None:
        """The project of `token` when it was issued here, is not revoked and not expired on the simulated clock."""
        issued = self.tokens.get(token)
        if issued is None or simclock.now(self.simulator) >= issued[0]:
            return None
        return issued[1]

    async def token(self, request: Request) -> Response:
        self.token_requests += 1
        try:
            account = self.check(request)
        except Rejection as rejection:
            self.rejections[rejection.error] += 1
            return Response.json(
                rejection.status, {"error": rejection.error, "error_description": rejection.description}
            )
        access_token = "ya29.sim-" + secrets.token_urlsafe(32)
        self.tokens[access_token] = (simclock.now(self.simulator) + self.expires_in, account.project_id)
        self.tokens_issued += 1
        return Response.json(200, {"access_token": access_token, "expires_in": self.expires_in, "token_type": "Bearer"})

    def check(self, request: Request) -> Account:
        """Checks the token request; the account whose assertion it carries."""
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
        except jwt_check.InvalidToken as error:
            raise Rejection("invalid_grant", f"Invalid JWT Signature: {error}")
        issuer = claims.get("iss")
        account = next((account for account in self.accounts.values() if account.client_email == issuer), None)
        if account is None:
            raise Rejection("invalid_grant", "iss is not a service account")
        try:
            if header.get("alg") != "RS256":
                raise jwt_check.InvalidToken("alg must be RS256")
            jwt_check.verify(account.public_key, signing_input, signature)
        except jwt_check.InvalidToken as error:
            raise Rejection("invalid_grant", f"Invalid JWT Signature: {error}")
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
        return account

    # Control commands

    def credentials(self, arguments: dict) -> dict:
        token_uri = arguments.get("token_uri")
        if not isinstance(token_uri, str) or not token_uri.startswith("https://"):
            raise ValueError("token_uri must be an https URL")
        project = arguments.get("project", PROJECT_ID)
        if not isinstance(project, str) or not re.fullmatch(r"[a-z][a-z0-9-]{1,28}[a-z0-9]", project):
            raise ValueError("project must be a Firebase project id")
        self.token_uri = token_uri
        if project not in self.accounts:
            self.accounts[project] = Account(project)
        account = self.accounts[project]
        pem = account.private_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()
        document = {
            "type": "service_account", "project_id": project, "private_key_id": account.key_id,
            "private_key": pem, "client_email": account.client_email, "client_id": "100000000000000000001",
            "token_uri": token_uri,
        }
        name = "service-account.json" if project == PROJECT_ID else f"service-account-{project}.json"
        path = os.path.join(self.key_directory, name)
        with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as file:
            json.dump(document, file)
        return {"service_account_file": path, "project_id": project, "client_email": account.client_email}

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
