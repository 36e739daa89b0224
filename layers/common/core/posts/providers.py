"""The posts' provider: the writer's service on its store, checking the objects a post names."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.platform import aws
from core.platform.providers import per_container
from core.platform.settings import get_settings

if TYPE_CHECKING:
    from core.posts.writer import PostService


@per_container
def writer() -> PostService:
    from core.audit import providers as audit
    from core.objects import providers as objects
    from core.platform import jobs
    from core.posts.write_store import PostStore
    from core.posts.writer import PostService
    from core.workspaces import providers as workspaces

    store = PostStore(aws.dynamodb(), get_settings().main_table)
    return PostService(workspaces.access(), store, objects.write_store(), audit.writes(), jobs.reread_agent)
