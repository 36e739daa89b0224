"""Posts (authoring.md, "Posts"): where a post is written, published, unpublished and deleted.

A post is a draft unless created with ``publish: true``. Publishing (at creation, by ``publish``, or an edit of a
published post's media) first checks that every media key it names (``key``, ``poster``, ``playable``, each page's
``key``) is an object under the agent's folder; then the repository moves the post's row and copies in one
transaction (``repositories.authoring.posts``), so the feed and its filtered views are exact after every write.
``mediaType`` and ``isVideo`` follow from ``kind`` and the pages, as the feed derives them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from ...errors import NotFound, ValidationFailed
from ...ids import iso, new_id, now_iso
from ...models.authoring.requests import PostCreate, PostFields, PostQuery, PostUpdate, changes
from ...models.authoring.resources import Post, PostPage
from ...models.read_plane import FeedPage
from ...models.records import PostRecord
from .. import together
from ..read_plane import to_feed_post
from . import ports
from .access import AuthoringAccess
from .post_pages import merged_page
from .writes import Author, Write, Writes, until_unchanged


def post_view(record: PostRecord) -> Post:
    status = "published" if record.published else "draft"
    return Post.from_record(to_feed_post(record), status=status, updated_at=record.updated_at or record.created_at)


def media_keys(post: PostRecord) -> dict[str, str]:
    """Every object a post names, by the field that names it (``pages.2.key``); empty ones name nothing."""
    named = {"key": post.key, "poster": post.poster, "playable": post.playable}
    named |= {f"pages.{n}.key": page.key for n, page in enumerate(post.pages)}
    return {field: key for field, key in named.items() if key}


class PostService:
    def __init__(self, access: AuthoringAccess, posts: ports.PostStore, objects: ports.ObjectStore, writes: Writes):
        self._access = access
        self._posts = posts
        self._objects = objects
        self._writes = writes

    def list(self, user_id: str, workspace_id: str, agent_id: str, query: PostQuery) -> PostPage:
        """Newest first, drafts and published together unless ``status`` says one: the access check (with the
        agent, the tenant check) and the page's reads go out together; the page is used only after the check."""
        return merged_page(
            lambda: self._access.member(user_id, workspace_id, agent_id),
            lambda published, after: self._posts.rows(agent_id, published=published, limit=query.limit, after=after),
            query, post_view,
        )  # fmt: skip

    def create(self, author: Author, workspace_id: str, agent_id: str, request: PostCreate) -> tuple[int, Any]:
        self._access.agent_writer(author.user_id, workspace_id, agent_id)
        now = now_iso()
        blank = PostRecord(id=new_id("post"), agent_id=agent_id, key=request.key, kind=request.kind,
                           published=bool(request.publish), created_at=now, updated_at=now)  # fmt: skip
        post = _applied(blank, request)

        def work(write: Write) -> tuple[int, Any]:  # not run for a retry: it replays the first answer
            if post.published:
                self._check_media(workspace_id, post, media_keys(post))
            body = {"post": post_view(post).wire()}
            self._posts.create(workspace_id, post, also=write.also(f"post:{post.id}", 201, body))
            return 201, body

        return self._writes.run(author, workspace_id, "post.create", on=agent_id, request=request,
                                work=work)  # fmt: skip

    def update(
        self, author: Author, workspace_id: str, agent_id: str, post_id: str, request: PostUpdate
    ) -> tuple[int, Any]:
        return self._change(author, workspace_id, agent_id, post_id, action="post.update", request=request,
                            change=lambda old: _applied(old, request))  # fmt: skip

    def set_published(
        self, author: Author, workspace_id: str, agent_id: str, post_id: str, *, published: bool
    ) -> tuple[int, Any]:
        """Publish or unpublish; a post already so is answered as it is, with nothing written (idempotent)."""
        action = "post.publish" if published else "post.unpublish"
        return self._change(author, workspace_id, agent_id, post_id, action=action, request=None,
                            change=lambda old: old.model_copy(update={"published": published}))  # fmt: skip

    def delete(self, author: Author, workspace_id: str, agent_id: str, post_id: str) -> tuple[int, Any]:
        self._access.agent_writer(author.user_id, workspace_id, agent_id)

        def work(write: Write) -> tuple[int, Any]:
            def attempt() -> None:
                post = self._found(agent_id, post_id)
                self._posts.delete(workspace_id, post, also=write.also(f"post:{post_id}", 200, {}))

            until_unchanged(attempt)
            return 200, {}

        return self._writes.run(author, workspace_id, "post.delete", on=post_id, request=None,
                                work=work)  # fmt: skip

    def _change(
        self, author: Author, workspace_id: str, agent_id: str, post_id: str, *, action: str,
        request: PostUpdate | None, change: Callable[[PostRecord], PostRecord],
    ) -> tuple[int, Any]:  # fmt: skip
        """Apply ``change`` to the post as read (again, while another write moves it first) and store it."""
        access, first = together.run(
            lambda: self._access.agent_writer(author.user_id, workspace_id, agent_id),
            lambda: self._posts.get(agent_id, post_id),
        )
        access.result()
        reads = iter([first.result()])

        def work(write: Write) -> tuple[int, Any]:
            def attempt() -> PostRecord:
                old = next(reads, None) or self._found(agent_id, post_id)
                new = change(old)
                if new == old:
                    return write.unchanged(f"post:{post_id}", {"post": post_view(old).wire()}, old)
                new = new.model_copy(update={"updated_at": now_iso()})
                # Publishing checks every key; a published post's edit, the keys it changes.
                fresh = media_keys(new).items() - (media_keys(old).items() if old.published else set())
                if new.published and fresh:
                    self._check_media(workspace_id, new, dict(fresh))
                body = {"post": post_view(new).wire()}
                return self._posts.replace(workspace_id, old, new, also=write.also(f"post:{post_id}", 200, body))

            return 200, {"post": post_view(until_unchanged(attempt)).wire()}

        return self._writes.run(author, workspace_id, action, on=post_id, request=request,
                                work=work)  # fmt: skip

    def _found(self, agent_id: str, post_id: str) -> PostRecord:
        post = self._posts.get(agent_id, post_id)
        if post is None:
            raise NotFound("Post not found")
        return post

    def _check_media(self, workspace_id: str, post: PostRecord, named: dict[str, str]) -> None:
        """400 naming the first field whose key is no object under ``projects/<agentId>/`` (looked up together)."""
        folder = f"projects/{post.agent_id}/"
        fields, keys = list(named), list(named.values())
        heads = together.run(*[lambda k=k: self._objects.head(f"workspaces/{workspace_id}/{folder}{k}") for k in keys])
        for field, key, head in zip(fields, keys, heads, strict=True):
            if head.result() is None:
                raise ValidationFailed(f"{field}: no object {folder}{key} (upload it before publishing)")


def _applied(post: PostRecord, request: PostFields) -> PostRecord:
    """``post`` with the fields the request sent; ``mediaType`` must agree with what they make it."""
    wanted = changes(request)
    stated = wanted.pop("media_type", None)
    wanted.pop("publish", None)
    if "pages" in wanted:
        wanted["pages"] = [FeedPage.model_validate(page.model_dump()) for page in request.pages or []]
    if "channels" in wanted:
        wanted["channels"] = list(dict.fromkeys(wanted["channels"]))
    new = post.model_copy(update=wanted)
    if new.created_at > iso(datetime.now(UTC)):
        raise ValidationFailed("createdAt: must not be in the future")
    derived = to_feed_post(new).media_type
    if stated is not None and stated != derived:
        raise ValidationFailed(f"mediaType: a {new.kind} post's is {derived} (it follows from kind and pages)")
    return new
