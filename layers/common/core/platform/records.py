"""Storage records: what stores read from and write to DynamoDB.

Attribute names on disk are the same camelCase names the API uses, so a record
read from the table converts to its wire model without renaming. Key attributes
(``pk``, ``sk``, index keys) are the stores' business and never appear here.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class Record(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", defer_build=True)

    def attributes(self) -> dict[str, Any]:
        """Top-level ``None`` fields are omitted (so ``attribute_not_exists`` means unset); nested nulls are kept."""
        return {k: v for k, v in self.model_dump(mode="json", by_alias=True).items() if v is not None}
