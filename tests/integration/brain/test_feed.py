"""GET /v1/agent/{agentId}/feed: published posts, newest first (ties by id), filtered, then capped at 120."""

from __future__ import annotations

import pytest

from local.gateway.events import SAMPLE_AGENT_ID
from tests.support.brain import AGENT_NOT_FOUND, call, error_of, ok_json
from tests.support.lambdas import invoke, sample_event
from tests.support.seed import Seeder, stamp

FEED = "BrainFeedFunction"


def ids(result) -> list[str]:
    return [post["id"] for post in ok_json(result)]


def feed(**query: str):
    return call(FEED, query=query)


def test_sample_event_filters_by_instagram(tenant, seed: Seeder) -> None:
    seed.posts(SAMPLE_AGENT_ID, 4, channels=lambda n: [["instagram"], ["site"], ["site", "instagram"], []][n])
    assert ids(invoke(FEED, sample_event(FEED))) == ["post_00002", "post_00000"]


def test_at_most_120_newest_first(tenant, seed: Seeder) -> None:
    seed.posts(SAMPLE_AGENT_ID, 135)
    assert ids(feed()) == [f"post_{n:05d}" for n in range(134, 14, -1)]


def test_order_is_by_created_at_not_by_id_or_insertion(tenant, seed: Seeder) -> None:
    seed.posts(SAMPLE_AGENT_ID, 30, createdAt=lambda n: stamp((n * 7) % 30))
    posts = ok_json(feed())
    assert [p["createdAt"] for p in posts] == [stamp(n) for n in range(29, -1, -1)]
    # post n was stamped (7n mod 30), so the post stamped s is n = 13s mod 30 (13 is 7's inverse mod 30).
    assert [p["id"] for p in posts] == [f"post_{s * 13 % 30:05d}" for s in range(29, -1, -1)]
    assert [p["id"] for p in posts][:2] == ["post_00017", "post_00004"]


def test_ties_on_created_at_are_broken_by_id_descending(tenant, seed: Seeder) -> None:
    seed.posts(SAMPLE_AGENT_ID, 3, createdAt=stamp(5))
    seed.posts(SAMPLE_AGENT_ID, 1, id="post_later", createdAt=stamp(6))
    assert ids(feed()) == ["post_later", "post_00002", "post_00001", "post_00000"]


def test_drafts_are_excluded_before_the_cap(tenant, seed: Seeder) -> None:
    seed.posts(SAMPLE_AGENT_ID, 200, published=lambda n: n % 4 != 0)
    published = [f"post_{n:05d}" for n in range(199, -1, -1) if n % 4 != 0]
    assert ids(feed()) == published[:120]


def test_only_drafts_is_an_empty_feed(tenant, seed: Seeder) -> None:
    seed.posts(SAMPLE_AGENT_ID, 5, published=False)
    assert ok_json(feed()) == []


def test_no_posts_is_an_empty_array(tenant) -> None:
    assert ok_json(feed()) == []


def _filtered_agent(seed: Seeder) -> None:
    """200 posts; channel and category both vary with the index."""
    seed.posts(
        SAMPLE_AGENT_ID,
        200,
        channels=lambda n: ["instagram", "site"] if n % 4 == 0 else (["site"] if n % 2 else ["instagram"]),
        category=lambda n: "news" if n % 4 == 0 else ("promo" if n % 5 == 0 else None),
    )


def test_category_is_equality_and_applied_before_the_cap(tenant, seed: Seeder) -> None:
    _filtered_agent(seed)
    news = ids(feed(category="news"))
    assert news == [f"post_{n:05d}" for n in range(196, -1, -4)] and len(news) == 50
    assert ids(feed(category="new")) == []
    assert ids(feed(category="News")) == []


def test_channel_is_membership_and_applied_before_the_cap(tenant, seed: Seeder) -> None:
    _filtered_agent(seed)
    site = ids(feed(channel="site"))
    assert site == [f"post_{n:05d}" for n in range(199, -1, -1) if n % 4 == 0 or n % 2][:120]
    instagram = ids(feed(channel="instagram"))
    assert instagram == [f"post_{n:05d}" for n in range(198, -1, -2)] and len(instagram) == 100
    assert ids(feed(channel="insta")) == []  # an element of channels, not a substring of one
    assert ids(feed(channel="tiktok")) == []


def test_channel_and_category_together(tenant, seed: Seeder) -> None:
    _filtered_agent(seed)
    promo_on_site = ids(feed(channel="site", category="promo"))
    assert promo_on_site == [f"post_{n:05d}" for n in range(199, -1, -1) if n % 4 and n % 5 == 0 and n % 2]
    assert len(promo_on_site) == 20
    assert ids(feed(channel="instagram", category="news")) == [f"post_{n:05d}" for n in range(196, -1, -4)]


def test_posts_of_other_agents_never_appear(tenant, seed: Seeder) -> None:
    other = seed.agent(tenant.ws, slug="other")
    seed.posts(other.id, 3)
    seed.posts(SAMPLE_AGENT_ID, 1, id="mine")
    assert ids(feed()) == ["mine"]
    assert ids(call(FEED, agent_id=other.id, query={})) == ["post_00002", "post_00001", "post_00000"]


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"channel": ""}, "channel: must be 1-100 characters"),
        ({"channel": "x" * 101}, "channel: must be 1-100 characters"),
        ({"category": ""}, "category: must be 1-100 characters"),
        ({"category": "c" * 101}, "category: must be 1-100 characters"),
    ],
)
def test_empty_or_overlong_filter_is_a_validation_error(tenant, query: dict[str, str], message: str) -> None:
    assert error_of(feed(**query)) == (400, {"error": message, "code": "VALIDATION_ERROR"})


def test_filter_of_exactly_100_characters_is_accepted(tenant, seed: Seeder) -> None:
    seed.posts(SAMPLE_AGENT_ID, 1, channels=["c" * 100])
    assert ids(feed(channel="c" * 100)) == ["post_00000"]


def test_unknown_agent_and_other_workspaces_agent_are_404(tenant, rival, seed: Seeder) -> None:
    seed.posts(rival.agent.id, 2)
    assert error_of(call(FEED, agent_id="prj_unknown")) == (404, AGENT_NOT_FOUND)
    assert error_of(call(FEED, agent_id=rival.agent.id)) == (404, AGENT_NOT_FOUND)
    assert error_of(call(FEED, agent_id=rival.agent.id, query={})) == (404, AGENT_NOT_FOUND)
