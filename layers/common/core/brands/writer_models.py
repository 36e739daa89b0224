"""The resources an owner reads back from the management plane (authoring.md), and the envelopes around them."""

from __future__ import annotations

from typing import Annotated

from core.brands.models import Brand
from core.platform.models import ApiModel, RequestModel
from core.platform.write_fields import (
    Name,
    Palette,
    Slug,
    free_text_rules,
)


class BrandEnvelope(ApiModel):
    brand: Brand


class BrandCreate(RequestModel):
    name: Name
    slug: Slug | None = None
    palette: Palette | None = None
    font_family: Annotated[str, *free_text_rules(100)] | None = None
    is_default: bool | None = None


class BrandUpdate(RequestModel):
    name: Name | None = None
    slug: Slug | None = None
    palette: Palette | None = None
    font_family: Annotated[str, *free_text_rules(100)] | None = None
    is_default: bool | None = None
