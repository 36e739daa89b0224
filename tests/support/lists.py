"""The management plane's listings, each with a way to grow its records to any number (issue 43's two sizes).

A listing's records are made once through the API (or the store production writes with), then copied in the table
with fresh ids (``copies``): the same items with another id wherever the id is part of a key, so a listing reads
them as it reads the original. Used by tests/integration/shared/calls_per_request/test_lists_at_two_sizes.py and
bench/cost_vs_size.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from core.platform.dynamo import batch_put, from_item, to_item
from core.platform.settings import get_settings
from tests.support.authoring import Studio
from tests.support.conversations import store_turn
from tests.support.insights_seed import SeedTurn
from tests.support.insights_seed import seed as seed_insights
from tests.support.members import invite
from tests.support.webhooks import create as create_webhook
from tests.support.webhooks import put_delivery

NEW_PAGE = 200  # the page of a listing that had none: its limit's default and most (docs/decisions.md)


# ------------------------------------------------------------------ copies of a record, with fresh ids


def _variant(token: str, n: int) -> str:
    """``token`` with its last six characters replaced by ``n``: a ULID stays a ULID (Crockford digits), a hex hash
    a hex hash, an address's local part a local part."""
    return f"{token[:-6]}{n:06d}"


def copies(studio: Studio, tokens: list[str], *, table: str | None = None, key: tuple[str, ...] = ("pk", "sk"),
           others: int = 0) -> Callable[[int], None]:  # fmt: skip
    """Growing the records of every item whose key names ``tokens[0]`` to ``n`` (``others`` records of the listing
    besides them: the original counts as one): copies, each token replaced by a variant of its own wherever it
    appears (keys, index keys, ids)."""
    db, name = studio.portal.aws.dynamodb, table or get_settings().main_table
    made = [1 + others]

    def grow(n: int) -> None:
        scanned, start = [], None
        while True:
            page = db.scan(TableName=name, **({"ExclusiveStartKey": start} if start else {}))
            scanned += [from_item(i) for i in page["Items"]]
            if not (start := page.get("LastEvaluatedKey")):
                break
        originals = [i for i in scanned if any(tokens[0] in str(i.get(k, "")) for k in key)]
        assert originals, f"no item names {tokens[0]}"
        items = []
        for k in range(made[0], n):
            for original in originals:
                text = _dump(original)
                for token in tokens:
                    text = text.replace(token, _variant(token, k))
                items.append(_load(text))
        batch_put(db, name, items)
        made[0] = max(made[0], n)

    return grow


def _dump(item: dict[str, Any]) -> str:
    return json.dumps(to_item(item))


def _load(text: str) -> dict[str, Any]:
    return from_item(json.loads(text))


# ------------------------------------------------------------------ the listings


@dataclass
class Listing:
    function: str
    page: int  # the listing's default page
    grow: Callable[[int], None]  # records until there are n
    shown: str  # the response's list
    ids: dict[str, str]
    query: dict[str, str] | None = None


def _keys(studio: Studio) -> Listing:
    minted = studio.portal.mint_key(studio.who, studio.workspace_id)
    stored = [from_item(i) for i in studio.portal.aws.dynamodb.scan(TableName=get_settings().api_keys_table)["Items"]]
    key_hash = next(i["keyHash"] for i in stored if i.get("id") == minted["id"])
    grow = copies(studio, [key_hash, minted["id"]], table=get_settings().api_keys_table, key=("keyHash",))
    return Listing("PortalKeysListFunction", NEW_PAGE, grow, "keys", {})


def _members(studio: Studio) -> Listing:
    who = studio.portal.sign_in("member-aaaaaa@example.com")
    studio.portal.add_member(studio.workspace_id, who.user_id)
    # the owner is a member too: ``n`` members are the owner and n - 1 copies
    return Listing("PortalMembersListFunction", NEW_PAGE, copies(studio, [who.user_id], others=1), "members", {})


def _invitations(studio: Studio) -> Listing:
    invite(studio, "guest-aaaaaa@example.com")
    return Listing("PortalInvitationsListFunction", NEW_PAGE, copies(studio, ["guest-aaaaaa"]),
                   "invitations", {})  # fmt: skip


def _brands(studio: Studio) -> Listing:
    brand = studio.brand()
    return Listing("PortalBrandsListFunction", NEW_PAGE, copies(studio, [brand["id"]], others=1), "brands", {})


def _workflows(studio: Studio) -> Listing:
    made = studio.workflow()
    return Listing("PortalWorkflowsListFunction", NEW_PAGE, copies(studio, [made["id"]]), "workflows", {})


def _agents(studio: Studio) -> Listing:
    made = studio.agent("Listed")
    return Listing("PortalAgentsListFunction", NEW_PAGE, copies(studio, [made["id"]]), "agents", {})


def _posts(studio: Studio) -> Listing:
    agent = studio.agent("Posts")
    post = studio.post(agent["id"])
    return Listing("PortalPostsListFunction", 50, copies(studio, [post["id"]]), "posts",
                   {"agent_id": agent["id"]})  # fmt: skip


def _items(studio: Studio) -> Listing:
    agent = studio.agent("Items")
    item = studio.item(agent["id"])
    return Listing("PortalItemsListFunction", NEW_PAGE, copies(studio, [item["id"]]), "items",
                   {"agent_id": agent["id"]})  # fmt: skip


def _objects(studio: Studio) -> Listing:
    made: list[int] = [0]

    def grow(n: int) -> None:
        for k in range(made[0], n):
            studio.put_object(f"projects/listed/{k:06d}.jpg")
        made[0] = n

    return Listing("PortalObjectsListFunction", 50, grow, "objects", {})


def _conversations(studio: Studio) -> Listing:
    agent = studio.agent("Conversations")
    studio.ok("PortalWorkspaceUpdateFunction", body={"storeConversations": True})
    start = datetime(2026, 3, 1, tzinfo=UTC)
    made: list[int] = [0]

    def grow(n: int) -> None:
        db = studio.portal.aws.dynamodb
        for k in range(made[0], n):
            at = (start + timedelta(minutes=k)).isoformat().replace("+00:00", ".000Z")
            store_turn(db, studio.workspace_id, agent["id"], f"thread-{k:06d}", at)
        made[0] = n

    return Listing("PortalConversationsListFunction", 50, grow, "threads", {"agent_id": agent["id"]})


def _insights(studio: Studio, *, rated: bool) -> Callable[[int], None]:
    agent = studio.agent("Rated" if rated else "Unanswered")
    studio.ok("PortalWorkspaceUpdateFunction", body={"storeConversations": True})
    now = datetime.now(UTC) - timedelta(days=2)
    made: list[int] = [0]

    def grow(n: int) -> None:
        turns = [SeedTurn(created_at=now - timedelta(minutes=k), client=f"visitor-{k:012d}", thread=f"t{k}",
                          prompt=f"Question {k}?", unanswered=not rated, rating="up" if rated else None)
                 for k in range(made[0], n)]  # fmt: skip
        seed_insights(studio.portal.aws.dynamodb, studio.workspace_id, agent["id"], turns, stored=True)
        made[0] = n

    grow.agent_id = agent["id"]  # type: ignore[attr-defined]
    return grow


def _feedback(studio: Studio) -> Listing:
    grow = _insights(studio, rated=True)
    return Listing("PortalFeedbackListFunction", 20, grow, "feedback", {"agent_id": grow.agent_id})  # type: ignore[attr-defined]


def _unanswered(studio: Studio) -> Listing:
    grow = _insights(studio, rated=False)
    return Listing("PortalUnansweredListFunction", 20, grow, "questions", {"agent_id": grow.agent_id})  # type: ignore[attr-defined]


def _answers(studio: Studio) -> Listing:
    agent = studio.agent("Answers")
    body = {"question": "When are you open on Sunday?", "answer": "Sundays 9:00 to 14:00."}
    made = studio.ok("PortalAnswerCreateFunction", 201, agent_id=agent["id"], body=body)["answer"]
    return Listing("PortalAnswersListFunction", 20, copies(studio, [made["id"]]), "answers",
                   {"agent_id": agent["id"]})  # fmt: skip


def _audit(studio: Studio) -> Listing:
    studio.brand("Audited")  # a write: an audit entry to copy
    entry = studio.audit(1)[0]
    return Listing("PortalAuditListFunction", 50, copies(studio, [entry.id]), "entries", {})


def _deliveries(studio: Studio) -> Listing:
    webhook = create_webhook(studio)["webhook"]
    start = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
    made: list[int] = [0]

    def grow(n: int) -> None:
        for k in range(made[0], n):
            put_delivery(studio, webhook["id"], start + timedelta(seconds=k))
        made[0] = n

    return Listing("PortalWebhookDeliveriesFunction", 20, grow, "deliveries", {"webhook_id": webhook["id"]})


LISTINGS: dict[str, Callable[[Studio], Listing]] = {
    "keys": _keys, "members": _members, "invitations": _invitations, "brands": _brands, "workflows": _workflows,
    "agents": _agents, "posts": _posts, "items": _items, "objects": _objects, "conversations": _conversations,
    "audit": _audit, "feedback": _feedback, "unanswered": _unanswered, "answers": _answers,
    "webhook deliveries": _deliveries,
}  # fmt: skip
