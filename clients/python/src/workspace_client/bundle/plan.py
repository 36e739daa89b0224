"""Comparing a bundle with what the workspace holds: the ordered list of changes that make them equal.

The agent is found by its slug; documents are compared as JSON; files by size, content type and MD5 (S3's ETag
of an object uploaded in one part) with the objects of the agent's folder; posts are matched by ``createdAt`` and
items by ``file``. Values are compared in the service's normal form (``format.py`` reads entries so), which is
what makes a second publish of the same bundle, or a publish of an export, an empty plan.
"""

from __future__ import annotations

import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from .._generated.models_portal import Agent, AgentItem, Answer, Post, StoredObject
from ..portal import Portal
from .changes import (
    NEW_BRAND,
    Change,
    CreateAgent,
    CreateAnswer,
    CreateBrand,
    CreateItem,
    CreatePost,
    DeleteAnswer,
    DocumentKind,
    Plan,
    PutDocument,
    ReplaceItem,
    SetPostStatus,
    UpdateAgent,
    UpdateAnswer,
    UpdateBrand,
    UpdateItem,
    UpdatePost,
    Upload,
)
from .files import BundleError, BundleFile, essence
from .format import AgentSpec, AnswerSpec, BrandSpec, Bundle, ItemSpec, PostSpec
from .state import AgentState, folder, read_state

POST_FIELDS = ("key", "kind", "title", "sub", "caption", "hashtags", "channels", "category", "width", "height",
               "pages", "poster", "playable")  # fmt: skip
PAGE_FIELDS = {"key", "media_type", "width", "height", "order"}
ITEM_FIELDS = ("name", "kind", "folder", "order", "origin", "active")
BEHAVIOUR_FIELDS = ("instructions", "model", "temperature", "max_reply_tokens", "knowledge_only", "fallback")
BRAND_FIELDS = ("name", "palette", "font_family")
R = TypeVar("R", Post, AgentItem)
DOCUMENT_KINDS: tuple[DocumentKind, ...] = ("wrap", "site", "suggestions")


def canonical(value: Any) -> str:
    """JSON as compared and hashed: keys sorted, no spaces (``1``, ``1.0`` and ``true`` stay different)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def idempotency_key(workspace_id: str, slug: str, kind: str, content: Any) -> str:
    """The same create of the same bundle entry in the same workspace gets the same key, on every run."""
    digest = hashlib.sha256(canonical([workspace_id, slug, kind, content]).encode()).hexdigest()
    return f"bundle-{kind}-{digest[:48]}"


def post_fields(post: PostSpec | Post) -> dict[str, Any]:
    """The fields a post is compared by (``status`` apart), from a bundle entry or the service's post alike."""
    values = {name: getattr(post, name) for name in POST_FIELDS}
    values["pages"] = [page.model_dump(include=PAGE_FIELDS) for page in post.pages]
    return values


def item_fields(item: ItemSpec | AgentItem) -> dict[str, Any]:
    return {name: getattr(item, name) for name in ITEM_FIELDS}


MIB = 1024 * 1024  # plans are set in MiB; the service says sizes in these "MB" (core/objects/uploads.py)
RAISED_BY = "a plan is the workspace owner's: a deployment's operator changes it (python -m ops set-plan)"


def megabytes(size: int) -> str:
    """A size as the service's refusals say it: ``31.5 MB`` (MB = 1024² bytes, as the plans are set); below a
    tenth of one, its bytes, so nothing reads ``0.0 MB``. The same rule as core/objects/uploads.py's."""
    return f"{size / MIB:.1f} MB" if size >= MIB // 10 else f"{size} bytes"


def make_plan(portal: Portal, workspace_id: str, bundle: Bundle) -> Plan:
    """Read the agent's state and the workspace's plan (together) and compare; nothing is written. A plan whose
    uploads the owner's plan would refuse is refused here, before anything is written, dry run or not."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        limits = pool.submit(lambda: portal.get_workspace(workspace_id).workspace.plan)
        state = read_state(portal, workspace_id, bundle.agent.slug)
        state.plan = limits.result()
    return plan_against(state, workspace_id, bundle)


def plan_against(state: AgentState, workspace_id: str, bundle: Bundle) -> Plan:
    slug = bundle.agent.slug
    changes: list[Change] = [*_agent(state, workspace_id, bundle)]
    for kind in DOCUMENT_KINDS:
        wanted = getattr(bundle, kind)  # None: absent (suggestions of null too: a null field is one not sent)
        if wanted is not None and canonical(wanted) != canonical(getattr(state, kind)):
            changes.append(PutDocument(kind, wanted))
    changes += [Upload(file) for file in bundle.files.values() if _differs(file, state.objects.get(file.path))]
    changes += _posts(state.posts, bundle.posts, workspace_id, slug)
    agent = state.agent
    changes += _items(state.items, bundle, workspace_id, agent.id if agent else None)
    if bundle.answers is not None:  # no answers.json: the agent's answers are left as they are
        changes += _answers(state.answers, bundle.answers, workspace_id, slug)
    within_plan(state, bundle, changes)
    return Plan(workspace_id, bundle, agent.id if agent else None, agent.active_workflow_id if agent else None, changes)


def within_plan(state: AgentState, bundle: Bundle, changes: list[Change]) -> None:
    """Refuse (``BundleError``) uploads the owner's plan would refuse, as the service does when it signs them: a
    file over the plan's object size, or files that would take the workspace over its storage. The storage counted
    is the agent's folder once published (the bundle's files and what else the folder keeps): a floor, since the
    workspace's other agents hold files too, so the service may still refuse what passes here."""
    plan = state.plan
    if plan is None:
        return
    name = plan.name
    over = [f"{change.file.path}: {megabytes(change.file.size)} is over the {name} plan's object size of "
            f"{megabytes(plan.max_object_bytes)}" for change in changes
            if isinstance(change, Upload) and change.file.size > plan.max_object_bytes]  # fmt: skip
    if over:
        raise BundleError("\n  ".join([*over, RAISED_BY]))
    kept = sum(stored.size for path, stored in state.objects.items() if path not in bundle.files)
    if (held := kept + sum(file.size for file in bundle.files.values())) > plan.max_storage_bytes:
        raise BundleError(f"the agent's files would take the workspace to at least {megabytes(held)}, over the {name} "
                          f"plan's storage of {megabytes(plan.max_storage_bytes)}\n  {RAISED_BY}")  # fmt: skip


def _agent(state: AgentState, workspace_id: str, bundle: Bundle) -> list[Change]:
    spec = bundle.agent
    changes, brand_id = _brand(state, workspace_id, spec)
    if state.agent is None:
        # A brand the bundle carries is named by its slug: the key is the same whether this run creates it or not.
        brand = f"slug:{spec.brand_slug}" if isinstance(spec.brand, BrandSpec) else brand_id
        content: dict[str, Any] = {"slug": spec.slug, "name": spec.name, "brand": brand}
        if spec.behaviour is not None:  # a replayed create must not answer with an agent of another behaviour
            content["behaviour"] = spec.behaviour.given()
        return [*changes, CreateAgent(spec, brand_id, idempotency_key(workspace_id, spec.slug, "agent", content))]
    wanted = {"name": spec.name, "brand_id": brand_id}
    fields: dict[str, Any] = {name: value for name, value in wanted.items()
                              if value and value != getattr(state.agent, name)}  # fmt: skip
    if behaviour := _behaviour(state.agent, spec):
        fields["behaviour"] = behaviour
    return [*changes, UpdateAgent(state.agent.id, spec.slug, fields)] if fields else changes


def _behaviour(agent: Agent, spec: AgentSpec) -> dict[str, Any]:
    """The behaviour's fields the bundle gives that differ from the agent's (snake_case; ``model`` may be None: the
    default model). Fields the bundle leaves out are left as they are."""
    if spec.behaviour is None:
        return {}
    have = getattr(agent, "behaviour", None)  # a service older than behaviour has none to compare with
    return {name: value for name, value in spec.behaviour.given().items()
            if have is None or value != getattr(have, name)}  # fmt: skip


def _brand(state: AgentState, workspace_id: str, spec: AgentSpec) -> tuple[list[Change], str]:
    """The brand's changes, and the agent's brand id: the brand the bundle carries (``NEW_BRAND`` when the plan
    creates it) or names, else the workspace's default ("" when there is none to know)."""
    if spec.brand is None:
        return [], state.default_brand.id if state.default_brand else ""
    brand = next((brand for brand in state.brands if brand.slug == spec.brand_slug), None)
    if isinstance(spec.brand, str):
        if brand is None:
            known = ", ".join(brand.slug for brand in state.brands)
            raise BundleError(f"agent.json: brand: no brand {spec.brand} in workspace {workspace_id} (it has {known})")
        return [], brand.id
    wanted = spec.brand
    if brand is None:
        content = wanted.model_dump(by_alias=True, exclude_none=True)
        return [CreateBrand(wanted, idempotency_key(workspace_id, wanted.slug, "brand", content))], NEW_BRAND
    fields = {name: value for name in BRAND_FIELDS
              if (value := getattr(wanted, name)) is not None and value != getattr(brand, name)}  # fmt: skip
    return [UpdateBrand(brand.id, brand.slug, fields)] if fields else [], brand.id


def _differs(file: BundleFile, stored: StoredObject | None) -> bool:
    """Whether the file must be uploaded: no object, or one of another size, type or content. A multipart ETag
    is no MD5, so such an object is uploaded again (in one part: it then has one)."""
    if stored is None or stored.size != file.size or stored.content_type.lower() != file.content_type.lower():
        return True
    return stored.etag.strip('"').lower() != file.md5


def _matched(  # noqa: UP047 - the client runs on Python 3.11, before type parameters
    remote: list[R], key: Any, wanted: dict[str, Any], same: Any
) -> tuple[dict[str, R], list[R]]:
    """Each bundle entry's match among ``remote`` (by ``key``); when several share a key, the one equal to the
    entry (else the first) matches and the others are left over, as entries the bundle lacks."""
    matched: dict[str, R] = {}
    left: list[R] = []
    for candidate in remote:
        identity = key(candidate)
        current = matched.get(identity)
        if identity not in wanted:
            left.append(candidate)
        elif current is None:
            matched[identity] = candidate
        elif same(wanted[identity], candidate) and not same(wanted[identity], current):
            matched[identity] = candidate
            left.append(current)
        else:
            left.append(candidate)
    return matched, left


def _posts(remote: list[Post], posts: list[PostSpec], workspace_id: str, slug: str) -> list[Change]:
    wanted = {post.created_at: post for post in posts}
    matched, left = _matched(remote, lambda post: post.created_at, wanted,
                             lambda spec, post: post_fields(spec) == post_fields(post))  # fmt: skip
    changes: list[Change] = []
    for spec in posts:
        # createdAt is a post's identity in the bundle: two posts alike but for it are two creates, two keys.
        content = post_fields(spec) | {"status": spec.status, "createdAt": spec.created_at}
        key = idempotency_key(workspace_id, slug, "post", content)
        post = matched.get(spec.created_at)
        if post is None:
            changes.append(CreatePost(spec, key))
            continue
        mine, theirs = post_fields(spec), post_fields(post)
        fields = {name: mine[name] for name in POST_FIELDS if mine[name] != theirs[name]}
        if fields:  # a field back to none is sent as null, which clears it
            changes.append(UpdatePost(post.id, spec.created_at, fields))
        if post.status != spec.status:
            changes.append(SetPostStatus(post.id, spec.created_at, spec.status == "published"))
    changes += [SetPostStatus(post.id, post.created_at, False) for post in left if post.status == "published"]
    return changes


def _items(remote: list[AgentItem], bundle: Bundle, workspace_id: str, agent_id: str | None) -> list[Change]:
    prefix = folder(agent_id or "")
    wanted = {item.file: item for item in bundle.items}
    matched, left = _matched(remote, lambda item: item.r2_key.removeprefix(prefix), wanted,
                             lambda spec, item: item_fields(spec) == item_fields(item))  # fmt: skip
    changes: list[Change] = []
    for spec in bundle.items:
        file = bundle.files[spec.file]
        item = matched.get(spec.file)
        if item is None:
            changes.append(CreateItem(spec, _item_key(workspace_id, bundle.agent.slug, spec, file)))
        elif item.size != file.size or item.mime_type != essence(file.content_type):
            changes.append(ReplaceItem(item.id, spec, _item_key(workspace_id, bundle.agent.slug, spec, file)))
        elif fields := {name: value for name, value in item_fields(spec).items() if value != getattr(item, name)}:
            changes.append(UpdateItem(item.id, spec.file, fields))
    changes += [UpdateItem(item.id, item.r2_key.removeprefix(prefix), {"active": False})
                for item in left if item.active]  # fmt: skip
    return changes


def _answers(remote: list[Answer], answers: list[AnswerSpec], workspace_id: str, slug: str) -> list[Change]:
    """Answers matched by ``question`` (the oldest answer of a question is its match; any other of that question
    counts as one the bundle lacks): created, their text updated, and those the bundle lacks deleted."""
    matched: dict[str, Answer] = {}
    left: list[Answer] = []
    for answer in sorted(remote, key=lambda a: a.id):  # ids are ULIDs: oldest first
        if answer.question in matched:
            left.append(answer)
        else:
            matched[answer.question] = answer
    wanted = {spec.question for spec in answers}
    changes: list[Change] = []
    for spec in answers:
        found = matched.get(spec.question)
        if found is None:
            content = {"question": spec.question, "answer": spec.answer}
            changes.append(CreateAnswer(spec, idempotency_key(workspace_id, slug, "answer", content)))
        elif found.answer != spec.answer:
            changes.append(UpdateAnswer(found.id, spec.question, spec.answer))
    left += [answer for question, answer in matched.items() if question not in wanted]
    changes += [DeleteAnswer(answer.id, answer.question) for answer in sorted(left, key=lambda a: a.id)]
    return changes


def _item_key(workspace_id: str, slug: str, spec: ItemSpec, file: BundleFile) -> str:
    """An item's create key names its file's content too: the item of a changed file is another create."""
    content = item_fields(spec) | {"file": spec.file, "md5": file.md5}
    return idempotency_key(workspace_id, slug, "item", content)
