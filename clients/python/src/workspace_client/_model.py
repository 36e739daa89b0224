"""The base of every generated model: the wire's camelCase names, snake_case attributes."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class ApiModel(BaseModel):
    """A document of the service, as its OpenAPI document describes it.

    Fields a newer service adds are kept (``extra="allow"``) rather than refused, so an older
    client keeps working; ``model_dump(by_alias=True)`` gives the wire form back.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=True, frozen=True)
