"""Parsing and signature checks of compact JWS tokens, shared by apns.py (ES256) and oauth.py (RS256)."""

from __future__ import annotations

import base64
import json

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa, utils


class InvalidToken(Exception):
    """The token is malformed or its signature does not verify."""


def b64url_decode(segment: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
    except (ValueError, TypeError) as error:
        raise InvalidToken("segment is not base64url") from error


def parse(token: str) -> tuple[dict, dict, bytes, bytes]:
    """Header, claims, signing input and signature of a compact JWS."""
    parts = token.split(".")
    if len(parts) != 3:
        raise InvalidToken("not three segments")
    try:
        header = json.loads(b64url_decode(parts[0]))
        claims = json.loads(b64url_decode(parts[1]))
    except json.JSONDecodeError as error:
        raise InvalidToken("segment is not JSON") from error
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise InvalidToken("header or claims not an object")
    return header, claims, f"{parts[0]}.{parts[1]}".encode(), b64url_decode(parts[2])


def verify(public_key, signing_input: bytes, signature: bytes) -> None:
    """Checks an ES256 (raw r‖s, 64 bytes) or RS256 signature; raises InvalidToken."""
    try:
        if isinstance(public_key, ec.EllipticCurvePublicKey):
            if len(signature) != 64:
                raise InvalidToken("ES256 signature is not 64 bytes")
            der = utils.encode_dss_signature(
                int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
            )
            public_key.verify(der, signing_input, ec.ECDSA(hashes.SHA256()))
        elif isinstance(public_key, rsa.RSAPublicKey):
            public_key.verify(signature, signing_input, padding.PKCS1v15(), hashes.SHA256())
        else:
            raise InvalidToken("unsupported key")
    except InvalidSignature as error:
        raise InvalidToken("signature does not verify") from error
