"""The agents' wire models (service-api.md, "Resources and their fields"), as both planes send them."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from core.brands.models import BrandRef
from core.platform.models import ApiModel


class AgentMetadata(ApiModel):
    id: str
    slug: str
    name: str
    brand: BrandRef
    active_workflow_id: str


class WrapConfig(ApiModel):
    """Published presentation config. Known fields are typed; anything else is kept."""

    model_config = ApiModel.model_config | {"extra": "allow"}

    layout: str = "chat"
    greeting: str = ""
    theme: dict[str, Any] = Field(default_factory=dict)


class SiteConfig(ApiModel):
    model_config = ApiModel.model_config | {"extra": "allow"}

    pages: list[Any] = Field(default_factory=list)
    nav: list[Any] = Field(default_factory=list)
    sections: list[Any] = Field(default_factory=list)


class Suggestions(ApiModel):
    suggestions: list[Any] = Field(default_factory=list)
