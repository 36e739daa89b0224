"""Extracting the bearer credential from a request's headers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


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


def authorization_count(
    headers: Mapping[str, str] | None, multi_value_headers: Mapping[str, Sequence[str] | None] | None
) -> int:
    """How many ``Authorization`` lines the client sent.

    API Gateway keeps only the last line of a repeated header in ``headers`` and every line in
    ``multiValueHeaders``; a request that carries two credentials (equal or not) is ambiguous, and
    which one "wins" must never depend on the order a proxy happened to keep.
    """
    multi = sum(len(v or ()) for name, v in (multi_value_headers or {}).items() if name.lower() == "authorization")
    single = sum(1 for name in (headers or {}) if name.lower() == "authorization")
    return max(multi, single)
