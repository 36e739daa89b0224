"""A document the owner deactivates, deletes or repoints is never quoted, even before its index is rebuilt
(authoring.md, "Knowledge": "a passage of an inactive or deleted item is never used"; issue 38, hole 2).

The index is as old as the knowledge worker's last rebuild: seconds normally, without bound while the worker is
behind. Here the worker never runs after the owner's change, so the index still holds the document's passages (the
test checks it does); the turn's own read of the items must keep them from the model, from ``sources`` and from the
reply. The rebuild's own effect is tests/integration/shared/test_knowledge.py's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from tests.support.authoring import Studio
from tests.support.chat import CLIENT, RecordingModel, chat, grant, streamed
from tests.support.knowledge import current_index, index_queued
from tests.support.portal import Portal

QUESTION = "What does a cortado cost?"
PRICE = "A cortado costs 2.85 EUR."  # the document the owner withdraws: the best match for QUESTION
WINTER = "In winter our cortado with cinnamon costs 3.10 EUR, served from December to February."


@dataclass
class Shelf:
    studio: Studio
    agent_id: str
    key: str
    price: dict[str, Any]  # the item whose document the owner withdraws
    winter: dict[str, Any]  # an item that stays: the next best passage

    def ask(self) -> tuple[str, list[dict[str, Any]]]:
        lines, reply = streamed(chat({"prompt": QUESTION, "client": CLIENT}, agent_id=self.agent_id, key=self.key))
        return reply, lines[-2]["sources"]

    def indexed_item_ids(self) -> frozenset[str]:
        found = current_index(self.studio.portal.aws, self.studio.workspace_id, self.agent_id)
        assert found is not None
        return found.item_ids


def document(studio: Studio, agent_id: str, name: str, path: str, text: str) -> dict[str, Any]:
    key = f"projects/{agent_id}/notes/{path}"
    studio.put_object(key, text.encode(), "text/plain")
    return studio.item(agent_id, name, r2Key=key, kind="document")


@pytest.fixture
def shelf(portal: Portal, aws: Any) -> Shelf:
    studio = Studio.open(portal)
    agent_id = studio.agent("Barista")["id"]
    price = document(studio, agent_id, "Price list", "prices.txt", PRICE)
    winter = document(studio, agent_id, "Winter menu", "winter.txt", WINTER)
    grant(aws, studio.who.user_id, 50)
    key = portal.mint_key(studio.who, studio.workspace_id)["key"]
    assert index_queued(portal) >= 1
    return Shelf(studio, agent_id, key, price, winter)


def deactivate(shelf: Shelf) -> None:
    shelf.studio.ok("PortalItemUpdateFunction", agent_id=shelf.agent_id, item_id=shelf.price["id"],
                    body={"active": False})  # fmt: skip


def delete(shelf: Shelf) -> None:
    shelf.studio.ok("PortalItemDeleteFunction", agent_id=shelf.agent_id, item_id=shelf.price["id"])


def repoint(shelf: Shelf) -> None:
    """The item now names another file: the index's passages are of the file it no longer holds."""
    key = f"projects/{shelf.agent_id}/notes/prices-2.txt"
    shelf.studio.put_object(key, b"A cortado costs 2.95 EUR.", "text/plain")
    shelf.studio.ok("PortalItemUpdateFunction", agent_id=shelf.agent_id, item_id=shelf.price["id"],
                    body={"r2Key": key})  # fmt: skip


@pytest.mark.parametrize("withdraw", [deactivate, delete, repoint], ids=["deactivated", "deleted", "repointed"])
def test_a_withdrawn_document_is_never_used_while_its_index_is_stale(
    shelf: Shelf, model: RecordingModel, withdraw: Any
) -> None:
    reply, sources = shelf.ask()  # before: the document answers, so the test below measures the change alone
    assert "2.85" in reply and sources[0]["itemId"] == shelf.price["id"], (reply, sources)

    withdraw(shelf)  # and the worker is not run: the index the agent's pointer names still holds the passage
    assert shelf.price["id"] in shelf.indexed_item_ids()

    reply, sources = shelf.ask()
    given = model.requests[-1]
    assert all(p.source.item_id != shelf.price["id"] and "2.85" not in p.text for p in given.context.passages)
    assert "2.85" not in given.system
    assert shelf.price["id"] not in {s["itemId"] for s in sources}
    assert "2.85" not in reply
    # The withdrawn passage took no place: the next best one, of an item still active, is given and quoted.
    assert sources[0]["itemId"] == shelf.winter["id"] and "3.10" in reply, (reply, sources)


def test_a_reactivated_document_is_used_again_with_the_same_index(shelf: Shelf) -> None:
    """The filter is the turn's read of the items, not a state of its own: undoing the change undoes it at once."""
    deactivate(shelf)
    _, sources = shelf.ask()
    assert shelf.price["id"] not in {s["itemId"] for s in sources}
    shelf.studio.ok("PortalItemUpdateFunction", agent_id=shelf.agent_id, item_id=shelf.price["id"],
                    body={"active": True})  # fmt: skip
    reply, sources = shelf.ask()  # still without a rebuild: the index never lost the passage
    assert "2.85" in reply and sources[0]["itemId"] == shelf.price["id"], (reply, sources)
