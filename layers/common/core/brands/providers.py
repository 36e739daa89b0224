"""The brands' providers: the members' list of brands, the writer's service on its store, and the workspace's
creation with the default brand this package builds (workspaces cannot import brands: brands check access there)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.platform import aws
from core.platform.providers import per_container
from core.platform.settings import get_settings

if TYPE_CHECKING:
    from core.brands.reader import BrandReader
    from core.brands.writer import BrandService
    from core.workspaces.create import WorkspaceCreation


@per_container
def writer() -> BrandService:
    from core.audit import providers as audit
    from core.brands.write_store import BrandStore
    from core.brands.writer import BrandService
    from core.workspaces import providers as workspaces

    return BrandService(workspaces.access(), BrandStore(aws.dynamodb(), get_settings().main_table), audit.writes())


@per_container
def reader() -> BrandReader:
    from core.brands.reader import BrandReader
    from core.brands.store import BrandReadStore
    from core.workspaces import providers as workspaces

    return BrandReader(workspaces.service(), BrandReadStore(aws.dynamodb(), get_settings().main_table))


@per_container
def workspace_creation() -> WorkspaceCreation:
    """``POST /api/workspaces``: a workspace is created with its default brand (``brands.records.default_brand``)
    in one transaction."""
    from core.brands.records import default_brand
    from core.platform import providers as platform
    from core.workspaces import providers as workspaces
    from core.workspaces.create import WorkspaceCreation

    return WorkspaceCreation(workspaces.service(), workspaces.store(), default_brand, plan_of=workspaces.plan_of,
                             idempotency=platform.idempotency)  # fmt: skip
