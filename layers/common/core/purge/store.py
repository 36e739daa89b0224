"""Finding and deleting every main-table record and every stored object version of a deleted workspace."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from core.platform import main_table as keys
from core.platform.dynamo import batch_delete, from_item, get_item, query_all, to_item, translate_errors
from core.workspaces.records import PurgeRecord

PAGE = 500
DELETE_BATCH = 1000  # DeleteObjects' limit, and ListObjectVersions' page


class PurgeStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def _keys_of(self, pk: str) -> list[dict[str, Any]]:
        request = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": to_item({":pk": pk}),
            "ProjectionExpression": "pk, sk",
            # One request reads at most a page: without a Limit a Query reads up to 1 MB (thousands of a big
            # partition's items, every one billed in full whatever the projection) to delete 500 of them.
            "Limit": PAGE,
        }
        return query_all(self._db, request, limit=PAGE)

    def _drain(self, pk: str, keep_going: Callable[[], bool]) -> int:
        deleted = 0
        while keep_going():
            batch = self._keys_of(pk)
            if not batch:
                break
            batch_delete(self._db, self._table, batch)
            deleted += len(batch)
        return deleted

    def delete_agent_records(self, agent_id: str, keep_going: Callable[[], bool]) -> int:
        """An agent's posts (canonical items, rows and filter copies), items (and their places), stored
        conversations, and what its visitors said back (turn receipts, insights' day counters, questions, unanswered
        turns, feedback), and its owner's answers."""
        partitions = (keys.posts_partition, keys.feed_filters_partition, keys.items_partition,
                      keys.item_order_partition, keys.conversations_partition, keys.turns_partition,
                      keys.insights_partition, keys.questions_partition, keys.unanswered_partition,
                      keys.feedback_partition, keys.answers_partition)  # fmt: skip
        return sum(self._drain(partition(agent_id), keep_going) for partition in partitions)

    def agent_tombstone(self, workspace_id: str, agent_id: str) -> PurgeRecord | None:
        found = get_item(self._db, self._table, keys.agent_purge(workspace_id, agent_id), consistent=True)
        return PurgeRecord.model_validate(found) if found else None

    def remove_agent_tombstone(self, workspace_id: str, agent_id: str) -> None:
        batch_delete(self._db, self._table, [keys.agent_purge(workspace_id, agent_id)])

    def delete_workspace_records(self, workspace_id: str, keep_going: Callable[[], bool]) -> int:
        """Agents' posts (and their filter copies) and items, each webhook's deliveries, the audit log, then the
        workspace partition (which lists the agents and the webhooks, so it goes last: a pass that stops before it
        finds them again)."""
        partition = keys.workspace(workspace_id)["pk"]
        deleted = 0
        for agents in self._listed(partition, "AGENT#"):  # a page of agents at a time, never all of them at once
            deleted += sum(self.delete_agent_records(sk.removeprefix("AGENT#"), keep_going) for sk in agents)
        for webhooks in self._listed(partition, keys.WEBHOOK):
            deleted += sum(
                self._drain(keys.deliveries_partition(sk.removeprefix(keys.WEBHOOK)), keep_going) for sk in webhooks
            )
        deleted += self._drain(keys.audit_partition(workspace_id), keep_going)
        return deleted + self._drain(partition, keep_going)

    def _listed(self, partition: str, prefix: str) -> Iterator[list[str]]:
        """The sort keys under ``prefix`` in ``partition`` (a workspace's agents, or its webhooks), a page at a time."""
        request: dict[str, Any] = {
            "TableName": self._table, "Limit": PAGE,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": to_item({":pk": partition, ":prefix": prefix}),
            "ProjectionExpression": "pk, sk",
        }  # fmt: skip
        while True:
            with translate_errors("Query"):
                page = self._db.query(**request)
            yield [from_item(row)["sk"] for row in page.get("Items", [])]
            if "LastEvaluatedKey" not in page:
                return
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


class ObjectVersionStore:
    """Every version and delete marker under a prefix of the (versioned) content bucket.

    Deleting a key in a versioned bucket only adds a delete marker and keeps the data as a
    noncurrent version; a purged workspace must leave neither, so each is deleted by VersionId.
    """

    def __init__(self, client: Any, bucket: str):
        self._s3 = client
        self._bucket = bucket

    def _page(self, prefix: str, limit: int) -> list[dict[str, str]]:
        page = self._s3.list_object_versions(Bucket=self._bucket, Prefix=prefix, MaxKeys=limit)
        found = page.get("Versions", []) + page.get("DeleteMarkers", [])
        return [{"Key": v["Key"], "VersionId": v["VersionId"]} for v in found][:limit]

    def delete_prefix(self, prefix: str, keep_going: Callable[[], bool]) -> int:
        """Delete every version and delete marker under ``prefix``, 1000 per request, while ``keep_going()``.

        Returns how many versions and markers went. Always lists from the start: what an earlier
        pass deleted is no longer listed, so a pass may stop anywhere and the next one resumes.
        """
        deleted = 0
        with translate_errors("DeleteObjects"):
            while keep_going():
                versions = self._page(prefix, DELETE_BATCH)
                if not versions:
                    break
                result = self._s3.delete_objects(Bucket=self._bucket, Delete={"Objects": versions, "Quiet": True})
                failed = result.get("Errors", [])
                deleted += len(versions) - len(failed)
                if failed and len(failed) == len(versions):
                    raise RuntimeError(f"could not delete under {prefix}: {failed[0].get('Code')}")
        return deleted

    def any_under(self, prefix: str) -> bool:
        """Whether any version or delete marker is left under ``prefix``."""
        with translate_errors("ListObjectVersions"):
            return bool(self._page(prefix, 1))
