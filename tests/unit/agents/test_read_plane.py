"""core.agents.service: FeedPost derivation and ReadPlaneService over an in-memory repository."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.agents.records import AgentRecord
from core.agents.service import FEED_LIMIT, ReadPlaneService
from core.brands.records import BrandRecord
from core.items.records import ItemRecord
from core.platform.errors import NotFound, ValidationFailed
from core.posts.feed import to_feed_post
from core.posts.models import FeedPost
from core.posts.records import PostRecord
from core.workflows.records import WorkflowRecord
from core.workspaces.records import WorkspaceRecord

WS, OTHER_WS, AGENT = "ws_1", "ws_2", "prj_1"
FEED_POST_FIELDS = {
    "id", "key", "kind", "mediaType", "title", "sub", "caption", "hashtags", "channels", "category",
    "width", "height", "createdAt", "pages", "poster", "playable", "isVideo",
}  # fmt: skip
PAGE_FIELDS = {"key", "mediaType", "width", "height", "order"}
STAMP = "2026-01-01T00:00:00.000Z"


def post(**fields: Any) -> PostRecord:
    return PostRecord.model_validate({"id": "p1", "agentId": AGENT, "key": "m/1.jpg", "kind": "image"} | {
        "createdAt": STAMP} | fields)  # fmt: skip


def page(key: str, media_type: str | None, order: int | None) -> dict[str, Any]:
    return {"key": key, "mediaType": media_type, "width": None, "height": None, "order": order}


class FakeAgents:
    """The ``ports.Agents`` methods (PublishedAgentStore's), over dicts; records every list_feed call."""

    def __init__(self) -> None:
        self.agents: dict[tuple[str, str], AgentRecord] = {}
        self.brands: dict[tuple[str, str], BrandRecord] = {}
        self.workflows: dict[tuple[str, str], WorkflowRecord] = {}
        self.posts: list[PostRecord] = []
        self.items: list[ItemRecord] = []
        self.feed_calls: list[dict[str, Any]] = []
        self.workspaces: dict[str, WorkspaceRecord] = {}

    def get_agent(self, workspace_id: str, agent_id: str) -> AgentRecord | None:
        return self.agents.get((workspace_id, agent_id))

    def get_agent_with_workspace(
        self, workspace_id: str, agent_id: str
    ) -> tuple[AgentRecord | None, WorkspaceRecord | None]:
        return self.get_agent(workspace_id, agent_id), self.workspaces.get(workspace_id)

    def list_brands(self, workspace_id: str) -> list[BrandRecord]:
        return [brand for (ws, _), brand in self.brands.items() if ws == workspace_id]

    def get_workflow(self, workspace_id: str, workflow_id: str) -> WorkflowRecord | None:
        return self.workflows.get((workspace_id, workflow_id))

    def list_feed(self, agent_id: str, *, channel: str | None, category: str | None, limit: int) -> list[PostRecord]:
        self.feed_calls.append({"agent_id": agent_id, "channel": channel, "category": category, "limit": limit})
        return self.posts[:limit]

    def list_active_items(self, agent_id: str) -> list[ItemRecord]:
        return list(self.items)


@pytest.fixture
def repo() -> FakeAgents:
    fake = FakeAgents()
    fake.agents[(WS, AGENT)] = AgentRecord(
        id=AGENT, workspace_id=WS, slug="helper", name="Helper", brand_id="brd_1", active_workflow_id="wf_1",
        wrap_json='{"layout": "feed", "greeting": 5}', site_json=None, created_at=STAMP, updated_at=STAMP,
    )  # fmt: skip
    fake.brands[(WS, "brd_1")] = BrandRecord(
        id="brd_1", workspace_id=WS, slug="acme", name="Acme", created_at=STAMP, updated_at=STAMP
    )
    fake.workflows[(WS, "wf_1")] = WorkflowRecord(
        id="wf_1", workspace_id=WS, name="W", suggestions_json='["Hi"]', created_at=STAMP, updated_at=STAMP
    )
    return fake


@pytest.fixture
def service(repo: FakeAgents) -> ReadPlaneService:
    return ReadPlaneService(repo)


# --- to_feed_post


@pytest.mark.parametrize(
    ("kind", "pages", "media_type"),
    [
        ("image", [], "image"),
        ("video", [], "video"),
        ("reel", [], "video"),
        ("text", [], None),
        ("text", [page("a", "image", 0)], None),
        ("image", [page("a", "video", 0)], "image"),
        ("carousel", [page("a", "image", 0), page("b", "video", 1)], "image"),
        ("carousel", [page("b", "video", 1), page("a", "image", 0)], "image"),
        ("story", [page("a", "video", 0), page("b", "image", 1)], "video"),
        ("story", [page("x", None, 2), page("a", "video", None)], None),
        ("carousel", [page("late", "image", None), page("first", "video", 5)], "video"),
        ("carousel", [], None),
        ("story", [], None),
    ],
)
def test_media_type_and_is_video(kind: str, pages: list[dict[str, Any]], media_type: str | None) -> None:
    feed_post = to_feed_post(post(kind=kind, pages=pages))
    assert feed_post.media_type == media_type
    assert feed_post.is_video is (media_type == "video")


def test_pages_are_ordered_by_order_with_unordered_last() -> None:
    pages = [page("c", "image", None), page("b", "image", 2), page("a", "video", 0)]
    assert [p.key for p in to_feed_post(post(kind="carousel", pages=pages)).pages] == ["a", "b", "c"]


def test_minimal_post_serialises_every_field_with_nulls_and_defaults() -> None:
    body = json.loads(json.dumps(to_feed_post(post(kind="text")).wire()))
    assert set(body) == FEED_POST_FIELDS
    assert body == {
        "id": "p1", "key": "m/1.jpg", "kind": "text", "mediaType": None, "title": None, "sub": None,
        "caption": None, "hashtags": [], "channels": [], "category": None, "width": None, "height": None,
        "createdAt": STAMP, "pages": [], "poster": "", "playable": "", "isVideo": False,
    }  # fmt: skip


def test_full_post_serialises_values_and_pages() -> None:
    record = post(
        kind="video", title="T", sub="S", caption="C", hashtags=["#a"], channels=["site"], category="news",
        width=1080, height=1920, poster="p.jpg", playable="v.mp4", pages=[page("k", "video", 0)],
    )  # fmt: skip
    body = to_feed_post(record).wire()
    assert set(body) == FEED_POST_FIELDS
    assert (body["mediaType"], body["isVideo"], body["poster"], body["playable"]) == ("video", True, "p.jpg", "v.mp4")
    assert (body["width"], body["height"], body["category"]) == (1080, 1920, "news")
    assert body["pages"] == [page("k", "video", 0)]
    assert set(body["pages"][0]) == PAGE_FIELDS
    assert "published" not in body and "agentId" not in body
    assert FeedPost.model_validate(body) == to_feed_post(record)


# --- ReadPlaneService


def test_unknown_agent_and_other_workspace_are_the_same_not_found(service: ReadPlaneService) -> None:
    for workspace_id, agent_id in [(WS, "prj_unknown"), (OTHER_WS, AGENT)]:
        for call in (service.metadata, service.items, service.wrap, service.site, service.suggestions):
            with pytest.raises(NotFound) as caught:
                call(workspace_id, agent_id)
            assert caught.value.body() == {"error": "Agent not found", "code": "NOT_FOUND"}


def test_metadata(service: ReadPlaneService, repo: FakeAgents) -> None:
    assert service.metadata(WS, AGENT).wire() == {
        "id": AGENT, "slug": "helper", "name": "Helper",
        "brand": {"id": "brd_1", "slug": "acme", "name": "Acme"}, "activeWorkflowId": "wf_1",
    }  # fmt: skip
    repo.brands.clear()
    assert service.metadata(WS, AGENT).wire()["brand"] == {"id": "brd_1", "slug": "", "name": ""}


def test_feed_passes_filters_and_limit_and_maps_posts(service: ReadPlaneService, repo: FakeAgents) -> None:
    repo.posts = [post(id=f"p{n}", kind="reel") for n in range(FEED_LIMIT + 5)]
    result = service.feed(WS, AGENT, channel="instagram", category="news")
    assert repo.feed_calls == [{"agent_id": AGENT, "channel": "instagram", "category": "news", "limit": 120}]
    assert len(result) == 120
    assert [p.id for p in result[:2]] == ["p0", "p1"]
    assert all(isinstance(p, FeedPost) and p.is_video for p in result)


def test_feed_without_filters(service: ReadPlaneService, repo: FakeAgents) -> None:
    assert service.feed(WS, AGENT, channel=None, category=None) == []
    assert repo.feed_calls[0] == {"agent_id": AGENT, "channel": None, "category": None, "limit": 120}


@pytest.mark.parametrize(("name", "value"), [("channel", ""), ("category", ""), ("channel", "x" * 101)])
def test_feed_rejects_empty_or_long_filters(service: ReadPlaneService, repo: FakeAgents, name: str, value: str) -> None:
    filters = {"channel": None, "category": None, name: value}
    with pytest.raises(ValidationFailed) as caught:
        service.feed(WS, AGENT, **filters)
    assert caught.value.message.startswith(f"{name}:")
    assert repo.feed_calls == []


def test_feed_accepts_100_char_filter(service: ReadPlaneService) -> None:
    assert service.feed(WS, AGENT, channel="x" * 100, category=None) == []


def test_feed_of_unknown_agent_is_not_found(service: ReadPlaneService) -> None:
    with pytest.raises(NotFound):
        service.feed(OTHER_WS, AGENT, channel=None, category=None)


def test_items_are_ordered_by_folder_order_id(service: ReadPlaneService, repo: FakeAgents) -> None:
    def item(item_id: str, folder: str, order: int) -> ItemRecord:
        return ItemRecord(
            id=item_id, agent_id=AGENT, name=item_id, kind="document", r2_key=f"assets/{item_id}",
            mime_type="application/pdf", size=1, folder=folder, order=order, updated_at=STAMP,
        )  # fmt: skip

    repo.items = [item("i5", "b", 0), item("i4", "a", 2), item("i3", "a", 1), item("i2", "", 9), item("i1", "a", 1)]
    result = service.items(WS, AGENT)
    assert [i.id for i in result] == ["i2", "i1", "i3", "i4", "i5"]
    assert result[0].wire() == {
        "id": "i2", "name": "i2", "kind": "document", "r2Key": "assets/i2", "mimeType": "application/pdf",
        "size": 1, "folder": "", "order": 9, "updatedAt": STAMP, "origin": "upload",
    }  # fmt: skip


def test_wrap_site_suggestions_are_parsed(service: ReadPlaneService, repo: FakeAgents) -> None:
    assert service.wrap(WS, AGENT).wire() == {"layout": "feed", "greeting": "", "theme": {}}
    assert service.site(WS, AGENT).wire() == {"pages": [], "nav": [], "sections": []}
    assert service.suggestions(WS, AGENT).wire() == {"suggestions": ["Hi"]}
    repo.workflows.clear()
    assert service.suggestions(WS, AGENT).wire() == {"suggestions": []}
