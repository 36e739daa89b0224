"""What the knowledge worker reads and writes: the agent, its items, published posts and the owner's answers in the
main table; the
objects of its folder, each document's extracted passages and the index objects in the content bucket.

The worker never moves an item's version (authors' writes are conditioned on it): an item's index state is set
only while the item is still at the version the worker read, and the agent's pointer only from the version it
read, so a worker that lost a race writes nothing and the newer write's own message indexes again.
"""

from __future__ import annotations

import json
from typing import Any

from core.agents.records import AgentRecord, KnowledgePointer
from core.answers.records import MAX_ANSWERS, AnswerRecord
from core.items.records import IndexState, ItemRecord
from core.platform import main_table as keys
from core.platform.dynamo import get_item, query_all, to_item, translate_errors
from core.platform.versions import unchanged_since
from core.posts.records import PostRecord

MAX_POSTS = 500  # the newest published posts an agent's index holds


def knowledge_prefix(workspace_id: str, agent_id: str) -> str:
    """Where an agent's knowledge objects are: outside the read plane's allowlist, purged with the agent."""
    return f"workspaces/{workspace_id}/knowledge/{agent_id}/"


class KnowledgeStore:
    def __init__(self, dynamodb: Any, table: str, s3: Any, bucket: str):
        self._db = dynamodb
        self._table = table
        self._s3 = s3
        self._bucket = bucket

    # --- the main table

    def agent(self, workspace_id: str, agent_id: str) -> AgentRecord | None:
        found = get_item(self._db, self._table, keys.agent(workspace_id, agent_id), consistent=True)
        return AgentRecord.model_validate(found) if found else None

    def items(self, agent_id: str) -> list[ItemRecord]:
        """Every item, active or not (one partition holds only them)."""
        rows = query_all(self._db, {
            "TableName": self._table, "ConsistentRead": True, "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": to_item({":pk": keys.items_partition(agent_id)}),
        })  # fmt: skip
        return [ItemRecord.model_validate(r) for r in rows]

    def published_posts(self, agent_id: str) -> list[PostRecord]:
        rows = query_all(self._db, {
            "TableName": self._table, "ConsistentRead": True, "ScanIndexForward": False, "Limit": MAX_POSTS,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": to_item({":pk": keys.posts_partition(agent_id),
                                                  ":prefix": keys.PUBLISHED_POST}),
        }, MAX_POSTS)  # fmt: skip
        return [PostRecord.model_validate(r) for r in rows]

    def answers(self, agent_id: str) -> list[AnswerRecord]:
        """The owner's answers: one Query, bounded by the cap an agent's answers never pass (its writes count them)."""
        rows = query_all(self._db, {
            "TableName": self._table, "ConsistentRead": True, "Limit": MAX_ANSWERS,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": to_item({":pk": keys.answers_partition(agent_id)}),
        }, MAX_ANSWERS)  # fmt: skip
        return [AnswerRecord.model_validate(r) for r in rows]

    def set_state(self, workspace_id: str, item: ItemRecord, state: IndexState) -> bool:
        """The item's index state, if the item is still as read (False: it changed or went since). The item is
        stamped with its ``workspaceId`` too: its stream record routes ``knowledge.item.indexed``/``failed`` to the
        workspace's webhooks (``core.events``), and an item's key names only its agent."""
        key = keys.item(item.agent_id, item.id, active=item.active)
        condition = unchanged_since(item.version)  # the writers' own condition: it exists, at the version read
        with translate_errors("UpdateItem"):
            try:
                self._db.update_item(
                    TableName=self._table, Key=to_item(key), UpdateExpression="SET #index = :state, workspaceId = :ws",
                    ConditionExpression=condition, ExpressionAttributeNames={"#index": "index"},
                    ExpressionAttributeValues=to_item({":state": state.attributes(), ":seen": item.version,
                                                       ":ws": workspace_id}),
                )  # fmt: skip
            except self._db.exceptions.ConditionalCheckFailedException:
                return False
        return True

    def move_pointer(self, workspace_id: str, agent_id: str, seen: int | None, pointer: KnowledgePointer) -> bool:
        """Point the agent at a new index, if its pointer is still at version ``seen`` (None: no index yet) and the
        agent still exists. Only this attribute changes: the agent's own version is the author's."""
        condition = "attribute_exists(pk) AND " + (
            "attribute_not_exists(knowledge)" if seen is None else "knowledge.version = :seen"
        )
        values = {":pointer": pointer.attributes()} | ({":seen": seen} if seen is not None else {})
        with translate_errors("UpdateItem"):
            try:
                self._db.update_item(
                    TableName=self._table, Key=to_item(keys.agent(workspace_id, agent_id)),
                    UpdateExpression="SET knowledge = :pointer", ConditionExpression=condition,
                    ExpressionAttributeValues=to_item(values),
                )  # fmt: skip
            except self._db.exceptions.ConditionalCheckFailedException:
                return False
        return True

    # --- the content bucket

    def object_tags(self, workspace_id: str, agent_id: str) -> dict[str, str]:
        """The ETag of every object in the agent's folder, by workspace-relative key (one listing, every page)."""
        root = f"workspaces/{workspace_id}/"
        tags: dict[str, str] = {}
        with translate_errors("ListObjectsV2"):
            pages = self._s3.get_paginator("list_objects_v2").paginate(
                Bucket=self._bucket, Prefix=f"{root}projects/{agent_id}/"
            )
            for page in pages:
                for found in page.get("Contents", []):
                    tags[found["Key"][len(root) :]] = found["ETag"].strip('"')
        return tags

    def document(self, workspace_id: str, r2_key: str, max_bytes: int) -> tuple[bytes | None, str] | None:
        """The object's bytes (None if it is larger than ``max_bytes``: not read) and stored type; None if gone."""
        with translate_errors("GetObject"):
            try:
                found = self._s3.get_object(Bucket=self._bucket, Key=f"workspaces/{workspace_id}/{r2_key}")
            except self._s3.exceptions.NoSuchKey:
                return None
            if found["ContentLength"] > max_bytes:
                found["Body"].close()
                return None, found.get("ContentType", "")
            return bytes(found["Body"].read()), found.get("ContentType", "")

    def read_json(self, key: str) -> dict[str, Any] | None:
        with translate_errors("GetObject"):
            try:
                found = self._s3.get_object(Bucket=self._bucket, Key=key)
            except self._s3.exceptions.NoSuchKey:
                return None
            body: dict[str, Any] = json.loads(found["Body"].read())
            return body

    def write(self, key: str, body: bytes, content_type: str) -> None:
        with translate_errors("PutObject"):
            self._s3.put_object(Bucket=self._bucket, Key=key, Body=body, ContentType=content_type)

    def write_file(self, key: str, path: str, content_type: str) -> None:
        """A file put as one object, read from disk as it is sent (an index is never held whole in memory). One
        PutObject, as ``write``: an index of the largest plan is far below PutObject's 5 GB."""
        with translate_errors("PutObject"), open(path, "rb") as body:
            self._s3.put_object(Bucket=self._bucket, Key=key, Body=body, ContentType=content_type)

    def remove(self, key: str) -> None:
        """Every version of every object whose key begins with ``key``: one object by its full key, or every
        object of an index version by ``…/index-<n>.`` (the bucket is versioned: a plain delete would keep the
        bytes)."""
        with translate_errors("ListObjectVersions"):
            found = self._s3.list_object_versions(Bucket=self._bucket, Prefix=key)
        listed = [*found.get("Versions", []), *found.get("DeleteMarkers", [])]
        doomed = [{"Key": v["Key"], "VersionId": v["VersionId"]} for v in listed]
        if doomed:
            with translate_errors("DeleteObjects"):
                self._s3.delete_objects(Bucket=self._bucket, Delete={"Objects": doomed, "Quiet": True})
