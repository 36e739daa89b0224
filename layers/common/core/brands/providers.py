"""The brands' providers: the members' list of brands and the writer's service on its store."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.platform import aws
from core.platform.providers import per_container
from core.platform.settings import get_settings

if TYPE_CHECKING:
    from core.brands.reader import BrandReader
    from core.brands.writer import BrandService


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
