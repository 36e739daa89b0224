"""Turns stored in S3 by versions before the table held them, moved into the table (``core/chat/turn_import.py``, run
by ``make ops ARGS=import-turns``): listed, read back and erased as the chat's own; the objects gone; run again, nothing
changes; what it cannot read, or whose workspace or agent is gone, is left where it is."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pytest

from core.chat.import_store import TurnImportStore
from core.chat.turn_import import TurnImporter
from core.platform.ids import new_id
from core.platform.settings import get_settings
from tests.support.authoring import Studio
from tests.support.conversations import OTHER_VISITOR, VISITOR, partition, store_turn
from tests.support.portal import Portal

LIST, GET = "PortalConversationsListFunction", "PortalConversationGetFunction"
ERASE = "PortalConversationsEraseFunction"


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal)


@pytest.fixture
def agent(studio: Studio) -> str:
    return str(studio.agent("Barista")["id"])


def put(studio: Studio, key: str, body: bytes) -> None:
    studio.portal.aws.s3.put_object(Bucket=get_settings().content_bucket, Key=key, Body=body)


def legacy(studio: Studio, agent: str, where: tuple[str, str], at: str, prompt: str, **more: Any) -> tuple[str, bytes]:
    """A turn as versions before the table stored it, one object under the workspace's conversations folder
    (``where``: its visitor and thread): its key and body."""
    client, thread = where
    turn_id = new_id("turn", int(datetime.fromisoformat(at).timestamp() * 1000))
    turn = {
        "turnId": turn_id,
        "threadKey": thread,
        "agentId": agent,
        "client": client,
        "section": None,
        "prompt": prompt,
        "reply": f"re: {prompt}",
        "usage": None,
        "complete": True,
        "createdAt": at,
    } | more
    key = f"workspaces/{studio.workspace_id}/conversations/{agent}/{client}/{thread}/{turn_id}.json"
    body = json.dumps(turn).encode()
    put(studio, key, body)
    return key, body


def importer(studio: Studio, alive: bool = True) -> TurnImporter:
    settings, aws = get_settings(), studio.portal.aws
    store = TurnImportStore(aws.s3, settings.content_bucket, aws.dynamodb, settings.main_table)
    return TurnImporter(store, store, retention_of=lambda ws, agent: (alive, 30), credits_per_turn=2)


def legacy_left(studio: Studio) -> list[str]:
    prefix = f"workspaces/{studio.workspace_id}/conversations/"
    found = studio.portal.aws.s3.list_objects_v2(Bucket=get_settings().content_bucket, Prefix=prefix)
    return [o["Key"] for o in found.get("Contents", [])]


def test_legacy_turns_are_listed_read_and_erased_as_the_chats_own(studio: Studio, agent: str) -> None:
    legacy(studio, agent, (VISITOR, "thr_a"), "2026-11-20T10:00:00.000Z", "first")
    legacy(studio, agent, (VISITOR, "thr_a"), "2026-11-21T09:00:00.000Z", "second", complete=False)
    legacy(studio, agent, (OTHER_VISITOR, "thr_b"), "2026-11-22T08:00:00.000Z", "other")
    # The visitor went on after the upgrade: a newer turn of the same thread is already in the table.
    store_turn(studio.portal.aws.dynamodb, studio.workspace_id, agent, "thr_a", "2026-11-25T12:00:00.000Z",
               prompt="after the upgrade")  # fmt: skip

    done = importer(studio).run(studio.workspace_id)
    assert (done.objects, done.turns, done.threads, done.skipped) == (3, 3, 2, 0)
    assert legacy_left(studio) == []
    listed = studio.ok(LIST, agent_id=agent)["threads"]
    assert [(t["threadKey"], t["turns"], t["startedAt"], t["lastAt"]) for t in listed] == [
        ("thr_a", 3, "2026-11-20T10:00:00.000Z", "2026-11-25T12:00:00.000Z"),  # its last turn stays the newest
        ("thr_b", 1, "2026-11-22T08:00:00.000Z", "2026-11-22T08:00:00.000Z"),
    ]
    turns = studio.ok(GET, agent_id=agent, thread_key="thr_a", query={"client": VISITOR})["turns"]
    assert [(t["prompt"], t["credits"]) for t in turns] == [("first", 2), ("second", 0), ("after the upgrade", 1)]
    stored = partition(studio.portal.aws.dynamodb, agent)
    with_ttl = {row.get("prompt", row.get("threadKey")) for row in stored.values() if "expiresAt" in row}
    assert with_ttl == {"first", "second", "other", "thr_a", "thr_b"}  # the workspace's retention (30 days here)

    assert importer(studio).run(studio.workspace_id).objects == 0  # run again: nothing left, nothing changed
    assert partition(studio.portal.aws.dynamodb, agent) == stored

    assert studio.ok(ERASE, agent_id=agent, query={"client": VISITOR}) == {"deleted": 3}  # an erasure reaches them
    assert [t["threadKey"] for t in studio.ok(LIST, agent_id=agent)["threads"]] == ["thr_b"]


def test_a_turn_already_imported_is_kept_and_its_object_still_goes(studio: Studio, agent: str) -> None:
    """A run that stopped after writing a turn but before deleting its object: the next keeps the turn as it is,
    and an object it cannot read is left where it is (logged)."""
    key, body = legacy(studio, agent, (VISITOR, "thr_a"), "2026-11-20T10:00:00.000Z", "first")
    importer(studio).run(studio.workspace_id)
    put(studio, key, body)  # as if its deletion had not happened
    damaged = key.replace(".json", "x.json")
    put(studio, damaged, b"not json")
    done = importer(studio).run(studio.workspace_id)
    assert (done.objects, done.turns, done.skipped) == (2, 0, 1)
    assert legacy_left(studio) == [damaged]
    (thread,) = studio.ok(LIST, agent_id=agent)["threads"]
    assert thread["turns"] == 1


def test_a_deleted_workspaces_or_agents_turns_are_left_to_its_purge(studio: Studio, agent: str) -> None:
    legacy(studio, agent, (VISITOR, "thr_a"), "2026-11-20T10:00:00.000Z", "first")
    done = importer(studio, alive=False).run(studio.workspace_id)
    assert (done.turns, done.skipped) == (0, 1) and len(legacy_left(studio)) == 1
    assert partition(studio.portal.aws.dynamodb, agent) == {}


def test_the_operator_command_moves_them_with_the_workspaces_retention(
    studio: Studio, agent: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``make ops ARGS="import-turns --workspace ID"`` as ops/__main__.py runs it (here on this test's moto): the
    workspace and agent looked up, no retention set (no TTL), the price of a turn by default (1)."""
    import argparse

    from ops.__main__ import _import_turns

    legacy(studio, agent, (VISITOR, "thr_a"), "2026-11-20T10:00:00.000Z", "first")
    args = argparse.Namespace(workspace=studio.workspace_id, credits_per_turn=None)
    settings, aws = get_settings(), studio.portal.aws
    names = {"main": settings.main_table, "ledger": settings.ledger_table, "bucket": settings.content_bucket}
    assert _import_turns(args, aws.s3, aws.dynamodb, names) == 0
    assert json.loads(capsys.readouterr().out) == {"objects": 1, "turns": 1, "threads": 1, "skipped": 0}
    (turn,) = studio.ok(GET, agent_id=agent, thread_key="thr_a", query={"client": VISITOR})["turns"]
    assert turn["credits"] == 1 and "expiresAt" not in str(partition(studio.portal.aws.dynamodb, agent))
