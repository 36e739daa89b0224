"""Browser-based uploads (S3's POST Object) as a client sends them: presigned as the service presigns, posted as forms.

``presign`` is boto3's ``generate_presigned_post`` with the service's conditions (the exact content type and the
exact size); ``post_form`` sends the fields in order, then the file, then any ``after`` fields (S3 ignores
those), as ``multipart/form-data``; ``error`` reads S3's XML error document.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from xml.etree import ElementTree

import boto3
import httpx
from botocore.config import Config
from urllib3 import encode_multipart_formdata

# A small file of the type the tests' media are signed for: a JPEG's start and end markers around zeros (70 bytes).
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 60 + b"\xff\xd9"


def s3_client(endpoint: str, access_key: str = "local", secret: str = "local") -> Any:  # noqa: S107 - moto's dummy
    """An S3 client of moto at ``endpoint`` signing with SigV4 as ``core.platform.aws`` makes it (the runner's
    credentials)."""
    return boto3.client(
        "s3", endpoint_url=endpoint, region_name="us-east-1", config=Config(signature_version="s3v4"),
        aws_access_key_id=access_key, aws_secret_access_key=secret,
    )  # fmt: skip


def presign(s3: Any, bucket: str, key: str, content_type: str, size: int, *, expires: int = 300) -> dict[str, Any]:
    """``{url, fields}`` exactly as the service builds it."""
    return s3.generate_presigned_post(
        Bucket=bucket,
        Key=key,
        Fields={"Content-Type": content_type},
        Conditions=[{"Content-Type": content_type}, ["content-length-range", size, size]],
        ExpiresIn=expires,
    )


def post_form(
    url: str,
    fields: dict[str, str] | list[tuple[str, str]],
    file: bytes | None,
    *,
    filename: str = "a.jpg",
    after: list[tuple[str, str]] | None = None,
) -> httpx.Response:
    """POST ``fields``, the ``file`` part (none if None) and ``after`` as ``multipart/form-data``."""
    parts: list[tuple[str, Any]] = list(fields.items() if isinstance(fields, dict) else fields)
    if file is not None:
        parts.append(("file", (filename, file, "application/octet-stream")))
    body, content_type = encode_multipart_formdata(parts + (after or []))
    return httpx.post(url, content=body, headers={"Content-Type": content_type}, timeout=30)


@dataclass(frozen=True)
class S3Error:
    status: int
    code: str
    message: str
    elements: dict[str, str]


def error(response: httpx.Response) -> S3Error:
    """S3's error document (``<Error><Code>…``), served as application/xml."""
    assert response.headers["content-type"] == "application/xml", response.text[:300]
    root = ElementTree.fromstring(response.content)  # noqa: S314 - our own middleware's document
    assert root.tag == "Error"
    elements = {child.tag: child.text or "" for child in root}
    return S3Error(response.status_code, elements.pop("Code"), elements.pop("Message"), elements)


@dataclass(frozen=True)
class Upload:
    """A presigned POST for ``body``: its URL, its fields, and the key and content type it was signed for."""

    url: str
    fields: dict[str, str]
    key: str
    content_type: str
    body: bytes

    def post(self, file: bytes | None = None, changed: dict[str, str] | None = None) -> httpx.Response:
        """Post the signed fields (some ``changed``) with ``file`` (the signed body by default)."""
        return post_form(self.url, self.fields | (changed or {}), self.body if file is None else file)


def upload(s3: Any, bucket: str, key: str, body: bytes, content_type: str = "image/jpeg", **kwargs: Any) -> Upload:
    signed = presign(s3, bucket, key, content_type, len(body), **kwargs)
    return Upload(signed["url"], signed["fields"], key, content_type, body)
