"""Planning (``workspace_client.bundle.plan.plan_against``): a bundle compared with an agent's state as the service
would hold it, and how the work then runs. Pure: the state is built here, in the service's wire form; the
runner-based tests check the same against the real service (tests/client/test_bundle_publish.py)."""

from __future__ import annotations

import hashlib
import threading
import time
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from workspace_client._generated.models_portal import (
    Agent,
    AgentItem,
    AgentUpdate,
    Behaviour,
    Brand,
    Post,
    StoredObject,
)
from workspace_client.bundle import BundleError, load_bundle
from workspace_client.bundle.changes import NEW_BRAND, CreateAgent, CreateBrand, UpdateAgent, UpdateBrand, human_size
from workspace_client.bundle.files import BundleFile
from workspace_client.bundle.format import Bundle, ItemSpec
from workspace_client.bundle.parallel import run_all, workers_for
from workspace_client.bundle.plan import idempotency_key, plan_against
from workspace_client.bundle.publish import carry_out
from workspace_client.bundle.state import AgentState

from tests.support.bundles import FILES, POSTS, write_bundle

WS, AGENT, NOW = "ws_1", "prj_1", "2026-02-01T00:00:00.000Z"
BRANDS = [Brand(id="brd_1", slug="shop", name="Shop", is_default=True, palette=[], font_family="", created_at=NOW,
                updated_at=NOW),
          Brand(id="brd_2", slug="events", name="Events", is_default=False, palette=[], font_family="",
                created_at=NOW, updated_at=NOW)]  # fmt: skip


# The service's defaults (core/agents/records.py DEFAULT_BEHAVIOUR), in the wire's form.
DEFAULT_BEHAVIOUR = {"instructions": "", "model": None, "temperature": 0.3, "maxReplyTokens": 512,
                     "knowledgeOnly": True, "fallback": ""}  # fmt: skip


def held(bundle: Bundle, **behaviour: Any) -> AgentState:
    """What the service holds once ``bundle`` is published (wire form: the service's normal form and defaults);
    ``behaviour``: the agent's behaviour fields (snake_case) beside the bundle's and the defaults."""
    given = bundle.agent.behaviour.given() if bundle.agent.behaviour else {}
    agent = Agent(
        id=AGENT, slug=bundle.agent.slug, name=bundle.agent.name, brand_id="brd_1", active_workflow_id="wf_1",
        post_count=len(bundle.posts), item_count=len(bundle.items), created_at=NOW, updated_at=NOW,
        behaviour=Behaviour.model_validate(DEFAULT_BEHAVIOUR | given | behaviour),
    )  # fmt: skip
    generated = {"mediaType": None, "isVideo": False, "updatedAt": NOW}
    posts = [
        Post.model_validate({"id": f"post_{n}"} | generated | spec.model_dump(by_alias=True))
        for n, spec in enumerate(bundle.posts)
    ]
    objects = {path: stored(f"projects/{AGENT}/{path}", data, bundle.files[path].content_type)
               for path, data in FILES.items()}  # fmt: skip
    items = [item(n, spec, bundle.files[spec.file]) for n, spec in enumerate(bundle.items)]
    return AgentState(agent, BRANDS, bundle.wrap, bundle.site, bundle.suggestions, objects, posts, items)


# How the service read an item's document (authoring.md, "Knowledge"): no part of a plan, on every item it lists.
INDEXED = {"status": "indexed", "passages": 1, "error": None, "updatedAt": NOW, "etag": None}


def item(n: int, spec: ItemSpec, file: BundleFile) -> AgentItem:
    return AgentItem(
        id=f"item_{n}", name=spec.name, kind=spec.kind, r2_key=f"projects/{AGENT}/{spec.file}",
        mime_type=file.content_type.split(";")[0], size=file.size, folder=spec.folder, order=spec.order,
        updated_at=NOW, origin=spec.origin, active=spec.active, index=INDEXED,
    )  # fmt: skip


def stored(path: str, data: bytes, content_type: str) -> StoredObject:
    etag = f'"{hashlib.md5(data, usedforsecurity=False).hexdigest()}"'  # S3's ETag of a one-part upload
    return StoredObject(path=path, size=len(data), content_type=content_type, etag=etag, updated_at=NOW)


@pytest.fixture
def bundle(tmp_path: Path) -> Bundle:
    return load_bundle(write_bundle(tmp_path / "bundle"))


def lines(bundle: Bundle, state: AgentState) -> list[str]:
    return [str(change) for change in plan_against(state, WS, bundle).changes]


def test_a_new_agent_gets_everything_in_order(bundle: Bundle) -> None:
    plan = plan_against(AgentState(None, BRANDS), WS, bundle)
    assert [str(change) for change in plan.changes] == [
        "create agent test-barista (Test Barista)", "put wrap", "put site", "put suggestions",
        *[f"upload {path} ({human_size(len(FILES[path]))})" for path in sorted(FILES)],
        "create post 2026-01-02T03:04:05.000Z", "create post 2026-01-03T09:00:00.000Z",
        "create post 2026-01-04T12:30:00.500Z", "create post 2026-01-05T08:00:00.000Z",
        "create post 2026-01-06T08:00:00.000Z (draft)",
        "create item docs/menu.pdf", "create item media/a.jpg", "create item notes/faq.md",
    ]  # fmt: skip
    assert (plan.uploads, plan.upload_bytes, plan.writes) == (7, sum(map(len, FILES.values())), 12)
    assert plan.summary() == "agent test-barista: 7 uploads (425.0 kB), 12 writes"


def test_what_the_service_holds_already_is_an_empty_plan(bundle: Bundle) -> None:
    plan = plan_against(held(bundle), WS, bundle)
    assert plan.empty and (plan.uploads, plan.upload_bytes, plan.writes) == (0, 0, 0)
    assert plan.summary() == "agent test-barista: up to date, nothing to do"


def test_each_difference_is_one_change(bundle: Bundle) -> None:
    state = held(bundle)
    state.agent = state.agent.model_copy(update={"name": "Old name", "brand_id": "brd_2"})  # type: ignore[union-attr]
    state.wrap = {"layout": "grid"}
    state.objects["media/b.jpg"] = state.objects["media/b.jpg"].model_copy(update={"etag": '"' + "0" * 32 + '"'})
    state.objects["notes/faq.md"] = state.objects["notes/faq.md"].model_copy(update={"content_type": "text/plain"})
    del state.objects["media/c.png"]
    state.posts[0] = state.posts[0].model_copy(update={"caption": "Old", "channels": ["site"]})
    state.posts[1] = state.posts[1].model_copy(update={"status": "draft"})
    state.posts[4] = state.posts[4].model_copy(update={"status": "published"})
    state.items[1] = state.items[1].model_copy(update={"order": 5, "active": False})
    assert lines(bundle, state) == [
        "update agent test-barista: name, brandId", "put wrap",
        "upload media/b.jpg (30.0 kB)", "upload media/c.png (20.0 kB)", "upload notes/faq.md (36 B)",
        "update post 2026-01-02T03:04:05.000Z: caption, channels", "publish post 2026-01-03T09:00:00.000Z",
        "unpublish post 2026-01-06T08:00:00.000Z", "update item media/a.jpg: order, active",
    ]  # fmt: skip


def test_what_the_bundle_lacks_is_unpublished_or_deactivated_never_deleted(bundle: Bundle) -> None:
    state = held(bundle)
    extra = state.posts[0].model_copy(update={"id": "post_x", "created_at": "2025-12-01T00:00:00.000Z"})
    hidden = state.posts[0].model_copy(update={"id": "post_y", "created_at": "2025-12-02T00:00:00.000Z",
                                               "status": "draft"})  # fmt: skip
    twin = state.posts[1].model_copy(update={"id": "post_twin", "title": "A copy with the same createdAt"})
    gone = state.items[0].model_copy(update={"id": "item_x", "r2_key": f"projects/{AGENT}/old/x.pdf"})
    state.posts = [twin, *state.posts, extra, hidden]  # the equal one matches, whatever the listing's order
    state.items.append(gone)
    state.objects["old/x.pdf"] = state.objects["docs/menu.pdf"]
    assert lines(bundle, state) == [
        "unpublish post 2026-01-03T09:00:00.000Z",
        "unpublish post 2025-12-01T00:00:00.000Z",
        "deactivate item old/x.pdf",
    ]


def test_a_cleared_field_is_an_update_and_a_resized_file_replaces_its_item(bundle: Bundle) -> None:
    state = held(bundle)
    state.posts[3] = state.posts[3].model_copy(update={"category": "hours", "sub": "old"})
    state.items[0] = state.items[0].model_copy(update={"size": 1})
    plan = plan_against(state, WS, bundle)
    assert [str(change) for change in plan.changes] == [
        "update post 2026-01-05T08:00:00.000Z: sub (cleared), category (cleared)",
        "replace item docs/menu.pdf (its file changed size or type)",
    ]
    assert plan.writes == 3


def test_documents_compare_as_json_nulls_included(tmp_path: Path) -> None:
    bundle = load_bundle(write_bundle(tmp_path / "b", wrap_json={"layout": "feed", "footer": None, "n": 1}))
    state = held(bundle)
    assert lines(bundle, state) == []
    state.wrap = {"layout": "feed", "n": 1}  # a member of null is a member
    assert lines(bundle, state) == ["put wrap"]
    state.wrap = {"layout": "feed", "footer": None, "n": 1.0}  # 1 and 1.0 are different JSON
    assert lines(bundle, state) == ["put wrap"]


def test_an_unknown_brand_is_refused_by_name(tmp_path: Path) -> None:
    bundle = load_bundle(write_bundle(tmp_path / "b", agent_json={"slug": "x", "name": "X", "brand": "nope"}))
    with pytest.raises(BundleError, match=r"^agent\.json: brand: no brand nope in workspace ws_1 \(it has shop, "):
        plan_against(AgentState(None, BRANDS), WS, bundle)


def test_idempotency_keys_are_the_same_on_every_run_and_differ_by_workspace_and_content() -> None:
    content: dict[str, Any] = {"createdAt": POSTS[0]["createdAt"], "title": "A"}
    key = idempotency_key(WS, "barista", "post", content)
    assert key == idempotency_key(WS, "barista", "post", dict(reversed(content.items())))
    assert key.startswith("bundle-post-") and len(key) <= 255
    assert len({key, idempotency_key("ws_2", "barista", "post", content),
                idempotency_key(WS, "other", "post", content),
                idempotency_key(WS, "barista", "post", content | {"title": "B"})}) == 4  # fmt: skip


def test_sizes_print_in_decimal_units() -> None:
    assert [human_size(n) for n in (0, 999, 1000, 1_234_567, 5 * 10**9)] == [
        "0 B",
        "999 B",
        "1.0 kB",
        "1.2 MB",
        "5.0 GB",
    ]


def test_work_runs_a_few_at_a_time_and_stops_at_the_first_failure() -> None:
    assert [workers_for(n) for n in (0, 1, 8, 9, 17, 25, 500)] == [1, 1, 1, 2, 3, 4, 4]
    started: list[int] = []
    lock = threading.Lock()

    def task(n: int) -> None:
        with lock:
            started.append(n)
        time.sleep(0.01)
        if n == 3:
            raise RuntimeError("refused")

    with pytest.raises(RuntimeError, match="refused"):
        run_all([partial(task, n) for n in range(100)], workers=4)
    assert 3 in started and len(started) < 12  # those under way finished; the rest never started


def test_posts_alike_but_for_their_date_are_created_with_keys_of_their_own(tmp_path: Path) -> None:
    """The same photo and caption posted on two days: two creates. Their Idempotency-Keys were derived from the
    fields without ``createdAt``, so the second create met the first's key with another body: 409."""
    twins = [POSTS[0] | {"createdAt": f"2026-01-0{n + 1}T00:00:00Z"} for n in range(2)]
    bundle = load_bundle(write_bundle(tmp_path / "b", posts_json=twins))
    creates = [change for change in plan_against(AgentState(None, BRANDS), WS, bundle).changes
               if str(change).startswith("create post")]  # fmt: skip
    assert len(creates) == 2 and len({change.key for change in creates}) == 2  # type: ignore[attr-defined]


# Issue 28: a bundle published into a new workspace took its default brand, named after the workspace ("My studio"),
# so the chat said "My studio's assistant" where the page and the bundle named the brand. The bundle carries it.
STUDIO = {"slug": "lumen-yoga", "name": "Lumen Yoga Studio", "palette": ["#5e548e", "#9f86c0"], "fontFamily": "Inter"}


def branded(tmp_path: Path, brand: dict[str, Any] | str = STUDIO) -> Bundle:
    return load_bundle(write_bundle(tmp_path / "b", agent_json={"slug": "guide", "name": "Lumen Guide",
                                                                 "brand": brand}))  # fmt: skip


def brand_of(spec: dict[str, Any], id_: str = "brd_9", *, is_default: bool = False) -> Brand:
    return Brand(id=id_, slug=spec["slug"], name=spec["name"], is_default=is_default, palette=spec.get("palette", []),
                 font_family=spec.get("fontFamily", ""), created_at=NOW, updated_at=NOW)  # fmt: skip


def test_a_brand_the_bundle_carries_is_created_first_and_the_new_agent_gets_it(tmp_path: Path) -> None:
    bundle = branded(tmp_path)
    plan = plan_against(AgentState(None, BRANDS), WS, bundle)
    brand, agent = plan.changes[:2]
    assert [str(brand), str(agent)] == ["create brand lumen-yoga (Lumen Yoga Studio)",
                                        "create agent guide (Lumen Guide)"]  # fmt: skip
    assert isinstance(brand, CreateBrand) and brand.spec.model_dump() == {
        "slug": "lumen-yoga", "name": "Lumen Yoga Studio", "palette": ["#5e548e", "#9f86c0"], "font_family": "Inter",
    }  # fmt: skip
    assert isinstance(agent, CreateAgent) and agent.brand_id == NEW_BRAND  # the id the brand's create answers
    assert plan.writes == 13  # the brand's create is one write more than the same bundle without it (12)
    # The keys are the same on every run: the brand's by its content, the agent's by the brand's slug (not its id,
    # which a run that created the brand before its answer was lost would know, and the first run not).
    again = plan_against(AgentState(None, [*BRANDS, brand_of(STUDIO)]), WS, bundle)
    assert isinstance(again.changes[0], CreateAgent) and again.changes[0].key == agent.key
    assert again.changes[0].brand_id == "brd_9" and plan_against(AgentState(None, BRANDS), WS, bundle) == plan


def test_a_brand_held_as_the_bundle_has_it_is_no_change(tmp_path: Path) -> None:
    bundle = branded(tmp_path)
    state = held(bundle)
    state.brands = [*BRANDS, brand_of(STUDIO)]
    state.agent = state.agent.model_copy(update={"brand_id": "brd_9"})  # type: ignore[union-attr]
    plan = plan_against(state, WS, bundle)
    assert plan.empty and plan.writes == 0
    # A field the bundle leaves out is left as the workspace has it: not compared, not sent.
    bare = branded(tmp_path, {"slug": "lumen-yoga", "name": "Lumen Yoga Studio"})
    assert plan_against(state, WS, bare).empty


def test_a_brand_that_differs_is_updated_where_it_differs_and_the_agent_moved_to_it(tmp_path: Path) -> None:
    bundle = branded(tmp_path)
    state = held(bundle)  # the agent on the workspace's default brand (brd_1), as a first publish left it before
    state.brands = [*BRANDS, brand_of(STUDIO | {"name": "Lumen", "palette": ["#000"]})]
    plan = plan_against(state, WS, bundle)
    assert [str(change) for change in plan.changes] == [
        "update brand lumen-yoga: name, palette",
        "update agent guide: brandId",
    ]
    update = plan.changes[0]
    assert isinstance(update, UpdateBrand) and (update.brand_id, update.fields) == (
        "brd_9", {"name": "Lumen Yoga Studio", "palette": ["#5e548e", "#9f86c0"]},
    )  # fmt: skip
    assert plan.writes == 2


def test_an_agent_moves_to_a_brand_the_plan_creates(tmp_path: Path) -> None:
    bundle = branded(tmp_path)
    plan = plan_against(held(bundle), WS, bundle)  # the agent held, on the default brand "Shop"
    assert [str(change) for change in plan.changes] == [
        "create brand lumen-yoga (Lumen Yoga Studio)",
        "update agent guide: brandId",
    ]
    assert isinstance(plan.changes[1], UpdateAgent) and plan.changes[1].fields == {"brand_id": NEW_BRAND}


def test_the_workspaces_default_brand_carried_by_a_bundle_is_updated_not_made_again(tmp_path: Path) -> None:
    """The demo's case: the bundle's brand is the workspace's default (same slug)."""
    bundle = branded(tmp_path, STUDIO | {"slug": "shop"})
    plan = plan_against(AgentState(None, BRANDS), WS, bundle)
    assert [str(change) for change in plan.changes[:2]] == [
        "update brand shop: name, palette, fontFamily",
        "create agent guide (Lumen Guide)",
    ]
    assert isinstance(plan.changes[1], CreateAgent) and plan.changes[1].brand_id == "brd_1"


def test_carrying_out_sets_the_agent_on_the_brand_the_run_created(tmp_path: Path) -> None:
    """The brand is created before the agent, whose create (or update) names the brand's new id."""

    class Portal:
        def __init__(self) -> None:
            self.calls: list[tuple[str, dict[str, Any]]] = []
            self.brands = list(BRANDS)

        def create_brand(self, ws: str, **body: Any) -> Any:
            self.calls.append(("create_brand", body))
            self.brands.append(brand_of({"slug": body["slug"], "name": body["name"]}, "brd_new"))
            return type("Answer", (), {"brand": self.brands[-1]})

        def every_brand(self, ws: str) -> list[Brand]:
            return self.brands

        def update_agent(self, ws: str, agent_id: str, **fields: Any) -> None:
            self.calls.append(("update_agent", fields))

    bundle = branded(tmp_path)
    plan = plan_against(held(bundle), WS, bundle)
    portal = Portal()
    carry_out(portal, plan, progress=False)  # type: ignore[arg-type]
    assert [name for name, _ in portal.calls] == ["create_brand", "update_agent"]
    assert portal.calls[0][1]["idempotency_key"].startswith("bundle-brand-")
    assert portal.calls[1][1] == {"brand_id": "brd_new"}


# --- behaviour (issue 39): agent.json's ``behaviour``, the fields it gives made to match, the others left alone

VOICE = {"instructions": "Warm and brief.\n- Two sentences.", "model": None, "temperature": 0.5,
         "fallback": "Ask at the counter."}  # fmt: skip


def voiced(tmp_path: Path, **behaviour: Any) -> Bundle:
    agent = {"slug": "test-barista", "name": "Test Barista", "behaviour": behaviour}
    return load_bundle(write_bundle(tmp_path / "voiced", agent_json=agent))


def test_the_defaults_here_are_the_services(tmp_path: Path) -> None:
    from core.agents.records import DEFAULT_BEHAVIOUR as SERVICE  # the test's stand-in must not drift from it

    assert Behaviour.model_validate(DEFAULT_BEHAVIOUR).model_dump() == {
        "instructions": SERVICE.instructions, "model": SERVICE.model, "temperature": SERVICE.temperature,
        "max_reply_tokens": SERVICE.max_reply_tokens, "knowledge_only": SERVICE.knowledge_only,
        "fallback": SERVICE.fallback}  # fmt: skip


def test_a_behaviour_held_as_the_bundle_gives_it_is_no_change_whatever_the_fields_it_leaves_out(
    tmp_path: Path,
) -> None:
    bundle = voiced(tmp_path, **VOICE)
    assert bundle.agent.behaviour is not None and bundle.agent.behaviour.given() == {
        "instructions": "Warm and brief.\n- Two sentences.", "model": None, "temperature": 0.5,
        "fallback": "Ask at the counter."}  # fmt: skip  # model null given: the default model, a value
    assert plan_against(held(bundle, max_reply_tokens=300, knowledge_only=False), WS, bundle).empty


def test_only_the_fields_that_differ_are_sent_and_a_null_model_goes_back_to_the_default(tmp_path: Path) -> None:
    bundle = voiced(tmp_path, **VOICE)
    state = held(bundle, temperature=0.9, model="offline-plus", max_reply_tokens=300)
    (change,) = plan_against(state, WS, bundle).changes
    assert isinstance(change, UpdateAgent)
    assert change.fields == {"behaviour": {"model": None, "temperature": 0.5}}  # maxReplyTokens: not the bundle's
    assert str(change) == "update agent test-barista: behaviour.model, behaviour.temperature"

    class Portal:
        def __init__(self) -> None:
            self.calls: list[dict[str, Any]] = []

        def update_agent(self, ws: str, agent_id: str, **fields: Any) -> None:
            from workspace_client._operation import Operation

            body = AgentUpdate(**fields)
            self.calls.append(Operation("PATCH", "/x", body=body).json_body or {})

    portal = Portal()
    carry_out(portal, plan_against(state, WS, bundle), progress=False)  # type: ignore[arg-type]
    assert portal.calls == [{"behaviour": {"model": None, "temperature": 0.5}}]  # null sent: the default model


def test_a_bundle_without_behaviour_leaves_the_agents_alone(bundle: Bundle) -> None:
    assert bundle.agent.behaviour is None
    assert plan_against(held(bundle, instructions="Set with the CLI", model="offline-plus"), WS, bundle).empty


def test_a_new_agent_is_created_with_the_bundles_behaviour_under_a_key_that_names_it(tmp_path: Path) -> None:
    plain = load_bundle(write_bundle(tmp_path / "plain", agent_json={"slug": "test-barista", "name": "Test Barista"}))
    bundle = voiced(tmp_path, **VOICE)
    create = plan_against(AgentState(None, BRANDS), WS, bundle).changes[0]
    plain_create = plan_against(AgentState(None, BRANDS), WS, plain).changes[0]
    assert isinstance(create, CreateAgent) and isinstance(plain_create, CreateAgent)
    assert create.behaviour == bundle.agent.behaviour.given() and plain_create.behaviour is None  # type: ignore[union-attr]
    # A replayed create answers with the agent it made: a bundle whose behaviour changed is another create.
    assert create.key != plain_create.key
    unchanged = {"slug": "test-barista", "name": "Test Barista", "brand": "brd_1"}  # a bundle without: the old key
    assert plain_create.key == idempotency_key(WS, "test-barista", "agent", unchanged)
