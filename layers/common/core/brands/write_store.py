"""Brands, and the workspace's one default brand.

The default is said twice, by the workspace's ``defaultBrandId`` and by the brands' ``isDefault``; every write that
moves it changes the workspace and both brands in one transaction, conditioned on the default it read, so exactly
one brand is the default whatever runs at the same time (``core.workspaces.default_brand``). A brand an agent names
(its ``agentCount``, moved by the agents' own transactions) or the default one is never deleted: both are
conditions of the deleting transaction.
"""

from __future__ import annotations

from typing import Any

from core.brands.records import BrandRecord
from core.platform import main_table as keys
from core.platform.dynamo import get_item
from core.platform.errors import Conflict
from core.platform.transactions import IN_PROGRESS, NEW, Also, Changed, Transaction
from core.platform.versions import NOT_IN_USE, unchanged_since, update_fields, versioned
from core.workspaces.default_brand import move_default_brand

DEFAULT_MOVED = Conflict("The workspace's default brand changed while this request was applied; try again")


def _slug_taken() -> Conflict:
    return Conflict("slug: another brand of this workspace has it")


class BrandStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def get(self, workspace_id: str, brand_id: str) -> BrandRecord | None:
        found = get_item(self._db, self._table, keys.brand(workspace_id, brand_id), consistent=True)
        return BrandRecord.model_validate(found) if found else None

    def create(self, brand: BrandRecord, *, default_was: str | None, also: Also) -> None:
        """A new brand and its slug claim; ``default_was``: the default it replaces, when it is the new default."""
        ws = brand.workspace_id
        tx = Transaction(self._table)
        tx.put(keys.brand(ws, brand.id) | brand.attributes(), condition=NEW)
        tx.put(keys.brand_slug_claim(ws, brand.slug) | {"brandId": brand.id}, condition=NEW, name="slug")
        if default_was is not None:
            move_default_brand(tx, ws, default_was, brand.id)
        tx.carry(also).commit_or_raise(self._db, {"slug": _slug_taken(), "default": DEFAULT_MOVED})

    def update(self, old: BrandRecord, new: BrandRecord, *, default_was: str | None, also: Also) -> BrandRecord:
        """Its fields, if it is still as ``old`` was read; ``default_was``: the default it replaces, when ``new``
        becomes the default (a brand stops being the default only when another becomes it)."""
        ws, stored = old.workspace_id, versioned(old.version, new)
        tx = Transaction(self._table)
        update_fields(tx, keys.brand(ws, old.id), {
            "name": stored.name, "slug": stored.slug, "palette": stored.palette, "fontFamily": stored.font_family,
            "isDefault": stored.is_default, "updatedAt": stored.updated_at,
        }, old.version)  # fmt: skip
        if old.slug != stored.slug:
            tx.delete(keys.brand_slug_claim(ws, old.slug))
            tx.put(keys.brand_slug_claim(ws, stored.slug) | {"brandId": old.id}, condition=NEW, name="slug")
        if default_was is not None:
            move_default_brand(tx, ws, default_was, old.id)
        tx.carry(also).commit_or_raise(self._db, {
            "changed": Changed("The brand changed while this request was applied; read it again"),
            "slug": _slug_taken(), "default": DEFAULT_MOVED,
        })  # fmt: skip
        return stored

    def delete(self, brand: BrandRecord, *, also: Also) -> None:
        """Only if the brand is still as read (``Changed`` otherwise: the slug claim it frees is the one read) and no
        agent uses it; one step says both, so a refusal is told apart by reading the brand again."""
        ws = brand.workspace_id
        tx = Transaction(self._table)
        tx.delete(keys.brand(ws, brand.id), condition=f"{unchanged_since(brand.version)} AND ({NOT_IN_USE})",
                  values={":zero": 0, ":seen": brand.version}, name="in-use")  # fmt: skip
        tx.delete(keys.brand_slug_claim(ws, brand.slug))
        tx.check(keys.workspace(ws), "defaultBrandId <> :id", values={":id": brand.id}, name="default")
        failed = tx.carry(also).commit(self._db)
        if failed == "in-use" and (now := self.get(ws, brand.id)) is not None and now.version == brand.version:
            raise Conflict("An agent uses this brand: point its agents at another brand first")
        if failed is not None:
            raise {
                "in-use": Changed("The brand changed while this request was applied; read it again"),
                "default": Conflict("This is the workspace's default brand: make another brand the default first"),
                "completion": Conflict(IN_PROGRESS),
            }[failed]
