"""The brands' storage records: the items its stores read and write (docs/data-model.md), in the API's camelCase."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from core.platform.ids import new_id
from core.platform.records import Record


class BrandRecord(Record):
    id: str
    workspace_id: str
    slug: str
    name: str
    is_default: bool = False
    palette: list[str] = Field(default_factory=list)
    font_family: str = ""
    agent_count: int = 0  # agents naming it: a brand in use is not deleted
    version: int = 0
    created_at: str
    updated_at: str


def default_brand(workspace_id: str, slug: str, name: str, at: str, fields: Mapping[str, Any]) -> BrandRecord:
    """The brand a new workspace is created with, in its creating transaction: the workspace's providers give this
    to ``core.workspaces.create``, so the brands package builds on workspaces and never the other way."""
    return BrandRecord(id=new_id("brd"), workspace_id=workspace_id, slug=slug, name=name, is_default=True,
                       created_at=at, updated_at=at, **fields)  # fmt: skip
