"""The brands' wire models (service-api.md, "Resources and their fields"), as both planes send them."""

from __future__ import annotations

from pydantic import Field

from core.platform.fields import QueryInt
from core.platform.models import ApiModel
from core.platform.pages import PAGE
from core.platform.write_fields import ListQuery


class Brand(ApiModel):
    id: str
    slug: str
    name: str
    is_default: bool
    palette: list[str]
    font_family: str
    created_at: str
    updated_at: str


class BrandRef(ApiModel):
    id: str
    slug: str
    name: str


class BrandQuery(ListQuery):
    """A page of the brands' listing; its next page's cursor is the ``Next-Cursor`` header (the body is the bare
    array service-api.md fixes)."""

    limit: QueryInt = Field(PAGE, ge=1, le=PAGE)
    cursor: str | None = Field(None, min_length=1, max_length=512)
