"""Workspace API key format: ``sk_ws_`` + 43 base62 chars of secret + 6 base62 chars of CRC32.

The checksum (as GitHub's tokens do) lets a secret scanner, or this service before
any lookup, tell a well-formed key from a typo offline. Only the SHA-256 hex of the
raw key is ever stored; verification is one lookup by that hash.
"""

from __future__ import annotations

import hmac
import secrets
import zlib

from core.platform.ids import sha256_hex

PREFIX = "sk_ws_"
_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_SECRET_CHARS = 43  # 62**43 > 2**256: 32 random bytes always fit
_CHECKSUM_CHARS = 6  # 62**6 > 2**32
KEY_LENGTH = len(PREFIX) + _SECRET_CHARS + _CHECKSUM_CHARS
DISPLAY_PREFIX_LENGTH = 12


def _base62(value: int, width: int) -> str:
    out = []
    for _ in range(width):
        value, digit = divmod(value, 62)
        out.append(_BASE62[digit])
    return "".join(reversed(out))


def _checksum(body: str) -> str:
    return _base62(zlib.crc32(body.encode()), _CHECKSUM_CHARS)


def generate(secret: bytes | None = None) -> str:
    """A new raw key: random, or derived from ``secret`` (an idempotent mint's HMAC of its attempt id, so a
    replay can hand back the same key without storing it; tests use it for fixed fixtures)."""
    raw = secret if secret is not None else secrets.token_bytes(32)
    body = PREFIX + _base62(int.from_bytes(raw, "big"), _SECRET_CHARS)
    return body + _checksum(body)


def is_well_formed(candidate: str) -> bool:
    if len(candidate) != KEY_LENGTH or not candidate.startswith(PREFIX):
        return False
    body, check = candidate[:-_CHECKSUM_CHARS], candidate[-_CHECKSUM_CHARS:]
    if any(ch not in _BASE62 for ch in body[len(PREFIX) :]):
        return False
    return hmac.compare_digest(_checksum(body), check)


def hash_key(raw: str) -> str:
    return sha256_hex(raw)


def display_prefix(raw: str) -> str:
    return raw[:DISPLAY_PREFIX_LENGTH]
