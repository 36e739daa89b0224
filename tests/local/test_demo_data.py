"""The local runner's demo: workspaces seeded through the production create paths, and agents published from
``examples/`` through the portal's API. Read back from the runner's tables and bucket, record by record.

The runner here starts from the suites' demo template (``stack/demo_template.py``): a runner that published the demo
from an empty state, exactly as ``make serve`` does; the audit log proves every agent, post and item came
through the API, signed in as its workspace's owner.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import pytest

from core.agents.records import AgentRecord
from core.identity.records import UserRecord
from core.items.records import ItemRecord
from core.keys.key_format import display_prefix, hash_key, is_well_formed
from core.platform.agent_counts_store import counted
from core.platform.dynamo import from_item
from core.platform.kinds import PostKind
from core.posts.records import PostRecord
from core.workflows.records import WorkflowRecord
from core.workspaces.records import WorkspaceRecord
from local.demo.specs import EXAMPLES, SPECS, bundle_dirs
from stack.demo_template import TEMPLATES, version
from tests.support.lambdas import stack
from tests.support.runner import LocalService, started_service

MAIN, API_KEYS, LEDGER, BUCKET = (
    stack().physical_name(r) for r in ("MainTable", "ApiKeysTable", "LedgerTable", "ContentBucket")
)
ALLOWED = {"projects", "workflows", "config", "assets", "meta", "wrapper", "brands", "public"}
RFC3339_MS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
CONTENT_TYPES = {"jpg": "image/jpeg", "png": "image/png", "mp4": "video/mp4", "md": "text/markdown"}


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    yield from started_service(tmp_path_factory.mktemp("demo-state"))


@pytest.fixture(scope="module")
def db(service: LocalService) -> Any:
    return service.aws("dynamodb")


@pytest.fixture(scope="module")
def s3(service: LocalService) -> Any:
    return service.aws("s3")


def rows(db: Any, pk: str) -> list[dict[str, Any]]:
    request = {"TableName": MAIN, "KeyConditionExpression": "pk = :pk", "ExpressionAttributeValues": {":pk": {"S": pk}}}
    return [from_item(i) for page in db.get_paginator("query").paginate(**request) for i in page["Items"]]


def workspace_rows(db: Any, ws: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for row in rows(db, f"WS#{ws['id']}"):
        found.setdefault(row["sk"].split("#")[0], []).append(row)
    return found


def canonical_posts(db: Any, agent_id: str) -> list[PostRecord]:
    return [PostRecord.model_validate(r) for r in rows(db, f"AGENT#{agent_id}#POSTS") if r["sk"].startswith("ID#")]


def agent_of(db: Any, ws: dict[str, Any], n: int = 0) -> AgentRecord:
    """The agent with its counts (they live on its counters item, ``COUNTS#<agentId>``)."""
    found = workspace_rows(db, ws)
    agent_id = ws["agents"][n]["id"]
    counts = next((r for r in found.get("COUNTS", []) if r["agentId"] == agent_id), None)
    return AgentRecord.model_validate(counted(next(r for r in found["AGENT"] if r["id"] == agent_id), counts))


def body(s3: Any, key: str) -> bytes:
    return s3.get_object(Bucket=BUCKET, Key=key)["Body"].read()


def test_workspaces_have_distinct_owners_members_plans_keys_and_credits(service: LocalService, db: Any) -> None:
    workspaces = service.demo["workspaces"]
    assert len(workspaces) == 2 and len({ws["ownerEmail"] for ws in workspaces}) == 2
    plans, balances = [], []
    for ws in workspaces:
        found = workspace_rows(db, ws)
        record = WorkspaceRecord.model_validate(found["WS"][0])
        assert record.name == ws["name"] and record.default_brand_id and record.agent_count == len(ws["agents"])
        assert {m["userId"]: m["role"] for m in found["MEMBER"]}[record.owner_id] == "owner"
        owner = UserRecord.model_validate(rows(db, f"USER#{record.owner_id}")[0])
        assert (owner.email, owner.active_workspace_id, owner.owned_workspaces) == (ws["ownerEmail"], ws["id"], 1)
        plans.append(owner.plan)
        assert [b["isDefault"] for b in found["BRAND"]] == [True]
        assert {a["id"] for a in found["AGENT"]} == {a["id"] for a in ws["agents"]}
        assert is_well_formed(ws["key"])
        stored = db.get_item(TableName=API_KEYS, Key={"keyHash": {"S": hash_key(ws["key"])}})["Item"]
        assert from_item(stored)["prefix"] == display_prefix(ws["key"]) and ws["key"] not in json.dumps(stored)
        balance = db.get_item(TableName=LEDGER, Key={"pk": {"S": f"ACCT#{owner.id}"}, "sk": {"S": "BALANCE"}})
        balances.append(from_item(balance["Item"])["available"] if "Item" in balance else 0)
    assert plans == ["pro", "free"] and balances == [1000, 0]
    assert "member" in {m["role"] for m in workspace_rows(db, workspaces[0])["MEMBER"]}


def test_every_agent_post_and_item_was_written_through_the_api_by_the_owner(service: LocalService, db: Any) -> None:
    """Nothing the writer makes is inserted by hand: each create left its audit entry, with the owner and a request."""
    for ws in service.demo["workspaces"]:
        owner_id = workspace_rows(db, ws)["WS"][0]["ownerId"]
        entries = rows(db, f"AUDIT#{ws['id']}")
        assert entries and all(e["actorId"] == owner_id and e["requestId"] for e in entries)
        created = {e["target"] for e in entries if e["action"].endswith(".create")}
        for agent in ws["agents"]:
            assert f"agent:{agent['id']}" in created
            assert {f"post:{p.id}" for p in canonical_posts(db, agent["id"])} <= created
            items = rows(db, f"AGENT#{agent['id']}#ITEMS")
            assert items and {f"item:{i['id']}" for i in items} <= created
        uploads = {e["target"] for e in entries if e["action"] == "object.upload"}
        assert "object:assets/logo.png" in uploads and any(t.startswith("object:projects/") for t in uploads)


def test_published_agents_have_a_rich_feed_equal_to_their_bundle(service: LocalService, db: Any) -> None:
    for ws, bundle in zip(service.demo["workspaces"], ("northwind-barista", "lumen-guide"), strict=True):
        posts = canonical_posts(db, ws["agents"][0]["id"])
        wanted = json.loads((EXAMPLES / bundle / "posts.json").read_text())
        assert sorted(p.created_at for p in posts) == sorted(e["createdAt"] for e in wanted)
        assert sum(not p.published for p in posts) == sum(e.get("status") == "draft" for e in wanted) > 0
        published = [p for p in posts if p.published]
        assert len(published) > 150 and {p.kind for p in published} == set(get_args(PostKind))
        assert {("instagram",), ("site",), ("instagram", "site")} <= {tuple(sorted(p.channels)) for p in published}
        assert len({p.category for p in published} - {None}) >= 3 and None in {p.category for p in published}
        assert all(RFC3339_MS.match(p.created_at) for p in posts)
        for post in posts:
            video = post.kind in ("video", "reel")
            assert bool(post.poster) == video and bool(post.playable) == video
        feed = json.loads(
            service.brain_get(f"/v1/agent/{ws['agents'][0]['id']}/feed?channel=instagram", ws["key"]).body
        )
        assert len(feed) == 120 and all("instagram" in p["channels"] for p in feed)
        assert [p["createdAt"] for p in feed] == sorted((p["createdAt"] for p in feed), reverse=True)


def test_every_object_a_post_names_is_stored_under_its_agent_with_its_type(
    service: LocalService, db: Any, s3: Any
) -> None:
    for ws in service.demo["workspaces"]:
        for agent in ws["agents"]:
            posts = canonical_posts(db, agent["id"])
            keys = {k for p in posts for k in (p.key, p.poster, p.playable, *(g.key for g in p.pages)) if k}
            assert keys and all(not k.startswith(("/", "projects/", "workspaces/")) for k in keys)
            for key in keys:
                head = s3.head_object(Bucket=BUCKET, Key=f"workspaces/{ws['id']}/projects/{agent['id']}/{key}")
                assert head["ContentType"].split(";")[0] == CONTENT_TYPES[key.rsplit(".", 1)[1]]


def test_media_is_real(service: LocalService, db: Any, s3: Any, tmp_path: Path) -> None:
    import imageio_ffmpeg  # type: ignore[import-untyped]  # a dev dependency, untyped (as in local/demo/media.py)

    ws = service.demo["workspaces"][0]
    agent_id = ws["agents"][0]["id"]
    posts = canonical_posts(db, agent_id)
    folder = f"workspaces/{ws['id']}/projects/{agent_id}/"
    videos = {p.playable: p.poster for p in posts if p.kind in ("video", "reel")}
    assert len(videos) >= 2
    for playable, poster in videos.items():
        mp4 = body(s3, folder + playable)
        assert len(mp4) >= 2 * 1024 * 1024 and mp4[4:8] == b"ftyp"
        assert body(s3, folder + poster)[:2] == b"\xff\xd8"
    path = tmp_path / "clip.mp4"
    path.write_bytes(body(s3, folder + next(iter(videos))))
    meta = next(imageio_ffmpeg.read_frames(str(path)))
    assert meta["codec"] == "h264" and meta["duration"] >= 7
    images = {p.key: (p.width, p.height) for p in posts if p.kind == "image"}
    for key, size in list(images.items())[:3]:
        path = tmp_path / key.rsplit("/", 1)[1]
        path.write_bytes(body(s3, folder + key))
        assert tuple(next(imageio_ffmpeg.read_frames(str(path)))["size"]) == size


def test_items_objects_and_documents(service: LocalService, db: Any, s3: Any) -> None:
    for ws in service.demo["workspaces"]:
        agent = agent_of(db, ws)
        items = [ItemRecord.model_validate(r) for r in rows(db, f"AGENT#{agent.id}#ITEMS")]
        assert len(items) >= 8 and any(not i.active for i in items) and agent.item_count == len(items)
        assert len({i.kind for i in items}) >= 4 and len({i.origin for i in items}) >= 2
        for item in items:
            assert item.r2_key.startswith(f"projects/{agent.id}/")
            head = s3.head_object(Bucket=BUCKET, Key=f"workspaces/{ws['id']}/{item.r2_key}")
            assert head["ContentLength"] == item.size and head["ContentType"].split(";")[0] == item.mime_type
        wrap, site = json.loads(agent.wrap_json or ""), json.loads(agent.site_json or "")
        assert wrap["layout"] and wrap["greeting"] and wrap["theme"]["primary"].startswith("#")
        assert site["pages"] and site["nav"] and site["sections"]
        workflow = WorkflowRecord.model_validate(next(
            r for r in workspace_rows(db, ws)["WORKFLOW"] if r["id"] == agent.active_workflow_id
        ))  # fmt: skip
        suggestions = json.loads(workflow.suggestions_json or "")
        assert suggestions and all(s["title"] and s["prompt"] for s in suggestions)


def test_the_second_agent_has_nothing_published_but_a_few_posts(service: LocalService, db: Any) -> None:
    ws = service.demo["workspaces"][0]
    draft = agent_of(db, ws, 1)
    assert draft.wrap_json is None and draft.site_json is None
    assert 0 < draft.post_count == len(canonical_posts(db, draft.id)) < 50


def test_the_workspaces_own_files_are_uploaded_under_the_allowlist(service: LocalService, s3: Any) -> None:
    for ws in service.demo["workspaces"]:
        prefix = f"workspaces/{ws['id']}/"
        pages = s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix)
        keys = [o["Key"][len(prefix) :] for page in pages for o in page.get("Contents", [])]
        # The agents' knowledge (the worker's index objects) sits beside them, outside the allowlist: never served.
        knowledge = [k for k in keys if k.startswith("knowledge/")]
        assert {k.split("/", 1)[0] for k in keys} - {"knowledge"} == ALLOWED - {"media"} | {"projects"}
        assert all(service.brain_get(f"/v1/r2/{k}", ws["key"]).status == 403 for k in knowledge[:2])
        assert body(s3, prefix + "assets/logo.png")[:8] == b"\x89PNG\r\n\x1a\n"
        assert json.loads(body(s3, prefix + "config/site.json"))["pages"]
        hello = service.brain_get("/v1/r2/public/hello.txt", ws["key"])
        assert hello.status == 200 and hello.body == f"Hello from {ws['name']}!\n".encode()


def test_each_agent_is_on_the_brand_its_bundle_carries(service: LocalService) -> None:
    """Issue 28: one identity. The chat names the agent's brand (tests/integration/brain/chat/test_turn.py), and the
    agent is on its bundle's brand: "Lumen Guide, Lumen Yoga Studio's assistant"."""
    for ws, spec in zip(service.demo["workspaces"], SPECS, strict=True):
        for agent, bundle in zip(ws["agents"], bundle_dirs(spec), strict=True):
            brand = json.loads((bundle / "agent.json").read_text())["brand"]
            shown = service.brain_get(f"/v1/agent/{agent['id']}", ws["key"]).json()["brand"]
            assert (shown["slug"], shown["name"]) == (brand["slug"], brand["name"]) == (spec.slug, spec.name)


def first_start(service: LocalService) -> Path:
    """The state directory of a runner's first start, the one that published the demo: the demo template's
    (``stack/demo_template.py``: a runner started by ``RunnerProcess``, as this one, from an empty state, as
    ``make serve`` is), or this runner's own when it published the demo itself."""
    template = TEMPLATES / version()
    if os.environ.get("LOCAL_DEMO_TEMPLATE") == "1" and (template / "runner.log").exists():
        return template
    return service.state_dir


def test_a_first_start_prints_a_line_per_bundle_then_the_summary(service: LocalService) -> None:
    """Issue 28: 2,346 log lines came before the summary on a first ``make serve``. The demo's request logs go to a
    file the first line names; the output before the summary is that line, one per bundle and one at the end."""
    state = first_start(service)
    output = (state / "runner.log").read_text().splitlines()
    before = output[: output.index("{")]  # the summary opens with demo.json's document
    assert len(before) <= 30, "\n".join(before)
    log = state / "demo-publish.log"
    assert f"first start: publishing the demo from examples/ (its request logs: {log})" in before
    bundles = [line for line in before if re.fullmatch(r"  \d/3 examples/[a-z-]+ → .+: \d+ uploads .* in .+ s", line)]
    assert len(bundles) == 3, before
    assert any(line.startswith("demo published in ") for line in before)
    assert log.read_text().count('local.gateway PortalApi "') > 400  # the publication's requests: in the file
