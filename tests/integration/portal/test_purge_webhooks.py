"""A workspace purge drains each of its webhooks' delivery partitions (``WEBHOOK#<id>#DELIVERIES``, outside the
workspace's own partition) before the workspace partition that lists the webhooks; another workspace's stay."""

from __future__ import annotations

import itertools

from core.platform import main_table
from core.platform.settings import get_settings
from core.purge.store import PurgeStore
from tests.integration.portal.test_purge import partition, run_worker
from tests.support.portal import Portal, Session, take_purge_messages

DELIVERIES = 120  # per webhook: two webhooks, one drain page each


def seed_webhooks(portal: Portal, workspace_id: str, count: int = 2) -> list[str]:
    """``count`` webhooks (as stored: in the workspace's partition) with ``DELIVERIES`` deliveries each."""
    table, db = get_settings().main_table, portal.aws.dynamodb
    ids = [f"whk_{workspace_id[-6:]}{n}" for n in range(count)]
    for webhook_id in ids:
        db.put_item(TableName=table, Item={
            "pk": {"S": f"WS#{workspace_id}"}, "sk": {"S": f"{main_table.WEBHOOK}{webhook_id}"},
            "id": {"S": webhook_id}, "url": {"S": "https://hooks.example.com/in"}, "enabled": {"BOOL": True},
        })  # fmt: skip
        for n in range(DELIVERIES):
            delivery_id = f"dlv_{n:026d}"
            status = ("pending", "delivered", "failed")[n % 3]
            item = main_table.delivery(webhook_id, delivery_id) | main_table.delivery_status_index(
                webhook_id, status, delivery_id
            )
            db.put_item(TableName=table, Item={k: {"S": v} for k, v in item.items()} | {
                "id": {"S": delivery_id}, "webhookId": {"S": webhook_id}, "workspaceId": {"S": workspace_id},
                "status": {"S": status}, "body": {"S": "{}"},
            })  # fmt: skip
    return ids


def workspace_with_webhooks(portal: Portal, owner: Session, name: str) -> tuple[str, list[str]]:
    ws = portal.create_workspace(owner, name)
    return ws["id"], seed_webhooks(portal, ws["id"])


def deliveries_of(portal: Portal, webhook_ids: list[str]) -> int:
    return sum(len(partition(portal, main_table.deliveries_partition(w))) for w in webhook_ids)


def test_purging_a_workspace_leaves_none_of_its_webhooks_or_deliveries(portal: Portal) -> None:
    owner = portal.sign_in("owner@example.com", plan="pro")
    doomed, doomed_hooks = workspace_with_webhooks(portal, owner, "Doomed")
    kept, kept_hooks = workspace_with_webhooks(portal, owner, "Kept")
    assert deliveries_of(portal, doomed_hooks) == 2 * DELIVERIES
    deleted = portal.call("PortalWorkspaceDeleteFunction", token=owner.token, params={"workspaceId": doomed})
    assert deleted.json() == {"deleted": True}
    assert run_worker(take_purge_messages(portal.aws.sqs)) == {"batchItemFailures": []}
    assert deliveries_of(portal, doomed_hooks) == 0
    assert partition(portal, f"WS#{doomed}") == []  # the webhooks themselves
    assert partition(portal, f"PURGE#{doomed}") == []
    scanned = portal.aws.dynamodb.scan(TableName=get_settings().main_table)["Items"]
    assert [i for i in scanned if doomed[-6:] in i["pk"]["S"] or i.get("workspaceId", {}).get("S") == doomed] == []
    assert deliveries_of(portal, kept_hooks) == 2 * DELIVERIES  # another workspace's are untouched
    assert len([r for r in partition(portal, f"WS#{kept}") if r["sk"]["S"].startswith("WEBHOOK#")]) == 2


def test_a_pass_that_stops_partway_leaves_the_webhooks_listed_and_the_next_one_finishes(portal: Portal) -> None:
    """The workspace partition goes last: a pass stopped while draining deliveries still finds the webhooks."""
    owner = portal.sign_in("owner@example.com", plan="pro")
    doomed, hooks = workspace_with_webhooks(portal, owner, "Doomed")
    store = PurgeStore(portal.aws.dynamodb, get_settings().main_table)
    calls = itertools.count()
    stopped = store.delete_workspace_records(doomed, keep_going=lambda: next(calls) < 1)  # one page, then out of time
    assert 0 < stopped < 2 * DELIVERIES
    assert len([r for r in partition(portal, f"WS#{doomed}") if r["sk"]["S"].startswith("WEBHOOK#")]) == 2
    store.delete_workspace_records(doomed, keep_going=lambda: True)
    assert deliveries_of(portal, hooks) == 0 and partition(portal, f"WS#{doomed}") == []
