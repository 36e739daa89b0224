"""The read plane against the writer: after a post write, the brain's feed and each of its filtered views show
exactly the agent's published posts, and the raw partitions hold exactly one row per post and copies exactly for
the published ones (authoring.md, "Posts").

``FeedCheck(studio, key).agent(agent_id)`` compares three things:

- the portal's list of the agent's posts (every page), the author's view;
- ``GET /v1/agent/{agentId}/feed`` unfiltered and with ``?channel=``, ``?category=`` and both, for every channel
  and category any post of the agent carries (drafts too, so a view that should be empty is asked for);
- the posts and filter-copy partitions, key by key (``core.platform.main_table``'s layout).

The feed's per-container cache is switched off by the fixture that builds a ``FeedCheck`` (``no_feed_cache``), so
each read sees the table as the write left it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from core.platform import main_table
from core.platform import providers as platform_providers
from core.posts import feed_cache
from tests.support import brain
from tests.support.authoring import Studio, agent_partitions

FEED_LIMIT = 120
AUTHOR_ONLY = ("status", "updatedAt")  # what a Post adds to a FeedPost


def no_feed_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every feed request reads the table (the cache would show a write up to FEED_CACHE_SECONDS late)."""
    monkeypatch.setattr(feed_cache, "FEED_CACHE_SECONDS", 0)
    platform_providers.reset()


def as_feed_post(post: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in post.items() if name not in AUTHOR_ONLY}


@dataclass
class FeedCheck:
    studio: Studio
    key: str  # a raw workspace key of the studio's workspace

    @classmethod
    def open(cls, studio: Studio) -> FeedCheck:
        return cls(studio, studio.portal.mint_key(studio.who, studio.workspace_id, name="feed-check")["key"])

    def feed(self, agent_id: str, **query: str) -> list[dict[str, Any]]:
        answer: list[dict[str, Any]] = brain.ok_json(
            brain.call("BrainFeedFunction", agent_id=agent_id, key=self.key, query=query)
        )
        return answer

    def agent(self, agent_id: str) -> list[dict[str, Any]]:
        """Assert the read plane shows exactly the agent's published posts; the published posts, newest first."""
        posts = self.studio.all_posts(agent_id)
        published = [as_feed_post(p) for p in posts if p["status"] == "published"]
        assert [p["id"] for p in self.studio.all_posts(agent_id, "published")] == [p["id"] for p in published]
        channels = sorted({c for p in posts for c in p["channels"]})
        categories = sorted({p["category"] for p in posts if p["category"] is not None})
        views: dict[tuple[str | None, str | None], list[dict[str, Any]]] = {(None, None): published}
        views |= {(c, None): [p for p in published if c in p["channels"]] for c in channels}
        views |= {(None, k): [p for p in published if p["category"] == k] for k in categories}
        views |= {(c, k): [p for p in published if c in p["channels"] and p["category"] == k]
                  for c in channels for k in categories}  # fmt: skip
        for (channel, category), expected in views.items():
            query = {"channel": channel} if channel else {}
            query |= {"category": category} if category else {}
            assert self.feed(agent_id, **query) == expected[:FEED_LIMIT], f"feed {query}"
        assert agent_partitions(self.studio.portal, agent_id) | {"items": []} == {
            "posts": sorted(row for p in posts for row in post_rows(agent_id, p)),
            "filters": sorted(copy for p in posts for copy in filter_copies(agent_id, p)),
            "items": [],
        }, "partitions"
        return published


def post_rows(agent_id: str, post: dict[str, Any]) -> list[str]:
    """The post's canonical item and its one row (in the feed's range when published)."""
    row = main_table.post(agent_id, post["createdAt"], post["id"], published=post["status"] == "published")
    return [main_table.post_by_id(agent_id, post["id"])["sk"], row["sk"]]


def filter_copies(agent_id: str, post: dict[str, Any]) -> list[str]:
    if post["status"] != "published":
        return []
    copies = main_table.feed_filter_copies(agent_id, post["createdAt"], post["id"], post["channels"], post["category"])
    return [copy["sk"] for copy in copies]
