"""Brands (authoring.md, "Brands and workflows"): slugs unique in their workspace, exactly one default.

The default moves only to another brand (set ``isDefault`` on it, or the workspace's ``defaultBrandId``): turning
the default's flag off would leave none, so it is refused (409). The default brand, and a brand an agent uses,
are not deleted (409).
"""

from __future__ import annotations

from core.audit.writes import Author, Write, Writes, until_unchanged
from core.brands.models import Brand
from core.brands.ports import StoredBrands
from core.brands.records import BrandRecord
from core.brands.writer_models import BrandCreate, BrandEnvelope, BrandUpdate
from core.platform import together
from core.platform.envelopes import Empty
from core.platform.errors import Conflict
from core.platform.ids import new_id, now_iso
from core.platform.write_fields import changes
from core.workspaces.access import AuthoringAccess, found
from core.workspaces.create import slugify

KEEP_ONE_DEFAULT = "isDefault: a workspace always has a default brand: make another brand the default instead"


class BrandService:
    def __init__(self, access: AuthoringAccess, brands: StoredBrands, writes: Writes):
        self._access = access
        self._brands = brands
        self._writes = writes

    def create(self, author: Author, workspace_id: str, request: BrandCreate) -> BrandEnvelope:
        access, now = self._access.writer(author.user_id, workspace_id), now_iso()
        brand = BrandRecord(
            id=new_id("brd"), workspace_id=workspace_id, slug=request.slug or slugify(request.name, "brand"),
            name=request.name, is_default=bool(request.is_default), palette=request.palette or [],
            font_family=request.font_family or "", created_at=now, updated_at=now,
        )  # fmt: skip
        default_was = access.workspace.default_brand_id if brand.is_default else None

        def work(write: Write) -> BrandEnvelope:
            answer = BrandEnvelope(brand=Brand.from_record(brand))
            self._brands.create(brand, default_was=default_was, also=write.also(f"brand:{brand.id}", answer))
            return answer

        return self._writes.run(author, workspace_id, "brand.create", on=workspace_id, request=request,
                                answer=BrandEnvelope, work=work)  # fmt: skip

    def update(self, author: Author, workspace_id: str, brand_id: str, request: BrandUpdate) -> BrandEnvelope:
        access, read = together.checked_then_read(
            lambda: self._access.writer(author.user_id, workspace_id), lambda: self._brands.get(workspace_id, brand_id)
        )
        workspace, wanted = access.workspace, changes(request)

        def work(write: Write) -> BrandEnvelope:
            def attempt() -> BrandRecord:
                old = found(read(), "Brand")
                if old.is_default and wanted.get("is_default") is False:
                    raise Conflict(KEEP_ONE_DEFAULT)
                new = old.model_copy(update=wanted)
                if new == old:
                    return write.unchanged(f"brand:{brand_id}", BrandEnvelope(brand=Brand.from_record(old)), old)
                new = new.model_copy(update={"updated_at": now_iso()})
                default_was = workspace.default_brand_id if new.is_default and not old.is_default else None
                also = write.also(f"brand:{brand_id}", BrandEnvelope(brand=Brand.from_record(new)))
                return self._brands.update(old, new, default_was=default_was, also=also)

            return BrandEnvelope(brand=Brand.from_record(until_unchanged(attempt)))

        return self._writes.run(author, workspace_id, "brand.update", on=brand_id, request=request,
                                answer=BrandEnvelope, work=work)  # fmt: skip

    def delete(self, author: Author, workspace_id: str, brand_id: str) -> Empty:
        _, read = together.checked_then_read(
            lambda: self._access.writer(author.user_id, workspace_id), lambda: self._brands.get(workspace_id, brand_id)
        )

        def work(write: Write) -> Empty:
            def attempt() -> None:  # again while an edit changes the brand first (its slug claim, its flag)
                brand = found(read(), "Brand")
                self._brands.delete(brand, also=write.also(f"brand:{brand_id}", Empty()))

            until_unchanged(attempt)
            return Empty()

        return self._writes.run(author, workspace_id, "brand.delete", on=brand_id, request=None, answer=Empty,
                                work=work)  # fmt: skip
