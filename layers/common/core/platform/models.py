"""Base classes of the wire models: snake_case in Python, the spec's camelCase on the wire."""

from __future__ import annotations

from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict, model_validator
from pydantic.alias_generators import to_camel


class ApiModel(BaseModel):
    # defer_build: a handler pays for the schemas of the models it uses, at first use, not for all at import.
    model_config = ConfigDict(
        alias_generator=to_camel, validate_by_name=True, validate_by_alias=True, extra="forbid", defer_build=True
    )

    def wire(self) -> dict[str, Any]:
        """The JSON body for this model: aliases, and every field present (``None`` → null)."""
        return self.model_dump(mode="json", by_alias=True)

    @classmethod
    def from_record(cls, record: BaseModel, **more: Any) -> Self:
        """The wire view of a storage record: the fields they share (records use the same names), plus ``more``
        for the fields the view derives or renames. The one way a record becomes a wire model."""
        return cls.model_validate(record.model_dump(include=set(cls.model_fields) - more.keys()) | more)


class RequestModel(ApiModel):
    """A request body: strict types, unknown fields refused (a typo is a 400, not silently ignored).

    Only the wire (camelCase) names are accepted: ``rate_limit`` is an unknown field, not an alias.
    An explicit ``null`` for an optional field means the field is absent (its default applies), on every
    request model alike: responses use ``null`` for "no value", so a client echoing one back is not refused.
    A required field is never satisfied by ``null``. A PATCH body names in ``clearable`` the fields whose ``null``
    clears the stored value instead (authoring.md: a post's ``title``, ``sub``, ...): those stay in the fields sent.
    """

    model_config = ApiModel.model_config | {"strict": True, "str_strip_whitespace": True, "validate_by_name": False}
    clearable: ClassVar[frozenset[str]] = frozenset()

    @model_validator(mode="before")
    @classmethod
    def _null_is_absent(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        optional = {
            field.alias or name
            for name, field in cls.model_fields.items()
            if not field.is_required() and name not in cls.clearable
        }
        return {key: value for key, value in data.items() if value is not None or key not in optional}
