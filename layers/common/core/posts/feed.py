"""A post as the read plane's feed shows it (``GET /v1/agent/{agentId}/feed``); the writer's ``Post`` builds on it."""

from __future__ import annotations

from core.platform.kinds import MediaType
from core.posts.models import FeedPage, FeedPost
from core.posts.records import PostRecord


def _media_type(post: PostRecord, pages: list[FeedPage]) -> MediaType | None:
    """The legacy discriminator, derived from ``kind`` as decisions.md specifies."""
    if post.kind == "image":
        return "image"
    if post.kind in ("video", "reel"):
        return "video"
    if post.kind in ("carousel", "story"):
        return pages[0].media_type if pages else None
    return None


def to_feed_post(post: PostRecord) -> FeedPost:
    pages = sorted(post.pages, key=lambda p: (p.order is None, p.order or 0))
    media_type = _media_type(post, pages)
    return FeedPost.from_record(post, pages=pages, media_type=media_type, is_video=media_type == "video")
