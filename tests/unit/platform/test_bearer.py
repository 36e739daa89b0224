"""core.platform.rest.bearer: the credential of an ``Authorization: Bearer`` header."""

from __future__ import annotations

import pytest

from core.platform.rest.bearer import bearer_token


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Authorization": "Bearer abc"}, "abc"),
        ({"authorization": "Bearer abc"}, "abc"),
        ({"AUTHORIZATION": "Bearer abc"}, "abc"),
        ({"Authorization": "bearer abc"}, "abc"),
        ({"Authorization": "BEARER abc"}, "abc"),
        ({"Authorization": "bEaReR abc"}, "abc"),
        ({"Authorization": "Bearer    abc"}, "abc"),
        ({"Authorization": "  Bearer abc  "}, "abc"),
        ({"Authorization": "Bearer sk_ws_x.y-z"}, "sk_ws_x.y-z"),
        ({"Accept": "application/json", "Authorization": "Bearer abc"}, "abc"),
    ],
)
def test_bearer_credential_is_extracted(headers: dict[str, str], expected: str) -> None:
    assert bearer_token(headers) == expected


@pytest.mark.parametrize(
    "headers",
    [
        None,
        {},
        {"Accept": "application/json"},
        {"Authorization": ""},
        {"Authorization": "   "},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer "},
        {"Authorization": "Bearer     "},
        {"Authorization": "Basic dXNlcjpwYXNz"},
        {"Authorization": "Token abc"},
        {"Authorization": "Digest username=x"},
        {"Authorization": "Bearerabc"},
        {"Authorization": "abc"},
        {"X-Authorization": "Bearer abc"},
        {"Proxy-Authorization": "Bearer abc"},
    ],
)
def test_no_bearer_credential(headers: dict[str, str] | None) -> None:
    assert bearer_token(headers) is None
