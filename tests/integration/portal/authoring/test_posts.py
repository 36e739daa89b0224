"""Posts (authoring.md, "Posts"): created, edited, published, unpublished and deleted through the portal, and the
feed and each filtered view of the read plane exactly the published posts after every write."""

from __future__ import annotations

from typing import Any

import pytest

from core.platform import main_table
from tests.support.authoring import Studio, at_once
from tests.support.brain import RFC3339_MS
from tests.support.feed_check import FeedCheck, as_feed_post, no_feed_cache
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

    change = {"channels": ["site"], "hashtags": None, "createdAt": "2026-01-03T00:00:00Z"}
    moved = studio.ok("PortalPostUpdateFunction", agent_id=agent["id"], post_id=post["id"], body=change)["post"]
    assert moved["channels"] == ["site"] and moved["category"] == "launch"
    rows, copies = feed_state(studio.portal, agent["id"])
    stamp = f"2026-01-03T00:00:00.000Z#{post['id']}"
    assert rows == [f"ID#{post['id']}", f"POST#{stamp}"]
    assert copies == sorted([f"CHANNEL#site#{stamp}", f"CATEGORY#launch#{stamp}", f"BOTH#site#launch#{stamp}"])

    cleared = studio.ok("PortalPostUpdateFunction", agent_id=agent["id"], post_id=post["id"], body={"category": None})
    assert cleared["post"]["category"] is None  # null clears the category: its views lose the post
    assert feed_state(studio.portal, agent["id"]) == ([f"ID#{post['id']}", f"POST#{stamp}"], [f"CHANNEL#site#{stamp}"])

    studio.ok("PortalPostUnpublishFunction", agent_id=agent["id"], post_id=post["id"])
    assert feed_state(studio.portal, agent["id"]) == ([f"DRAFT#{stamp}", f"ID#{post['id']}"], [])
    studio.ok("PortalPostDeleteFunction", agent_id=agent["id"], post_id=post["id"])
    assert feed_state(studio.portal, agent["id"]) == ([], [])


def test_null_clears_what_the_feed_allows_to_be_null_and_leaves_the_rest(
    studio: Studio, agent: dict[str, Any], feed: FeedCheck
) -> None:
    """authoring.md, "Posts": in a PATCH, ``null`` clears ``title``, ``sub``, ``caption``, ``category``, ``width``,
    ``height`` and ``mediaType`` (back to what the kind makes it); an omitted field, or ``null`` for any other, is left
    as it is. The bundle publisher relies on it instead of deleting and recreating a post."""
    full = {"title": "T", "sub": "S", "caption": "C", "category": "launch", "width": 640, "height": 480,
            "hashtags": ["a"], "channels": ["site"]}  # fmt: skip
    post = studio.post(agent["id"], publish=True, **full)
    nulls = dict.fromkeys(("title", "sub", "caption", "category", "width", "height", "mediaType", "hashtags",
                           "channels", "key", "poster", "pages"))  # fmt: skip
    edited = studio.ok("PortalPostUpdateFunction", agent_id=agent["id"], post_id=post["id"], body=nulls)["post"]
    cleared = dict.fromkeys(("title", "sub", "caption", "category", "width", "height"))
    assert edited == post | cleared | {"mediaType": "image", "updatedAt": edited["updatedAt"]}
    assert edited["hashtags"] == ["a"] and edited["channels"] == ["site"] and edited["key"] == post["key"]
    assert studio.all_posts(agent["id"]) == [edited]
    assert feed.agent(agent["id"]) == [as_feed_post(edited)]
    again = studio.ok("PortalPostUpdateFunction", agent_id=agent["id"], post_id=post["id"], body={"title": None})
    assert again["post"] == edited  # nothing left to clear: unchanged, as any PATCH that changes nothing


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


# --- every field, every refusal


def test_every_field_of_a_post_is_present(studio: Studio, agent: dict[str, Any]) -> None:
    bare = studio.post(agent["id"])
    assert bare == {
        "id": bare["id"], "key": "media/a.jpg", "kind": "image", "mediaType": "image", "title": None, "sub": None,
        "caption": None, "hashtags": [], "channels": [], "category": None, "width": None, "height": None,
        "createdAt": bare["createdAt"], "pages": [], "poster": "", "playable": "", "isVideo": False,
        "status": "draft", "updatedAt": bare["createdAt"],
    }  # fmt: skip
    assert bare["id"].startswith("post_") and RFC3339_MS.fullmatch(bare["createdAt"])
    full = studio.post(agent["id"], kind="carousel", title="T", sub="S", caption="C", hashtags=["a", "b"],
                       channels=["site"], category="news", width=1080, height=1350, createdAt="2026-01-01T00:00:00Z",
                       pages=[{"key": "media/v.mp4", "mediaType": "video", "width": 10, "height": 20, "order": 0},
                              {"key": "media/b.jpg"}],
                       poster="media/poster.jpg", playable="media/v.mp4", publish=True)  # fmt: skip
    assert full == {
        "id": full["id"], "key": "media/a.jpg", "kind": "carousel", "mediaType": "video", "title": "T", "sub": "S",
        "caption": "C", "hashtags": ["a", "b"], "channels": ["site"], "category": "news", "width": 1080,
        "height": 1350, "createdAt": "2026-01-01T00:00:00.000Z",
        "pages": [{"key": "media/v.mp4", "mediaType": "video", "width": 10, "height": 20, "order": 0},
                  {"key": "media/b.jpg", "mediaType": None, "width": None, "height": None, "order": None}],
        "poster": "media/poster.jpg", "playable": "media/v.mp4", "isVideo": True, "status": "published",
        "updatedAt": full["updatedAt"],
    }  # fmt: skip
    assert studio.all_posts(agent["id"]) == [bare, full]  # the list answers what the writes answered


IMAGE = {"key": "media/a.jpg", "kind": "image"}
# (what the body adds to {"key": "media/a.jpg", "kind": "image"}, the field the 400 names)
REFUSED_POSTS: list[tuple[dict[str, Any], str]] = [
    ({"surprise": 1}, "surprise"),
    ({"id": "post_1"}, "id"),
    ({"isVideo": True}, "isVideo"),
    ({"kind": "gif"}, "kind"),
    ({"key": None}, "key"),
    ({"key": "../a.jpg"}, "key"),
    ({"key": "/media/a.jpg"}, "key"),
    ({"poster": "media//p.jpg"}, "poster"),
    ({"playable": "media\\v.mp4"}, "playable"),
    ({"title": "x" * 201}, "title"),
    ({"title": "bell\x07"}, "title"),
    ({"sub": 5}, "sub"),
    ({"caption": "x" * 2201}, "caption"),
    ({"caption": "esc\x1b[31m"}, "caption"),
    ({"hashtags": ["a"] * 31}, "hashtags"),
    ({"hashtags": [""]}, "hashtags.0"),
    ({"channels": ["c"] * 21}, "channels"),
    ({"channels": ["x" * 101]}, "channels.0"),
    ({"channels": "site"}, "channels"),
    ({"category": ""}, "category"),
    ({"width": "1080"}, "width"),
    ({"width": 0}, "width"),
    ({"height": 1.5}, "height"),
    ({"createdAt": "2999-01-01T00:00:00Z"}, "createdAt"),
    ({"createdAt": "2026-01-01"}, "createdAt"),
    ({"createdAt": "2026-13-01T00:00:00Z"}, "createdAt"),
    ({"mediaType": "video"}, "mediaType"),
    ({"kind": "text", "mediaType": "image"}, "mediaType"),
    ({"kind": "carousel", "mediaType": "image", "pages": [{"key": "media/v.mp4", "mediaType": "video"}]}, "mediaType"),
    ({"pages": [{"key": "media/a.jpg"}] * 21}, "pages"),
    ({"pages": [{"key": "media/a.jpg", "extra": 1}]}, "pages.0.extra"),
    ({"pages": [{"key": "a/../b.jpg"}]}, "pages.0.key"),
    ({"publish": "yes"}, "publish"),
]


def test_a_bad_post_is_refused_naming_the_field(studio: Studio, agent: dict[str, Any]) -> None:
    named, entries = {}, studio.audit()
    for change, field in REFUSED_POSTS:
        refused = studio.call("PortalPostCreateFunction", agent_id=agent["id"], body=IMAGE | change)
        assert_error(refused, 400, "VALIDATION_ERROR")
        named[field] = refused.json()["error"].split(": ", 1)[0]
    assert named == {field: field for _, field in REFUSED_POSTS}
    assert feed_state(studio.portal, agent["id"]) == ([], []) and studio.audit() == entries


def test_a_bad_edit_is_refused_naming_the_field_and_changes_nothing(studio: Studio, agent: dict[str, Any]) -> None:
    post = studio.post(agent["id"], publish=True)
    before = feed_state(studio.portal, agent["id"])
    for change, field in REFUSED_POSTS:
        if field in ("key", "publish") and change.get(field) in (None, "yes"):
            continue  # a PATCH may leave key out (null is absent), and has no publish field at all
        refused = studio.call("PortalPostUpdateFunction", agent_id=agent["id"], post_id=post["id"], body=change)
        assert_error(refused, 400, "VALIDATION_ERROR")
        assert refused.json()["error"].startswith(f"{field}: "), (change, refused.json())
    refused = studio.call("PortalPostUpdateFunction", agent_id=agent["id"], post_id=post["id"], body={"publish": True})
    assert refused.json()["error"].startswith("publish: ")
    missing = studio.call("PortalPostUpdateFunction", agent_id=agent["id"], post_id=post["id"],
                          body={"key": "media/none.jpg"})  # fmt: skip
    assert_error(missing, 400, "VALIDATION_ERROR")
    assert missing.json()["error"].startswith("key: ")  # a published post's new media must exist
    assert feed_state(studio.portal, agent["id"]) == before
    assert studio.all_posts(agent["id"]) == [post]


def test_html_is_text_stored_and_returned_as_sent(studio: Studio, agent: dict[str, Any], feed: FeedCheck) -> None:
    html = {"title": "<img src=x onerror=alert(1)>", "caption": "<script>alert('x')</script>\n&amp;",
            "hashtags": ["<b>"], "channels": ["<i>web</i>"], "category": "a&b"}  # fmt: skip
    post = studio.post(agent["id"], publish=True, **html)
    assert {name: post[name] for name in html} == html
    assert [{name: p[name] for name in html} for p in feed.agent(agent["id"])] == [html]


# --- the read plane after every write


@pytest.fixture
def feed(studio: Studio, monkeypatch: pytest.MonkeyPatch) -> FeedCheck:
    no_feed_cache(monkeypatch)
    return FeedCheck.open(studio)


def test_the_feed_and_every_view_show_exactly_the_published_posts_after_every_write(
    studio: Studio, agent: dict[str, Any], feed: FeedCheck
) -> None:
    a = agent["id"]
    edit, publish = "PortalPostUpdateFunction", "PortalPostPublishFunction"
    first = studio.post(a, channels=["instagram", "site"], category="news", createdAt="2026-03-01T00:00:00Z")
    assert feed.agent(a) == []
    second = studio.post(a, channels=["site"], createdAt="2026-03-02T00:00:00Z", publish=True)
    assert [p["id"] for p in feed.agent(a)] == [second["id"]]
    studio.ok(publish, agent_id=a, post_id=first["id"])
    assert [p["id"] for p in feed.agent(a)] == [second["id"], first["id"]]
    studio.ok(publish, agent_id=a, post_id=first["id"])  # again: nothing changes
    assert [p["id"] for p in feed.agent(a)] == [second["id"], first["id"]]
    studio.ok(edit, agent_id=a, post_id=first["id"], body={"createdAt": "2026-03-03T00:00:00Z"})  # now the newest
    assert [p["id"] for p in feed.agent(a)] == [first["id"], second["id"]]
    studio.ok(edit, agent_id=a, post_id=first["id"], body={"channels": ["email"], "category": "offers"})
    studio.ok(edit, agent_id=a, post_id=second["id"], body={"category": "offers", "title": "Now with a category"})
    assert [p["id"] for p in feed.agent(a)] == [first["id"], second["id"]]
    assert feed.feed(a, channel="instagram") == [] and len(feed.feed(a, category="offers")) == 2
    third = studio.post(a, channels=["email"], category="offers", createdAt="2026-03-01T12:00:00Z", publish=True)
    studio.ok("PortalPostUnpublishFunction", agent_id=a, post_id=second["id"])
    assert [p["id"] for p in feed.agent(a)] == [first["id"], third["id"]]
    studio.ok("PortalPostDeleteFunction", agent_id=a, post_id=first["id"])
    assert [p["id"] for p in feed.agent(a)] == [third["id"]]
    studio.ok("PortalPostDeleteFunction", agent_id=a, post_id=second["id"])  # a draft's deletion
    assert [p["id"] for p in feed.agent(a)] == [third["id"]]


def test_concurrent_writes_leave_the_feed_exact(studio: Studio, agent: dict[str, Any], feed: FeedCheck) -> None:
    """Writers racing on the same posts: each write applies whole or is refused (409), never half."""
    a = agent["id"]
    posts = [studio.post(a, channels=["site"], category="news", createdAt=f"2026-04-0{n + 1}T00:00:00Z")
             for n in range(3)]  # fmt: skip
    changes: list[tuple[str, dict[str, Any]]] = [
        ("PortalPostPublishFunction", {}), ("PortalPostUnpublishFunction", {}),
        ("PortalPostUpdateFunction", {"body": {"channels": ["instagram", "site"]}}),
        ("PortalPostUpdateFunction", {"body": {"category": "offers", "createdAt": "2026-05-01T00:00:00Z"}}),
    ]  # fmt: skip

    def write(n: int) -> int:
        function, request = changes[n % len(changes)]
        return studio.call_in_container(function, agent_id=a, post_id=posts[n % 3]["id"], **request).status

    statuses = at_once(12, write)
    assert set(statuses) <= {200, 409} and statuses.count(200) >= 3, statuses
    feed.agent(a)


def test_filter_values_with_separators_are_their_own_views(
    studio: Studio, agent: dict[str, Any], feed: FeedCheck
) -> None:
    """A ``#`` or ``%`` in a channel or category never reaches into another value's copies (they are encoded)."""
    a = agent["id"]
    studio.post(a, channels=["a#b", "a"], category="b#c", publish=True)
    studio.post(a, channels=["a%23b", "ünï/çødé"], category="b", publish=True)
    studio.post(a, channels=["a"], category="b#c%", createdAt="2026-01-01T00:00:00Z", publish=True)
    published = feed.agent(a)
    assert len(published) == 3 and [len(feed.feed(a, channel=c)) for c in ("a#b", "a%23b", "a")] == [1, 1, 2]
