"""Uploads (authoring.md, "Objects and uploads"): a presigned S3 POST for one object, within the plan.

The client sends the file straight to the bucket (the API's bodies stop at 256 KiB). The POST's policy fixes the
exact key, content type and size and lives at most 15 minutes; the path follows the r2 rules and allowlist (the
same 400/403 as ``/v1/r2``), and a ``projects/<agentId>/`` path must name an agent of this workspace. A file over
the owner's plan's object size, or one that would take the workspace over its storage, is 402
``STORAGE_LIMIT_REACHED``. Storage is what S3 holds (the counter S3's notifications keep: ``storage``) plus what
every unexpired ticket could still add (``upload_store``: signings of a workspace are put in a line, so two cannot
share the last bytes). A signing reads the counter, the tickets outstanding and the records of their paths: its cost
follows the signings in flight, never the objects stored (it lists nothing).
"""

from __future__ import annotations

import itertools
import random
import re
import time
from datetime import UTC, datetime, timedelta

from core.audit.writes import Author, Write, Writes
from core.objects.paths import checked_path
from core.objects.ports import BucketObjects, StoredSizes, UploadReservations
from core.objects.records import UploadRecord
from core.objects.storage import Tracked, landed
from core.objects.writer_models import UploadRequest, UploadTicket
from core.platform.errors import Conflict, InvalidPath, StorageLimitReached, ValidationFailed
from core.platform.ids import iso, new_id
from core.platform.settings import MIB, RAISED_BY
from core.workspaces.access import AuthoringAccess

# Signings of a workspace take turns on one counter: one that lost the turn counts again after a pause with full
# jitter (a uniform wait up to 20 ms, doubling to at most 400 ms), so signers that collided do not collide again in
# step. A signing keeps taking turns for SIGNING_SECONDS (the function has 10): n signings at once need n turns, and
# a turn's reads and write take longer when the tables are busy, so a bound in time, not in tries (twelve tries, about
# 3 s, refused one of 32 signings at once on a loaded machine: test_uploads.py).
SIGNING_SECONDS = 6.0
FIRST_PAUSE, LONGEST_PAUSE = 0.02, 0.4


def lost_the_turn(times: int) -> None:
    time.sleep(random.uniform(0, min(LONGEST_PAUSE, FIRST_PAUSE * 2 ** (times - 1))))  # noqa: S311 - jitter, not a secret


AGENT_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def megabytes(size: int) -> str:
    """A size as people read a plan's limits: ``31.5 MB`` (MB = 1024² bytes, as the plans are set), ``0.2 MB``;
    below a tenth of one, its bytes (a test's tiny plan), so a refusal never reads ``0.0 MB``."""
    return f"{size / MIB:.1f} MB" if size >= MIB // 10 else f"{size} bytes"


def storage_used(stored: int, records: dict[str, Tracked], signings: list[UploadRecord], now: datetime) -> int:
    """Bytes the workspace holds, or may hold once every ticket it was given is used: the counter's ``stored``, and
    for each path with unexpired signings not yet seen landed (an object at the path, of the signing's size,
    recorded since it was signed), the largest of them over the object it would replace. Only one object stays at
    a path, but every ticket can store until it expires, so signing a path again, smaller, frees nothing."""
    largest: dict[str, int] = {}
    for upload in signings:
        if upload.expires_at <= now.timestamp():
            continue
        if landed(records.get(upload.path), upload.size, upload.signed_at):
            continue  # landed: the counter counts it
        largest[upload.path] = max(largest.get(upload.path, 0), upload.size)
    held = {path: record.size for path, record in records.items()}
    return stored + sum(max(0, size - held.get(path, 0)) for path, size in largest.items())


class UploadService:
    def __init__(
        self, access: AuthoringAccess, objects: BucketObjects, uploads: UploadReservations, sizes: StoredSizes,
        writes: Writes, *, url_seconds: int,
    ):  # fmt: skip
        self._access = access
        self._sizes = sizes
        self._objects = objects
        self._uploads = uploads
        self._writes = writes
        self._seconds = url_seconds

    def sign(self, author: Author, workspace_id: str, request: UploadRequest) -> UploadTicket:
        parts = request.path.split("/")
        # The agent of a projects/<agentId>/ path is read with the access check; only an id-shaped one is looked up.
        folder = parts[1] if parts[0] == "projects" and len(parts) > 2 and AGENT_ID.fullmatch(parts[1]) else None
        access = self._access.writer(author.user_id, workspace_id, with_user=True, agent_id=folder or None)
        path = checked_path(request.path)
        if "${" in path:  # S3 fills a POST's ${filename} in: a ticket must name one key, not a pattern of them
            raise InvalidPath("path: must not contain '${' (S3's form variables)")
        key, now = f"workspaces/{workspace_id}/{path}", datetime.now(UTC)
        url, fields = self._objects.presign_post(key, request.content_type, request.size, self._seconds)
        expires = now + timedelta(seconds=self._seconds)
        ticket = UploadTicket(url=url, fields=fields, path=path, expires_at=iso(expires))
        upload = UploadRecord(signing=new_id("upl"), path=path, size=request.size, signed_at=iso(now),
                              expires_at=int(expires.timestamp()))  # fmt: skip

        def work(write: Write) -> UploadTicket:  # not run for a retry: it replays the first answer
            if parts[0] == "projects" and (folder is None or access.agent is None):
                raise ValidationFailed(
                    "path: a projects/ path is projects/<agentId>/<name>, for an agent of this workspace"
                )
            name = self._access.plan_name(access)
            plan = self._access.limits(name)
            if request.size > plan.object_bytes:
                raise StorageLimitReached(f"size: {megabytes(request.size)} is over the {name} plan's object size of "
                                          f"{megabytes(plan.object_bytes)}. {RAISED_BY}")  # fmt: skip
            give_up = time.monotonic() + SIGNING_SECONDS
            for attempt in itertools.count():  # another signing of this workspace wrote first: count again
                if attempt and time.monotonic() >= give_up:
                    break
                if attempt:
                    lost_the_turn(attempt)
                seq, stored, pending = self._uploads.pending(workspace_id)
                signings = [*pending, upload]  # the sizes recorded at their paths: what each would replace
                live = {u.path for u in signings if u.expires_at > now.timestamp()}
                records = self._sizes.records(workspace_id, sorted(live))
                if (used := storage_used(stored, records, signings, now)) > plan.storage_bytes:
                    said = f"the workspace would hold {megabytes(used)}, over the {name} plan's storage"
                    raise StorageLimitReached(f"size: {said} of {megabytes(plan.storage_bytes)}. {RAISED_BY}")
                if self._uploads.reserve(workspace_id, seq, upload, also=write.also(f"object:{path}", ticket)):
                    return ticket
            raise Conflict("Too many uploads are being signed for this workspace at once; retry shortly")

        return self._writes.run(author, workspace_id, "object.upload", on=path, request=request, answer=UploadTicket,
                                work=work)  # fmt: skip
