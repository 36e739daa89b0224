"""The storage of ``turn_import``: legacy turn objects in the bucket, and the turns and threads of the main table."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from core.platform import main_table as keys
from core.platform.dynamo import from_item, query_all, to_item, translate_errors, written_if

DELETE_LIMIT = 1000  # S3's DeleteObjects takes at most 1,000 keys


class TurnImportStore:
    def __init__(self, s3: Any, bucket: str, dynamodb: Any, table: str):
        self._s3 = s3
        self._bucket = bucket
        self._db = dynamodb
        self._table = table

    def legacy_keys(self, workspace_id: str | None) -> Iterator[str]:
        """Every legacy turn object's key (of one workspace, or of all), in name order: a thread's together."""
        prefixes = [f"workspaces/{workspace_id}/"] if workspace_id else self._workspace_prefixes()
        for prefix in prefixes:
            with translate_errors("ListObjectsV2"):
                pages = self._s3.get_paginator("list_objects_v2").paginate(
                    Bucket=self._bucket, Prefix=f"{prefix}conversations/"
                )
                for page in pages:
                    yield from (found["Key"] for found in page.get("Contents", []))

    def _workspace_prefixes(self) -> list[str]:
        with translate_errors("ListObjectsV2"):
            pages = self._s3.get_paginator("list_objects_v2").paginate(
                Bucket=self._bucket, Prefix="workspaces/", Delimiter="/"
            )
            return [common["Prefix"] for page in pages for common in page.get("CommonPrefixes", [])]

    def legacy_turn(self, key: str) -> dict[str, Any] | None:
        """The object's turn, or None if it is gone or not a JSON object."""
        with translate_errors("GetObject"):
            try:
                body = self._s3.get_object(Bucket=self._bucket, Key=key)["Body"].read()
            except self._s3.exceptions.NoSuchKey:
                return None
        try:
            turn = json.loads(body)
        except ValueError:
            return None
        return turn if isinstance(turn, dict) else None

    def remove_legacy(self, keys_: list[str]) -> None:
        for start in range(0, len(keys_), DELETE_LIMIT):
            objects = [{"Key": key} for key in keys_[start : start + DELETE_LIMIT]]
            with translate_errors("DeleteObjects"):
                self._s3.delete_objects(Bucket=self._bucket, Delete={"Objects": objects, "Quiet": True})

    def put_new_turn(self, workspace_id: str, turn: dict[str, Any], expiry: int | None) -> bool:
        """The turn's item as the chat writes it, unless the table has it already (False then)."""
        item = keys.turn(turn["agentId"], turn["client"], turn["threadKey"], turn["turnId"]) | turn | {
            "workspaceId": workspace_id} | ({"expiresAt": expiry} if expiry is not None else {})  # fmt: skip
        request = {"TableName": self._table, "Item": to_item(item), "ConditionExpression": "attribute_not_exists(pk)"}
        return written_if(self._db, "PutItem", lambda: self._db.put_item(**request))

    def thread_turns(self, agent_id: str, client: str, thread_key: str) -> list[dict[str, Any]]:
        """The thread's turns, oldest first (``createdAt`` only)."""
        return query_all(self._db, {
            "TableName": self._table, "ConsistentRead": True, "ProjectionExpression": "createdAt",
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": to_item({":pk": keys.conversations_partition(agent_id),
                                                  ":prefix": keys.thread_turns_prefix(client, thread_key)}),
        })  # fmt: skip

    def thread_last_at(self, agent_id: str, client: str, thread_key: str) -> str | None:
        with translate_errors("GetItem"):
            found = self._db.get_item(TableName=self._table, Key=to_item(keys.thread(agent_id, client, thread_key)),
                                      ConsistentRead=True, ProjectionExpression="lastAt").get("Item")  # fmt: skip
        return from_item(found).get("lastAt") if found else None

    def put_thread(self, thread: dict[str, Any], *, seen_last_at: str | None) -> bool:
        """The thread's item, if its ``lastAt`` is still ``seen_last_at`` (None: it had none); False otherwise."""
        agent_id, client, thread_key = thread["agentId"], thread["client"], thread["threadKey"]
        item = keys.thread(agent_id, client, thread_key) | thread | keys.threads_index(
            agent_id, thread["lastAt"], client, thread_key)  # fmt: skip
        request: dict[str, Any] = {"TableName": self._table, "Item": to_item(item)}
        if seen_last_at is None:
            request["ConditionExpression"] = "attribute_not_exists(pk)"
        else:
            request |= {
                "ConditionExpression": "lastAt = :seen",
                "ExpressionAttributeValues": to_item({":seen": seen_last_at}),
            }
        return written_if(self._db, "PutItem", lambda: self._db.put_item(**request))
