"""Identifiers and timestamps in the wire format decisions.md fixes, and the hash stored in place of a secret.

IDs are a type prefix plus a ULID (48-bit millisecond time + 80 random bits,
Crockford base32), so they sort by creation time and reveal nothing else.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from datetime import UTC, datetime

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def crockford(value: int, chars: int) -> str:
    """``value``'s lowest ``5 * chars`` bits in Crockford's base32, most significant first."""
    digits = []
    for _ in range(chars):
        value, digit = divmod(value, 32)
        digits.append(_CROCKFORD[digit])
    return "".join(reversed(digits))


def ulid(at_ms: int | None = None) -> str:
    ms = int(time.time() * 1000) if at_ms is None else at_ms
    return crockford((ms << 80) | secrets.randbits(80), 26)


def new_id(prefix: str, at_ms: int | None = None) -> str:
    return f"{prefix}_{ulid(at_ms)}"


def iso(dt: datetime) -> str:
    """RFC 3339 UTC with milliseconds and ``Z``: ``2026-11-22T05:23:35.123Z``."""
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def now_iso() -> str:
    return iso(datetime.now(UTC))


def sha256_hex(value: str) -> str:
    """The SHA-256 of ``value`` in hex: what is stored (and looked up) instead of a token, key or address."""
    return hashlib.sha256(value.encode()).hexdigest()
