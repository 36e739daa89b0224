"""Standard Webhooks' signatures (https://www.standardwebhooks.com): what a receiver's verifier library checks.

A secret is ``whsec_`` + base64 of 24 random bytes; the key is those bytes (the base64 decoded), as the verifiers
read it. The signature of a message is ``v1,`` + base64(HMAC-SHA256(key, f"{id}.{timestamp}.{body}")), one per live
secret, space-separated: after a rotation both the new and the previous secret sign until the previous one expires,
so a receiver still holding the old one keeps verifying.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

PREFIX = "whsec_"
SECRET_BYTES = 24
ROTATION_SECONDS = 24 * 3600  # both secrets sign for this long after a rotation (authoring.md)


def new_secret() -> str:
    return PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def key_of(secret: str) -> bytes:
    """The HMAC key of a ``whsec_`` secret: its base64 decoded (a ValueError for anything else)."""
    if not secret.startswith(PREFIX):
        raise ValueError("not a whsec_ secret")
    return base64.b64decode(secret[len(PREFIX) :], validate=True)


def signature(secret: str, message_id: str, timestamp: int, body: str) -> str:
    """One ``v1,<base64>`` signature of the message by ``secret``."""
    signed = f"{message_id}.{timestamp}.{body}".encode()
    return "v1," + base64.b64encode(hmac.new(key_of(secret), signed, hashlib.sha256).digest()).decode()


def sign(message_id: str, timestamp: int, body: str, secrets_: list[str]) -> str:
    """The ``webhook-signature`` header: one signature per live secret (the current first), space-separated."""
    return " ".join(signature(secret, message_id, timestamp, body) for secret in secrets_)


def live_secrets(secret: str, previous: str | None, previous_until: int | None, now: int) -> list[str]:
    """The secrets that sign at ``now`` (epoch seconds): the current one, and the previous one until it expires."""
    return [secret] + ([previous] if previous and previous_until is not None and now < previous_until else [])


def verify(header: str, secret: str, message_id: str, timestamp: int, body: str) -> bool:
    """Whether any signature of the header is ``secret``'s (compared in constant time): for our own tests and the
    local receiver; a receiver uses its Standard Webhooks library."""
    expected = signature(secret, message_id, timestamp, body).encode()
    return any(hmac.compare_digest(part.encode(), expected) for part in header.split(" ") if part)
