"""The writer's providers (management plane): one service per resource of authoring.md, each on its store.

"Where is a post published": a handler calls ``deps.posts()``, built here on ``services.authoring.posts`` and
``repositories.authoring.posts``. Every service shares the one access check and the one ``Writes`` (the
Idempotency-Key and the audit entry of each write).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core import aws, deps
from core.deps.registry import per_container
from core.settings import get_settings

if TYPE_CHECKING:  # each accessor imports what it builds: a function loads the services it uses, no others
    from core.services.authoring.access import AuthoringAccess
    from core.services.authoring.agents import AgentService
    from core.services.authoring.brands import BrandService
    from core.services.authoring.items import ItemService
    from core.services.authoring.objects import ObjectService
    from core.services.authoring.posts import PostService
    from core.services.authoring.uploads import UploadService
    from core.services.authoring.workflows import WorkflowService
    from core.services.authoring.workspace_settings import WorkspaceSettingsService
    from core.services.authoring.writes import Writes


def _main() -> tuple[object, str]:
    return aws.dynamodb(), get_settings().main_table


@per_container
def authoring_access() -> AuthoringAccess:
    from core.services.authoring.access import AuthoringAccess

    return AuthoringAccess(deps.workspaces(), deps.plan_of)


@per_container
def writes() -> Writes:
    from core.repositories.authoring.audit import AuditLog
    from core.services.authoring.writes import Writes

    return Writes(deps.idempotency, AuditLog(*_main()))


@per_container
def workspace_settings() -> WorkspaceSettingsService:
    from core.repositories.authoring.workspaces import WorkspaceSettingsStore
    from core.services.authoring.workspace_settings import WorkspaceSettingsService

    return WorkspaceSettingsService(
        deps.authoring_access(), deps.workspaces(), WorkspaceSettingsStore(*_main()), deps.writes()
    )


@per_container
def brands() -> BrandService:
    from core.repositories.authoring.brands import BrandStore
    from core.services.authoring.brands import BrandService

    return BrandService(deps.authoring_access(), BrandStore(*_main()), deps.writes())


@per_container
def workflows() -> WorkflowService:
    from core.repositories.authoring.workflows import WorkflowStore
    from core.services.authoring.workflows import WorkflowService

    return WorkflowService(deps.authoring_access(), WorkflowStore(*_main()), deps.writes())


@per_container
def agents() -> AgentService:
    from core.repositories.authoring.agents import AgentStore
    from core.repositories.purge import PurgeRepository
    from core.services.authoring.agents import AgentService

    return AgentService(
        deps.authoring_access(), AgentStore(*_main()), PurgeRepository(*_main()), deps.writes(), deps.enqueue_purge
    )


@per_container
def posts() -> PostService:
    from core.repositories.authoring.objects import ObjectStore
    from core.repositories.authoring.posts import PostStore
    from core.services.authoring.posts import PostService

    objects = ObjectStore(aws.s3(), get_settings().content_bucket)
    return PostService(deps.authoring_access(), PostStore(*_main()), objects, deps.writes())


@per_container
def items() -> ItemService:
    from core.repositories.authoring.items import ItemStore
    from core.repositories.authoring.objects import ObjectStore
    from core.services.authoring.items import ItemService

    objects = ObjectStore(aws.s3(), get_settings().content_bucket)
    return ItemService(deps.authoring_access(), ItemStore(*_main()), objects, deps.writes())


@per_container
def uploads() -> UploadService:
    from core.repositories.authoring.objects import ObjectStore
    from core.repositories.authoring.uploads import UploadLedger
    from core.services.authoring.uploads import UploadService

    settings = get_settings()
    objects = ObjectStore(aws.s3(), settings.content_bucket)
    return UploadService(deps.authoring_access(), objects, UploadLedger(*_main()), deps.writes(),
                         url_seconds=settings.upload_url_seconds)  # fmt: skip


@per_container
def objects() -> ObjectService:
    from core.repositories.authoring.objects import ObjectStore
    from core.services.authoring.objects import ObjectService

    store = ObjectStore(aws.s3(), get_settings().content_bucket)
    return ObjectService(deps.authoring_access(), store, deps.writes())
