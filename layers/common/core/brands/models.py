"""The brands' wire models (service-api.md, "Resources and their fields"), as both planes send them."""

from __future__ import annotations

from core.platform.models import ApiModel


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
