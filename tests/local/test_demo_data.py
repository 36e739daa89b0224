"""The local runner's demo data: loaded into moto, then checked record by record and object by object."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, get_args

import boto3
import pytest
from moto import mock_aws

from core.auth.api_keys import display_prefix, hash_key, is_well_formed
from core.models.kinds import PostKind
from core.models.records import AgentRecord, ItemRecord, PostRecord, UserRecord, WorkflowRecord, WorkspaceRecord
from core.repositories.agents import AgentRepository
from core.repositories.api_keys import ApiKeyRepository
from core.repositories.dynamo import from_item
from local.demo import load_demo
from local.emulator import create_resources
from tests.conftest import FAKE_AWS
from tests.support.lambdas import invoke, sample_event, stack, with_request

# The physical names template.yaml's resources get in the local stack (the same ones the functions are given).
MAIN, API_KEYS, LEDGER, BUCKET = (
    stack().physical_name(r) for r in ("MainTable", "ApiKeysTable", "LedgerTable", "ContentBucket")
)
TABLES = {"main_table": MAIN, "api_keys_table": API_KEYS, "ledger_table": LEDGER, "bucket": BUCKET}
ALLOWED = {"projects", "workflows", "config", "assets", "meta", "wrapper", "brands", "media", "public"}
RFC3339_MS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
CONTENT_TYPES = {"jpg": "image/jpeg", "png": "image/png", "mp4": "video/mp4", "md": "text/markdown"}


def _query(db: Any, pk: str) -> list[dict[str, Any]]:
    request: dict[str, Any] = {
        "TableName": MAIN,
        "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": {":pk": {"S": pk}},
    }
    rows: list[dict[str, Any]] = []
    for page in db.get_paginator("query").paginate(**request):
        rows += [from_item(i) for i in page["Items"]]
    return rows


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Load the demo once for the module (the cold media encode is the slow part)."""
    with pytest.MonkeyPatch.context() as mp:
        for name, value in FAKE_AWS.items():
            mp.setenv(name, value)
        mp.delenv("AWS_ENDPOINT_URL", raising=False)
        mp.delenv("AWS_PROFILE", raising=False)
        with mock_aws():
            db, s3 = boto3.client("dynamodb"), boto3.client("s3")
            create_resources(stack(), db, s3, secrets=boto3.client("secretsmanager"), sqs=boto3.client("sqs"))
            cache = tmp_path_factory.mktemp("demo") / "media-cache"
            workspaces = load_demo(db, s3, cache_dir=cache, **TABLES)
            yield {"db": db, "s3": s3, "cache": cache, "workspaces": workspaces}


def _workspace_rows(env: Any, ws: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    rows: dict[str, list[dict[str, Any]]] = {}
    for row in _query(env["db"], f"WS#{ws['id']}"):
        rows.setdefault(row["sk"].split("#")[0], []).append(row)
    return rows


def _head(env: Any, key: str) -> dict[str, Any]:
    return env["s3"].head_object(Bucket=BUCKET, Key=key)


def _body(env: Any, key: str) -> bytes:
    return env["s3"].get_object(Bucket=BUCKET, Key=key)["Body"].read()


def _published_agent(env: Any, ws: dict[str, Any]) -> tuple[AgentRecord, list[PostRecord]]:
    agent = AgentRepository(env["db"], MAIN).get_agent(ws["id"], ws["agents"][0]["id"])
    assert agent is not None
    posts = [PostRecord.model_validate(r) for r in _query(env["db"], f"AGENT#{agent.id}#POSTS")]
    return agent, posts


def test_workspaces_have_distinct_owners_members_and_plans(env: Any) -> None:
    workspaces = env["workspaces"]
    assert len(workspaces) >= 2
    assert len({ws["ownerEmail"] for ws in workspaces}) == len(workspaces)
    json.dumps(workspaces)  # JSON-ready
    plans = []
    for ws in workspaces:
        rows = _workspace_rows(env, ws)
        record = WorkspaceRecord.model_validate(rows["WS"][0])
        assert record.name == ws["name"] and record.default_brand_id and record.default_workflow_id
        roles = {m["userId"]: m["role"] for m in rows["MEMBER"]}
        assert roles[record.owner_id] == "owner"
        owner = UserRecord.model_validate(_query(env["db"], f"USER#{record.owner_id}")[0])
        assert owner.email == ws["ownerEmail"] and owner.active_workspace_id == ws["id"]
        plans.append(owner.plan)
        assert [b["isDefault"] for b in rows["BRAND"]] == [True]
        assert {a["id"] for a in rows["AGENT"]} == {a["id"] for a in ws["agents"]}
    assert plans[:2] == ["pro", "free"]
    assert "member" in {m["role"] for m in _workspace_rows(env, workspaces[0])["MEMBER"]}


def test_raw_keys_are_well_formed_and_only_their_hash_is_stored(env: Any) -> None:
    repo = ApiKeyRepository(env["db"], API_KEYS)
    for ws in env["workspaces"]:
        assert is_well_formed(ws["key"])
        record = repo.get_by_hash(hash_key(ws["key"]))
        assert record is not None and record.workspace_id == ws["id"]
        assert record.prefix == display_prefix(ws["key"]) and record.revoked_at is None
        stored = env["db"].scan(TableName=API_KEYS)["Items"]
        assert ws["key"] not in json.dumps(stored)


def test_first_owner_has_1000_credits_and_second_none(env: Any) -> None:
    balances = []
    for ws in env["workspaces"][:2]:
        owner_id = _workspace_rows(env, ws)["WS"][0]["ownerId"]
        item = env["db"].get_item(TableName=LEDGER, Key={"pk": {"S": f"ACCT#{owner_id}"}, "sk": {"S": "BALANCE"}})
        balances.append(from_item(item["Item"])["available"] if "Item" in item else 0)
    assert balances == [1000, 0]


def test_published_agents_have_a_rich_feed(env: Any) -> None:
    for ws in env["workspaces"]:
        agent, posts = _published_agent(env, ws)
        published = [p for p in posts if p.published]
        assert len(published) > 150 and len(posts) > len(published)
        assert {p.kind for p in published} == set(get_args(PostKind))
        channel_sets = {tuple(sorted(p.channels)) for p in published}
        assert {("instagram",), ("site",), ("instagram", "site")} <= channel_sets
        categories = {p.category for p in published}
        assert len(categories - {None}) >= 3 and None in categories
        assert all(RFC3339_MS.match(p.created_at) for p in posts)
        assert len({p.created_at for p in posts}) == len(posts)
        for post in posts:
            video = post.kind in ("video", "reel")
            assert bool(post.poster) == video and bool(post.playable) == video
            if post.kind in ("carousel", "story"):
                assert 2 <= len(post.pages) <= 5 and [p.order for p in post.pages] == list(range(len(post.pages)))
                assert post.key == post.pages[0].key
            else:
                assert post.pages == []
        # The repository's own read sees the same data: capped, filtered, newest first.
        repo = AgentRepository(env["db"], MAIN)
        assert len(repo.list_feed(agent.id, channel=None, category=None, limit=120)) == 120
        feed = repo.list_feed(agent.id, channel="instagram", category=None, limit=120)
        assert len(feed) == 120 and all("instagram" in p.channels and p.published for p in feed)
        assert [p.created_at for p in feed] == sorted((p.created_at for p in feed), reverse=True)


def test_every_post_object_exists_under_the_agent_folder(env: Any) -> None:
    for ws in env["workspaces"]:
        for agent in ws["agents"]:
            posts = [PostRecord.model_validate(r) for r in _query(env["db"], f"AGENT#{agent['id']}#POSTS")]
            keys = {k for p in posts for k in (p.key, p.poster, p.playable, *(g.key for g in p.pages)) if k}
            assert keys and all(not k.startswith(("/", "projects/", "workspaces/")) for k in keys)
            for key in keys:
                head = _head(env, f"workspaces/{ws['id']}/projects/{agent['id']}/{key}")
                assert head["ContentType"].split(";")[0] == CONTENT_TYPES[key.rsplit(".", 1)[1]]


def test_media_is_real(env: Any, tmp_path: Path) -> None:
    import imageio_ffmpeg  # type: ignore[import-untyped]  # a dev dependency, untyped (as in local/demo/media.py)

    ws = env["workspaces"][0]
    agent, posts = _published_agent(env, ws)
    folder = f"workspaces/{ws['id']}/projects/{agent.id}/"
    videos = {p.playable: p.poster for p in posts if p.kind in ("video", "reel")}
    assert len(videos) >= 2
    for playable, poster in videos.items():
        mp4 = _body(env, folder + playable)
        assert len(mp4) >= 2 * 1024 * 1024 and mp4[4:8] == b"ftyp"
        assert _body(env, folder + poster)[:2] == b"\xff\xd8"
    path = tmp_path / "clip.mp4"
    path.write_bytes(_body(env, folder + next(iter(videos))))
    meta = next(imageio_ffmpeg.read_frames(str(path)))
    assert meta["codec"] == "h264" and meta["duration"] >= 7
    images = {p.key: (p.width, p.height) for p in posts if p.kind == "image"}
    assert len(images) >= 12
    for key, (width, height) in list(images.items())[:3]:
        path = tmp_path / key.rsplit("/", 1)[1]
        path.write_bytes(_body(env, folder + key))
        assert path.read_bytes()[:2] == b"\xff\xd8"
        assert tuple(next(imageio_ffmpeg.read_frames(str(path)))["size"]) == (width, height)


def test_items_objects_and_documents(env: Any) -> None:
    for ws in env["workspaces"]:
        agent, _ = _published_agent(env, ws)
        items = [ItemRecord.model_validate(r) for r in _query(env["db"], f"AGENT#{agent.id}#ITEMS")]
        assert len(items) >= 8 and any(not i.active for i in items)
        assert len({i.kind for i in items}) >= 4 and len({i.origin for i in items}) >= 2
        active = AgentRepository(env["db"], MAIN).list_active_items(agent.id)
        assert {i.id for i in active} == {i.id for i in items if i.active}
        for item in items:
            head = _head(env, f"workspaces/{ws['id']}/{item.r2_key}")
            assert head["ContentLength"] == item.size and head["ContentType"].split(";")[0] == item.mime_type
        wrap, site = json.loads(agent.wrap_json or ""), json.loads(agent.site_json or "")
        assert wrap["layout"] and wrap["greeting"] and wrap["theme"]["primary"].startswith("#")
        assert site["pages"] and site["nav"] and site["sections"]
        workflow = AgentRepository(env["db"], MAIN).get_workflow(ws["id"], agent.active_workflow_id)
        assert isinstance(workflow, WorkflowRecord)
        suggestions = json.loads(workflow.suggestions_json or "")
        assert suggestions and all(s["title"] and s["prompt"] for s in suggestions)


def test_draft_agent_has_nothing_published_but_a_few_posts(env: Any) -> None:
    ws = env["workspaces"][0]
    assert len(ws["agents"]) >= 2
    draft = AgentRepository(env["db"], MAIN).get_agent(ws["id"], ws["agents"][1]["id"])
    assert draft is not None and draft.wrap_json is None and draft.site_json is None
    assert 0 < len(_query(env["db"], f"AGENT#{draft.id}#POSTS")) < 50


def test_objects_under_allowlisted_and_private_prefixes(env: Any) -> None:
    for ws in env["workspaces"]:
        prefix = f"workspaces/{ws['id']}/"
        pages = env["s3"].get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix)
        keys = [o["Key"][len(prefix) :] for page in pages for o in page.get("Contents", [])]
        tops = {k.split("/", 1)[0] for k in keys}
        assert tops >= ALLOWED and {"conversations", "billing", "private"} <= tops
        assert "assets/logo.png" in keys and "public/hello.txt" in keys
        assert _body(env, prefix + "assets/logo.png")[:8] == b"\x89PNG\r\n\x1a\n"
        assert json.loads(_body(env, prefix + "config/site.json"))["pages"]


def test_reload_makes_fresh_ids_and_reuses_the_media_cache(env: Any) -> None:
    before = {p.name: p.stat().st_mtime_ns for p in env["cache"].iterdir()}
    # Into another empty state (the runner seeds only an empty one; over the first, the free owner would
    # meet her plan's workspace limit): another region's tables, the same bucket (re-creating it is a no-op).
    fresh = boto3.client("dynamodb", region_name="eu-west-1")
    create_resources(stack(), fresh, env["s3"])
    again = load_demo(fresh, env["s3"], cache_dir=env["cache"], **TABLES)
    assert {p.name: p.stat().st_mtime_ns for p in env["cache"].iterdir()} == before
    assert not {ws["id"] for ws in again} & {ws["id"] for ws in env["workspaces"]}
    assert not {ws["key"] for ws in again} & {ws["key"] for ws in env["workspaces"]}


def test_demo_keys_and_agents_work_through_the_handlers(env: Any) -> None:
    """The demo is read by the real handlers: its tables are the template's, so the functions find them."""
    for ws in env["workspaces"]:
        auth = {"Authorization": f"Bearer {ws['key']}"}
        whoami = invoke("BrainWhoAmIFunction", with_request(sample_event("BrainWhoAmIFunction"), headers=auth))
        assert whoami.status == 200 and whoami.json()["workspaceId"] == ws["id"]
        agent_id = ws["agents"][0]["id"]
        event = with_request(sample_event("BrainFeedFunction"), path_parameters={"agentId": agent_id}, headers=auth)
        feed = invoke("BrainFeedFunction", event).json()
        assert len(feed) == 120 and all("instagram" in p["channels"] for p in feed)
        event = with_request(sample_event("BrainItemsFunction"), path_parameters={"agentId": agent_id}, headers=auth)
        assert invoke("BrainItemsFunction", event).status == 200


def test_each_owner_counts_the_workspace_the_demo_made_for_them(env: Any) -> None:
    """The demo creates workspaces as the portal does: each owner's count is what the plan limit checks."""
    for ws in env["workspaces"]:
        owner_id = _workspace_rows(env, ws)["WS"][0]["ownerId"]
        owner = UserRecord.model_validate(_query(env["db"], f"USER#{owner_id}")[0])
        assert (owner.owned_workspaces, owner.active_workspace_id) == (1, ws["id"])
