"""A portal session as the client keeps it: the JWT, when it expires, and the rules for renewing it.

The client cannot verify a portal JWT (HS256 under the service's secret), so it only *reads* the
``exp`` claim (base64 of the payload, no signature check) to know when to renew: the service stays
the judge, and a token it refuses anyway (``TOKEN_EXPIRED``) is renewed once and the call repeated.

Renewal: ``POST /api/auth/refresh`` with the current JWT while it is valid; once it has expired (or
refresh is refused) ``POST /api/auth/api-token`` with the ``session`` cookie (30 days) the sign-in set.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import time
from urllib.parse import unquote

from ._operation import Operation

REFRESH_PATH = "/api/auth/refresh"
TOKEN_PATHS = frozenset({REFRESH_PATH, "/api/auth/api-token"})
SESSION_COOKIE = "session"
# ``token=`` then the token: URL-safe base64, or percent-escaped characters (a link encoded once more).
TOKEN_IN_LINK = re.compile(r"[?&]token=((?:[A-Za-z0-9_\-.~]|%[0-9A-Fa-f]{2})+)")
QUOTES = " \t\"'`<>,;"  # around a pasted token: quotes, a JSON line's comma, a mail client's angle brackets


def jwt_expiry(token: str) -> float | None:
    """The ``exp`` of a JWT (seconds since the epoch), read without verifying the signature; None if unreadable."""
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError, binascii.Error):
        return None
    exp = claims.get("exp") if isinstance(claims, dict) else None
    return float(exp) if isinstance(exp, int | float) and not isinstance(exp, bool) else None


def magic_link_token(link_or_token: str) -> str:
    """The token of a magic link however it was pasted: the bare link (``…?token=…``), the outbox's JSON line
    (``"link": "…",``) or a JSON document holding ``link``, the link in quotes or angle brackets (a trailing quote
    kept by a copy), or the bare token. A token is URL-safe base64 (``secrets.token_urlsafe``), so the first run of
    such characters after ``token=`` is the token, whatever surrounds it."""
    value = link_or_token.strip()
    if value.startswith("{"):
        try:
            document = json.loads(value)
        except ValueError:
            document = None
        if isinstance(document, dict) and isinstance(document.get("link"), str):
            value = document["link"]
    if "token=" in value:
        found = TOKEN_IN_LINK.search(value)
        if found:
            return unquote(found.group(1))
    return value.strip(QUOTES)


class TokenHolder:
    """The JWT and its expiry. ``margin``: renew this many seconds before ``exp`` (a call never leaves with a token
    about to lapse on its way; clocks of client and service may differ by a little)."""

    def __init__(self, token: str | None, margin: float):
        self.margin = margin
        self.token: str | None = None
        self.expires_at: float | None = None
        if token:
            self.set(token)

    def set(self, token: str | None) -> None:
        self.token = token
        self.expires_at = jwt_expiry(token) if token else None

    def needs_renewal(self, now: float | None = None) -> bool:
        if self.token is None:
            return True
        return self.expires_at is not None and (now or time.time()) >= self.expires_at - self.margin

    def refreshable(self, now: float | None = None) -> bool:
        """Whether ``/api/auth/refresh`` may still accept it (unexpired); else only the session cookie helps."""
        return self.token is not None and (self.expires_at is None or (now or time.time()) < self.expires_at)

    def expire(self) -> None:
        """The service said TOKEN_EXPIRED: whatever ``exp`` says, renew before the next call."""
        self.expires_at = 0.0


def renews_itself(operation: Operation) -> bool:
    """Calls that take the current credential as it is: the token operations (renewing first would recurse),
    and those that need no JWT (sign-in, or sign-out, which the cookie does as well)."""
    return operation.template in TOKEN_PATHS or operation.auth != "bearer"
