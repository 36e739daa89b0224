"""Carrying a plan out: the brand, the agent, its documents, the files (uploaded a few at a time), then the posts and
items (written a few at a time). Files go first because the service publishes no post whose media it does not hold.
Creates and the check of what they answered: ``creates.py``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from .._generated.models_portal import BehaviourPatch
from ..errors import ClientError, NotFoundError
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
from .creates import Creates, with_pages
from .format import load_bundle
from .parallel import run_all
from .plan import make_plan
from .state import folder
from .upload import upload_files

OnChange = Callable[[Change], None]
POST_CHANGES = (CreatePost, UpdatePost, SetPostStatus)
ITEM_CHANGES = (CreateItem, UpdateItem, ReplaceItem)
ANSWER_CHANGES = (CreateAnswer, UpdateAnswer, DeleteAnswer)


def publish(
    portal: Portal,
    workspace_id: str,
    bundle_dir: Path,
    *,
    dry_run: bool = False,
    progress: bool = True,
    on_change: OnChange | None = None,
) -> Plan:
    """Make the agent of the bundle at ``bundle_dir`` equal the bundle; the plan carried out (only computed when
    ``dry_run``). ``on_change(change)`` is called after each change is done (from the worker threads)."""
    plan = make_plan(portal, workspace_id, load_bundle(Path(bundle_dir)))
    if not dry_run:
        carry_out(portal, plan, progress=progress, on_change=on_change)
    return plan


def carry_out(portal: Portal, plan: Plan, *, progress: bool = True, on_change: OnChange | None = None) -> str:
    """Carry ``plan`` out; the agent's id (the one it created, if it did), e.g. for ``wait_for_index``."""
    run = _Run(portal, plan, on_change or (lambda change: None))
    for change in plan.changes:
        if isinstance(change, CreateBrand | UpdateBrand | CreateAgent | UpdateAgent | PutDocument):
            run.one(change)
    uploads = {change.file.path: change for change in plan.changes if isinstance(change, Upload)}
    upload_files(portal, plan.workspace_id, run.folder, [change.file for change in uploads.values()],
                 progress=progress, done=lambda file: run.done(uploads[file.path]))  # fmt: skip
    run.in_groups([change for change in plan.changes if isinstance(change, POST_CHANGES)])
    run.creates.confirm(posts=True)
    run.in_groups([change for change in plan.changes if isinstance(change, ITEM_CHANGES)])
    run.creates.confirm(posts=False)
    run.in_groups([change for change in plan.changes if isinstance(change, ANSWER_CHANGES)])
    run.creates.confirm_answers()
    return run.creates.agent_id


def _group(change: Change) -> str:
    """Changes of one post (an update, then its publish) run in order; different posts and items run together."""
    if isinstance(change, CreatePost):
        return f"new {change.spec.created_at}"
    if isinstance(change, CreateItem):
        return f"new {change.spec.file}"
    if isinstance(change, CreateAnswer):
        return f"new answer {change.spec.question}"
    return str(next(filter(None, (getattr(change, name, None) for name in ("post_id", "item_id", "answer_id"))), None))


class _Run:
    def __init__(self, portal: Portal, plan: Plan, done: OnChange):
        self.portal, self.ws, self.done = portal, plan.workspace_id, done
        self.creates = Creates(portal, plan.workspace_id, plan.agent_id, plan.workflow_id)

    @property
    def folder(self) -> str:
        return folder(self.creates.agent_id)

    def in_groups(self, changes: list[Change]) -> None:
        groups: dict[str, list[Change]] = {}
        for change in changes:
            groups.setdefault(_group(change), []).append(change)
        run_all([partial(self.in_order, group) for group in groups.values()])

    def in_order(self, changes: list[Change]) -> None:
        for change in changes:
            self.one(change)

    def one(self, change: Change) -> None:
        try:
            if isinstance(change, POST_CHANGES):
                self._post(change)
            elif isinstance(change, ITEM_CHANGES):
                self._item(change)
            elif isinstance(change, ANSWER_CHANGES):
                self._answer(change)
            else:
                self._agent(change)
        except ClientError as error:  # which entry the service refused: its message names only the field
            error.add_note(f"while carrying out: {change}")
            raise
        self.done(change)

    def _agent(self, change: Change) -> None:
        portal, ws, agent, creates = self.portal, self.ws, self.creates.agent_id, self.creates
        match change:
            case CreateBrand(spec=spec, key=key):
                creates.brand(spec, key)
            case UpdateBrand(brand_id=brand_id, fields=fields):
                portal.update_brand(ws, brand_id, **fields)
            case CreateAgent(spec=spec, brand_id=brand_id, key=key):
                brand = creates.brand_id if brand_id == NEW_BRAND else brand_id
                creates.agent(spec.name, spec.slug, brand, key, behaviour=change.behaviour)
            case UpdateAgent(fields=fields):
                if fields.get("brand_id") == NEW_BRAND:
                    fields = fields | {"brand_id": creates.brand_id}
                if "behaviour" in fields:  # a field given as None (the default model) is sent as null
                    fields = fields | {"behaviour": BehaviourPatch(**fields["behaviour"])}
                portal.update_agent(ws, agent, **fields)
            case PutDocument(kind="wrap", document=document):
                portal.publish_wrap(ws, agent, document=document)
            case PutDocument(kind="site", document=document):
                portal.publish_site(ws, agent, document=document)
            case PutDocument(kind="suggestions", document=document):
                portal.update_workflow(ws, creates.workflow_id, suggestions=document)
            case _:
                raise TypeError(f"no way to carry out {change!r}")

    def _post(self, change: Change) -> None:
        portal, ws, agent, creates = self.portal, self.ws, self.creates.agent_id, self.creates
        match change:
            case CreatePost(spec=spec, key=key):
                creates.post(spec, key)
            case UpdatePost(post_id=post_id):
                portal.update_post(ws, agent, post_id, **with_pages(change.body()))
            case SetPostStatus(post_id=post_id, publish=True):
                portal.publish_post(ws, agent, post_id)
            case SetPostStatus(post_id=post_id, publish=False):
                portal.unpublish_post(ws, agent, post_id)

    def _answer(self, change: Change) -> None:
        portal, ws, agent, creates = self.portal, self.ws, self.creates.agent_id, self.creates
        match change:
            case CreateAnswer(spec=spec, key=key):
                creates.answer(spec, key)
            case UpdateAnswer(answer_id=answer_id, answer=answer):
                portal.update_answer(ws, agent, answer_id, answer=answer)
            case DeleteAnswer(answer_id=answer_id):
                _gone_is_fine(lambda: portal.delete_answer(ws, agent, answer_id))  # deleted meanwhile: as wanted

    def _item(self, change: Change) -> None:
        portal, ws, agent, creates = self.portal, self.ws, self.creates.agent_id, self.creates
        match change:
            case CreateItem(spec=spec, key=key):
                creates.item(spec, key)
            case UpdateItem(item_id=item_id, fields=fields):
                portal.update_item(ws, agent, item_id, **fields)
            case ReplaceItem(item_id=item_id, spec=spec, key=key):
                _gone_is_fine(lambda: portal.delete_item(ws, agent, item_id))
                creates.item(spec, key)


def _gone_is_fine(delete: Callable[[], Any]) -> None:
    """A replace's delete: already gone (a run interrupted after it) is what was wanted."""
    with contextlib.suppress(NotFoundError):
        delete()
