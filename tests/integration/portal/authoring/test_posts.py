"""Posts (authoring.md, "Posts"): created, edited, published, unpublished and deleted through the portal, and the
feed and each filtered view of the read plane exactly the published posts after every write."""

from __future__ import annotations

from typing import Any

import pytest

from core.repositories import main_table
from tests.support.authoring import Studio
from tests.support.portal import Portal, assert_error


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal)


@pytest.fixture
def agent(studio: Studio) -> dict[str, Any]:
    agent = studio.agent("Barista")
    studio.media(agent["id"], "media/a.jpg", "media/b.jpg", "media/v.mp4", "media/poster.jpg")
    return agent


def items_of(portal: Portal, pk: str) -> list[str]:
    found = portal.aws.dynamodb.query(
        TableName="local-maintable", KeyConditionExpression="pk = :pk", ExpressionAttributeValues={":pk": {"S": pk}}
    )["Items"]
    return sorted(item["sk"]["S"] for item in found)


def feed_state(portal: Portal, agent_id: str) -> tuple[list[str], list[str]]:
    """(the posts partition's keys, the filter copies' keys)."""
    posts = items_of(portal, main_table.posts_partition(agent_id))
    return posts, items_of(portal, main_table.feed_filters_partition(agent_id))


def test_a_post_is_a_draft_until_published_and_then_in_every_view(studio: Studio, agent: dict[str, Any]) -> None:
    post = studio.post(agent["id"], title="<b>Hello</b>", channels=["instagram", "site", "instagram"],
                       category="launch", createdAt="2026-01-02T03:04:05Z")  # fmt: skip
    assert post["status"] == "draft" and post["channels"] == ["instagram", "site"] and post["mediaType"] == "image"
    assert post["createdAt"] == "2026-01-02T03:04:05.000Z" and post["title"] == "<b>Hello</b>"
    rows, copies = feed_state(studio.portal, agent["id"])
    assert rows == [f"DRAFT#2026-01-02T03:04:05.000Z#{post['id']}", f"ID#{post['id']}"] and copies == []

    published = studio.ok("PortalPostPublishFunction", agent_id=agent["id"], post_id=post["id"])["post"]
    assert published["status"] == "published" and published["updatedAt"] >= post["updatedAt"]
    rows, copies = feed_state(studio.portal, agent["id"])
    stamp = f"2026-01-02T03:04:05.000Z#{post['id']}"
    assert rows == [f"ID#{post['id']}", f"POST#{stamp}"]
    assert copies == sorted([f"CHANNEL#instagram#{stamp}", f"CHANNEL#site#{stamp}", f"CATEGORY#launch#{stamp}",
                             f"BOTH#instagram#launch#{stamp}", f"BOTH#site#launch#{stamp}"])  # fmt: skip

    change = {"channels": ["site"], "category": None, "createdAt": "2026-01-03T00:00:00Z"}
    moved = studio.ok("PortalPostUpdateFunction", agent_id=agent["id"], post_id=post["id"], body=change)["post"]
    assert moved["channels"] == ["site"] and moved["category"] == "launch"  # null is absent: the category stays
    rows, copies = feed_state(studio.portal, agent["id"])
    stamp = f"2026-01-03T00:00:00.000Z#{post['id']}"
    assert rows == [f"ID#{post['id']}", f"POST#{stamp}"]
    assert copies == sorted([f"CHANNEL#site#{stamp}", f"CATEGORY#launch#{stamp}", f"BOTH#site#launch#{stamp}"])

    studio.ok("PortalPostUnpublishFunction", agent_id=agent["id"], post_id=post["id"])
    assert feed_state(studio.portal, agent["id"]) == ([f"DRAFT#{stamp}", f"ID#{post['id']}"], [])
    studio.ok("PortalPostDeleteFunction", agent_id=agent["id"], post_id=post["id"])
    assert feed_state(studio.portal, agent["id"]) == ([], [])


def test_publishing_checks_every_media_key(studio: Studio, agent: dict[str, Any]) -> None:
    refused = studio.call("PortalPostCreateFunction", agent_id=agent["id"], body={
        "key": "media/v.mp4", "kind": "video", "poster": "media/poster.jpg", "playable": "media/missing.mp4",
        "publish": True,
    })  # fmt: skip
    assert_error(refused, 400, "VALIDATION_ERROR")
    assert refused.json()["error"].startswith("playable: ")
    assert feed_state(studio.portal, agent["id"]) == ([], [])
    draft = studio.post(agent["id"], kind="carousel", pages=[{"key": "media/a.jpg"}, {"key": "media/nope.jpg"}])
    refused = studio.call("PortalPostPublishFunction", agent_id=agent["id"], post_id=draft["id"])
    assert_error(refused, 400, "VALIDATION_ERROR")
    assert refused.json()["error"].startswith("pages.1.key: ")


def test_the_agent_counts_its_posts(studio: Studio, agent: dict[str, Any]) -> None:
    first = studio.post(agent["id"])
    studio.post(agent["id"], publish=True)
    assert studio.ok("PortalAgentGetFunction", agent_id=agent["id"])["agent"]["postCount"] == 2
    studio.ok("PortalPostDeleteFunction", agent_id=agent["id"], post_id=first["id"])
    assert studio.ok("PortalAgentGetFunction", agent_id=agent["id"])["agent"]["postCount"] == 1


def test_posts_are_listed_newest_first_across_drafts_and_published(studio: Studio, agent: dict[str, Any]) -> None:
    made = [
        studio.post(agent["id"], createdAt=f"2026-02-{day:02d}T00:00:00Z", publish=day % 3 == 0) for day in range(1, 13)
    ]
    newest_first = [p["id"] for p in reversed(made)]
    seen, cursor = [], None
    while True:
        query = {"limit": "5"} | ({"cursor": cursor} if cursor else {})
        page = studio.ok("PortalPostsListFunction", agent_id=agent["id"], query=query)
        seen += [p["id"] for p in page["posts"]]
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert seen == newest_first
    drafts = studio.ok("PortalPostsListFunction", agent_id=agent["id"], query={"status": "draft"})["posts"]
    assert [p["id"] for p in drafts] == [p["id"] for p in reversed(made) if p["status"] == "draft"]
    bad = studio.call("PortalPostsListFunction", agent_id=agent["id"], query={"status": "draft", "cursor": "x"})
    assert_error(bad, 400, "VALIDATION_ERROR")


def test_a_member_reads_and_may_not_write_and_a_stranger_gets_404(studio: Studio, agent: dict[str, Any]) -> None:
    member = studio.portal.sign_in("member@example.com")
    studio.portal.add_member(studio.workspace_id, member.user_id)
    stranger = studio.portal.sign_in("stranger@example.com")
    post = studio.post(agent["id"])
    as_member = studio.as_(member)
    assert as_member.ok("PortalPostsListFunction", agent_id=agent["id"])["posts"][0]["id"] == post["id"]
    assert_error(
        as_member.call("PortalPostPublishFunction", agent_id=agent["id"], post_id=post["id"]), 403, "FORBIDDEN"
    )
    assert_error(as_member.call("PortalPostCreateFunction", agent_id=agent["id"], body={}), 403, "FORBIDDEN")
    as_stranger = studio.as_(stranger)
    assert_error(as_stranger.call("PortalPostsListFunction", agent_id=agent["id"]), 404, "NOT_FOUND")
    assert_error(as_stranger.call("PortalPostCreateFunction", agent_id=agent["id"], body={}), 404, "NOT_FOUND")
