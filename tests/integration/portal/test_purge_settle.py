"""A purge waits out the life of an upload URL signed before its deletion: what lands late is purged too.

An upload is a presigned POST valid 15 minutes (``UPLOAD_URL_SECONDS``); one signed just before a workspace or an
agent is deleted can land after the purge's first pass. The tombstone therefore stays, and the message comes
back after the rest of ``PURGE_SETTLE_SECONDS``, until the deletion is that old: the last pass removes what landed.
"""

from __future__ import annotations

from typing import Any

import pytest

from core.platform import providers as platform_providers
from core.platform.settings import get_settings
from core.purge import providers as purge_providers
from tests.support.authoring import Studio
from tests.support.lambdas import handler_module
from tests.support.portal import Portal, WorkerContext, sqs_event, take_purge_messages

SETTLE = 960


@pytest.fixture
def settling(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PURGE_SETTLE_SECONDS", str(SETTLE))
    platform_providers.reset()


def later(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """The purge's clock, ``seconds`` on (the service reads ``time.time`` through its ``clock``)."""
    import time

    now = time.time() + seconds
    monkeypatch.setattr(purge_providers.worker(), "_clock", lambda: now)


def run_queue(portal: Portal) -> list[dict[str, Any]]:
    """Every message on the purge queue handed to the worker once, and the messages it sent back."""
    taken = take_purge_messages(portal.aws.sqs)
    handler_module("WorkspacePurgeFunction").lambda_handler(sqs_event(taken), WorkerContext())
    return taken


def landed(studio: Studio, path: str) -> bool:
    key = f"workspaces/{studio.workspace_id}/{path}"
    found = studio.portal.aws.s3.list_objects_v2(Bucket=get_settings().content_bucket, Prefix=key)
    return found.get("KeyCount", 0) > 0


def queued_with_delay(portal: Portal) -> list[int]:
    """The delay of each message sent to the purge queue meanwhile (moto keeps delayed messages invisible)."""
    sent = portal.aws.sqs.get_queue_attributes(
        QueueUrl=get_settings().purge_queue_url, AttributeNames=["ApproximateNumberOfMessagesDelayed"]
    )
    return [int(sent["Attributes"]["ApproximateNumberOfMessagesDelayed"])]


def test_an_agents_upload_that_lands_after_the_first_pass_is_purged_by_the_last(
    portal: Portal, settling: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    studio = Studio.open(portal)
    agent = studio.agent("Late")
    studio.media(agent["id"], "media/a.jpg")
    studio.ok("PortalAgentDeleteFunction", agent_id=agent["id"])
    run_queue(portal)  # the first pass: everything there goes, the tombstone stays for the window
    assert not landed(studio, f"projects/{agent['id']}/media/a.jpg")
    tombstone = {"pk": {"S": f"PURGE#{studio.workspace_id}#AGENT#{agent['id']}"}, "sk": {"S": "PURGE"}}
    assert "Item" in portal.aws.dynamodb.get_item(TableName=get_settings().main_table, Key=tombstone)
    assert queued_with_delay(portal) == [1]  # again, after the rest of the window

    studio.media(agent["id"], "media/late.jpg")  # an upload signed before the deletion lands now
    for message in portal.aws.sqs.receive_message(QueueUrl=get_settings().purge_queue_url).get("Messages", []):
        pytest.fail(f"delivered before its delay: {message}")
    later(monkeypatch, SETTLE)
    body = f'{{"workspaceId": "{studio.workspace_id}", "agentId": "{agent["id"]}"}}'
    portal.aws.sqs.send_message(QueueUrl=get_settings().purge_queue_url, MessageBody=body)  # the delayed one, due
    run_queue(portal)
    assert not landed(studio, f"projects/{agent['id']}/media/late.jpg")
    assert "Item" not in portal.aws.dynamodb.get_item(TableName=get_settings().main_table, Key=tombstone)


def test_a_workspace_purge_keeps_its_tombstone_through_the_window(
    portal: Portal, settling: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    studio = Studio.open(portal)
    studio.put_object("assets/early.png")
    deleted = portal.call("PortalWorkspaceDeleteFunction", token=studio.who.token,
                          params={"workspaceId": studio.workspace_id})  # fmt: skip
    assert deleted.status == 200, deleted.body
    run_queue(portal)
    tombstone = {"pk": {"S": f"PURGE#{studio.workspace_id}"}, "sk": {"S": "PURGE"}}
    assert not landed(studio, "assets/early.png")
    assert "Item" in portal.aws.dynamodb.get_item(TableName=get_settings().main_table, Key=tombstone)
    studio.put_object("assets/late.png")
    later(monkeypatch, SETTLE)
    portal.aws.sqs.send_message(QueueUrl=get_settings().purge_queue_url,
                                MessageBody=f'{{"workspaceId": "{studio.workspace_id}"}}')  # fmt: skip
    run_queue(portal)
    assert not landed(studio, "assets/late.png")
    assert "Item" not in portal.aws.dynamodb.get_item(TableName=get_settings().main_table, Key=tombstone)
