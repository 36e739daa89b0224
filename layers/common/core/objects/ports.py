"""The storage interfaces services depend on: one ``Protocol`` per repository, holding only what services call.

A service is typed against these, never against a concrete repository, so a test can hand it a small
fake and mypy still checks that the fake has the right methods (no ``type: ignore``). The concrete
classes in ``core.repositories`` satisfy them structurally, without inheriting: mypy checks that where
``core.deps`` wires them in. Names are plural nouns (what is stored), used qualified (``ports.ApiKeys``),
so a signature reads as "something that stores API keys", not as one implementation. A service that
needs a small part of one (the read plane's key check: ``ApiKeyLookup``) names that part, so its fakes stay small.

To give a service a new storage call: add the method here with the repository's signature, then use it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

# Only for the type checker: importing the models here would load them into every function that
# imports a service (the read plane's functions never load the management models: tests/unit/test_cold_path.py).
if TYPE_CHECKING:
    from core.objects.store import NotModified, StoredObject

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.objects.records import UploadRecord
    from core.objects.write_store import Listed, ObjectHead
    from core.platform.transactions import Also


class MediaObjects(Protocol):
    """Single content objects for the media proxy, S3 deciding ranges and conditions (``ObjectReadStore``)."""

    def read(
        self, key: str, *, byte_range: str | None, if_range: str | None, if_none_match: str | None, head: bool
    ) -> StoredObject | NotModified: ...
    def presigned_url(self, key: str, expires_in: int) -> str: ...


class ObjectStore(Protocol):
    def head(self, key: str) -> ObjectHead | None: ...
    def page(self, prefix: str, *, limit: int, after: str | None) -> tuple[list[Listed], bool]: ...
    def everything(self, prefix: str) -> list[Listed]: ...
    def delete(self, key: str) -> None: ...
    def presign_post(self, key: str, content_type: str, size: int, seconds: int) -> tuple[str, dict[str, str]]: ...
    def presign_get(self, key: str, seconds: int) -> str: ...


class UploadStore(Protocol):
    def pending(self, workspace_id: str) -> tuple[int, list[UploadRecord]]: ...
    def reserve(self, workspace_id: str, seen: int, upload: UploadRecord, *, also: Also) -> bool: ...
