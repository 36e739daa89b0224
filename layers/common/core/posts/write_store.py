"""Posts as their authors write them: the canonical item, the row the feed reads, and the filter copies.

A post is stored three ways in its agent's partitions (docs/data-model.md): its canonical item (``ID#<postId>``:
found by id, and the version every write conditions on), its row (``POST#<createdAt>#<id>`` in the feed's range
when published, ``DRAFT#…`` when not) and, when published, one copy per feed filter it matches. Every write
(create, edit, publish, unpublish, delete) moves all of them in one transaction, so the feed and each filtered
view show exactly the published posts after every write, whatever runs at the same time.
"""

from __future__ import annotations

from typing import Any

from core.platform import agent_counts_store as counts
from core.platform import main_table as keys
from core.platform.dynamo import from_item, get_item, to_item, translate_errors
from core.platform.errors import NotFound
from core.platform.transactions import NEW, Also, Changed, Transaction
from core.platform.versions import unchanged_since, versioned
from core.posts.records import PostRecord

AGENT_GONE = NotFound("Agent not found")
CHANGED = Changed("The post changed while this request was applied; read it again")


def row_keys(post: PostRecord) -> list[dict[str, str]]:
    """Where a post shows: its row, and a copy per filter while it is published."""
    row = keys.post(post.agent_id, post.created_at, post.id, published=post.published)
    if not post.published:
        return [row]
    return [row, *keys.feed_filter_copies(post.agent_id, post.created_at, post.id, post.channels, post.category)]


def _key_id(key: dict[str, str]) -> tuple[str, str]:
    return key["pk"], key["sk"]


class PostStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def get(self, agent_id: str, post_id: str) -> PostRecord | None:
        found = get_item(self._db, self._table, keys.post_by_id(agent_id, post_id), consistent=True)
        return PostRecord.model_validate(found) if found else None

    def rows(
        self, agent_id: str, *, published: bool, limit: int, after: str | None
    ) -> tuple[list[tuple[str, PostRecord]], bool]:
        """Up to ``limit`` rows of one range (published or drafts), newest first, after the row ``after``:
        (sort key, post) pairs, and whether the range may hold more."""
        partition = keys.posts_partition(agent_id)
        request: dict[str, Any] = {
            "TableName": self._table, "ConsistentRead": True, "ScanIndexForward": False, "Limit": limit,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": to_item(
                {":pk": partition, ":prefix": keys.PUBLISHED_POST if published else keys.DRAFT_POST}),
        }  # fmt: skip
        if after:
            request["ExclusiveStartKey"] = to_item({"pk": partition, "sk": after})
        with translate_errors("Query"):
            page = self._db.query(**request)
        found = [from_item(i) for i in page.get("Items", [])]
        return [(row["sk"], PostRecord.model_validate(row)) for row in found], "LastEvaluatedKey" in page

    def create(self, workspace_id: str, post: PostRecord, *, also: Also) -> None:
        tx = Transaction(self._table)
        tx.put(keys.post_by_id(post.agent_id, post.id) | post.attributes(), condition=NEW)
        for key in row_keys(post):
            tx.put(key | post.attributes())
        counts.count(tx, workspace_id, post.agent_id, "postCount", +1)
        self._commit(tx.carry(also), workspace_id, post.agent_id)

    def replace(self, workspace_id: str, old: PostRecord, new: PostRecord, *, also: Also) -> PostRecord:
        """Store ``new`` over ``old`` if the post is still as ``old`` was read: rows and copies move with it."""
        stored = versioned(old.version, new)
        tx = Transaction(self._table)
        tx.put(keys.post_by_id(old.agent_id, old.id) | stored.attributes(), condition=unchanged_since(old.version),
               values={":seen": old.version}, name="changed")  # fmt: skip
        kept = {_key_id(k) for k in row_keys(stored)}
        for key in row_keys(old):
            if _key_id(key) not in kept:  # a Put replaces a row that stays; one item may appear once per transaction
                tx.delete(key)
        for key in row_keys(stored):
            tx.put(key | stored.attributes())
        counts.check(tx, workspace_id, old.agent_id)
        self._commit(tx.carry(also), workspace_id, old.agent_id)
        return stored

    def delete(self, workspace_id: str, post: PostRecord, *, also: Also) -> None:
        tx = Transaction(self._table)
        tx.delete(keys.post_by_id(post.agent_id, post.id), condition=unchanged_since(post.version),
                  values={":seen": post.version}, name="changed")  # fmt: skip
        for key in row_keys(post):
            tx.delete(key)
        counts.count(tx, workspace_id, post.agent_id, "postCount", -1)
        self._commit(tx.carry(also), workspace_id, post.agent_id)

    def _commit(self, tx: Transaction, workspace_id: str, agent_id: str) -> None:
        """Every post write moves or checks the agent's counters item, never the agent's item (its documents)."""
        counts.commit_counted(self._db, self._table, tx, workspace_id=workspace_id, agent_id=agent_id,
                              refusals={"changed": CHANGED, "agent": AGENT_GONE})  # fmt: skip
