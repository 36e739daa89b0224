"""Stored chat turns, for workspaces with ``storeConversations``: what the chat itself writes and reads back.

Each turn is an item of its agent's conversations partition (``core.platform.main_table.turn``), under its visitor
and thread, written in one transaction with its thread's item (``main_table.thread``): the row the management
plane lists, most recent first, through ``gsi1``. So no thread is ever listed without its turn. The chat adds
both to its turn log's transaction (``core.insights.turn_log``): storing costs it no call of its own
(docs/data-model.md). Under the visitor's ``client`` hash, so a
thread resumes only for the visitor who had it (thread keys may be chosen by clients, and guessed). The
management plane's reads and the erasure are ``thread_store.py``'s.
"""

from __future__ import annotations

from typing import Any

from core.platform import main_table as keys
from core.platform.dynamo import query_all, to_item
from core.platform.retention import DAY_COUNT, DAY_FIRST, day_of, expires_at
from core.platform.transactions import Transaction

RESUMED_TURNS = 6  # a resumed thread brings back its last six turns (twelve messages)


class ConversationStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def save(self, workspace_id: str, turn: dict[str, Any], retention_days: int | None) -> None:
        """Store ``turn`` alone (an import's; the chat's own goes with its turn log: ``stage``)."""
        self.stage(Transaction(self._table), workspace_id, turn, retention_days).commit_or_raise(self._db)

    def stage(
        self, tx: Transaction, workspace_id: str, turn: dict[str, Any], retention_days: int | None
    ) -> Transaction:
        """Add to ``tx`` the writes storing ``turn`` (its ``agentId``, ``client``, ``threadKey``, ``turnId``,
        ``createdAt``, ...) and moving its thread: last turn, the day's count, and a TTL that follows the last turn
        (``core.platform.retention``). The chat commits them with the turn's log (``core.insights.turn_log``)."""
        agent_id, client, thread_key, at = turn["agentId"], turn["client"], turn["threadKey"], turn["createdAt"]
        expiry = expires_at(at, retention_days)
        item = turn | {"workspaceId": workspace_id} | ({"expiresAt": expiry} if expiry is not None else {})
        index = keys.threads_index(agent_id, at, client, thread_key)
        sets = [
            "workspaceId = :ws", "agentId = :agent", "#client = :client", "threadKey = :thread", "lastAt = :at",
            "startedAt = if_not_exists(startedAt, :at)", "gsi1pk = :gpk", "gsi1sk = :gsk",
            "#count = if_not_exists(#count, :zero) + :one", "#first = if_not_exists(#first, :at)",
        ]  # fmt: skip
        expression = "SET " + ", ".join([*sets, "expiresAt = :expiry"] if expiry is not None else sets)
        if expiry is None:
            expression += " REMOVE expiresAt"  # kept for good now: an older turn's TTL must not take the thread
        values = {":ws": workspace_id, ":agent": agent_id, ":client": client, ":thread": thread_key, ":at": at,
                  ":gpk": index["gsi1pk"], ":gsk": index["gsi1sk"], ":zero": 0, ":one": 1}  # fmt: skip
        tx.put(keys.turn(agent_id, client, thread_key, turn["turnId"]) | item)
        tx.update(
            keys.thread(agent_id, client, thread_key), expression,
            values=values | ({":expiry": expiry} if expiry is not None else {}),
            names={"#client": "client", "#count": DAY_COUNT + day_of(at), "#first": DAY_FIRST + day_of(at)},
        )  # fmt: skip
        return tx

    def recent(self, agent_id: str, client: str, thread_key: str, first_day: str) -> list[tuple[str, str]]:
        """The visitor's thread's last turns still kept (stored on ``first_day`` or later) as (role, text) messages,
        oldest first: one Query, newest first, of six turns."""
        rows = query_all(self._db, {
            "TableName": self._table, "ScanIndexForward": False, "Limit": RESUMED_TURNS,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :thread)",
            "ExpressionAttributeValues": to_item({":pk": keys.conversations_partition(agent_id),
                                                  ":thread": keys.thread_turns_prefix(client, thread_key)}),
        }, RESUMED_TURNS)  # fmt: skip
        kept = [row for row in reversed(rows) if day_of(row["createdAt"]) >= first_day]
        return [message for row in kept for message in (("user", row["prompt"]), ("assistant", row["reply"]))]
