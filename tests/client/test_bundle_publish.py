"""Publishing bundles (``workspace_client.bundle.publish``/``export``) to a real local runner, checked through what
the service then serves: the portal's GETs, the read plane with a key, and the runner's request log (a publish
that changes nothing sends no write at all). Each test signs up a user of its own with a workspace of its own.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from workspace_client import Brain
from workspace_client.bundle import BundleError, Change, export, load_bundle, publish, wait_for_index
from workspace_client.bundle.changes import CreatePost, Upload
from workspace_client.bundle.files import BundleFile
from workspace_client.bundle.format import BrandSpec
from workspace_client.bundle.indexing import index_of, instant
from workspace_client.bundle.plan import make_plan
from workspace_client.bundle.publish import carry_out
from workspace_client.bundle.state import AgentState, folder, read_state
from workspace_client.bundle.upload import upload_files
from workspace_client.errors import NotFoundError

from tests.support import log_scan
from tests.support.bundles import (
    DOCUMENTS,
    FILES,
    ITEMS,
    POSTS,
    made_bytes,
    signed_in,
    started_service_without_demo,
    write_bundle,
)
from tests.support.load import ops
from tests.support.runner import LocalService

pytestmark = pytest.mark.e2e
SLUG = "test-barista"
DOCUMENTS_PUT = ("wrap.json", "site.json", "suggestions.json")
GATEWAY_LINE = re.compile(r'local\.gateway PortalApi "(\w+) (\S+)" (\d+)')


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    yield from started_service_without_demo(tmp_path_factory.mktemp("bundle-state"))


class Owner:
    """A user of their own (free plan) with one workspace, signed in."""

    def __init__(self, service: LocalService):
        self.email = f"bundles-{uuid.uuid4().hex[:12]}@example.com"
        self.portal = signed_in(service, self.email)
        self.workspace = self.portal.create_workspace(name="Bundles").workspace.id

    def state(self) -> AgentState:
        return read_state(self.portal, self.workspace, SLUG)


@pytest.fixture
def owner(service: LocalService) -> Iterator[Owner]:
    owner = Owner(service)
    yield owner
    owner.portal.close()


@pytest.fixture
def bundle_dir(tmp_path: Path) -> Path:
    return write_bundle(tmp_path / "bundle")


def requests_since(service: LocalService, offset: int) -> list[tuple[str, str]]:
    """The portal requests the runner logged after byte ``offset`` of its log: (method, path)."""
    time.sleep(0.2)  # the gateway logs a request once answered: let the last line land
    with (service.state_dir / "runner.log").open("rb") as log:
        log.seek(offset)
        return [(m[1], m[2]) for m in GATEWAY_LINE.finditer(log.read().decode(errors="replace"))]


def log_size(service: LocalService) -> int:
    return (service.state_dir / "runner.log").stat().st_size


def snapshot(state: AgentState) -> dict[str, Any]:
    """Everything a write would change, ``updatedAt`` and ETags included (not the items' ``index``: the service's
    reading of their documents, which goes on after a publish)."""
    assert state.agent is not None
    return {
        "agent": state.agent.model_dump(exclude={"post_count", "item_count"}),
        "posts": {post.id: post.model_dump() for post in state.posts},
        # An item's index is the knowledge worker's, moving on its own after a publish (pending, then indexed).
        "items": {item.id: item.model_dump(exclude={"index"}) for item in state.items},
        "objects": {path: stored.model_dump() for path, stored in state.objects.items()},
        "documents": (state.wrap, state.site, state.suggestions),
    }


def by_created(state: AgentState) -> dict[str, Any]:
    return {post.created_at: post for post in state.posts}


def test_a_publish_is_served_and_a_second_one_sends_no_write(service: LocalService, owner: Owner, bundle_dir: Path):
    plan = publish(owner.portal, owner.workspace, bundle_dir, progress=False)
    assert (plan.uploads, plan.upload_bytes, plan.writes) == (7, sum(map(len, FILES.values())), 12)

    state = owner.state()
    assert state.agent is not None and (state.agent.name, state.agent.post_count, state.agent.item_count) == (
        "Test Barista", 5, 3,
    )  # fmt: skip
    posts = by_created(state)
    assert [posts[created].status for created in sorted(posts)] == ["published"] * 4 + ["draft"]
    carousel = posts["2026-01-03T09:00:00.000Z"]
    assert [page.key for page in carousel.pages] == ["media/a.jpg", "media/b.jpg", "media/c.png"]
    assert carousel.channels == ["instagram"] and posts["2026-01-05T08:00:00.000Z"].title == "Opening hours"
    assert {path: (o.size, o.etag.strip('"')) for path, o in state.objects.items()} == {
        path: (len(data), hashlib.md5(data, usedforsecurity=False).hexdigest()) for path, data in FILES.items()
    }
    assert state.objects["notes/faq.md"].content_type == "text/markdown; charset=utf-8"
    assert sorted((i.r2_key.split("/", 2)[2], i.mime_type, i.size, i.active) for i in state.items) == [
        ("docs/menu.pdf", "application/pdf", len(FILES["docs/menu.pdf"]), True),
        ("media/a.jpg", "image/jpeg", len(FILES["media/a.jpg"]), True),
        ("notes/faq.md", "text/markdown", len(FILES["notes/faq.md"]), True),
    ]
    assert (state.wrap, state.site, state.suggestions) == tuple(DOCUMENTS[name] for name in DOCUMENTS_PUT)

    # The read plane, as a site reads it (a key needs a paid plan).
    assert ops(service, "set-plan", "--email", owner.email, "--plan", "pro")["plan"] == "pro"
    key = owner.portal.mint_key(owner.workspace, name="bundle-test").key.key
    log_scan.register_secret(key)
    with Brain(service.brain, key=key) as brain:
        feed = brain.get_feed(state.agent.id)
        published = sorted((created for created in posts if posts[created].status == "published"), reverse=True)
        assert [post.created_at for post in feed] == published  # newest first
        assert feed[1].is_video and feed[1].poster == "media/clip-poster.jpg"
        assert sorted(item.name for item in brain.get_items(state.agent.id)) == ["FAQ", "Hero", "Menu"]
        wrap = brain.get_wrap(state.agent.id)
        assert (wrap.layout, wrap.greeting, wrap.theme) == ("feed", "Hello!", {"accent": "#336699", "logo": None})
        assert wrap.model_extra == {"footer": None}  # a member of null is published as one
        assert brain.get_suggestions(state.agent.id).suggestions == ["What is new?", "When are you open?"]

    before, offset = snapshot(state), log_size(service)
    again = publish(owner.portal, owner.workspace, bundle_dir, progress=False)
    assert again.empty and (again.uploads, again.upload_bytes, again.writes) == (0, 0, 0)
    sent = requests_since(service, offset)
    assert sent and {method for method, _ in sent} == {"GET"}  # no signing, no write
    assert snapshot(owner.state()) == before


def test_a_bundle_carrying_its_brand_puts_its_agent_on_it_and_the_chat_names_it(
    service: LocalService, owner: Owner, bundle_dir: Path, tmp_path: Path
) -> None:
    """Issue 28: published into a new workspace (its default brand named after it, "Bundles"), the agent was on that
    brand, and the chat said "Bundles's assistant" where the page and the bundle named theirs. The bundle's brand is
    created, the agent is on it, the chat names it; a second publish sends no write; the export carries it."""
    brand = {"slug": "lumen-yoga", "name": "Lumen Yoga Studio", "palette": ["#5e548e", "#9f86c0"]}
    brand["fontFamily"] = "Inter"
    write_bundle(bundle_dir, agent_json={"slug": SLUG, "name": "Test Barista", "brand": brand})
    dry = publish(owner.portal, owner.workspace, bundle_dir, dry_run=True)
    assert [str(change) for change in dry.changes[:2]] == [
        "create brand lumen-yoga (Lumen Yoga Studio)", "create agent test-barista (Test Barista)",
    ]  # fmt: skip
    assert dry.writes == 13 and owner.state().agent is None and len(owner.portal.list_brands(owner.workspace)) == 1

    publish(owner.portal, owner.workspace, bundle_dir, progress=False)
    state = owner.state()
    made = next(b for b in state.brands if b.slug == "lumen-yoga")
    assert (made.name, made.palette, made.font_family, made.is_default) == (
        "Lumen Yoga Studio", ["#5e548e", "#9f86c0"], "Inter", False,
    )  # fmt: skip
    assert state.agent is not None and state.agent.brand_id == made.id

    assert ops(service, "set-plan", "--email", owner.email, "--plan", "pro")["plan"] == "pro"
    assert ops(service, "grant", "--email", owner.email, "--credits", "5", "--ref-id", "brand-chat")["applied"] is True
    key = owner.portal.mint_key(owner.workspace, name="brand-test").key.key
    log_scan.register_secret(key)
    with Brain(service.brain, key=key) as brain:
        assert brain.get_agent(state.agent.id).brand.name == "Lumen Yoga Studio"
        reply = "".join(event.text for event in brain.chat(state.agent.id, "Hello"))
    assert reply.startswith("Hi, I'm Test Barista, Lumen Yoga Studio's assistant."), reply

    offset = log_size(service)
    assert publish(owner.portal, owner.workspace, bundle_dir, progress=False).empty
    assert {method for method, _ in requests_since(service, offset)} == {"GET"}  # the brand too: no write

    renamed = brand | {"name": "Lumen Yoga"}
    write_bundle(bundle_dir, agent_json={"slug": SLUG, "name": "Test Barista", "brand": renamed})
    plan = publish(owner.portal, owner.workspace, bundle_dir, progress=False)
    assert [str(change) for change in plan.changes] == ["update brand lumen-yoga: name"]
    export(owner.portal, owner.workspace, SLUG, tmp_path / "copy", progress=False)
    assert json.loads((tmp_path / "copy" / "agent.json").read_text())["brand"] == renamed


def test_one_changed_file_and_post_and_a_dropped_post_are_all_that_is_written(
    service: LocalService, owner: Owner, bundle_dir: Path
) -> None:
    publish(owner.portal, owner.workspace, bundle_dir, progress=False)
    before = owner.state()
    new_b = made_bytes(FILES["media/b.jpg"][:4], 31_000, 99)
    changed = [POSTS[0] | {"caption": "Fresh, again"}, *POSTS[1:3], POSTS[4]]  # the text post (POSTS[3]) dropped
    write_bundle(bundle_dir, posts_json=changed, files={"media/b.jpg": new_b})

    offset = log_size(service)
    plan = publish(owner.portal, owner.workspace, bundle_dir, progress=False)
    assert [str(change) for change in plan.changes] == [
        "upload media/b.jpg (31.0 kB)",
        "update post 2026-01-02T03:04:05.000Z: caption",
        "unpublish post 2026-01-05T08:00:00.000Z",
    ]
    assert (plan.uploads, plan.upload_bytes, plan.writes) == (1, 31_000, 2)
    writes = sorted(f"{method} {path.split('/')[-1]}" for method, path in requests_since(service, offset)
                    if method != "GET")  # fmt: skip
    old, new = by_created(before), by_created(owner.state())
    updated, unpublished = new["2026-01-02T03:04:05.000Z"], new["2026-01-05T08:00:00.000Z"]
    assert writes == [f"PATCH {updated.id}", "POST unpublish", "POST uploads"]  # the signing is the one other POST

    after = owner.state()
    assert updated.caption == "Fresh, again" and unpublished.status == "draft"  # unpublished, never deleted
    unchanged = set(old) - {"2026-01-02T03:04:05.000Z", "2026-01-05T08:00:00.000Z"}
    assert all(new[created] == old[created] for created in unchanged)
    assert after.objects["media/b.jpg"].etag.strip('"') == hashlib.md5(new_b, usedforsecurity=False).hexdigest()
    assert {p: o for p, o in after.objects.items() if p != "media/b.jpg"} == {
        p: o for p, o in before.objects.items() if p != "media/b.jpg"
    }
    assert publish(owner.portal, owner.workspace, bundle_dir, progress=False).empty


def test_the_documents_are_waited_for_and_a_file_replaced_in_place_is_read_again(
    owner: Owner, bundle_dir: Path
) -> None:
    """``wait_for_index`` against the service: its items' ``index``, and S3's clock against its worker's."""
    plan = make_plan(owner.portal, owner.workspace, load_bundle(bundle_dir))
    agent_id = carry_out(owner.portal, plan, progress=False)
    report = wait_for_index(owner.portal, plan, agent_id, timeout=90, progress=False)
    read = {document.path: document for document in report.documents}  # the image item (Hero) is not watched
    assert sorted(read) == ["docs/menu.pdf", "notes/faq.md"] and not report.pending, report
    assert read["notes/faq.md"].status == "indexed" and read["notes/faq.md"].passages >= 1
    menu = read["docs/menu.pdf"]  # random bytes after a PDF header: nothing a person could read
    assert menu.status in {"failed", "skipped"} and (menu.status == "skipped" or menu.error), menu

    # The FAQ's file replaced by one of the same size and type: an upload, and the item left as it was.
    faq = owner.portal.list_items(owner.workspace, agent_id).items
    before = next(index_of(item) for item in faq if item.r2_key.endswith("/notes/faq.md"))
    assert before is not None and before.updated_at
    replaced = FILES["notes/faq.md"].replace(b"every day", b"every dax")
    write_bundle(bundle_dir, files={"notes/faq.md": replaced})
    plan = make_plan(owner.portal, owner.workspace, load_bundle(bundle_dir))
    assert [str(change) for change in plan.changes] == [f"upload notes/faq.md ({len(replaced)} B)"]
    carry_out(owner.portal, plan, progress=False)
    again = wait_for_index(owner.portal, plan, agent_id, timeout=90, progress=False)
    assert [(document.path, document.status) for document in again.documents] == [("notes/faq.md", "indexed")]
    uploaded_object = read_state(owner.portal, owner.workspace, SLUG).objects["notes/faq.md"]
    uploaded = uploaded_object.updated_at
    after = next(index_of(item) for item in owner.portal.list_items(owner.workspace, agent_id).items
                 if item.r2_key.endswith("/notes/faq.md"))  # fmt: skip
    assert after is not None and after.etag == uploaded_object.etag != before.etag  # the new file's state, not the old
    read_at, uploaded_at, first_read_at = instant(after.updated_at), instant(uploaded), instant(before.updated_at)
    assert read_at and uploaded_at and first_read_at
    # Read again after the upload, by the service's clock. S3 dates an object to the second, so an upload in the
    # second of the first read compares equal to that second, not later (a machine fast enough met it).
    assert read_at >= uploaded_at >= first_read_at.replace(microsecond=0) and read_at > first_read_at


def test_a_dry_run_changes_nothing(service: LocalService, owner: Owner, bundle_dir: Path) -> None:
    publish(owner.portal, owner.workspace, bundle_dir, progress=False)
    before = snapshot(owner.state())
    extra = {"createdAt": "2026-01-07T00:00:00Z", "kind": "image", "key": "media/new.jpg"}
    write_bundle(bundle_dir, posts_json=[*POSTS, extra], wrap_json={"layout": "grid"},
                 files={"media/new.jpg": made_bytes(FILES["media/a.jpg"][:4], 5_000, 7)})  # fmt: skip
    offset = log_size(service)
    plan = publish(owner.portal, owner.workspace, bundle_dir, dry_run=True, progress=False)
    assert [str(change) for change in plan.changes] == [
        "put wrap", "upload media/new.jpg (5.0 kB)", "create post 2026-01-07T00:00:00.000Z",
    ]  # fmt: skip
    assert {method for method, _ in requests_since(service, offset)} == {"GET"}
    assert snapshot(owner.state()) == before


def test_publishing_an_export_changes_nothing(service: LocalService, owner: Owner, bundle_dir: Path, tmp_path: Path):
    publish(owner.portal, owner.workspace, bundle_dir, progress=False)
    exported = export(owner.portal, owner.workspace, SLUG, tmp_path / "exported", progress=False)
    for path, data in FILES.items():
        assert (exported / path).read_bytes() == data
    original, copy = load_bundle(bundle_dir), load_bundle(exported)
    assert (copy.agent.model_dump(exclude={"brand", "behaviour"}), copy.posts) == (
        original.agent.model_dump(exclude={"brand", "behaviour"}), original.posts)  # fmt: skip
    # Its behaviour too, every field: here the service's defaults, which the bundle left out (issue 39).
    assert copy.agent.behaviour is not None and original.agent.behaviour is None
    defaults = {"instructions": "", "model": None, "temperature": 0.3, "max_reply_tokens": 512, "knowledge_only": True,
                "fallback": ""}  # fmt: skip
    assert copy.agent.behaviour.given() == defaults
    # The agent's brand goes with it, whole: here the workspace's default, which the bundle left unnamed.
    assert isinstance(copy.agent.brand, BrandSpec) and original.agent.brand is None
    default = next(brand for brand in owner.portal.list_brands(owner.workspace) if brand.is_default)
    assert (copy.agent.brand.slug, copy.agent.brand.name) == (default.slug, "Bundles")
    assert sorted(copy.items, key=lambda item: item.file) == sorted(original.items, key=lambda item: item.file)
    assert (copy.wrap, copy.site, copy.suggestions) == (original.wrap, original.site, original.suggestions)
    offset = log_size(service)
    assert publish(owner.portal, owner.workspace, exported, progress=False).empty
    assert {method for method, _ in requests_since(service, offset)} == {"GET"}


@pytest.mark.parametrize("link", ["notes.txt", "wrap.json"])
def test_a_link_out_of_the_bundle_is_refused_before_anything_is_sent(
    service: LocalService, owner: Owner, bundle_dir: Path, tmp_path: Path, link: str
) -> None:
    """A file elsewhere on the machine, linked into the bundle, would be uploaded (or put as the wrap) and then
    served to anyone with a read key: the bundle is refused, naming the link, before a single request."""
    elsewhere = tmp_path / "elsewhere" / link
    elsewhere.parent.mkdir()
    elsewhere.write_text('{"layout": "private"}')
    (bundle_dir / link).unlink(missing_ok=True)
    (bundle_dir / link).symlink_to(elsewhere)
    offset = log_size(service)
    with pytest.raises(BundleError, match=rf"^{re.escape(link)}: a link out of the bundle"):
        publish(owner.portal, owner.workspace, bundle_dir, progress=False)
    assert requests_since(service, offset) == [] and owner.state().agent is None


def test_an_object_under_the_name_of_a_file_the_export_writes_is_skipped(
    owner: Owner, bundle_dir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An admin's object ``agent.json/x.txt`` (or ``media/a.jpg/x.txt``) cannot be a file where a file is: it is
    skipped with a warning naming it, and the rest is exported, into the empty folder that was there."""
    publish(owner.portal, owner.workspace, bundle_dir, progress=False)
    agent = owner.state().agent
    assert agent is not None
    odd = tmp_path / "odd.txt"
    odd.write_text("odd")
    under = ["agent.json/x.txt", "media/a.jpg/x.txt"]
    upload_files(owner.portal, owner.workspace, folder(agent.id),
                 [BundleFile(path, odd, 3, "text/plain; charset=utf-8") for path in under],
                 progress=False, done=lambda file: None)  # fmt: skip
    target = tmp_path / "exports" / "copy"
    target.mkdir(parents=True)
    with caplog.at_level(logging.WARNING, logger="workspace_client.bundle"):
        exported = export(owner.portal, owner.workspace, SLUG, target, progress=False)
    warned = [record.getMessage() for record in caplog.records if record.name == "workspace_client.bundle"]
    assert [message.split(":")[0] for message in warned] == [f"skipped {path}" for path in under], warned
    assert exported == target and [path.name for path in target.parent.iterdir()] == ["copy"]  # nothing beside
    for path, data in FILES.items():
        assert (exported / path).read_bytes() == data
    original, copy = load_bundle(bundle_dir), load_bundle(exported)
    # The export names the agent's brand and writes its behaviour, which the bundle left out
    # (test_publishing_an_export_changes_nothing).
    assert (copy.agent.model_dump(exclude={"brand", "behaviour"}), copy.posts, copy.wrap) == (
        original.agent.model_dump(exclude={"brand", "behaviour"}), original.posts, original.wrap,
    )  # fmt: skip


@pytest.mark.parametrize("there", [False, True], ids=["new-folder", "empty-folder"])
def test_an_export_that_fails_leaves_nothing_half_written(
    owner: Owner, bundle_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, there: bool
) -> None:
    """An object deleted while the export runs (its download is refused) fails the export after other files
    were downloaded: the folder is left as it was (absent, or empty), with nothing beside it."""
    publish(owner.portal, owner.workspace, bundle_dir, progress=False)
    target = tmp_path / "exports" / "copy"
    if there:
        target.mkdir(parents=True)
    download = owner.portal.download_object

    def deleted_meanwhile(workspace_id: str, path: str) -> Any:
        if path.endswith("/media/clip.mp4"):
            owner.portal.delete_object(workspace_id, path)
        return download(workspace_id, path)

    monkeypatch.setattr(owner.portal, "download_object", deleted_meanwhile)
    with pytest.raises(NotFoundError):
        export(owner.portal, owner.workspace, SLUG, target, progress=False)
    assert [path.name for path in target.parent.iterdir()] == (["copy"] if there else [])
    assert not there or list(target.iterdir()) == []


class Interrupted(Exception):
    pass


def stop_after(kind: type[Change], count: int) -> Any:
    """An ``on_change`` that raises once ``count`` changes of ``kind`` are done (as a Ctrl-C would stop a run)."""
    done: list[Change] = []

    def observe(change: Change) -> None:
        done.append(change)
        if sum(isinstance(c, kind) for c in done) == count:
            raise Interrupted

    return observe


@pytest.mark.parametrize(("kind", "count"), [(Upload, 2), (CreatePost, 2)], ids=["during-uploads", "during-posts"])
def test_an_interrupted_publish_run_again_completes_without_duplicates(
    owner: Owner, bundle_dir: Path, kind: type[Change], count: int
) -> None:
    with pytest.raises(Interrupted):
        publish(owner.portal, owner.workspace, bundle_dir, progress=False, on_change=stop_after(kind, count))
    halfway = owner.state()
    assert halfway.agent is not None and 2 <= len(halfway.objects if kind is Upload else halfway.posts) < 7
    rest = publish(owner.portal, owner.workspace, bundle_dir, progress=False)
    assert rest.uploads == 7 - len(halfway.objects)
    assert sum(isinstance(change, CreatePost) for change in rest.changes) == 5 - len(halfway.posts)
    done = owner.state()
    assert sorted(post.created_at for post in done.posts) == sorted(p.created_at for p in load_bundle(bundle_dir).posts)
    assert len(done.items) == 3
    assert publish(owner.portal, owner.workspace, bundle_dir, progress=False).empty


def test_a_create_whose_answer_was_lost_is_not_made_twice(owner: Owner, bundle_dir: Path) -> None:
    """Two runs that listed before either created (a lost answer, or a run still going): the same keys."""
    write_bundle(bundle_dir, posts_json=POSTS[:4])
    publish(owner.portal, owner.workspace, bundle_dir, progress=False)
    write_bundle(bundle_dir)  # the fifth post
    plan = make_plan(owner.portal, owner.workspace, load_bundle(bundle_dir))
    assert [str(change) for change in plan.changes] == ["create post 2026-01-06T08:00:00.000Z (draft)"]
    carry_out(owner.portal, plan, progress=False)
    carry_out(owner.portal, plan, progress=False)  # the second run's create is answered from the first's record
    assert len(owner.state().posts) == 5


def test_a_post_deleted_by_hand_is_created_again(owner: Owner, bundle_dir: Path) -> None:
    """Its create's Idempotency-Key is answered with the deleted post for 24 hours: it is made again, once."""
    publish(owner.portal, owner.workspace, bundle_dir, progress=False)
    state = owner.state()
    assert state.agent is not None
    deleted = by_created(state)["2026-01-04T12:30:00.500Z"]
    owner.portal.delete_post(owner.workspace, state.agent.id, deleted.id)
    plan = publish(owner.portal, owner.workspace, bundle_dir, progress=False)
    assert [str(change) for change in plan.changes] == ["create post 2026-01-04T12:30:00.500Z"]
    again = by_created(owner.state())
    assert len(again) == 5 and again["2026-01-04T12:30:00.500Z"].id != deleted.id
    assert publish(owner.portal, owner.workspace, bundle_dir, progress=False).empty


def test_a_cleared_field_is_patched_and_a_resized_file_replaces_its_item(owner: Owner, bundle_dir: Path) -> None:
    """A cleared post field is a PATCH with null (the post keeps its id); an item whose file changed size (an item
    reads its object's size and type only when its key is set) is deleted and made again; the agent's name and
    brand."""
    publish(owner.portal, owner.workspace, bundle_dir, progress=False)
    titled = by_created(owner.state())["2026-01-02T03:04:05.000Z"]
    events = owner.portal.create_brand(owner.workspace, name="Events", slug="events").brand
    menu = made_bytes(FILES["docs/menu.pdf"][:9], 26_000, 8)
    untitled = [{k: v for k, v in POSTS[0].items() if k != "title"}, *POSTS[1:]]
    write_bundle(bundle_dir, agent_json={"slug": SLUG, "name": "Barista", "brand": "events"}, posts_json=untitled,
                 items_json=[item for item in ITEMS if item["file"] != "notes/faq.md"],
                 files={"docs/menu.pdf": menu})  # fmt: skip
    plan = publish(owner.portal, owner.workspace, bundle_dir, progress=False)
    assert [str(change) for change in plan.changes] == [
        "update agent test-barista: name, brandId",
        "upload docs/menu.pdf (26.0 kB)",
        "update post 2026-01-02T03:04:05.000Z: title (cleared)",
        "replace item docs/menu.pdf (its file changed size or type)",
        "deactivate item notes/faq.md",
    ]
    state = owner.state()
    assert state.agent is not None and (state.agent.name, state.agent.brand_id) == ("Barista", events.id)
    untitled_now = by_created(state)["2026-01-02T03:04:05.000Z"]
    assert (untitled_now.id, untitled_now.title, len(state.posts)) == (titled.id, None, 5)
    items = {item.r2_key.split("/", 2)[2]: item for item in state.items}
    assert items["docs/menu.pdf"].size == 26_000 and items["notes/faq.md"].active is False and len(items) == 3
    assert publish(owner.portal, owner.workspace, bundle_dir, progress=False).empty


def test_a_bundle_big_enough_to_write_side_by_side(owner: Owner, tmp_path: Path) -> None:
    """40 posts and 20 files: uploads and posts run on several workers (one per 8), against the real service;
    the time of the first publish and of the empty second one is printed (docs/bundles.md, the report)."""
    files = {f"media/p{n:02}.jpg": made_bytes(FILES["media/a.jpg"][:4], 20_000, 100 + n) for n in range(20)}
    posts = [{"createdAt": f"2025-12-{1 + n // 2:02}T{10 + n % 2}:00:00Z", "kind": "image",
              "key": f"media/p{n % 20:02}.jpg", "title": f"Post {n}"} for n in range(40)]  # fmt: skip
    root = write_bundle(tmp_path / "big", posts_json=posts, items_json=[], files=files)
    started = time.monotonic()
    plan = publish(owner.portal, owner.workspace, root, progress=False)
    first = time.monotonic() - started
    started = time.monotonic()
    assert publish(owner.portal, owner.workspace, root, progress=False).empty
    second = time.monotonic() - started
    print(f"\n{plan.summary()}: first publish {first:.1f} s, second (empty) {second:.2f} s")
    assert sorted(str(post.title) for post in owner.state().posts) == sorted(f"Post {n}" for n in range(40))
