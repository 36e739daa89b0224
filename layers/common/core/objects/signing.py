"""Signed media URLs: ``/v1/r2/<path>?expires=<unix s>&kid=<key id>&sig=<base64url HMAC-SHA256>``.

The MAC covers a version tag, the key id, the expiry and the workspace-relative path (decoded, so
any percent-encoding of the same path verifies). The workspace is the key's: a key belongs to one
workspace for life (records are never overwritten, ids never reused), so the key id binds it, and
the URL names no workspace a holder could change. Everything here is pure and checked before any
I/O: the format and expiry first (no AWS call), then the MAC (only the cached secret), so a forged
or stale URL never reaches DynamoDB. The raw key never appears in a URL.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Mapping
from dataclasses import dataclass

from core.platform.errors import SignedUrlExpired, SignedUrlInvalid

VERSION = "media-url-v1"
PARAMS = ("expires", "kid", "sig")
MIN_SECONDS, MAX_SECONDS, DEFAULT_SECONDS = 60, 3600, 900
# A URL is never issued for longer than MAX_SECONDS: one claiming more (plus clock skew between
# containers) was not issued here, whatever its MAC says.
_SKEW_SECONDS = 60
_EXPIRES = re.compile(r"[0-9]{1,12}")
_KEY_ID = re.compile(r"key_[0-9A-Za-z]{1,64}")
_SIG = re.compile(r"[A-Za-z0-9_-]{43}")  # 32 bytes, unpadded base64url


@dataclass(frozen=True)
class SignedParams:
    expires: int
    key_id: str
    sig: str


def carries_signature(query: Mapping[str, str] | None) -> bool:
    """Whether a request tries a signed URL (any of its parameters present)."""
    return query is not None and any(name in query for name in PARAMS)


def sign(secret: bytes, key_id: str, path: str, expires: int) -> str:
    message = f"{VERSION}\n{key_id}\n{expires}\n{path}".encode()
    digest = hmac.new(secret, message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def parse(query: Mapping[str, str] | None, now: float) -> SignedParams:
    """The parameters, well-formed and unexpired (``SignedUrlInvalid`` / ``SignedUrlExpired``); no I/O."""
    query = query or {}
    expires, key_id, sig = (query.get(name) for name in PARAMS)
    if expires is None or key_id is None or sig is None:
        raise SignedUrlInvalid()
    if not (_EXPIRES.fullmatch(expires) and _KEY_ID.fullmatch(key_id) and _SIG.fullmatch(sig)):
        raise SignedUrlInvalid()
    if int(expires) <= now:
        raise SignedUrlExpired()
    if int(expires) > now + MAX_SECONDS + _SKEW_SECONDS:
        raise SignedUrlInvalid()
    return SignedParams(int(expires), key_id, sig)


def verify(secret: bytes, params: SignedParams, path: str) -> None:
    """``SignedUrlInvalid`` unless ``params.sig`` is the MAC of this key id, expiry and path (constant time)."""
    if not hmac.compare_digest(sign(secret, params.key_id, path, params.expires), params.sig):
        raise SignedUrlInvalid()
