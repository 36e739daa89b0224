"""Portal JWTs: HS256 only, ``iss=service-portal``, ``aud=service-api``, one hour.

Pure functions over a secret; where the secret comes from (SSM in AWS, ``.local/``
in local runs) is the caller's concern. ``jwt`` is imported lazily so read-plane
functions, which never verify a portal token, do not pay for it at cold start.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass

from core.platform.errors import TokenExpired, Unauthorized

ISSUER = "service-portal"
AUDIENCE = "service-api"
LIFETIME_SECONDS = 3600
_REQUIRED_CLAIMS = ["iss", "aud", "sub", "sid", "iat", "exp", "jti"]


@dataclass(frozen=True)
class PortalClaims:
    user_id: str
    session_id: str
    issued_at: int
    expires_at: int
    token_id: str


def issue(secret: bytes, user_id: str, session_id: str, now: int | None = None) -> str:
    import jwt

    iat = int(time.time()) if now is None else now
    claims = {
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": user_id,
        "sid": session_id,
        "iat": iat,
        "exp": iat + LIFETIME_SECONDS,
        "jti": secrets.token_urlsafe(16),
    }
    return jwt.encode(claims, secret, algorithm="HS256")


def verify(token: str, secret: bytes, now: int | None = None) -> PortalClaims:
    """Claims of a valid token; ``TokenExpired`` if only ``exp`` is wrong, else ``Unauthorized``.

    Expiry is checked last, by hand: PyJWT checks ``exp`` before ``aud``/``iss``, which
    would tell the holder of someone else's expired token to refresh it.
    """
    import jwt

    try:
        claims = jwt.decode(
            token,
            secret,
            algorithms=["HS256"],  # never trust the token's own header
            issuer=ISSUER,
            audience=AUDIENCE,
            options={"require": _REQUIRED_CLAIMS, "verify_exp": False},
        )
    except jwt.PyJWTError as exc:
        raise Unauthorized() from exc
    if not all(isinstance(claims[name], str) and claims[name] for name in ("sub", "sid", "jti")):
        raise Unauthorized()
    if not all(isinstance(claims[name], int) and not isinstance(claims[name], bool) for name in ("iat", "exp")):
        raise Unauthorized()
    if claims["exp"] <= (int(time.time()) if now is None else now):
        raise TokenExpired()
    return PortalClaims(claims["sub"], claims["sid"], claims["iat"], claims["exp"], claims["jti"])
