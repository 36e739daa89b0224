"""A workspace whose agent holds thousands of objects and posts, seeded fast, for the purge's resume tests and
bench/purge.py (issue 43).

One post is written through the store production writes with (``Seeder.posts``: its canonical item, its row and
its filter copy); the rest are copies of those items with a fresh post id wherever the id appears. Objects go
straight into moto's S3 backend (one ``put_object`` through boto3 costs ~10 ms on a loaded machine, through the
backend ~0.2 ms: seeding is not what is measured), and each gets the storage counter's record as S3's notification
would have left it, the workspace's ``STORAGE`` bytes being their sum. In-process moto only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from core.agents.write_store import AgentStore
from core.platform import main_table as keys
from core.platform.dynamo import batch_put, from_item, to_item
from core.platform.ids import now_iso
from core.platform.settings import get_settings
from core.platform.transactions import Also
from core.workspaces.records import PurgeRecord, WorkspaceRecord
from core.workspaces.store import WorkspaceStore
from tests.support.seed import Seeder

SEEDED = "post_00000"  # Seeder.posts' first id


@dataclass(frozen=True)
class Seeded:
    workspace: WorkspaceRecord
    agent_id: str
    objects: int  # under the agent's folder
    kept_bytes: int  # the workspace's objects outside the agent's folder (what an agent purge leaves counted)


def many_posts(db: Any, seed: Seeder, agent_id: str, count: int) -> int:
    """``count`` posts of the agent; returns the items they are (canonical items, rows and copies)."""
    seed.posts(agent_id, 1)
    originals = []
    for pk in (keys.posts_partition(agent_id), keys.feed_filters_partition(agent_id)):
        found = db.query(TableName=get_settings().main_table, KeyConditionExpression="pk = :pk",
                         ExpressionAttributeValues={":pk": {"S": pk}})["Items"]  # fmt: skip
        originals += [json.dumps(i) for i in found if SEEDED in json.dumps(i)]
    made = [from_item(json.loads(text.replace(SEEDED, f"post_{n:07d}"))) for n in range(1, count) for text in originals]
    batch_put(db, get_settings().main_table, made)
    return len(originals) * count


def many_objects(db: Any, workspace_id: str, folder: str, count: int, size: int = 3) -> None:
    """``count`` objects of ``size`` bytes under the workspace's ``folder``, each recorded by the storage counter."""
    from moto.core.models import DEFAULT_ACCOUNT_ID
    from moto.s3.models import s3_backends

    bucket, table = get_settings().content_bucket, get_settings().main_table
    backend = s3_backends[DEFAULT_ACCOUNT_ID]["aws"]
    records = []
    for n in range(count):
        path = f"{folder}{n:07d}.bin"
        stored = backend.put_object(bucket, f"workspaces/{workspace_id}/{path}", b"x" * size)
        records.append(keys.stored_object(workspace_id, path) | {
            "size": size, "sequencer": f"{n + 1:016X}", "version": str(stored.version_id), "at": now_iso(),
            "moves": 1,
        })  # fmt: skip
    batch_put(db, table, records)
    db.update_item(TableName=table, Key=to_item(keys.storage_lock(workspace_id)),
                   UpdateExpression="ADD #bytes :n, moves :m", ExpressionAttributeNames={"#bytes": "bytes"},
                   ExpressionAttributeValues=to_item({":n": size * count, ":m": count}))  # fmt: skip


def workspace_with(db: Any, email: str, *, objects: int, posts: int, kept: int = 5) -> Seeded:
    """A pro user's workspace with one agent: ``objects`` objects in its folder (3 bytes each), ``posts`` posts, and
    ``kept`` objects of 2 bytes in the workspace's ``assets/`` (not the agent's)."""
    seed = Seeder(db)
    owner = seed.user(email, plan="pro")
    workspace = seed.workspace(owner, "Purged")
    agent = seed.agent(workspace)
    many_posts(db, seed, agent.id, posts)
    many_objects(db, workspace.id, f"projects/{agent.id}/media/", objects)
    many_objects(db, workspace.id, "assets/", kept, size=2)
    return Seeded(workspace, agent.id, objects, 2 * kept)


def delete_workspace(db: Any, workspace: WorkspaceRecord) -> None:
    assert WorkspaceStore(db, get_settings().main_table).delete(workspace, now_iso())


def delete_agent(db: Any, workspace: WorkspaceRecord, agent_id: str) -> None:
    """As the API's deletion: the agent gone at once, its tombstone naming the purge's work."""
    store = AgentStore(db, get_settings().main_table)
    agent = store.get(workspace.id, agent_id)
    assert agent is not None
    tombstone = PurgeRecord(workspace_id=workspace.id, owner_id=workspace.owner_id, deleted_at=now_iso())
    store.delete(agent, tombstone, also=Also())
