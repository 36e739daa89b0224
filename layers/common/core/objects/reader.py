"""A workspace's objects as its members read them (authoring.md, "Objects and uploads"): listed and downloaded.

Only paths the read plane may serve (the r2 allowlist) are listed or touched: stored chat transcripts and anything
else outside it stay out of reach here, as on ``/v1/r2``. S3 lists keys, sizes and ETags but not content types,
so each listed object is looked up (``HeadObject``, together, a page at a time). Deletion is the writer's
(``writer.py``); both use the portal's S3 store (``write_store.py``: the reads here are the same calls its writes
make first, so the management plane has one S3 store).

The listing's cursor is this module's own, not S3's continuation token: the path the next page starts after
(base64url), so a cursor that is not one is a 400 naming it, decided here, not an error S3 (or an emulator) makes
of a token it cannot read. When the last path S3 listed is one the listing never shows, the cursor is past its
whole top-level folder instead, so a cursor never names a hidden object (and the next page skips the folder).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core.objects.paths import checked_path, path_problem
from core.objects.ports import BucketObjects
from core.objects.write_store import ObjectHead
from core.objects.writer_models import ObjectDownload, ObjectPage, ObjectQuery, StoredObject
from core.platform import cursors, together
from core.platform.errors import DomainError, NotFound, ValidationFailed
from core.platform.ids import iso
from core.platform.settings import ALLOWED_R2_PREFIXES
from core.workspaces.access import AuthoringAccess

DOWNLOAD_SECONDS = 300
PAST_FOLDER = "/\U0010ffff"  # after every key of a folder: S3 orders keys by their UTF-8 bytes


def object_view(head: ObjectHead, path: str) -> StoredObject:
    return StoredObject(path=path, size=head.size, content_type=head.content_type, etag=head.etag,
                        updated_at=iso(head.last_modified))  # fmt: skip


def cursor_after(last: str) -> str:
    """The cursor of the page after the path ``last`` (the last S3 listed); past its folder when it is hidden."""
    return cursors.encode(last if last.startswith(ALLOWED_R2_PREFIXES) else last.split("/", 1)[0] + PAST_FOLDER)


def after_cursor(cursor: str) -> str:
    """The path a cursor starts after; 400 for anything ``cursor_after`` did not make."""
    after = cursors.decode(cursor)
    if path_problem(after.removesuffix(PAST_FOLDER)) is not None or cursor_after(after) != cursor:
        raise ValidationFailed(cursors.BAD_CURSOR)
    return after


class ObjectReader:
    def __init__(self, access: AuthoringAccess, objects: BucketObjects):
        self._access = access
        self._objects = objects

    def list(self, user_id: str, workspace_id: str, query: ObjectQuery) -> ObjectPage:
        """A page of the workspace's objects under ``prefix``, in path order, with a cursor to the next page."""
        try:
            if query.prefix and (problem := path_problem(query.prefix.removesuffix("/"))):
                raise ValidationFailed(f"prefix: {problem}")
            after = after_cursor(query.cursor) if query.cursor else None
        except ValidationFailed:
            self._access.member(user_id, workspace_id)  # a stranger's 404 comes before any word on the request
            raise
        root = f"workspaces/{workspace_id}/"
        access, page = together.run(
            lambda: self._access.member(user_id, workspace_id),
            lambda: self._objects.page(root + query.prefix, limit=query.limit, after=after and root + after),
        )
        access.result()
        listed, more = page.result()
        keys = [o.key[len(root) :] for o in listed]
        paths = [path for path in keys if path.startswith(ALLOWED_R2_PREFIXES)]
        heads = together.run(*[lambda p=p: self._objects.head(root + p) for p in paths])
        found = [
            object_view(head, path) for path, answer in zip(paths, heads, strict=True) if (head := answer.result())
        ]
        return ObjectPage(objects=found, next_cursor=cursor_after(keys[-1]) if more and keys else None)

    def download(self, user_id: str, workspace_id: str, path: str) -> ObjectDownload:
        """The object's metadata and a short-lived presigned GET of it (what export downloads)."""
        try:
            path = checked_path(path)
        except DomainError:
            self._access.member(user_id, workspace_id)  # a stranger's 404 comes before any word on the request
            raise
        access, found = together.run(
            lambda: self._access.member(user_id, workspace_id),
            lambda: self._objects.head(f"workspaces/{workspace_id}/{path}"),
        )
        access.result()
        head = found.result()
        if head is None:
            raise NotFound("Object not found")
        expires = datetime.now(UTC) + timedelta(seconds=DOWNLOAD_SECONDS)
        url = self._objects.presign_get(head.key, DOWNLOAD_SECONDS)
        return ObjectDownload(object=object_view(head, path), url=url, expires_at=iso(expires))
