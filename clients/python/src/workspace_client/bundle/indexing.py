"""After a publish, waiting until the service has read the documents it was given (the agent answers from them).

The service reads every active item whose object is a document and reports how on the item: ``index`` is
``{status, passages, error, updatedAt}``, ``status`` one of ``pending``, ``indexed``, ``skipped`` (nothing readable)
or ``failed`` (``error`` says why, in words a person can act on). Watched here: the bundle's active items that are
not media (image, video, audio: never read) which the publish created, replaced or updated, or whose file it
uploaded. One is done when it is no longer ``pending`` and, if its file was uploaded, its ``index.etag`` is the
object's ``etag`` in the object listing: a file replaced at the same path leaves the item as it was, so its old status
would otherwise pass for the new file's; the service reads the new file on S3's notification and then records the
ETag it read. Timestamps cannot tell the two files apart: S3 dates an object to the second, so a file uploaded in
the second of the previous read lists as older than that read. A service that reports no ``index.etag`` (older than
it) is judged by time: ``index.updatedAt`` not older than the object's ``updatedAt``, both on the service's clock.

One items listing per poll (not one call per item), the first at once, then after 0.5 s, growing by half up to 5 s
between polls, until every watched item is done or ``timeout`` seconds have passed. A service that reports no
``index`` (older than this feature) is not waited for: its items are ``unknown``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel
from tqdm import tqdm  # type: ignore[import-untyped]  # no stubs of its own

from .._generated.models_portal import AgentItem
from ..portal import Portal
from .changes import CreateItem, Plan, ReplaceItem, UpdateItem, Upload
from .state import all_items, all_objects, folder

MEDIA_KINDS = frozenset({"image", "video", "audio"})
FIRST_DELAY, GROWTH, MAX_DELAY = 0.5, 1.5, 5.0
DEFAULT_TIMEOUT = 120.0
PENDING, INDEXED, SKIPPED, FAILED = "pending", "indexed", "skipped", "failed"
GONE = "gone"  # no active item of that file any more (deleted or deactivated meanwhile)
UNKNOWN = "unknown"  # the service reports no index


@dataclass(frozen=True)
class Watched:
    """A bundle item the publish wrote or whose file it uploaded: ``path`` is its file in the bundle."""

    path: str
    name: str
    uploaded: bool


@dataclass(frozen=True)
class IndexState:
    """An item's ``index`` as the management plane reports it (``etag``: of the file it was decided for, quoted)."""

    status: str
    passages: int
    error: str | None
    updated_at: str | None
    etag: str | None = None


@dataclass(frozen=True)
class Uploaded:
    """An uploaded file as the object listing shows it: S3's ``LastModified`` (to the second) and quoted ETag."""

    at: datetime | None
    etag: str


@dataclass(frozen=True)
class DocumentIndex:
    """Where one watched document stands: ``status`` is ``pending`` also for an uploaded file the service has not
    read yet (its item still shows the previous file's status)."""

    name: str
    path: str
    item_id: str | None
    status: str
    passages: int = 0
    error: str | None = None


@dataclass(frozen=True)
class IndexReport:
    """The watched documents as the last poll found them, and how long the wait took."""

    documents: tuple[DocumentIndex, ...]
    seconds: float = 0.0

    def having(self, status: str) -> list[DocumentIndex]:
        return [document for document in self.documents if document.status == status]

    @property
    def indexed(self) -> list[DocumentIndex]:
        return self.having(INDEXED)

    @property
    def skipped(self) -> list[DocumentIndex]:
        return self.having(SKIPPED)

    @property
    def failed(self) -> list[DocumentIndex]:
        return self.having(FAILED)

    @property
    def pending(self) -> list[DocumentIndex]:
        return self.having(PENDING)

    @property
    def reported(self) -> bool:
        """Whether the service reports indexing at all (some document has a status other than unknown or gone)."""
        return any(document.status not in {UNKNOWN, GONE} for document in self.documents)

    def summary(self) -> str:
        """``documents: 3 indexed (41 passages), 1 skipped, 1 failed, 1 still pending after 120 s``."""
        passages = sum(document.passages for document in self.indexed)
        parts = [f"{len(self.indexed)} indexed ({passages} passage{'s' * (passages != 1)})"]
        parts += [f"{len(self.having(status))} {status}" for status in (SKIPPED, FAILED, GONE) if self.having(status)]
        if self.pending:
            parts.append(f"{len(self.pending)} still pending after {self.seconds:.0f} s")
        return "documents: " + ", ".join(parts)


def watched(plan: Plan) -> list[Watched]:
    """The documents a carried-out ``plan`` changed: active, non-media bundle items it created, replaced or updated
    (not a deactivation), or whose file it uploaded."""
    uploaded = {change.file.path for change in plan.changes if isinstance(change, Upload)}
    written = {change.spec.file for change in plan.changes if isinstance(change, CreateItem | ReplaceItem)}
    written |= {change.file for change in plan.changes if isinstance(change, UpdateItem)}
    return [
        Watched(spec.file, spec.name, spec.file in uploaded)
        for spec in plan.bundle.items
        if spec.active and spec.kind not in MEDIA_KINDS and (spec.file in written or spec.file in uploaded)
    ]


def index_of(item: BaseModel) -> IndexState | None:
    """An item's ``index``, whether the generated model has the field or keeps it as an extra; None if absent."""
    value: Any = getattr(item, "index", None)
    if isinstance(value, BaseModel):
        value = value.model_dump(by_alias=True)
    if not isinstance(value, Mapping) or not isinstance(value.get("status"), str):
        return None
    passages, error, updated, etag = (value.get(field) for field in ("passages", "error", "updatedAt", "etag"))
    return IndexState(
        value["status"],
        passages if isinstance(passages, int) else 0,
        error if isinstance(error, str) and error else None,
        updated if isinstance(updated, str) and updated else None,
        etag if isinstance(etag, str) and etag else None,
    )


def instant(value: str | None) -> datetime | None:
    """An ISO 8601 timestamp as an aware datetime (none given: UTC); None if absent or unreadable."""
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def read_after(state: IndexState, uploaded: Uploaded) -> bool:
    """Whether ``state`` is of the uploaded file: its ETag, or (a service that reports none) not older than it."""
    if state.etag is not None:
        return state.etag == uploaded.etag
    indexed_at = instant(state.updated_at)
    return uploaded.at is None or (indexed_at is not None and indexed_at >= uploaded.at)


def settle(watch: Watched, items: list[AgentItem], key: str, uploaded: Uploaded | None) -> tuple[DocumentIndex, bool]:
    """Where ``watch`` stands among the listed ``items`` (``key``: its object's key), and whether it is done."""
    item = next((item for item in items if item.active and item.r2_key == key), None)
    if item is None:
        return DocumentIndex(watch.name, watch.path, None, GONE), True
    state = index_of(item)
    if state is None:
        return DocumentIndex(item.name, watch.path, item.id, UNKNOWN), True
    document = DocumentIndex(item.name, watch.path, item.id, state.status, state.passages, state.error)
    if state.status == PENDING:
        return document, False
    if uploaded is not None and not read_after(state, uploaded):  # the status is the previous file's: not read yet
        return DocumentIndex(item.name, watch.path, item.id, PENDING), False
    return document, True


def uploaded_files(portal: Portal, workspace_id: str, agent_id: str, watch: list[Watched]) -> dict[str, Uploaded]:
    """Each uploaded file as the object listing shows it, from one listing of the agent's folder."""
    if not any(entry.uploaded for entry in watch):
        return {}
    objects = all_objects(portal, workspace_id, agent_id)
    return {
        entry.path: Uploaded(instant(stored.updated_at), stored.etag)
        for entry in watch
        if entry.uploaded and (stored := objects.get(entry.path)) is not None
    }


def wait_for_index(
    portal: Portal,
    plan: Plan,
    agent_id: str,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    progress: bool = True,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> IndexReport:
    """Poll the agent's items until every document ``plan`` changed is read, or ``timeout`` seconds have passed
    (then those left are ``pending``). ``agent_id``: the agent's id, which ``carry_out`` returns. A bar on stderr
    when ``progress`` and stderr is a terminal."""
    watch = watched(plan)
    if not watch:
        return IndexReport(())
    started = clock()
    uploaded = uploaded_files(portal, plan.workspace_id, agent_id, watch)
    prefix, deadline, delay = folder(agent_id), started + timeout, FIRST_DELAY
    with tqdm(total=len(watch), desc="index", unit="doc", disable=None if progress else True, leave=True) as bar:
        while True:
            items = all_items(portal, plan.workspace_id, agent_id)
            states = [settle(entry, items, prefix + entry.path, uploaded.get(entry.path)) for entry in watch]
            done = sum(finished for _, finished in states)
            bar.update(done - bar.n)
            remaining = deadline - clock()
            if done == len(watch) or remaining <= 0:
                return IndexReport(tuple(document for document, _ in states), clock() - started)
            sleep(min(delay, remaining))
            delay = min(MAX_DELAY, delay * GROWTH)
