"""The FeedPost wire shape: every field present (null, not omitted), camelCase, and kind → mediaType/isVideo."""

from __future__ import annotations

from typing import Any

import pytest

from core.platform import main_table
from core.platform.dynamo import to_item
from core.platform.settings import get_settings
from local.gateway.events import SAMPLE_AGENT_ID
from tests.support.brain import RFC3339_MS, call, ok_json
from tests.support.seed import Seeder, stamp

FEED = "BrainFeedFunction"
POST_FIELDS: dict[str, type | tuple[type, ...]] = {
    "id": str,
    "key": str,
    "kind": str,
    "mediaType": (str, type(None)),
    "title": (str, type(None)),
    "sub": (str, type(None)),
    "caption": (str, type(None)),
    "hashtags": list,
    "channels": list,
    "category": (str, type(None)),
    "width": (int, type(None)),
    "height": (int, type(None)),
    "createdAt": str,
    "pages": list,
    "poster": str,
    "playable": str,
    "isVideo": bool,
}
PAGE_FIELDS = {"key", "mediaType", "width", "height", "order"}


def only_post(seed: Seeder, **fields: Any) -> dict[str, Any]:
    seed.posts(SAMPLE_AGENT_ID, 1, **fields)
    (post,) = ok_json(call(FEED, query={}))
    return post


def test_minimal_post_has_every_field_with_nulls_and_empty_strings(tenant, seed: Seeder) -> None:
    post = only_post(seed, channels=[])
    assert post == {
        "id": "post_00000",
        "key": "media/0.jpg",
        "kind": "image",
        "mediaType": "image",
        "title": None,
        "sub": None,
        "caption": None,
        "hashtags": [],
        "channels": [],
        "category": None,
        "width": None,
        "height": None,
        "createdAt": stamp(0),
        "pages": [],
        "poster": "",
        "playable": "",
        "isVideo": False,
    }
    assert list(post) == list(POST_FIELDS)


def test_full_video_post(tenant, seed: Seeder) -> None:
    post = only_post(
        seed,
        kind="video",
        key="media/clip.jpg",
        title="Launch",
        sub="Day one",
        caption="We are live",
        hashtags=["launch", "live"],
        channels=["instagram", "site"],
        category="news",
        width=1080,
        height=1920,
        poster="media/clip.poster.jpg",
        playable="media/clip.mp4",
    )
    assert post == {
        "id": "post_00000",
        "key": "media/clip.jpg",
        "kind": "video",
        "mediaType": "video",
        "title": "Launch",
        "sub": "Day one",
        "caption": "We are live",
        "hashtags": ["launch", "live"],
        "channels": ["instagram", "site"],
        "category": "news",
        "width": 1080,
        "height": 1920,
        "createdAt": stamp(0),
        "pages": [],
        "poster": "media/clip.poster.jpg",
        "playable": "media/clip.mp4",
        "isVideo": True,
    }


def _pages(*media: str | None) -> list[dict[str, Any]]:
    """Pages stored in reverse order, so the response must sort them by ``order``."""
    return [
        {"key": f"media/p{i}.jpg", "mediaType": m, "width": 100 + i, "height": 200, "order": i}
        for i, m in reversed(list(enumerate(media)))
    ]


@pytest.mark.parametrize(
    ("kind", "pages", "expected"),
    [
        ("image", [], ("image", False)),
        ("video", [], ("video", True)),
        ("reel", [], ("video", True)),
        ("text", [], (None, False)),
        ("carousel", _pages("image", "video"), ("image", False)),
        ("carousel", _pages("video", "image"), ("video", True)),
        ("story", _pages("video", "image", "image"), ("video", True)),
        ("story", _pages("image"), ("image", False)),
        ("carousel", [], (None, False)),
    ],
)
def test_media_type_and_is_video_derive_from_kind(
    tenant, seed: Seeder, kind: str, pages: list[dict[str, Any]], expected: tuple[str | None, bool]
) -> None:
    post = only_post(seed, kind=kind, pages=pages)
    assert (post["kind"], post["mediaType"], post["isVideo"]) == (kind, *expected)
    assert post["pages"] == sorted(pages, key=lambda p: p["order"])


def test_pages_have_all_five_fields_and_unordered_pages_come_last(tenant, seed: Seeder) -> None:
    pages = [
        {"key": "media/b.jpg", "mediaType": None, "width": None, "height": None, "order": None},
        {"key": "media/a.mp4", "mediaType": "video", "width": 720, "height": 1280, "order": 0},
    ]
    post = only_post(seed, kind="story", pages=pages)
    assert post["pages"] == [pages[1], pages[0]]
    assert all(set(page) == PAGE_FIELDS for page in post["pages"])
    assert (post["mediaType"], post["isVideo"]) == ("video", True)


def test_every_field_of_a_mixed_feed_has_its_type(tenant, seed: Seeder) -> None:
    kinds = ["image", "video", "carousel", "story", "reel", "text"]
    seed.posts(
        SAMPLE_AGENT_ID,
        12,
        kind=lambda n: kinds[n % 6],
        pages=lambda n: _pages("image", "video") if kinds[n % 6] in ("carousel", "story") else [],
        poster=lambda n: f"media/{n}.poster.jpg" if kinds[n % 6] in ("video", "reel") else "",
        playable=lambda n: f"media/{n}.mp4" if kinds[n % 6] in ("video", "reel") else "",
        width=lambda n: None if n % 3 else 640,
    )
    posts = ok_json(call(FEED, query={}))
    assert len(posts) == 12
    for post in posts:
        assert list(post) == list(POST_FIELDS)
        for name, kind in POST_FIELDS.items():
            assert isinstance(post[name], kind), (name, post)
        assert post["kind"] in kinds and RFC3339_MS.match(post["createdAt"])
        assert all(isinstance(tag, str) for tag in post["hashtags"] + post["channels"])
        video = post["kind"] in ("video", "reel")
        assert (post["poster"] != "", post["playable"] != "") == (video, video)


def test_an_unreadable_stored_post_is_not_the_clients_fault(tenant, seed: Seeder, aws) -> None:
    seed.posts(SAMPLE_AGENT_ID, 1)
    row = main_table.post(SAMPLE_AGENT_ID, stamp(9), "post_bad") | {
        "id": "post_bad",
        "agentId": SAMPLE_AGENT_ID,
        "key": "media/bad.gif",
        "kind": "gif",
        "createdAt": stamp(9),
        "published": True,
    }
    aws.dynamodb.put_item(TableName=get_settings().main_table, Item=to_item(row))
    result = call(FEED, query={})
    assert (result.status, result.json()) == (500, {"error": "Internal error", "code": "INTERNAL_ERROR"})
