"""``POST /v1/media-urls``: signed, short-lived URLs to workspace objects, for elements that cannot send a header."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints

from core.objects.signing import DEFAULT_SECONDS, MAX_SECONDS, MIN_SECONDS
from core.platform.fields import whole_number_rules
from core.platform.models import ApiModel, RequestModel

MAX_PATHS = 50

# A key as stored, never trimmed (a space is a legal character of an object key); the length in characters
# is a loose bound here, the path check's byte limit (``checked_path``) is the exact one.
ObjectKey = Annotated[str, StringConstraints(strip_whitespace=False, min_length=1, max_length=1024)]


class MediaUrlsRequest(RequestModel):
    paths: Annotated[list[ObjectKey], Field(min_length=1, max_length=MAX_PATHS)] = Field(
        description="Workspace-relative object keys, as /v1/r2 takes them (same checks and prefix allowlist)"
    )
    expires_in: Annotated[int, *whole_number_rules(MIN_SECONDS, MAX_SECONDS)] = Field(
        DEFAULT_SECONDS, description="Seconds the URLs stay valid"
    )


class SignedMediaUrl(ApiModel):
    path: str
    url: str = Field(description="Absolute /v1/r2 URL carrying expires, kid and sig; fetch it with no header")
    expires_at: str


class MediaUrls(ApiModel):
    urls: list[SignedMediaUrl]
