"""/v1/r2 path rules (decisions.md): decoded once, then INVALID_PATH or PREFIX_NOT_ALLOWED; and Range parsing."""

from __future__ import annotations

import pytest

from core.errors import InvalidPath, PrefixNotAllowed
from core.services.media import MAX_KEY_BYTES, object_path, single_range


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
