"""The ``session`` cookie (decisions.md: HttpOnly, SameSite=Lax, Path=/, Secure but on plain-http local runs)."""

from __future__ import annotations

from collections.abc import Mapping

SESSION_COOKIE = "session"


def read_cookie(headers: Mapping[str, str] | None, name: str = SESSION_COOKIE) -> str | None:
    for header_name, value in (headers or {}).items():
        if header_name.lower() != "cookie":
            continue
        for part in value.split(";"):
            key, _, cookie_value = part.strip().partition("=")
            if key == name and cookie_value:
                return cookie_value
    return None


def session_cookie(token: str, max_age: int, *, secure: bool) -> str:
    attributes = [f"{SESSION_COOKIE}={token}", "Path=/", f"Max-Age={max_age}", "HttpOnly", "SameSite=Lax"]
    return "; ".join(attributes + (["Secure"] if secure else []))


def clear_session_cookie(*, secure: bool) -> str:
    return session_cookie("", 0, secure=secure)
