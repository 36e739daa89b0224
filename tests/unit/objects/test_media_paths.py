"""/v1/r2 path rules (decisions.md): decoded once, then INVALID_PATH or PREFIX_NOT_ALLOWED; Range, cap, validators."""

from __future__ import annotations

import pytest

from core.objects.paths import MAX_KEY_BYTES
from core.objects.ranges import (
    capped_content_range,
    clamp_range,
    if_range_etag,
    matches_any,
    requested_range,
    single_range,
    split_if_none_match,
)
from core.objects.service import object_path
from core.platform.errors import InvalidPath, PrefixNotAllowed


@pytest.mark.parametrize(
    ("request_path", "key"),
    [
        ("/v1/r2/assets/logo.png", "assets/logo.png"),
        ("/v1/r2/projects/prj_1/media/clip%20one.mp4", "projects/prj_1/media/clip one.mp4"),
        ("/v1/r2/assets/%25252e%25252e/x", "assets/%252e%252e/x"),  # decoded once only
        ("/v1/r2/assets/%252e%252e/x", "assets/%2e%2e/x"),  # a literal "%2e%2e" segment, not ".."
        ("/v1/r2/media/caf%C3%A9.jpg", "media/café.jpg"),
        ("/v1/r2/public/a..b/c.d", "public/a..b/c.d"),
        ("/live/v1/r2/config/site.json", "config/site.json"),  # a stage or base path before the route
    ],
)
def test_valid_paths(request_path: str, key: str) -> None:
    assert object_path(request_path) == key


@pytest.mark.parametrize(
    "request_path",
    [
        "/v1/r2", "/v1/r2/", "/v1/r2//assets/x", "/v1/r2/%2Fassets/x", "/v1/r2/assets//x", "/v1/r2/assets/x/",
        "/v1/r2/assets/./x", "/v1/r2/assets/../private/x", "/v1/r2/assets/%2e%2e/private", "/v1/r2/assets/%2E/x",
        "/v1/r2/assets%2F..%2Fprivate", "/v1/r2/assets/a%5Cb", "/v1/r2/assets/a\\b", "/v1/r2/assets/a%00b",
        "/v1/r2/assets/a%0Ab", "/v1/r2/assets/a%7Fb", "/v1/r2/assets/%FF", "/v1/r2/..", "/v1/r2/.",
        "/v1/r2/assets/" + "a" * MAX_KEY_BYTES,
    ],
)  # fmt: skip
def test_invalid_paths(request_path: str) -> None:
    with pytest.raises(InvalidPath) as caught:
        object_path(request_path)
    assert (caught.value.status, caught.value.code) == (400, "INVALID_PATH")
    assert caught.value.message.startswith("path: ")


@pytest.mark.parametrize(
    "request_path",
    ["/v1/r2/conversations/prj_1/t/turn.json", "/v1/r2/billing/x", "/v1/r2/private/x", "/v1/r2/asset/x",
     "/v1/r2/Assets/x", "/v1/r2/projects", "/v1/r2/x.png", "/v1/r2/%61ssets/x.png%00"],
)  # fmt: skip
def test_prefixes_outside_the_allowlist(request_path: str) -> None:
    with pytest.raises((PrefixNotAllowed, InvalidPath)) as caught:
        object_path(request_path)
    if request_path.endswith("%00"):
        assert caught.value.code == "INVALID_PATH"  # the path is checked before the prefix
    else:
        assert (caught.value.status, caught.value.code) == (403, "PREFIX_NOT_ALLOWED")


def test_an_encoded_allowlisted_prefix_is_allowed() -> None:
    assert object_path("/v1/r2/%61ssets/x.png") == "assets/x.png"


@pytest.mark.parametrize(
    ("header", "sent"),
    [
        (None, None), ("bytes=0-99", "bytes=0-99"), ("bytes=100-", "bytes=100-"), ("bytes=-500", "bytes=-500"),
        (" bytes=0-0 ", "bytes=0-0"), ("bytes=0-1,5-6", None), ("bytes=5-2", None), ("items=0-5", None),
        ("bytes=", None), ("bytes=-", None), ("bytes=a-b", None), ("bytes=0-" + "9" * 20, "bytes=0-" + "9" * 20),
    ],
)  # fmt: skip
def test_range_headers(header: str | None, sent: str | None) -> None:
    assert single_range(header) == sent


@pytest.mark.parametrize(
    ("byte_range", "sent"),
    [
        ("bytes=0-", "bytes=0-99"), ("bytes=100-", "bytes=100-199"), ("bytes=0-99", "bytes=0-99"),
        ("bytes=0-100", "bytes=0-99"), ("bytes=50-60", "bytes=50-60"), ("bytes=7-" + "9" * 20, "bytes=7-106"),
        ("bytes=-500", "bytes=-500"),  # a suffix's start is known from S3's answer only: cut afterwards
    ],
)  # fmt: skip
def test_a_range_is_clamped_to_the_cap_before_s3_is_asked(byte_range: str, sent: str) -> None:
    assert clamp_range(byte_range, 100) == sent


@pytest.mark.parametrize(
    ("content_range", "capped"),
    [
        ("bytes 0-99/307200", None), ("bytes 307100-307199/307200", None),
        ("bytes 0-100/307200", "bytes 0-99/307200"), ("bytes 207100-307199/307200", "bytes 207100-207199/307200"),
        ("bytes 0-100/*", "bytes 0-99/*"), ("bytes */307200", None), ("garbage", None),
    ],
)  # fmt: skip
def test_a_part_longer_than_the_cap_keeps_its_first_bytes(content_range: str, capped: str | None) -> None:
    assert capped_content_range(content_range, 100) == capped


DATE = "Wed, 21 Oct 2026 07:28:00 GMT"


@pytest.mark.parametrize(
    ("range_header", "if_range", "sent"),
    [
        ("bytes=0-9", None, ("bytes=0-9", None)),
        ("bytes=0-9", '"abc"', ("bytes=0-9", '"abc"')),
        ("bytes=0-", ' "abc" ', ("bytes=0-99", '"abc"')),
        ("bytes=0-9", 'W/"abc"', (None, None)),  # If-Range compares strongly: a weak tag never matches
        ("bytes=0-9", DATE, (None, None)),  # a date: the whole object
        ("bytes=0-9", "abc", (None, None)),  # malformed: the whole object
        (None, '"abc"', (None, None)),
        ("bytes=0-1,4-5", '"abc"', (None, None)),
    ],
)
def test_if_range_makes_the_range_conditional_or_drops_it(
    range_header: str | None, if_range: str | None, sent: tuple[str | None, str | None]
) -> None:
    assert requested_range(range_header, if_range, 100) == sent


@pytest.mark.parametrize(("header", "etag"), [('"a"', '"a"'), ('""', '""'), ('W/"a"', None), (DATE, None), ("*", None)])
def test_if_range_etag(header: str, etag: str | None) -> None:
    assert if_range_etag(header) == etag


@pytest.mark.parametrize(
    ("header", "to_s3", "tags"),
    [
        (None, None, ()),
        ("*", "*", ("*",)),
        (' "a" ', '"a"', ('"a"',)),
        ('"a,b"', '"a,b"', ('"a,b"',)),  # a comma inside a tag is part of it
        ('W/"a"', None, ('W/"a"',)),
        ('"a", "b"', None, ('"a"', '"b"')),
        ('"a",W/"b" , ,"c"', None, ('"a"', 'W/"b"', '"c"')),  # empty list elements are allowed
        ("abc", None, ()),  # malformed headers are ignored
        ('*, "a"', None, ()),
        ('"a" "b"', None, ()),
        ('"a', None, ()),
    ],
)
def test_if_none_match_goes_to_s3_only_as_a_single_strong_tag_or_star(
    header: str | None, to_s3: str | None, tags: tuple[str, ...]
) -> None:
    assert split_if_none_match(header) == (to_s3, tags)


@pytest.mark.parametrize(
    ("tags", "etag", "matches"),
    [
        (('W/"a"',), '"a"', True), (('"a"',), 'W/"a"', True), (('"b"', 'W/"a"'), '"a"', True),
        (("*",), '"x"', True), (('"b"', '"c"'), '"a"', False), ((), '"a"', False), (('"A"',), '"a"', False),
    ],
)  # fmt: skip
def test_if_none_match_compares_weakly(tags: tuple[str, ...], etag: str, matches: bool) -> None:
    assert matches_any(tags, etag) is matches
