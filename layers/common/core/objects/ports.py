"""The objects' storage interfaces: one ``Protocol`` per store its services use, holding only what they call.

The stores satisfy them structurally, without inheriting: mypy checks that where ``providers.py`` wires
them, and a test can hand a service a small fake that mypy checks too."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

# Only for the type checker: importing the records here would load them into every function that imports a
# service (tests/unit/test_cold_path.py).
if TYPE_CHECKING:
    from core.objects.records import UploadRecord
    from core.objects.storage import ObjectEvent, Tracked
    from core.objects.store import NotModified, StoredObject
    from core.objects.write_store import Listed, ObjectHead
    from core.platform.transactions import Also


class MediaObjects(Protocol):
    """Single content objects for the media proxy, S3 deciding ranges and conditions (``ObjectReadStore``)."""

    def read(
        self, key: str, *, byte_range: str | None, if_range: str | None, if_none_match: str | None, head: bool
    ) -> StoredObject | NotModified: ...
    def presigned_url(self, key: str, expires_in: int, *, disposition: str | None = None) -> str: ...


class BucketObjects(Protocol):
    def head(self, key: str) -> ObjectHead | None: ...
    def page(self, prefix: str, *, limit: int, after: str | None) -> tuple[list[Listed], bool]: ...
    def everything(self, prefix: str) -> list[Listed]: ...
    def delete(self, key: str) -> None: ...
    def presign_post(self, key: str, content_type: str, size: int, seconds: int) -> tuple[str, dict[str, str]]: ...
    def presign_get(self, key: str, seconds: int) -> str: ...


class UploadReservations(Protocol):
    def pending(self, workspace_id: str) -> tuple[int, int, list[UploadRecord]]: ...
    def reserve(self, workspace_id: str, seen: int, upload: UploadRecord, *, also: Also) -> bool: ...


class StoredSizes(Protocol):
    """The storage counter's records (``StorageStore``): the signing reads the paths it weighs; the notifications'
    worker and the API's deletion move them."""

    def records(self, workspace_id: str, paths: list[str]) -> dict[str, Tracked]: ...
    def apply(self, event: ObjectEvent, look: Callable[[], int]) -> bool: ...
    def observe(self, workspace_id: str, path: str, size: int, at: str = "") -> bool: ...
