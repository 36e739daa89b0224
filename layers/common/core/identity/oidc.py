"""Google and Apple ID tokens: signature against the provider's JWKS (cached), iss, aud, exp, e-mail.

The JWKS is fetched once per container and refetched at most once a minute when a
token names an unknown ``kid`` (providers rotate keys). ``urllib`` is enough: a
provider's JWKS is a small public JSON document.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from dataclasses import dataclass
from typing import Any

from core.platform.errors import Unauthorized

ISSUERS = {
    "google": ("https://accounts.google.com", "accounts.google.com"),
    "apple": ("https://appleid.apple.com",),
}
ALGORITHMS = ["RS256", "ES256"]
REFETCH_SECONDS = 60


@dataclass(frozen=True)
class VerifiedIdentity:
    provider: str
    subject: str
    email: str
    name: str
    picture: str


class JwksCache:
    def __init__(self, url: str, timeout: float = 3.0):
        self._url = url
        self._timeout = timeout
        self._keys: dict[str, Any] = {}
        self._fetched_at = 0.0
        self._lock = threading.Lock()

    def _fetch(self) -> None:
        import jwt

        if not self._url.startswith(("https://", "file:", "http://127.0.0.1")):
            raise Unauthorized("Identity provider is misconfigured")
        with urllib.request.urlopen(self._url, timeout=self._timeout) as response:  # noqa: S310 - checked above
            document = json.load(response)
        self._keys = {k["kid"]: jwt.PyJWK(k) for k in document.get("keys", []) if "kid" in k}
        self._fetched_at = time.monotonic()

    def key(self, kid: str) -> Any:
        with self._lock:
            if kid not in self._keys and time.monotonic() - self._fetched_at > REFETCH_SECONDS:
                try:
                    self._fetch()
                except (OSError, ValueError) as exc:
                    raise Unauthorized("Could not verify the sign-in token") from exc
            if kid not in self._keys:
                raise Unauthorized("Sign-in token is signed by an unknown key")
            return self._keys[kid]


def verify_id_token(provider: str, token: str, jwks: JwksCache, client_ids: list[str]) -> VerifiedIdentity:
    import jwt

    if not client_ids:
        raise Unauthorized(f"{provider.title()} sign-in is not configured")
    try:
        header = jwt.get_unverified_header(token)
        if header.get("alg") not in ALGORITHMS or not isinstance(header.get("kid"), str):
            raise Unauthorized("Invalid sign-in token")
        key = jwks.key(header["kid"])
        claims = jwt.decode(
            token, key=key, algorithms=[header["alg"]], audience=client_ids, issuer=ISSUERS[provider],
            options={"require": ["iss", "aud", "exp", "sub"]},
        )  # fmt: skip
    except jwt.PyJWTError as exc:
        raise Unauthorized("Invalid sign-in token") from exc
    email = claims.get("email")
    verified = claims.get("email_verified") in (True, "true")
    if not isinstance(email, str) or "@" not in email or not verified:
        raise Unauthorized("The sign-in token carries no verified e-mail address")
    return VerifiedIdentity(provider, claims["sub"], email.lower(), claims.get("name", ""), claims.get("picture", ""))
