"""Creating the agent, posts and items under the ``Idempotency-Key`` the plan derived for each, and making sure what
a create answered with still exists.

The service keeps a create's answer for 24 hours under its key (scoped to the caller, the action and the agent)
and replays it for the same key and body: that is what makes a re-run after a lost answer create nothing twice.
But a replayed answer may name something deleted since (a post deleted by hand, then published again from the
same bundle): so an agent is read back at once, and the posts and items created are looked for in the listing
afterwards. One that is gone is created again under a key derived from the first and the gone id, still the same
on every run, so that create is idempotent too.
"""

from __future__ import annotations

import threading
from typing import Any

from .._generated.models_portal import BehaviourPatch, PageInput
from ..errors import ConflictError, NotFoundError
from ..portal import Portal
from .format import AnswerSpec, BrandSpec, ItemSpec, PostSpec
from .plan import post_fields
from .state import all_answers, all_items, all_posts, folder

ROUNDS = 3  # creates replayed from a deleted one, in a row, before giving up (each one a deletion by hand)


def again(key: str, gone_id: str) -> str:
    return f"{key}-after-{gone_id}"[:255]


def with_pages(fields: dict[str, Any]) -> dict[str, Any]:
    """A post's fields as the generated client takes them (pages as ``PageInput``)."""
    if "pages" in fields:
        return fields | {"pages": [PageInput(**page) for page in fields["pages"]]}
    return fields


class Creates:
    def __init__(self, portal: Portal, workspace_id: str, agent_id: str | None, workflow_id: str | None):
        self.portal, self.ws = portal, workspace_id
        self.agent_id, self.workflow_id = agent_id or "", workflow_id or ""
        self.brand_id = ""  # the brand this run created (``NEW_BRAND`` of the plan)
        self._lock = threading.Lock()
        self._made: dict[str, tuple[bool, Any, str]] = {}  # id → (a post?, its entry, the key it was made with)
        self._answers: dict[str, tuple[AnswerSpec, str]] = {}  # id → (its entry, the key it was made with)

    def brand(self, spec: BrandSpec, key: str) -> None:
        """The brand, created; a brand of its slug made meanwhile (another bundle of the same brand, published
        alongside) is the one: the next publish makes its fields equal the bundle's."""
        body = spec.model_dump(exclude_none=True)
        for round_ in range(ROUNDS):
            try:
                brand = self.portal.create_brand(self.ws, **body, idempotency_key=key).brand
            except ConflictError:
                made = next((b for b in self.portal.every_brand(self.ws) if b.slug == spec.slug), None)
                if made is None:
                    raise
                brand = made
            if any(listed.id == brand.id for listed in self.portal.every_brand(self.ws)):
                self.brand_id = brand.id
                return
            if round_ == ROUNDS - 1:  # a replayed answer naming a brand deleted since, each time
                raise NotFoundError(404, "NOT_FOUND", f"brand {spec.slug} was deleted while being created")
            key = again(key, brand.id)

    def agent(self, name: str, slug: str, brand_id: str, key: str, *, behaviour: dict[str, Any] | None = None) -> None:
        """The agent, created (``behaviour``: the fields the bundle gives, snake_case; a None model is null)."""
        patch = None if behaviour is None else BehaviourPatch(**behaviour)
        for round_ in range(ROUNDS):
            agent = self.portal.create_agent(self.ws, name=name, slug=slug, brand_id=brand_id or None,
                                             behaviour=patch, idempotency_key=key).agent  # fmt: skip
            try:
                self.portal.get_agent(self.ws, agent.id)
            except NotFoundError:
                if round_ == ROUNDS - 1:
                    raise
                key = again(key, agent.id)
                continue
            self.agent_id, self.workflow_id = agent.id, agent.active_workflow_id
            return

    def post(self, spec: PostSpec, key: str) -> None:
        body = with_pages(post_fields(spec)) | {"created_at": spec.created_at, "publish": spec.status == "published"}
        post = self.portal.create_post(self.ws, self.agent_id, **body, idempotency_key=key).post
        with self._lock:
            self._made[post.id] = (True, spec, key)

    def item(self, spec: ItemSpec, key: str) -> None:
        item = self.portal.create_item(self.ws, self.agent_id, r2_key=folder(self.agent_id) + spec.file,
                                       **spec.model_dump(exclude={"file"}), idempotency_key=key).item  # fmt: skip
        with self._lock:
            self._made[item.id] = (False, spec, key)

    def answer(self, spec: AnswerSpec, key: str) -> None:
        made = self.portal.create_answer(self.ws, self.agent_id, question=spec.question, answer=spec.answer,
                                         idempotency_key=key).answer  # fmt: skip
        with self._lock:
            self._answers[made.id] = (spec, key)

    def confirm_answers(self) -> None:
        """Create again each answer made in this run that the listing lacks (a replayed answer deleted since)."""
        for _ in range(ROUNDS):
            made, self._answers = self._answers, {}
            if not made:
                return
            listed = {answer.id for answer in all_answers(self.portal, self.ws, self.agent_id)}
            for id_, (spec, key) in made.items():
                if id_ not in listed:
                    self.answer(spec, again(key, id_))

    def confirm(self, *, posts: bool) -> None:
        """Create again each post (or item) made in this run that the listing lacks."""
        for _ in range(ROUNDS):
            made = {id_: entry for id_, entry in self._made.items() if entry[0] == posts}
            if not made:
                return
            self._made = {id_: entry for id_, entry in self._made.items() if entry[0] != posts}
            if posts:
                listed = {post.id for post in all_posts(self.portal, self.ws, self.agent_id)}
            else:
                listed = {item.id for item in all_items(self.portal, self.ws, self.agent_id)}
            for id_, (_, spec, key) in made.items():
                if id_ not in listed:
                    (self.post if posts else self.item)(spec, again(key, id_))
