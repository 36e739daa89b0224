"""Base class of every wire model: snake_case in Python, the spec's camelCase on the wire."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class ApiModel(BaseModel):
    # defer_build: a handler pays for the schemas of the models it uses, at first use, not for all at import.
    model_config = ConfigDict(
        alias_generator=to_camel, validate_by_name=True, validate_by_alias=True, extra="forbid", defer_build=True
    )

    def wire(self) -> dict[str, Any]:
        """The JSON body for this model: aliases, and every field present (``None`` → null)."""
        return self.model_dump(mode="json", by_alias=True)
