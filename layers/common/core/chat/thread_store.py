"""Stored conversations as the management plane reads and erases them (the chat writes them: ``conversation_store``).

An agent's threads most recent first are one descending Query of ``gsi1`` (the thread items' ``lastAt`` leads its
sort key); a visitor's threads, a thread's turns and everything a visitor has stored are ranges of the agent's
conversations partition (``core.platform.main_table``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from core.platform import main_table as keys
from core.platform.dynamo import from_item, query_all, to_item, translate_errors, written_if
from core.platform.transactions import Also, Transaction


class ThreadStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def newest(self, agent_id: str, limit: int, *, lower: str | None, upper: str | None) -> list[dict[str, Any]]:
        """Up to ``limit`` of the agent's thread items, most recent first, whose index key is at least ``lower``
        and at most ``upper`` (both optional): one Query of ``gsi1``."""
        index = keys.threads_index(agent_id, "", "", "")["gsi1pk"]
        condition, values = "gsi1pk = :pk", {":pk": index}
        if lower is not None and upper is not None:
            condition, values = (
                f"{condition} AND gsi1sk BETWEEN :lower AND :upper",
                values | {":lower": lower, ":upper": upper},
            )
        elif lower is not None:
            condition, values = f"{condition} AND gsi1sk >= :lower", values | {":lower": lower}
        elif upper is not None:
            condition, values = f"{condition} AND gsi1sk <= :upper", values | {":upper": upper}
        request = {"TableName": self._table, "IndexName": "gsi1", "ScanIndexForward": False, "Limit": limit,
                   "KeyConditionExpression": condition, "ExpressionAttributeValues": to_item(values)}  # fmt: skip
        return query_all(self._db, request, limit)

    def visitor_threads(self, agent_id: str, client: str) -> list[dict[str, Any]]:
        """Every thread item of one visitor (a visitor has few: read whole, ordered by the reader)."""
        return self._range(agent_id, keys.visitor_threads_prefix(client))

    def turns(self, agent_id: str, client: str, thread_key: str) -> list[dict[str, Any]]:
        """A thread's turns, oldest first."""
        return self._range(agent_id, keys.thread_turns_prefix(client, thread_key))

    def visitor_keys(self, agent_id: str, client: str) -> list[dict[str, Any]]:
        """The keys of everything a visitor has stored with the agent: their thread items first, then their turns,
        each turn with its ``createdAt`` and ``prompt`` (what its unanswered row and question item are keyed by)."""
        return self._range(agent_id, keys.visitor_prefix(client), projection="pk, sk, createdAt, prompt")

    def visitor_ratings(self, agent_id: str, client: str) -> list[dict[str, Any]]:
        """The keys of a visitor's rows in the agent's feedback partition (``VISITOR#<client>#<ratedAt>#<turnId>``,
        one per rating standing): one Query, every page."""
        return query_all(self._db, {
            "TableName": self._table, "ConsistentRead": True, "ProjectionExpression": "pk, sk",
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": to_item({":pk": keys.feedback_partition(agent_id),
                                                  ":prefix": keys.visitor_prefix(client)}),
        })  # fmt: skip

    def forget_asker(self, key: dict[str, Any], client: str) -> bool:
        """Remove the text and asker of a day's question item (``main_table.question``) if its latest asker is
        ``client``; its count stays. False if it was not theirs (or is gone): nothing written."""
        request = {"TableName": self._table, "Key": to_item(key), "UpdateExpression": "REMOVE #q, #c, turnId",
                   "ConditionExpression": "#c = :client",
                   "ExpressionAttributeNames": {"#q": "question", "#c": "client"},
                   "ExpressionAttributeValues": to_item({":client": client})}  # fmt: skip
        return written_if(self._db, "UpdateItem", lambda: self._db.update_item(**request))

    def delete(self, item_keys: list[dict[str, Any]], also: Also) -> None:
        """Delete these items and write ``also`` (the audit entry of what they held) in one transaction."""
        tx = Transaction(self._table)
        for key in item_keys:
            tx.delete({"pk": key["pk"], "sk": key["sk"]})
        tx.carry(also).commit_or_raise(self._db)

    def stamps(self, agent_id: str) -> list[dict[str, Any]]:
        """Every stored turn and thread item of the agent, keys and what its TTL follows (a turn's ``createdAt``, a
        thread's ``lastAt``) and the TTL itself: one Query, every page."""
        return self._range(agent_id, "VISITOR#", projection="pk, sk, createdAt, lastAt, expiresAt")

    def trail_stamps(self, agent_id: str) -> Iterator[dict[str, Any]]:
        """What the agent's turns left besides (issue 40), partition by partition, each in key order and a page at a
        time (a busy agent's receipts are many): receipts, unanswered rows, question items, feedback rows; keys, what
        their TTLs follow (``createdAt``, ``lastAt``; ``prompt``: whether they hold the turn's text) and the TTL."""
        partitions = (keys.turns_partition, keys.unanswered_partition, keys.questions_partition,
                      keys.feedback_partition)  # fmt: skip
        for partition in partitions:
            request: dict[str, Any] = {
                "TableName": self._table, "ConsistentRead": True, "KeyConditionExpression": "pk = :pk",
                "ExpressionAttributeValues": to_item({":pk": partition(agent_id)}),
                "ProjectionExpression": "pk, sk, createdAt, lastAt, expiresAt, prompt",
            }  # fmt: skip
            while True:
                with translate_errors("Query"):
                    page = self._db.query(**request)
                yield from (from_item(item) for item in page.get("Items", []))
                if "LastEvaluatedKey" not in page:
                    break
                request["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def stamp(self, key: dict[str, Any], expires_at: int | None, *, last_at: str | None) -> bool:
        """Set (``None``: remove) the item's TTL, if it is still there and, for a thread or a question item
        (``last_at``), no turn has moved it since it was read (that turn's write set the TTL the settings now give).
        False if it was not set."""
        condition, values = "attribute_exists(pk)", dict[str, Any]()
        if last_at is not None:
            condition, values = f"{condition} AND lastAt = :last", {":last": last_at}
        expression = "REMOVE expiresAt"
        if expires_at is not None:
            expression, values = "SET expiresAt = :expiry", values | {":expiry": expires_at}
        request: dict[str, Any] = {"TableName": self._table, "Key": to_item({"pk": key["pk"], "sk": key["sk"]}),
                                   "UpdateExpression": expression, "ConditionExpression": condition}  # fmt: skip
        if values:
            request["ExpressionAttributeValues"] = to_item(values)
        return written_if(self._db, "UpdateItem", lambda: self._db.update_item(**request))

    def _range(self, agent_id: str, prefix: str, projection: str | None = None) -> list[dict[str, Any]]:
        request: dict[str, Any] = {
            "TableName": self._table, "ConsistentRead": True,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": to_item({":pk": keys.conversations_partition(agent_id), ":prefix": prefix}),
        }  # fmt: skip
        if projection is not None:
            request["ProjectionExpression"] = projection
        return query_all(self._db, request)
