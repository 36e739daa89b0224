"""Agents (authoring.md, "Agents"): created within the owner's plan (exactly, under concurrency), with the default
brand and a workflow of their own unless told otherwise; slugs unique; wrap and site published to the read plane;
deleted at once for every reader, their content purged in the background (posts, copies, items, objects under
``projects/<agentId>/``, stored conversations) and nothing of another agent's."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.agents import providers as agents_providers
from core.platform import main_table
from core.platform import providers as platform_providers
from core.platform.settings import get_settings
from core.posts import feed_cache
from tests.support import brain
from tests.support.authoring import Studio, agent_partitions, at_once, fields_named_by_refusals
from tests.support.feed_check import no_feed_cache
from tests.support.portal import Portal, assert_error
from tests.support.r2 import get as r2_get

CREATE, GET, LIST = "PortalAgentCreateFunction", "PortalAgentGetFunction", "PortalAgentsListFunction"
UPDATE, DELETE = "PortalAgentUpdateFunction", "PortalAgentDeleteFunction"
READ_PLANE = ("BrainAgentFunction", "BrainFeedFunction", "BrainItemsFunction", "BrainWrapFunction",
              "BrainSiteFunction", "BrainSuggestionsFunction")  # fmt: skip


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal)


@pytest.fixture
def key(studio: Studio) -> str:
    raw: str = studio.portal.mint_key(studio.who, studio.workspace_id)["key"]
    return raw


def listed(studio: Studio) -> list[dict[str, Any]]:
    agents: list[dict[str, Any]] = studio.ok(LIST)["agents"]
    return agents


def read_plane(function: str, agent_id: str, key: str) -> tuple[int, Any]:
    result = brain.call(function, agent_id=agent_id, key=key)
    return result.status, result.json()


# --- creating, reading, changing


def test_every_field_of_an_agent_and_its_own_workflow(studio: Studio) -> None:
    agent = studio.ok(CREATE, 201, body={"name": "Café Barista"})["agent"]
    workspace = studio.workspace()
    assert agent == {
        "id": agent["id"], "slug": "cafe-barista", "name": "Café Barista", "brandId": workspace["defaultBrandId"],
        "activeWorkflowId": agent["activeWorkflowId"], "postCount": 0, "itemCount": 0,
        "behaviour": {"instructions": "", "model": None, "temperature": 0.3, "maxReplyTokens": 512,
                      "knowledgeOnly": True, "fallback": ""},
        "createdAt": agent["createdAt"], "updatedAt": agent["createdAt"],
    }  # fmt: skip
    assert agent["id"].startswith("prj_") and agent["activeWorkflowId"].startswith("wf_")
    workflows = studio.ok("PortalWorkflowsListFunction")["workflows"]
    assert [(w["id"], w["name"]) for w in workflows] == [(agent["activeWorkflowId"], "Café Barista")]
    assert studio.ok(GET, agent_id=agent["id"])["agent"] == agent
    brand, flow = studio.brand("Other"), studio.workflow("Shared")
    told = studio.agent("Told", slug="told-1", brandId=brand["id"], activeWorkflowId=flow["id"])
    assert (told["slug"], told["brandId"], told["activeWorkflowId"]) == ("told-1", brand["id"], flow["id"])
    assert len(studio.ok("PortalWorkflowsListFunction")["workflows"]) == 2  # none made for the told one
    assert listed(studio) == [agent, told]  # oldest first


def test_slugs_are_unique_in_the_workspace(studio: Studio) -> None:
    first = studio.agent("Helper")
    assert_error(studio.call(CREATE, body={"name": "Helper"}), 409, "CONFLICT")  # the derived slug is taken
    assert_error(studio.call(CREATE, body={"name": "Other", "slug": "helper"}), 409, "CONFLICT")
    second = studio.agent("Other")
    assert_error(studio.call(UPDATE, agent_id=second["id"], body={"slug": "helper"}), 409, "CONFLICT")
    studio.ok(UPDATE, agent_id=first["id"], body={"slug": "renamed"})
    assert studio.ok(UPDATE, agent_id=second["id"], body={"slug": "helper"})["agent"]["slug"] == "helper"
    studio.ok(DELETE, agent_id=second["id"])
    assert studio.agent("Helper")["slug"] == "helper"  # a deleted agent's slug is free at once
    rival = Studio(studio.portal, studio.who, studio.portal.create_workspace(studio.who, "Rival")["id"])
    assert rival.agent("Renamed")["slug"] == "renamed"


def test_an_edit_changes_what_it_names_and_keeps_the_counts(studio: Studio) -> None:
    agent = studio.agent("Helper")
    studio.media(agent["id"], "media/a.jpg")
    studio.post(agent["id"])
    brand, flow = studio.brand("Other"), studio.workflow("Flow")
    body = {"name": "<script>x</script>", "slug": "new-slug", "brandId": brand["id"], "activeWorkflowId": flow["id"]}
    changed = studio.ok(UPDATE, agent_id=agent["id"], body=body)["agent"]
    assert changed == agent | body | {"postCount": 1, "updatedAt": changed["updatedAt"]}
    assert changed["updatedAt"] > agent["updatedAt"]
    assert studio.ok(GET, agent_id=agent["id"])["agent"] == changed
    # The old brand and the agent's own workflow are no longer in use: both may go.
    studio.ok("PortalWorkflowDeleteFunction", workflow_id=agent["activeWorkflowId"])
    assert_error(studio.call("PortalBrandDeleteFunction", brand_id=brand["id"]), 409, "CONFLICT")


REFUSED: list[tuple[dict[str, Any], str]] = [  # (body, the field the 400 names)
    ({}, "name"),
    ({"name": ""}, "name"),
    ({"name": "x" * 81}, "name"),
    ({"name": "a\x00"}, "name"),
    ({"name": "Ok", "slug": "Not A Slug"}, "slug"),
    ({"name": "Ok", "slug": "x" * 49}, "slug"),
    ({"name": "Ok", "slug": "trailing-"}, "slug"),
    ({"name": "Ok", "brandId": ""}, "brandId"),
    ({"name": "Ok", "brandId": "brd_01NOSUCH"}, "brandId"),
    ({"name": "Ok", "activeWorkflowId": 5}, "activeWorkflowId"),
    ({"name": "Ok", "activeWorkflowId": "wf_01NOSUCH"}, "activeWorkflowId"),
    ({"name": "Ok", "postCount": 3}, "postCount"),
    ({"name": "Ok", "id": "prj_1"}, "id"),
]


def test_a_bad_agent_is_refused_naming_the_field(studio: Studio) -> None:
    agent, entries = studio.agent("Target"), studio.audit()
    named = fields_named_by_refusals(studio, CREATE, UPDATE, REFUSED, agent_id=agent["id"])
    assert named == {name: name for name in named}
    assert studio.audit() == entries and listed(studio) == [agent]


# --- the plan


def test_the_owners_plan_limits_the_agents_of_a_workspace(portal: Portal) -> None:
    studio = Studio.open(portal, "free@example.com", plan="free")
    made = [studio.agent(f"Agent {n}") for n in range(3)]
    refused = studio.call(CREATE, body={"name": "Fourth"})
    assert_error(refused, 402, "PLAN_LIMIT_REACHED")
    assert refused.json()["error"].startswith(
        "The free plan's limit of agents in a workspace is 3 (pro: 25, business: 200)."
    )
    admin = studio.member("admin@example.com", role="admin")  # on the free plan too, but the owner's plan counts
    portal.users.set_plan(admin.who.user_id, "business")
    assert_error(admin.call(CREATE, body={"name": "Fourth"}), 402, "PLAN_LIMIT_REACHED")
    assert listed(studio) == made
    studio.ok(DELETE, agent_id=made[0]["id"])
    assert admin.agent("Fourth")["name"] == "Fourth"  # a deletion frees its place at once
    assert_error(studio.call(CREATE, body={"name": "Fifth"}), 402, "PLAN_LIMIT_REACHED")
    portal.users.set_plan(studio.who.user_id, "pro")
    assert studio.agent("Fifth")["name"] == "Fifth"


def test_concurrent_creations_stop_exactly_at_the_plan(portal: Portal) -> None:
    studio = Studio.open(portal, "free@example.com", plan="free")
    listed(studio)  # a warm container for the shared clients and the signing secret

    def create(n: int) -> Any:
        return studio.call_in_container(CREATE, body={"name": f"Racer {n}"})

    results = at_once(10, create)
    assert sorted(r.status for r in results) == [201] * 3 + [402] * 7
    assert {r.json()["code"] for r in results if r.status == 402} == {"PLAN_LIMIT_REACHED"}
    assert {a["id"] for a in listed(studio)} == {r.json()["agent"]["id"] for r in results if r.status == 201}
    workflows = studio.ok("PortalWorkflowsListFunction")["workflows"]
    assert len(workflows) == 3  # a refused creation made no workflow either
    assert len(studio.audit()) == 3


# --- documents


def test_wrap_and_site_are_published_to_the_read_plane(studio: Studio, key: str) -> None:
    agent = studio.agent("Helper")
    ids = {"agent_id": agent["id"]}
    assert studio.ok("PortalAgentWrapGetFunction", **ids) == {"wrap": None}
    assert studio.ok("PortalAgentSiteGetFunction", **ids) == {"site": None}
    assert read_plane("BrainSiteFunction", agent["id"], key) == (200, {"pages": [], "nav": [], "sections": []})
    wrap = {"layout": "chat", "greeting": "<b>Hi</b> ☕", "theme": {"accent": "#123"}, "extra": [1, {"a": None}]}
    assert studio.ok("PortalAgentWrapPutFunction", body=wrap, **ids) == {"wrap": wrap}
    site = {"pages": [{"slug": "home", "title": "Home"}], "nav": ["home"], "custom": True}
    assert studio.ok("PortalAgentSitePutFunction", body=site, **ids) == {"site": site}
    assert studio.ok("PortalAgentWrapGetFunction", **ids) == {"wrap": wrap}
    assert studio.ok("PortalAgentSiteGetFunction", **ids) == {"site": site}
    assert read_plane("BrainWrapFunction", agent["id"], key) == (200, wrap)
    assert read_plane("BrainSiteFunction", agent["id"], key) == (200, site | {"sections": []})
    again = {"layout": "chat", "greeting": "", "theme": {}}
    studio.ok("PortalAgentWrapPutFunction", body=again, **ids)  # a PUT replaces the whole document
    assert read_plane("BrainWrapFunction", agent["id"], key) == (200, again)
    assert studio.ok(GET, **ids)["agent"]["updatedAt"] > agent["updatedAt"]


def test_a_bad_document_is_refused(studio: Studio) -> None:
    agent = studio.agent("Helper")
    big = {"pages": [], "blob": "x" * (64 * 1024)}
    refusals = [
        ("PortalAgentWrapPutFunction", [1, 2], "body"),
        ("PortalAgentWrapPutFunction", "null", "body"),
        ("PortalAgentWrapPutFunction", "{not json", "body"),
        ("PortalAgentWrapPutFunction", big, "body"),
        ("PortalAgentSitePutFunction", {"nav": []}, "pages"),
        ("PortalAgentSitePutFunction", {"pages": {"home": {}}}, "pages"),
        ("PortalAgentSitePutFunction", {"pages": None}, "pages"),
        ("PortalAgentSitePutFunction", big, "body"),
    ]
    entries = studio.audit()
    for function, body, field in refusals:
        refused = studio.call(function, agent_id=agent["id"], body=body)
        assert_error(refused, 400, "VALIDATION_ERROR")
        assert refused.json()["error"].startswith(f"{field}: "), (function, body if body is not big else "big")
    assert studio.audit() == entries
    assert studio.ok("PortalAgentSiteGetFunction", agent_id=agent["id"]) == {"site": None}
    fits = {"pages": [], "blob": "x" * (64 * 1024 - len('{"pages":[],"blob":""}'))}
    assert studio.ok("PortalAgentSitePutFunction", agent_id=agent["id"], body=fits) == {"site": fits}


# --- deleting


def content(studio: Studio, agent: dict[str, Any]) -> dict[str, Any]:
    """Posts (two, one published on a channel with a category), an item, objects and stored conversations."""
    a = agent["id"]
    studio.media(a, "media/a.jpg", "media/b.jpg")
    studio.post(a)
    studio.post(a, key="media/b.jpg", channels=["site"], category="news", publish=True)
    studio.item(a)
    studio.put_object(f"conversations/{a}/thr_1/turn_1.json", b'{"prompt": "hi"}', "application/json")
    studio.ok("PortalAgentWrapPutFunction", agent_id=a, body={"layout": "chat"})
    return {"partitions": agent_partitions(studio.portal, a), "objects": studio.object_paths(f"projects/{a}/")
            + studio.object_paths(f"conversations/{a}/")}  # fmt: skip


def versions_under(studio: Studio, prefix: str) -> int:
    found = studio.portal.aws.s3.list_object_versions(
        Bucket=get_settings().content_bucket, Prefix=f"workspaces/{studio.workspace_id}/{prefix}"
    )
    return len(found.get("Versions", [])) + len(found.get("DeleteMarkers", []))


def test_deleting_an_agent_is_immediate_and_its_content_is_purged(
    studio: Studio, key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_feed_cache(monkeypatch)  # the feed's per-container cache is another matter: see the test of its bound below
    doomed, kept = studio.agent("Doomed"), studio.agent("Kept")
    doomed_content, kept_content = content(studio, doomed), content(studio, kept)
    assert all(doomed_content["partitions"].values()) and len(doomed_content["objects"]) == 4
    assert all(read_plane(f, doomed["id"], key)[0] == 200 for f in READ_PLANE)
    assert studio.purge() == []

    assert studio.ok(DELETE, agent_id=doomed["id"]) == {"deleted": True}
    for function in READ_PLANE:  # gone at once for every reader, before any purge
        assert read_plane(function, doomed["id"], key) == (404, brain.AGENT_NOT_FOUND), function
    for function in ("PortalAgentGetFunction", "PortalPostsListFunction", "PortalItemsListFunction"):
        assert_error(studio.call(function, agent_id=doomed["id"]), 404, "NOT_FOUND")
    assert [a["id"] for a in listed(studio)] == [kept["id"]]
    tombstone = main_table.agent_purge(studio.workspace_id, doomed["id"])["pk"]
    assert studio.partition(tombstone) == ["PURGE"]

    retried = studio.ok(DELETE, agent_id=doomed["id"])  # a retry (its answer lost) queues the purge again
    assert retried == {"deleted": True}
    messages = studio.purge()
    expected = {"workspaceId": studio.workspace_id, "agentId": doomed["id"]}
    assert [json.loads(m["Body"]) for m in messages] == [expected, expected]
    assert agent_partitions(studio.portal, doomed["id"]) == {"posts": [], "filters": [], "items": []}
    assert studio.object_paths(f"projects/{doomed['id']}/") == studio.object_paths(f"conversations/{doomed['id']}/")
    assert versions_under(studio, f"projects/{doomed['id']}/") == 0
    assert versions_under(studio, f"conversations/{doomed['id']}/") == 0
    assert studio.partition(tombstone) == []
    # The other agent keeps everything, and answers as before.
    assert content_now(studio, kept) == kept_content
    assert all(read_plane(f, kept["id"], key)[0] == 200 for f in READ_PLANE)
    assert_error(studio.call(DELETE, agent_id=doomed["id"]), 404, "NOT_FOUND")  # purged: unknown now
    assert studio.purge() == []


def content_now(studio: Studio, agent: dict[str, Any]) -> dict[str, Any]:
    a = agent["id"]
    return {"partitions": agent_partitions(studio.portal, a),
            "objects": studio.object_paths(f"projects/{a}/") + studio.object_paths(f"conversations/{a}/")}  # fmt: skip


def test_a_deleted_agent_cannot_be_written_to(studio: Studio) -> None:
    agent = studio.agent("Doomed")
    studio.media(agent["id"], "media/a.jpg")
    post, item = studio.post(agent["id"]), studio.item(agent["id"])
    studio.ok(DELETE, agent_id=agent["id"])
    ids = {"agent_id": agent["id"]}
    writes = [
        ("PortalPostCreateFunction", {"body": {"key": "media/a.jpg", "kind": "image"}}),
        ("PortalPostPublishFunction", {"post_id": post["id"]}),
        ("PortalItemUpdateFunction", {"item_id": item["id"], "body": {"name": "X"}}),
        ("PortalAgentWrapPutFunction", {"body": {}}),
        ("PortalAgentUpdateFunction", {"body": {"name": "Back"}}),
    ]
    for function, request in writes:
        assert_error(studio.call(function, **ids, **request), 404, "NOT_FOUND")


def test_a_deleted_agents_feed_goes_when_a_warm_containers_copy_expires(
    studio: Studio, key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The one documented exception to "immediate" (docs/decisions.md, "The writer"): a container that served the
    feed keeps it for FEED_CACHE_SECONDS, as after any post write; the agent's other reads are 404 at once. The
    container's feed cache runs on a clock the test moves (``RecentFeeds``'s own), so the bound is exact: kept
    until just before FEED_CACHE_SECONDS, gone at it, however long the calls in between take."""
    platform_providers.reset()
    clock = FakeClock()
    monkeypatch.setattr(agents_providers.reader()._feeds, "_clock", clock)
    agent = studio.agent("Doomed")
    assert read_plane("BrainFeedFunction", agent["id"], key) == (200, [])  # now kept in this container
    studio.ok(DELETE, agent_id=agent["id"])
    assert read_plane("BrainAgentFunction", agent["id"], key) == (404, brain.AGENT_NOT_FOUND)
    assert read_plane("BrainFeedFunction", agent["id"], key) == (200, [])  # the kept copy, for the rest of its time
    clock.now += feed_cache.FEED_CACHE_SECONDS - 0.25  # binary fractions: exact sums
    assert read_plane("BrainFeedFunction", agent["id"], key) == (200, [])  # still kept, to the end of its time
    clock.now += 0.25
    assert read_plane("BrainFeedFunction", agent["id"], key) == (404, brain.AGENT_NOT_FOUND)


class FakeClock:
    """A monotonic clock that only moves when the test moves it."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def test_a_deleted_agents_objects_go_with_the_purges_first_pass(studio: Studio, key: str) -> None:
    """/v1/r2 serves objects by path, not by agent: a deleted agent's objects are served until the purge's first
    pass deletes them (queued at the deletion, so seconds later on AWS), not for its settle window (decisions.md)."""
    agent = studio.agent("Doomed")
    studio.media(agent["id"], "media/a.jpg")
    path, auth = f"projects/{agent['id']}/media/a.jpg", {"Authorization": f"Bearer {key}"}
    assert r2_get(path, headers=auth).status == 200
    studio.ok(DELETE, agent_id=agent["id"])
    assert r2_get(path, headers=auth).status == 200
    studio.purge()
    assert r2_get(path, headers=auth).status == 404
