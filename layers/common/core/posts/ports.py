"""The posts' storage interfaces: one ``Protocol`` per store its services use, holding only what they call.

The stores satisfy them structurally, without inheriting: mypy checks that where ``providers.py`` wires
them, and a test can hand a service a small fake that mypy checks too."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from core.platform.transactions import Also
    from core.posts.records import PostRecord


class StoredPosts(Protocol):
    def get(self, agent_id: str, post_id: str) -> PostRecord | None: ...
    def rows(
        self, agent_id: str, *, published: bool, limit: int, after: str | None
    ) -> tuple[list[tuple[str, PostRecord]], bool]: ...
    def create(self, workspace_id: str, post: PostRecord, *, also: Also) -> None: ...
    def replace(self, workspace_id: str, old: PostRecord, new: PostRecord, *, also: Also) -> PostRecord: ...
    def delete(self, workspace_id: str, post: PostRecord, *, also: Also) -> None: ...
