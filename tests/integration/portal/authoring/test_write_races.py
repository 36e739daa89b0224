"""An edit racing the deletion of what it edits: the deletion lands between the edit's read and its write (made
there deterministically, by wrapping the store's write), and the edit must then find nothing (404), never write
the item again: no resurrected post or item (in the feed, off its agent's count), no partial brand, workflow,
agent or workspace item that no list can read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from core.agents.write_store import AgentStore
from core.brands.write_store import BrandStore
from core.items.write_store import ItemStore
from core.posts.write_store import PostStore
from core.workflows.write_store import WorkflowStore
from core.workspaces.write_store import WorkspaceSettingsStore
from tests.support.authoring import Studio, agent_partitions
from tests.support.feed_check import FeedCheck, no_feed_cache
from tests.support.portal import Portal, assert_error


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal)


def deleted_first(monkeypatch: pytest.MonkeyPatch, store: type, method: str, delete: Callable[[], Any]) -> list[Any]:
    """``store.method`` runs ``delete()`` once before it writes; the list records that it did."""
    real, done = getattr(store, method), list[Any]()

    def racing(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not done:
            done.append(delete())
        return real(self, *args, **kwargs)

    monkeypatch.setattr(store, method, racing)
    return done


def deletion(studio: Studio, function: str, ids: dict[str, Any]) -> Callable[[], Any]:
    return lambda: studio.ok(function, **ids)


def test_a_post_edit_racing_its_deletion(studio: Studio, monkeypatch: pytest.MonkeyPatch) -> None:
    no_feed_cache(monkeypatch)
    feed = FeedCheck.open(studio)
    agent = studio.agent("Helper")
    studio.media(agent["id"], "media/a.jpg")
    for function in ("PortalPostPublishFunction", "PortalPostUpdateFunction"):
        post = studio.post(agent["id"], channels=["site"], category="news")
        ids = {"agent_id": agent["id"], "post_id": post["id"]}
        done = deleted_first(monkeypatch, PostStore, "replace", deletion(studio, "PortalPostDeleteFunction", ids))
        body = {"body": {"title": "Edited"}} if function == "PortalPostUpdateFunction" else {}
        assert_error(studio.call(function, **ids, **body), 404, "NOT_FOUND")
        assert done  # (the next pass wraps this wrapper, which has done its deletion)
        assert feed.agent(agent["id"]) == [] and agent_partitions(studio.portal, agent["id"])["posts"] == []
        assert studio.ok("PortalAgentGetFunction", agent_id=agent["id"])["agent"]["postCount"] == 0


def test_an_item_edit_racing_its_deletion(studio: Studio, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = studio.agent("Helper")
    item = studio.item(agent["id"])
    ids = {"agent_id": agent["id"], "item_id": item["id"]}
    deleted_first(monkeypatch, ItemStore, "replace", lambda: studio.ok("PortalItemDeleteFunction", **ids))
    assert_error(studio.call("PortalItemUpdateFunction", **ids, body={"name": "Edited"}), 404, "NOT_FOUND")
    assert studio.ok("PortalItemsListFunction", agent_id=agent["id"])["items"] == []
    assert studio.ok("PortalAgentGetFunction", agent_id=agent["id"])["agent"]["itemCount"] == 0


def test_a_brand_edit_racing_its_deletion(studio: Studio, monkeypatch: pytest.MonkeyPatch) -> None:
    brand = studio.brand("Doomed")
    deleted_first(monkeypatch, BrandStore, "update",
                  lambda: studio.ok("PortalBrandDeleteFunction", brand_id=brand["id"]))  # fmt: skip
    assert_error(studio.call("PortalBrandUpdateFunction", brand_id=brand["id"], body={"name": "Edited"}), 404,
                 "NOT_FOUND")  # fmt: skip
    assert [b["id"] for b in studio.brands()] == [studio.workspace()["defaultBrandId"]]


def test_a_workflow_edit_racing_its_deletion(studio: Studio, monkeypatch: pytest.MonkeyPatch) -> None:
    flow = studio.workflow("Doomed")
    deleted_first(monkeypatch, WorkflowStore, "update",
                  lambda: studio.ok("PortalWorkflowDeleteFunction", workflow_id=flow["id"]))  # fmt: skip
    refused = studio.call("PortalWorkflowUpdateFunction", workflow_id=flow["id"], body={"name": "Edited"})
    assert_error(refused, 404, "NOT_FOUND")
    assert studio.ok("PortalWorkflowsListFunction")["workflows"] == []


def test_an_agent_edit_racing_its_deletion(studio: Studio, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = studio.agent("Doomed")
    deleted_first(monkeypatch, AgentStore, "update",
                  lambda: studio.ok("PortalAgentDeleteFunction", agent_id=agent["id"]))  # fmt: skip
    assert_error(studio.call("PortalAgentUpdateFunction", agent_id=agent["id"], body={"name": "Edited"}), 404,
                 "NOT_FOUND")  # fmt: skip
    assert studio.ok("PortalAgentsListFunction")["agents"] == []
    assert studio.partition(f"WS#{studio.workspace_id}").count(f"AGENT#{agent['id']}") == 0


def test_a_settings_edit_racing_the_workspaces_deletion(studio: Studio, monkeypatch: pytest.MonkeyPatch) -> None:
    deleted_first(monkeypatch, WorkspaceSettingsStore, "update",
                  lambda: studio.ok("PortalWorkspaceDeleteFunction"))  # fmt: skip
    assert_error(studio.call("PortalWorkspaceUpdateFunction", body={"name": "Edited"}), 404, "NOT_FOUND")
    studio.purge()
    assert studio.partition(f"WS#{studio.workspace_id}") == []


# --- a deletion racing an edit: it must not undo what it did not read (counters, slug claims)


def test_an_agent_deletion_racing_its_edit(studio: Studio, monkeypatch: pytest.MonkeyPatch) -> None:
    """The deletion read the agent before an edit moved its brand, workflow and slug: what it frees must be what the
    agent names when it is deleted, or the new brand and workflow stay "in use" and the new slug taken forever."""
    agent = studio.agent("Doomed")
    brand, flow = studio.brand("Moved to"), studio.workflow("Moved to")
    moved = {"brandId": brand["id"], "activeWorkflowId": flow["id"], "slug": "moved"}
    deleted_first(monkeypatch, AgentStore, "delete",
                  lambda: studio.ok("PortalAgentUpdateFunction", agent_id=agent["id"], body=moved))  # fmt: skip
    assert studio.ok("PortalAgentDeleteFunction", agent_id=agent["id"]) == {"deleted": True}
    assert studio.ok("PortalAgentsListFunction")["agents"] == []
    assert studio.ok("PortalBrandDeleteFunction", brand_id=brand["id"]) == {}
    for workflow_id in (flow["id"], agent["activeWorkflowId"]):
        assert studio.ok("PortalWorkflowDeleteFunction", workflow_id=workflow_id) == {}
    assert studio.agent("Again", slug="moved")["slug"] == "moved"
    assert studio.agent("Doomed")["slug"] == "doomed"


def test_a_brand_deletion_racing_its_edit(studio: Studio, monkeypatch: pytest.MonkeyPatch) -> None:
    brand = studio.brand("Doomed")
    moved = {"slug": "moved"}
    deleted_first(monkeypatch, BrandStore, "delete",
                  lambda: studio.ok("PortalBrandUpdateFunction", brand_id=brand["id"], body=moved))  # fmt: skip
    assert studio.ok("PortalBrandDeleteFunction", brand_id=brand["id"]) == {}
    assert [b["id"] for b in studio.brands()] == [studio.workspace()["defaultBrandId"]]
    assert studio.brand("Again", slug="moved")["slug"] == "moved"
    assert studio.brand("Doomed")["slug"] == "doomed"
