"""The objects' writer (authoring.md): request bodies and queries (strict: unknown fields refused, ``null`` is
absent), and the resources an owner reads back, with their envelopes."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints

from core.objects.fields import UploadType
from core.platform.fields import QueryInt, whole_number_rules
from core.platform.models import ApiModel, RequestModel
from core.platform.write_fields import ListQuery


class UploadTicket(ApiModel):
    """A presigned S3 POST: send ``fields`` and then the file (as the form's last field, ``file``) to ``url``."""

    url: str
    fields: dict[str, str]
    path: str = Field(description="the object's workspace-relative path, as /v1/r2 and items name it")
    expires_at: str


class StoredObject(ApiModel):
    path: str
    size: int
    content_type: str
    etag: str = Field(description="S3's ETag, quoted; the content's MD5 in hex for an object uploaded in one part")
    updated_at: str


class ObjectPage(ApiModel):
    objects: list[StoredObject]
    next_cursor: str | None


class ObjectDownload(ApiModel):
    object: StoredObject
    url: str = Field(description="a presigned S3 GET of the object, valid until expiresAt")
    expires_at: str


class UploadRequest(RequestModel):
    # Exactly as sent (never trimmed); the r2 rules are checked by the service, with r2's answers.
    path: Annotated[str, StringConstraints(strip_whitespace=False), Field(min_length=1, max_length=900)]
    content_type: UploadType
    size: Annotated[int, *whole_number_rules(0, 5 * 1024**3)]


class ObjectQuery(ListQuery):
    prefix: str = Field("", max_length=900)
    limit: QueryInt = Field(50, ge=1, le=200)
    cursor: str | None = Field(None, min_length=1, max_length=2048)
