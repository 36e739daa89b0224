"""Extracting the bearer credential from a request's headers."""

from __future__ import annotations

from collections.abc import Mapping


def bearer_token(headers: Mapping[str, str] | None) -> str | None:
    """The credential of an ``Authorization: Bearer <credential>`` header, if any.

    Header names are case-insensitive (API Gateway passes them as the client sent them).
    """
    for name, value in (headers or {}).items():
        if name.lower() == "authorization" and value:
            scheme, _, credential = value.strip().partition(" ")
            if scheme.lower() == "bearer" and credential.strip():
                return credential.strip()
            return None
    return None
