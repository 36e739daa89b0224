"""Base class of every wire model: snake_case in Python, the spec's camelCase on the wire."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class ApiModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    def wire(self) -> dict[str, Any]:
        """The JSON body for this model: aliases, and every field present (``None`` → null)."""
        return self.model_dump(mode="json", by_alias=True)
