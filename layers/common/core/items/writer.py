"""Items (authoring.md, "Items"): an agent's documents, media and links, active (served) or not.

``r2Key`` is workspace-relative and must be an object under the agent's folder; its ``mimeType`` and ``size`` are
read from the stored object whenever the key is set, never taken from the caller.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import datetime

from core.audit.writes import Author, Write, Writes, until_unchanged
from core.items.ports import StoredItems
from core.items.records import IndexState, ItemRecord
from core.items.writer_models import (
    AgentItem,
    ItemCreate,
    ItemEnvelope,
    ItemIndex,
    ItemList,
    ItemQuery,
    ItemUpdate,
)
from core.objects.ports import BucketObjects
from core.objects.write_store import ObjectHead
from core.platform import cursors, together
from core.platform.envelopes import Empty
from core.platform.errors import ValidationFailed
from core.platform.ids import new_id, now_iso
from core.platform.write_fields import changes
from core.workspaces.access import AuthoringAccess, found

# An item still ``pending`` this long after its write was lost on the way (a message that never arrived, a
# rebuild that kept failing until the dead-letter queue took it): shown as failed, so its author saves it again.
STALE_PENDING_SECONDS = 15 * 60
STALE = "Indexing did not finish: save the item again to retry"


PLACE = re.compile(r"(?:[0-9a-f]{2})*#[0-9]{10}#[0-9A-Za-z_]+")  # ``keys.item_place``: hex folder, order, id


def place_after(cursor: str | None) -> str | None:
    """The place a cursor names (the last item of the page before); 400 for one this listing did not make."""
    if cursor is None:
        return None
    position = cursors.decode(cursor)
    if not PLACE.fullmatch(position):
        raise ValidationFailed(cursors.BAD_CURSOR)
    return position


def index_view(record: ItemRecord, now: float) -> ItemIndex:
    state = record.index or IndexState(updated_at=record.updated_at)  # an item older than knowledge: never read
    if state.status == "pending" and now - datetime.fromisoformat(state.updated_at).timestamp() > STALE_PENDING_SECONDS:
        return ItemIndex(status="failed", passages=0, error=STALE, updated_at=state.updated_at, etag=None)
    return ItemIndex.from_record(state)


def item_view(record: ItemRecord, now: float | None = None) -> AgentItem:
    return AgentItem.from_record(record, index=index_view(record, time.time() if now is None else now))


def pending(item: ItemRecord) -> ItemRecord:
    """An item as its author's write stores it: to be read again by the knowledge worker."""
    return item.model_copy(update={"index": IndexState(updated_at=item.updated_at)})


def media_essence(content_type: str) -> str:
    """``text/markdown; charset=utf-8`` is a ``text/markdown`` item."""
    return content_type.split(";", 1)[0].strip().lower()


class ItemService:
    def __init__(
        self,
        access: AuthoringAccess,
        items: StoredItems,
        objects: BucketObjects,
        writes: Writes,
        notify: Callable[[str, str], None],
    ):
        self._access = access
        self._items = items
        self._objects = objects
        self._writes = writes
        self._notify = notify  # the knowledge worker reads the agent again (core.platform.jobs.reread_agent)

    def list(self, user_id: str, workspace_id: str, agent_id: str, query: ItemQuery) -> ItemList:
        """By folder, then order, then id: one page of places and their items, read beside the member check; a bad
        cursor is refused after the check (a stranger learns nothing)."""
        active = None if query.active is None else query.active == "true"
        access, found = together.run(
            lambda: self._access.member(user_id, workspace_id, agent_id),
            lambda: self._items.page(agent_id, active=active, limit=query.limit, after=place_after(query.cursor)),
        )
        access.result()
        page = found.result()
        return ItemList(items=[item_view(i) for i in page.items],
                        next_cursor=cursors.encode(page.last) if page.last else None)  # fmt: skip

    def create(self, author: Author, workspace_id: str, agent_id: str, request: ItemCreate) -> ItemEnvelope:
        access, head = together.run(  # the object beside the access check, used only once it passed
            lambda: self._access.agent_writer(author.user_id, workspace_id, agent_id),
            lambda: self._head(workspace_id, agent_id, request.r2_key),
        )
        access.result()
        fields = {"folder": "", "order": 0, "origin": "upload", "active": True} | changes(request)
        blank = ItemRecord.model_validate(
            {"id": new_id("item"), "agent_id": agent_id, "mime_type": "", "size": 0, "updated_at": now_iso()} | fields
        )

        def work(write: Write) -> ItemEnvelope:  # not run for a retry: it replays the first answer
            item = pending(with_object(blank, head.result()))
            answer = ItemEnvelope(item=item_view(item))
            self._items.create(workspace_id, item, also=write.also(f"item:{item.id}", answer))
            self._notify(workspace_id, agent_id)
            return answer

        return self._writes.run(author, workspace_id, "item.create", on=agent_id, request=request,
                                answer=ItemEnvelope, work=work)  # fmt: skip

    def update(
        self, author: Author, workspace_id: str, agent_id: str, item_id: str, request: ItemUpdate
    ) -> ItemEnvelope:
        _, read = together.checked_then_read(
            lambda: self._access.agent_writer(author.user_id, workspace_id, agent_id),
            lambda: self._items.get(agent_id, item_id),
        )
        wanted = changes(request)

        def work(write: Write) -> ItemEnvelope:
            wrote: list[ItemRecord] = []

            def attempt() -> ItemRecord:
                old = found(read(), "Item")
                new = old.model_copy(update=wanted)
                if "r2_key" in wanted:  # named again: the object may have been replaced since (its type, its size)
                    new = with_object(new, self._head(workspace_id, agent_id, new.r2_key))
                if new == old:
                    return write.unchanged(f"item:{item_id}", ItemEnvelope(item=item_view(old)), old)
                new = pending(new.model_copy(update={"updated_at": now_iso()}))
                also = write.also(f"item:{item_id}", ItemEnvelope(item=item_view(new)))
                wrote.append(self._items.replace(workspace_id, old, new, also=also))
                return wrote[-1]

            stored = until_unchanged(attempt)
            if wrote:  # a rename too: the sources the chat names are the items' names
                self._notify(workspace_id, agent_id)
            return ItemEnvelope(item=item_view(stored))

        return self._writes.run(author, workspace_id, "item.update", on=item_id, request=request,
                                answer=ItemEnvelope, work=work)  # fmt: skip

    def delete(self, author: Author, workspace_id: str, agent_id: str, item_id: str) -> Empty:
        _, read = together.checked_then_read(
            lambda: self._access.agent_writer(author.user_id, workspace_id, agent_id),
            lambda: self._items.get(agent_id, item_id),
        )

        def work(write: Write) -> Empty:
            def attempt() -> None:
                item = found(read(), "Item")
                self._items.delete(workspace_id, item, also=write.also(f"item:{item_id}", Empty()))

            until_unchanged(attempt)
            self._notify(workspace_id, agent_id)
            return Empty()

        return self._writes.run(author, workspace_id, "item.delete", on=item_id, request=None, answer=Empty,
                                work=work)  # fmt: skip

    def _head(self, workspace_id: str, agent_id: str, r2_key: str) -> ObjectHead | None:
        """The object ``r2_key`` names if it is in the agent's folder (``with_object`` refuses any other key)."""
        if not r2_key.startswith(f"projects/{agent_id}/"):
            return None
        return self._objects.head(f"workspaces/{workspace_id}/{r2_key}")


def with_object(item: ItemRecord, head: ObjectHead | None) -> ItemRecord:
    """The item with its object's type and size; 400 unless ``r2Key`` is an object of the agent's folder."""
    folder = f"projects/{item.agent_id}/"
    if not item.r2_key.startswith(folder):
        raise ValidationFailed(f"r2Key: must be under {folder} (the agent's folder)")
    if head is None:
        raise ValidationFailed(f"r2Key: no object {item.r2_key} (upload it first)")
    return item.model_copy(update={"mime_type": media_essence(head.content_type), "size": head.size})
