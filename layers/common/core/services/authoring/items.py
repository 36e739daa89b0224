"""Items (authoring.md, "Items"): an agent's documents, media and links, active (served) or not.

``r2Key`` is workspace-relative and must be an object under the agent's folder; its ``mimeType`` and ``size`` are
read from the stored object whenever the key is set, never taken from the caller.
"""

from __future__ import annotations

from typing import Any

from ...errors import NotFound, ValidationFailed
from ...ids import new_id, now_iso
from ...models.authoring.requests import ItemCreate, ItemQuery, ItemUpdate, changes
from ...models.authoring.resources import AgentItem
from ...models.records import ItemRecord
from .. import together
from . import ports
from .access import AuthoringAccess
from .writes import Author, Write, Writes, until_unchanged


def item_view(record: ItemRecord) -> AgentItem:
    return AgentItem.from_record(record)


def media_essence(content_type: str) -> str:
    """``text/markdown; charset=utf-8`` is a ``text/markdown`` item."""
    return content_type.split(";", 1)[0].strip().lower()


class ItemService:
    def __init__(self, access: AuthoringAccess, items: ports.ItemStore, objects: ports.ObjectStore, writes: Writes):
        self._access = access
        self._items = items
        self._objects = objects
        self._writes = writes

    def list(self, user_id: str, workspace_id: str, agent_id: str, query: ItemQuery) -> list[AgentItem]:
        active = None if query.active is None else query.active == "true"
        access, found = together.run(
            lambda: self._access.member(user_id, workspace_id, agent_id),
            lambda: self._items.list(agent_id, active=active),  # used only once the agent is found this workspace's
        )
        access.result()
        return [item_view(i) for i in sorted(found.result(), key=lambda i: (i.folder, i.order, i.id))]

    def create(self, author: Author, workspace_id: str, agent_id: str, request: ItemCreate) -> tuple[int, Any]:
        self._access.agent_writer(author.user_id, workspace_id, agent_id)
        fields = {"folder": "", "order": 0, "origin": "upload", "active": True} | changes(request)
        blank = ItemRecord.model_validate(
            {"id": new_id("item"), "agent_id": agent_id, "mime_type": "", "size": 0, "updated_at": now_iso()} | fields
        )

        def work(write: Write) -> tuple[int, Any]:  # not run for a retry: it replays the first answer
            item = self._with_object(workspace_id, blank)
            body = {"item": item_view(item).wire()}
            self._items.create(workspace_id, item, also=write.also(f"item:{item.id}", 201, body))
            return 201, body

        return self._writes.run(author, workspace_id, "item.create", on=agent_id, request=request,
                                work=work)  # fmt: skip

    def update(
        self, author: Author, workspace_id: str, agent_id: str, item_id: str, request: ItemUpdate
    ) -> tuple[int, Any]:
        access, first = together.run(
            lambda: self._access.agent_writer(author.user_id, workspace_id, agent_id),
            lambda: self._items.get(agent_id, item_id),
        )
        access.result()
        wanted, reads = changes(request), iter([first.result()])

        def work(write: Write) -> tuple[int, Any]:
            def attempt() -> ItemRecord:
                old = next(reads, None) or self._found(agent_id, item_id)
                new = old.model_copy(update=wanted)
                if "r2_key" in wanted:  # named again: the object may have been replaced since (its type, its size)
                    new = self._with_object(workspace_id, new)
                if new == old:
                    return write.unchanged(f"item:{item_id}", {"item": item_view(old).wire()}, old)
                new = new.model_copy(update={"updated_at": now_iso()})
                body = {"item": item_view(new).wire()}
                return self._items.replace(workspace_id, old, new, also=write.also(f"item:{item_id}", 200, body))

            return 200, {"item": item_view(until_unchanged(attempt)).wire()}

        return self._writes.run(author, workspace_id, "item.update", on=item_id, request=request,
                                work=work)  # fmt: skip

    def delete(self, author: Author, workspace_id: str, agent_id: str, item_id: str) -> tuple[int, Any]:
        self._access.agent_writer(author.user_id, workspace_id, agent_id)

        def work(write: Write) -> tuple[int, Any]:
            def attempt() -> None:
                item = self._found(agent_id, item_id)
                self._items.delete(workspace_id, item, also=write.also(f"item:{item_id}", 200, {}))

            until_unchanged(attempt)
            return 200, {}

        return self._writes.run(author, workspace_id, "item.delete", on=item_id, request=None,
                                work=work)  # fmt: skip

    def _found(self, agent_id: str, item_id: str) -> ItemRecord:
        item = self._items.get(agent_id, item_id)
        if item is None:
            raise NotFound("Item not found")
        return item

    def _with_object(self, workspace_id: str, item: ItemRecord) -> ItemRecord:
        """The item with its object's type and size; 400 unless ``r2Key`` is an object of the agent's folder."""
        folder = f"projects/{item.agent_id}/"
        if not item.r2_key.startswith(folder):
            raise ValidationFailed(f"r2Key: must be under {folder} (the agent's folder)")
        head = self._objects.head(f"workspaces/{workspace_id}/{item.r2_key}")
        if head is None:
            raise ValidationFailed(f"r2Key: no object {item.r2_key} (upload it first)")
        return item.model_copy(update={"mime_type": media_essence(head.content_type), "size": head.size})
