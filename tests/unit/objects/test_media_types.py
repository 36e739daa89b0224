"""core.objects.media_types: the strict form of an upload's declared type, and the type a stored object is served
with."""

from __future__ import annotations

import pytest

from core.objects.media_types import UNKNOWN, served_type, upload_type_problem


@pytest.mark.parametrize(
    "declared",
    [
        "image/png",
        "IMAGE/PNG",
        "text/markdown; charset=utf-8",
        "text/plain;charset=UTF-8",
        "text/csv; charset=us-ascii",
    ],
)
def test_allowed_types_in_their_plain_form_are_taken(declared: str) -> None:
    assert upload_type_problem(declared) is None


@pytest.mark.parametrize(
    "declared",
    [
        "text/plain;\r\ncharset=utf-8", "text/plain;\tcharset=utf-8", "text/plain;\x1ccharset=utf-8",
        "text/plain;\x85charset=utf-8", "text/plain;\u3000charset=utf-8", "text/plain;  charset=utf-8",
        "text/mar\u212adown", "text/plain; chars\u017fet=utf-8", "text/plain; charset=utf-8\n", " text/plain",
        "text/html", "image/png; charset=utf-8; a=b",
    ],
)  # fmt: skip
def test_types_http_cannot_carry_or_the_allowlist_lacks_are_refused(declared: str) -> None:
    """Issue 25, hole 3: ``\\s`` and a case-insensitive match without re.ASCII let these through."""
    assert upload_type_problem(declared) is not None


@pytest.mark.parametrize(
    ("stored", "served"),
    [
        ("image/png", "image/png"), ("text/plain; charset=utf-8", "text/plain; charset=utf-8"),
        ("application/vnd.ms-excel", "application/vnd.ms-excel"), (None, UNKNOWN), ("", UNKNOWN),
        ("text/plain;\r\ncharset=utf-8", UNKNOWN), ("text/plain;\x1ccharset=utf-8", UNKNOWN),
        ("text/plain;\u3000charset=utf-8", UNKNOWN), ("=?UTF-8?q?text/plain=3B=0D=0A?=", UNKNOWN),
        ("text/html\r\nSet-Cookie: a=b", UNKNOWN), ("image", UNKNOWN),
    ],
)  # fmt: skip
def test_a_stored_type_is_served_only_when_a_header_can_carry_it_as_it_is(stored: str | None, served: str) -> None:
    assert served_type(stored) == served
