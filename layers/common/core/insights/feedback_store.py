"""A visitor's rating of a turn, stored: the turn's receipt, the three feedback rows and the turn's day counters.

One read (``target``: the receipt, the agent under the caller's workspace and the workspace, one BatchGetItem) and
one write (``write``: one TransactWriteItems) per rating (docs/data-model.md, "Feedback, insights and answers"):

- the receipt (``main_table.turn_receipt``) carries ``rating``, ``comment`` and ``ratedAt``, set or removed on the
  condition that ``ratedAt`` is still what was read (absent when it was): a rating that lost a race to another one
  of the same turn writes nothing, and is decided again on what won;
- the three rows of ``main_table.feedback_rows`` (the owner's listings of all and of its rating, and the visitor's
  row an erasure finds them by): the old rating's deleted, the new one's put;
- a shard of the turn's day counters (``main_table.insights_day``): ``up``/``down`` moved by the difference, so
  re-rating and withdrawing net out on the day the turn was made.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.insights.records import ReceiptRecord
from core.insights.turn_log import day_expiry
from core.platform import main_table as keys
from core.platform.dynamo import batch_get
from core.platform.retention import INSIGHTS_DAYS
from core.platform.transactions import Transaction
from core.workspaces.records import WorkspaceRecord

RECEIPT = "receipt"  # the transaction step whose condition a lost race fails
_shard = random.SystemRandom().randrange  # os.urandom: restored SnapStart copies never pick one shard together

# (createdAt, retention days) -> the TTL a stored turn made then gets (core.platform.retention.expires_at), handed in by
# the provider: the insights do not import the chat, which writes them.
RetentionExpiry = Callable[[str, int | None], int | None]


@dataclass(frozen=True)
class RatingTarget:
    """What a rating is decided on: the turn's receipt (None: no such turn, or past its TTL) and whether the agent
    is the caller's workspace's; ``workspace`` gives the retention the feedback rows follow."""

    receipt: ReceiptRecord | None
    agent_found: bool
    workspace: WorkspaceRecord | None


@dataclass(frozen=True)
class RatingChange:
    """One rating's write: from what the receipt said (``seen_*``) to the new rating (None: withdrawn)."""

    receipt: ReceiptRecord  # as read: the turn's identity, day, sources and (if stored) prompt and reply
    rating: str | None
    comment: str | None
    rated_at: str | None  # None when withdrawn
    store_conversations: bool
    retention_days: int | None


class FeedbackStore:
    def __init__(self, client: Any, table: str, retention_expiry: RetentionExpiry):
        self._db = client
        self._table = table
        self._expiry = retention_expiry

    def target(self, workspace_id: str, agent_id: str, turn_id: str) -> RatingTarget:
        """The receipt, the agent (only under this workspace: the key is the tenant check) and the workspace, in one
        strongly consistent BatchGetItem: the condition of the write is what this read saw."""
        receipt_key = keys.turn_receipt(agent_id, turn_id)
        agent_key, workspace_key = keys.agent(workspace_id, agent_id), keys.workspace(workspace_id)
        found = {(row["pk"], row["sk"]): row for row in batch_get(self._db, self._table,
                                                                  [receipt_key, agent_key, workspace_key])}  # fmt: skip
        receipt = found.get((receipt_key["pk"], receipt_key["sk"]))
        workspace = found.get((workspace_key["pk"], workspace_key["sk"]))
        return RatingTarget(
            receipt=ReceiptRecord.model_validate(receipt) if receipt else None,
            agent_found=(agent_key["pk"], agent_key["sk"]) in found,
            workspace=WorkspaceRecord.model_validate(workspace) if workspace else None,
        )

    def receipt(self, agent_id: str, turn_id: str) -> ReceiptRecord | None:
        """The receipt again, after a lost race (strongly consistent: what won is seen)."""
        found = batch_get(self._db, self._table, [keys.turn_receipt(agent_id, turn_id)])
        return ReceiptRecord.model_validate(found[0]) if found else None

    def write(self, change: RatingChange) -> bool:
        """The rating, its rows and its counters in one transaction; False when the receipt's rating changed since it
        was read (nothing written), or the receipt is gone."""
        seen = change.receipt
        tx = Transaction(self._table)
        self._stage_receipt(tx, change)
        if seen.rating is not None and seen.rated_at is not None:
            for key in keys.feedback_rows(seen.agent_id, seen.rated_at, seen.turn_id, seen.rating, seen.client):
                tx.delete(key)
        if change.rating is not None and change.rated_at is not None:
            for item in self._rows(change, change.rating, change.rated_at):
                tx.put(item)
        up = (change.rating == "up") - (seen.rating == "up")
        down = (change.rating == "down") - (seen.rating == "down")
        if up or down:  # re-rating the same way moves no counter
            self._stage_counters(tx, seen, up, down)
        return tx.commit(self._db) is None

    def _stage_receipt(self, tx: Transaction, change: RatingChange) -> None:
        seen = change.receipt
        names = {"#rating": "rating", "#comment": "comment", "#ratedAt": "ratedAt"}
        values: dict[str, Any] = {}
        if seen.rated_at is None:
            condition = "attribute_exists(pk) AND attribute_not_exists(#ratedAt)"
        else:
            condition, values[":seen"] = "attribute_exists(pk) AND #ratedAt = :seen", seen.rated_at
        if change.rating is None:
            expression = "REMOVE #rating, #comment, #ratedAt"
        else:
            values |= {":rating": change.rating, ":at": change.rated_at}
            sets = ["#rating = :rating", "#ratedAt = :at"]
            if change.comment is not None:
                sets.append("#comment = :comment")
                values[":comment"] = change.comment
            # a new rating without a comment drops the old one's
            expression = "SET " + ", ".join(sets) + (" REMOVE #comment" if change.comment is None else "")
        tx.update(keys.turn_receipt(seen.agent_id, seen.turn_id), expression, condition=condition,
                  values=values or None, names=names, name=RECEIPT)  # fmt: skip

    def _rows(self, change: RatingChange, rating: str, rated_at: str) -> list[dict[str, Any]]:
        """The three rows of the rating: the listings' two carry what the owner reads; the visitor's, what an erasure
        needs to find the other two. They follow the workspace's retention when it stores conversations."""
        seen = change.receipt
        expiry = self._expiry(rated_at, change.retention_days) if change.store_conversations else None
        kept = {"expiresAt": expiry} if expiry is not None else {}
        # workspaceId: the row's key names only the agent, and ``feedback.created`` is routed by it (core.events)
        listed = {"turnId": seen.turn_id, "threadKey": seen.thread_key, "client": seen.client, "rating": rating,
                  "sources": seen.sources, "createdAt": rated_at, "workspaceId": seen.workspace_id} | kept  # fmt: skip
        if change.comment is not None:
            listed["comment"] = change.comment
        for name, value in (("prompt", seen.prompt), ("reply", seen.reply)):  # only when the receipt keeps them
            if value is not None:
                listed[name] = value
        visitor = {"turnId": seen.turn_id, "client": seen.client, "rating": rating, "createdAt": rated_at} | kept
        every, by_rating, by_visitor = keys.feedback_rows(seen.agent_id, rated_at, seen.turn_id, rating, seen.client)
        return [every | listed, by_rating | listed, by_visitor | visitor]

    @staticmethod
    def _stage_counters(tx: Transaction, seen: ReceiptRecord, up: int, down: int) -> None:
        """ADD the differences to a random shard of the turn's day (any shard: the reader sums them), creating it
        with the day counters' TTL if this shard has no item yet."""
        adds, values, names = [], {":expires": day_expiry(seen.day, INSIGHTS_DAYS)}, {}
        for counter, delta in (("up", up), ("down", down)):
            if delta:
                adds.append(f"#{counter} :{counter}")
                values[f":{counter}"], names[f"#{counter}"] = delta, counter
        tx.update(
            keys.insights_day(seen.agent_id, seen.day, _shard(keys.INSIGHTS_SHARDS)),
            "ADD " + ", ".join(adds) + " SET expiresAt = if_not_exists(expiresAt, :expires)",
            values=values, names=names,
        )  # fmt: skip
