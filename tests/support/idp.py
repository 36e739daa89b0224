"""A fake Google and Apple: an RSA key per provider, its JWKS in a file, and ID tokens signed with it."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

ISSUER = {"google": "https://accounts.google.com", "apple": "https://appleid.apple.com"}
CLIENT_ID = {"google": "portal-web.apps.googleusercontent.com", "apple": "com.example.portal"}


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def public_pem(key: rsa.RSAPrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def forge(header: dict[str, Any], claims: dict[str, Any], hmac_key: bytes | None) -> str:
    """A JWT assembled by hand (PyJWT refuses to build these): ``alg: none``, or HS256 under ``hmac_key``."""
    signing_input = f"{_b64(json.dumps(header).encode())}.{_b64(json.dumps(claims).encode())}"
    signature = b"" if hmac_key is None else hmac.new(hmac_key, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{_b64(signature)}"


class IdentityProviders:
    def __init__(self, directory: Path):
        self.keys = {provider: new_key() for provider in ISSUER}
        self.kids = {"google": "google-key-1", "apple": "apple-key-1"}
        self.urls: dict[str, str] = {}
        for provider, key in self.keys.items():
            jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
            document = {"keys": [jwk | {"kid": self.kids[provider], "use": "sig", "alg": "RS256"}]}
            path = directory / f"{provider}-jwks.json"
            path.write_text(json.dumps(document))
            self.urls[provider] = path.as_uri()

    def claims(self, provider: str, email: str | None = "oauth.user@example.com", **changes: Any) -> dict[str, Any]:
        now = int(time.time())
        claims = {
            "iss": ISSUER[provider], "aud": CLIENT_ID[provider], "sub": f"{provider}-subject-{email}",
            "email": email, "email_verified": True if provider == "google" else "true",
            "iat": now, "exp": now + 600, "name": "OAuth User", "picture": "https://example.com/me.png",
        }  # fmt: skip
        claims |= changes
        return {k: v for k, v in claims.items() if v is not None}

    def token(
        self,
        provider: str,
        email: str | None = "oauth.user@example.com",
        *,
        key: rsa.RSAPrivateKey | None = None,
        kid: str | None = None,
        **changes: Any,
    ) -> str:
        """An RS256 ID token of ``provider`` (its own key and kid unless told); a claim set to None is left out."""
        headers = {"kid": kid or self.kids[provider]}
        return jwt.encode(self.claims(provider, email, **changes), key or self.keys[provider], "RS256", headers)
