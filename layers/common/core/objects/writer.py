"""A workspace's objects (authoring.md, "Objects and uploads"): deleted by their owners (listing and download are
``reader.py``'s). Only paths the read plane may serve (the r2 allowlist) are touched, as on ``/v1/r2``."""

from __future__ import annotations

from core.audit.writes import Author, Write, Writes
from core.objects.paths import path_refusal
from core.objects.ports import BucketObjects, StoredSizes
from core.platform import together
from core.platform.envelopes import Empty
from core.platform.errors import NotFound
from core.workspaces.access import AuthoringAccess


class ObjectService:
    def __init__(self, access: AuthoringAccess, objects: BucketObjects, sizes: StoredSizes, writes: Writes):
        self._access = access
        self._objects = objects
        self._sizes = sizes
        self._writes = writes

    def delete(self, author: Author, workspace_id: str, path: str) -> Empty:
        key, refusal = f"workspaces/{workspace_id}/{path}", path_refusal(path)
        access, head = together.run(  # the object beside the access check, used only once it and the path passed
            lambda: self._access.writer(author.user_id, workspace_id),
            lambda: None if refusal else self._objects.head(key),
        )
        access.result()
        if refusal:
            raise refusal

        def work(write: Write) -> Empty:
            if head.result() is None:
                raise NotFound("Object not found")
            self._objects.delete(key)
            # The key holds nothing now: counted at once (S3's notification of the delete marker, later, then
            # moves nothing), so the bytes are free for the next signing without waiting on the notification.
            self._sizes.observe(workspace_id, path, 0)
            write.record(f"object:{path}", Empty())
            return Empty()

        return self._writes.run(author, workspace_id, "object.delete", on=path, request=None, answer=Empty, work=work)
