"""Posts (authoring.md, "Posts"): where a post is written, published, unpublished and deleted.

A post is a draft unless created with ``publish: true``. Publishing (at creation, by ``publish``, or an edit of a
published post's media) first checks that every media key it names (``key``, ``poster``, ``playable``, each page's
``key``) is an object under the agent's folder; then the store moves the post's row and copies in one
transaction (``write_store``), so the feed and its filtered views are exact after every write.
``mediaType`` and ``isVideo`` follow from ``kind`` and the pages, as the feed derives them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future
from datetime import UTC, datetime
from functools import partial
from typing import Any, Protocol

from core.audit.writes import Author, Write, Writes, until_unchanged
from core.objects.ports import BucketObjects
from core.platform import together
from core.platform.envelopes import Empty
from core.platform.errors import ValidationFailed
from core.platform.ids import iso, new_id, now_iso
from core.platform.write_fields import changes
from core.posts.feed import to_feed_post
from core.posts.models import FeedPage
from core.posts.pages import merged_page
from core.posts.ports import StoredPosts
from core.posts.records import PostRecord
from core.posts.writer_models import Post, PostCreate, PostEnvelope, PostFields, PostPage, PostQuery, PostUpdate
from core.workspaces.access import AuthoringAccess, found


def post_view(record: PostRecord) -> Post:
    status = "published" if record.published else "draft"
    return Post.from_record(to_feed_post(record), status=status, updated_at=record.updated_at or record.created_at)


class _Page(Protocol):
    @property
    def key(self) -> str: ...


class _NamesMedia(Protocol):
    """A stored post or a request's fields: what names objects."""

    @property
    def key(self) -> str | None: ...
    @property
    def poster(self) -> str | None: ...
    @property
    def playable(self) -> str | None: ...
    @property
    def pages(self) -> Sequence[_Page] | None: ...


def media_keys(post: _NamesMedia) -> dict[str, str]:
    """Every object a post names, by the field that names it (``pages.2.key``); empty ones name nothing."""
    named = {"key": post.key, "poster": post.poster, "playable": post.playable}
    named |= {f"pages.{n}.key": page.key for n, page in enumerate(post.pages or [])}
    return {field: key for field, key in named.items() if key}


class PostService:
    def __init__(
        self,
        access: AuthoringAccess,
        posts: StoredPosts,
        objects: BucketObjects,
        writes: Writes,
        notify: Callable[[str, str], None],
    ):
        self._access = access
        self._posts = posts
        self._objects = objects
        self._writes = writes
        self._notify = notify  # what the agent knows holds its published posts (core.platform.jobs.reread_agent)

    def list(self, user_id: str, workspace_id: str, agent_id: str, query: PostQuery) -> PostPage:
        """Newest first, drafts and published together unless ``status`` says one: the access check (with the
        agent, the tenant check) and the page's reads go out together; the page is used only after the check."""
        return merged_page(
            lambda: self._access.member(user_id, workspace_id, agent_id),
            lambda published, after: self._posts.rows(agent_id, published=published, limit=query.limit, after=after),
            query, post_view,
        )  # fmt: skip

    def create(self, author: Author, workspace_id: str, agent_id: str, request: PostCreate) -> PostEnvelope:
        # The objects a published post names are looked up beside the access check, used only once it passed.
        named = media_keys(request) if request.publish else {}
        access, *heads = together.run(
            lambda: self._access.agent_writer(author.user_id, workspace_id, agent_id),
            *self._lookups(workspace_id, agent_id, named),
        )
        access.result()
        now = now_iso()
        blank = PostRecord(id=new_id("post"), agent_id=agent_id, key=request.key, kind=request.kind,
                           published=bool(request.publish), created_at=now, updated_at=now)  # fmt: skip
        post = _applied(blank, request)

        def work(write: Write) -> PostEnvelope:  # not run for a retry: it replays the first answer
            _refuse_missing(agent_id, named, heads)
            answer = PostEnvelope(post=post_view(post))
            self._posts.create(workspace_id, post, also=write.also(f"post:{post.id}", answer))
            if post.published:
                self._notify(workspace_id, agent_id)
            return answer

        return self._writes.run(author, workspace_id, "post.create", on=agent_id, request=request,
                                answer=PostEnvelope, work=work)  # fmt: skip

    def update(
        self, author: Author, workspace_id: str, agent_id: str, post_id: str, request: PostUpdate
    ) -> PostEnvelope:
        return self._change(author, workspace_id, agent_id, post_id, action="post.update", request=request,
                            change=lambda old: _applied(old, request))  # fmt: skip

    def set_published(
        self, author: Author, workspace_id: str, agent_id: str, post_id: str, *, published: bool
    ) -> PostEnvelope:
        """Publish or unpublish; a post already so is answered as it is, only its audit entry written."""
        action = "post.publish" if published else "post.unpublish"
        return self._change(author, workspace_id, agent_id, post_id, action=action, request=None,
                            change=lambda old: old.model_copy(update={"published": published}))  # fmt: skip

    def delete(self, author: Author, workspace_id: str, agent_id: str, post_id: str) -> Empty:
        _, read = together.checked_then_read(
            lambda: self._access.agent_writer(author.user_id, workspace_id, agent_id),
            lambda: self._posts.get(agent_id, post_id),
        )

        def work(write: Write) -> Empty:
            def attempt() -> None:
                post = found(read(), "Post")
                self._posts.delete(workspace_id, post, also=write.also(f"post:{post_id}", Empty()))
                if post.published:
                    self._notify(workspace_id, agent_id)

            until_unchanged(attempt)
            return Empty()

        return self._writes.run(author, workspace_id, "post.delete", on=post_id, request=None, answer=Empty,
                                work=work)  # fmt: skip

    def _change(
        self, author: Author, workspace_id: str, agent_id: str, post_id: str, *, action: str,
        request: PostUpdate | None, change: Callable[[PostRecord], PostRecord],
    ) -> PostEnvelope:  # fmt: skip
        """Apply ``change`` to the post as read (again, while another write moves it first) and store it."""
        _, read = together.checked_then_read(
            lambda: self._access.agent_writer(author.user_id, workspace_id, agent_id),
            lambda: self._posts.get(agent_id, post_id),
        )

        def work(write: Write) -> PostEnvelope:
            def attempt() -> PostRecord:
                old = found(read(), "Post")
                new = change(old)
                if new == old:
                    return write.unchanged(f"post:{post_id}", PostEnvelope(post=post_view(old)), old)
                new = new.model_copy(update={"updated_at": now_iso()})
                # Publishing checks every key; a published post's edit, the keys it changes.
                fresh = media_keys(new).items() - (media_keys(old).items() if old.published else set())
                if new.published and fresh:
                    self._check_media(workspace_id, new, dict(fresh))
                also = write.also(f"post:{post_id}", PostEnvelope(post=post_view(new)))
                stored = self._posts.replace(workspace_id, old, new, also=also)
                if old.published or new.published:
                    self._notify(workspace_id, agent_id)
                return stored

            return PostEnvelope(post=post_view(until_unchanged(attempt)))

        return self._writes.run(author, workspace_id, action, on=post_id, request=request, answer=PostEnvelope,
                                work=work)  # fmt: skip

    def _check_media(self, workspace_id: str, post: PostRecord, named: dict[str, str]) -> None:
        """400 naming the first field whose key is no object under ``projects/<agentId>/`` (looked up together)."""
        _refuse_missing(post.agent_id, named, together.run(*self._lookups(workspace_id, post.agent_id, named)))

    def _lookups(self, workspace_id: str, agent_id: str, named: dict[str, str]) -> Sequence[Callable[[], Any]]:
        """One HeadObject per distinct key (a video's ``key`` and ``playable`` may be one object)."""
        root = f"workspaces/{workspace_id}/projects/{agent_id}/"
        return [partial(self._objects.head, root + key) for key in dict.fromkeys(named.values())]


def _refuse_missing(agent_id: str, named: dict[str, str], heads: Sequence[Future[Any]]) -> None:
    """400 naming the first field whose key ``_lookups`` found no object for."""
    found = {key: head.result() is not None for key, head in zip(dict.fromkeys(named.values()), heads, strict=True)}
    for field, key in named.items():
        if not found[key]:
            raise ValidationFailed(f"{field}: no object projects/{agent_id}/{key} (upload it before publishing)")


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
