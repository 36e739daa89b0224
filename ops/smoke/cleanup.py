"""Removing everything the run created, and proving it is gone, by key: no table is scanned, on any stack.

The run first deletes its workspace through the API (a check of that endpoint: keys revoked, memberships gone,
a purge queued). The service then waits out the upload URLs' lifetime before its purge finishes (16 minutes), so
the operator's credentials finish it here at once, with the purge's own repositories: every object version under
the workspace, its records, its keys; then what no purge touches: the user, its session, its ledger account, the
rate-limit counters and the idempotency records of the run. Each part is attempted whatever failed before it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, get_args

from core.keys.store import ApiKeyStore
from core.platform import main_table as keys
from core.platform.dynamo import batch_delete, batch_get, query_all, to_item
from core.platform.kinds import RefType
from core.platform.usage_counters import usage_partition
from core.purge.store import ObjectVersionStore, PurgeStore

from .operator import Footprint
from .recorder import idempotency_hashes
from .target import Target


def clean_up(target: Target, footprint: Footprint) -> list[str]:
    """Delete the run's every trace; the parts that failed, as messages (empty: all done)."""
    failures: list[str] = []

    def attempt(what: str, work: Callable[[], Any]) -> None:
        try:
            work()
        except Exception as failure:  # one part failing must not keep the others from running
            failures.append(f"{what}: {type(failure).__name__}: {failure}")

    db, main = target.dynamodb, target.main_table
    ws, agent, slug, user = footprint.workspace_id, footprint.agent_id, footprint.workspace_slug, footprint.user_id
    if ws:
        always = lambda: True  # noqa: E731 - the purge repositories stop when told to; this run never does
        objects, records = ObjectVersionStore(target.s3, target.bucket), PurgeStore(db, main)
        attempt("objects", lambda: objects.delete_prefix(f"workspaces/{ws}/", keep_going=always))
        attempt("workspace records", lambda: records.delete_workspace_records(ws, always))
        if agent:  # the agent's partitions, even if the workspace item listing it is already gone
            attempt("agent records", lambda: records.delete_agent_records(agent, always))
        attempt("keys", lambda: _delete_keys(target, ws))
        attempt("chat usage", lambda: batch_delete(db, target.ledger_table, _usage_keys(target, ws)))
        if slug:
            attempt("slug claim", lambda: _delete_slug_claim(target, slug, ws))
    attempt(
        "rate counters",
        lambda: batch_delete(db, target.rate_limits_table, [{"pk": s} for s in footprint.rate_subjects]),
    )
    if user:
        hashes, unknown = idempotency_hashes(footprint)
        attempt("idempotency records", lambda: batch_delete(db, main, [keys.idempotency(h) for h in hashes]))
        if unknown:
            failures.append(f"idempotency records of unknown writes left to their 1-day TTL: {unknown}")
        attempt("ledger account", lambda: batch_delete(db, target.ledger_table, _ledger_keys(target, user)))
        attempt("user", lambda: batch_delete(db, main, _user_keys(footprint)))
    if ws:  # last: while it stands, the service's own purge (running too, harmlessly) still finishes the workspace
        attempt("tombstone", lambda: batch_delete(db, main, [keys.purge(ws)]))
    return failures


def _delete_keys(target: Target, workspace_id: str) -> None:
    api_keys = ApiKeyStore(target.dynamodb, target.api_keys_table)
    api_keys.delete_many([record.key_hash for record in api_keys.list_for_workspace(workspace_id)])


def _delete_slug_claim(target: Target, slug: str, workspace_id: str) -> None:
    """The workspace's global slug claim (the API's delete removes it; a failed delete may not), if still ours."""
    # Gone already, or another workspace's since: not ours to delete.
    with contextlib.suppress(target.dynamodb.exceptions.ConditionalCheckFailedException):
        target.dynamodb.delete_item(
            TableName=target.main_table, Key=to_item(keys.slug_claim(slug)),
            ConditionExpression="workspaceId = :ws", ExpressionAttributeValues=to_item({":ws": workspace_id}),
        )  # fmt: skip


def _partition_keys(db: Any, table: str, pk: str) -> list[dict[str, Any]]:
    """The keys of every item of one partition."""
    request = {
        "TableName": table,
        "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": to_item({":pk": pk}),
        "ProjectionExpression": "pk, sk",
    }
    return query_all(db, request)


def _ledger_keys(target: Target, user_id: str) -> list[dict[str, Any]]:
    """The account's book and its numbered history's rows (issue 43: written by the stream's numberer; a smoke's
    history is under 100 entries, so its rows are in the first block's partitions: ``#H0`` and ``#T#<type>#0``)."""
    account = f"ACCT#{user_id}"
    partitions = [account, f"{account}#H0"] + [f"{account}#T#{ref_type}#0" for ref_type in get_args(RefType)]
    return [k for pk in partitions for k in _partition_keys(target.dynamodb, target.ledger_table, pk)]


def _usage_keys(target: Target, workspace_id: str) -> list[dict[str, Any]]:
    """The workspace's chat usage (one ledger item a day its turns were settled; no purge removes them)."""
    return _partition_keys(target.dynamodb, target.ledger_table, usage_partition(workspace_id))


def _user_keys(footprint: Footprint) -> list[dict[str, str]]:
    found = [keys.user(footprint.user_id or ""), keys.email_claim(footprint.email)]
    if footprint.session_id:
        found.append(keys.session(footprint.session_id))
    if footprint.cookie_hash:
        found.append(keys.session_token(footprint.cookie_hash))
    return found


def leftovers(target: Target, footprint: Footprint) -> list[str]:
    """What of the run is still stored, looked up by key and by partition (empty: nothing)."""
    db, main = target.dynamodb, target.main_table
    singles = _user_keys(footprint) if footprint.user_id else []
    if footprint.user_id:
        singles += [keys.idempotency(h) for h in idempotency_hashes(footprint)[0]]
    ws = footprint.workspace_id
    if ws:
        singles += [keys.purge(ws)] + ([keys.slug_claim(footprint.workspace_slug)] if footprint.workspace_slug else [])
    left = [f"{main}: {item['pk']}" for item in batch_get(db, main, singles)]
    subjects = [{"pk": subject} for subject in footprint.rate_subjects]
    left += [f"rate counter {item['pk']}" for item in batch_get(db, target.rate_limits_table, subjects)]
    if footprint.user_id and _ledger_keys(target, footprint.user_id):
        left.append(f"ledger account ACCT#{footprint.user_id}")
    if ws:
        partitions = [keys.workspace(ws)["pk"], keys.audit_partition(ws)]
        if footprint.agent_id:
            agent = footprint.agent_id
            partitions += [
                keys.posts_partition(agent),
                keys.feed_filters_partition(agent),
                keys.items_partition(agent),
                keys.item_order_partition(agent),
            ]
        left += [f"{main}: partition {pk}" for pk in partitions if _partition_keys(db, main, pk)]
        if _usage_keys(target, ws):
            left.append(f"chat usage {usage_partition(ws)}")
        if ApiKeyStore(db, target.api_keys_table).list_for_workspace(ws):
            left.append(f"keys of {ws}")
        if ObjectVersionStore(target.s3, target.bucket).any_under(f"workspaces/{ws}/"):
            left.append(f"objects under workspaces/{ws}/")
    return left
