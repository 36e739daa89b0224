"""The brands' writer (authoring.md): request bodies and queries (strict: unknown fields refused, ``null`` is
absent), and the resources an owner reads back, with their envelopes."""

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
