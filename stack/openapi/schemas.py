"""JSON Schemas for the documents, from the wire models themselves (pydantic), and the shared ``Error`` schema."""

from __future__ import annotations

import importlib
import re
import types
import typing
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaMode, JsonSchemaValue, models_json_schema

if TYPE_CHECKING:  # core is imported when a document is built, once the layer is on the path
    from pydantic._internal._dataclasses import PydanticDataclass  # where pydantic's own signatures take it from

    from core.platform.errors import DomainError

REF = "#/components/schemas/{model}"

# models_json_schema's refs: by the model (or pydantic dataclass) and the mode it was rendered for
Refs = dict[tuple["type[BaseModel] | type[PydanticDataclass]", JsonSchemaMode], JsonSchemaValue]


class WireSchema(GenerateJsonSchema):
    """Responses carry every field, ``null`` included (decisions.md: never an omitted key), so all are required."""

    def field_is_required(self, field: Any, total: bool) -> bool:
        return True if self.mode == "serialization" else super().field_is_required(field, total)

    def default_schema(self, schema: Any) -> dict[str, Any]:
        """A request's optional field also takes ``null``: every request model reads it as absent (models/base.py)."""
        json_schema = super().default_schema(schema)
        if self.mode != "validation" or _allows_null(json_schema):
            return json_schema
        kept: dict[str, Any] = {k: json_schema.pop(k) for k in ("default", "title", "description") if k in json_schema}
        return {"anyOf": [json_schema, {"type": "null"}], **kept}


def _allows_null(json_schema: dict[str, Any]) -> bool:
    return json_schema.get("type") == "null" or any(b.get("type") == "null" for b in json_schema.get("anyOf", ()))


def resolve(reference: Any) -> Any:
    """A model named by a string in a contract (``"keys.models.KeyList"``, under ``core``) or the model itself."""
    if isinstance(reference, str):
        module, _, name = reference.rpartition(".")
        return getattr(importlib.import_module(f"core.{module}"), name)
    return reference


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    annotation = resolve(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]


class SchemaSet:
    """Collects (model, mode) pairs, then renders them as components in one pass (shared definitions, stable names)."""

    def __init__(self) -> None:
        self._wanted: dict[tuple[type[BaseModel], JsonSchemaMode], None] = {}

    def want(self, annotation: Any, mode: JsonSchemaMode) -> None:
        for model in _models_in(annotation):
            self._wanted[(model, mode)] = None

    def render(self) -> tuple[Refs, dict[str, Any]]:
        keys = sorted(self._wanted, key=lambda key: (key[0].__module__, key[0].__qualname__, key[1]))
        refs, defs = models_json_schema(keys, by_alias=True, ref_template=REF, schema_generator=WireSchema)
        return refs, defs.get("$defs", {})


def schema_of(annotation: Any, refs: Refs, mode: JsonSchemaMode) -> dict[str, Any]:
    """The schema of a contract's response: a model, ``list[Model]``, or a union of models (``oneOf``)."""
    annotation = resolve(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return refs[(annotation, mode)]
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is list:
        return {"type": "array", "items": schema_of(args[0], refs, mode)}
    if origin in (typing.Union, types.UnionType):
        return {"oneOf": [schema_of(arg, refs, mode) for arg in args]}
    raise TypeError(f"cannot document {annotation!r}: use a model, list[Model] or a union of models")


def query_parameters(model: Any) -> list[dict[str, Any]]:
    """One ``in: query`` parameter per field of a query model, with the field's own constraints."""
    schema = resolve(model).model_json_schema(by_alias=True, mode="validation")
    required = set(schema.get("required", ()))
    params = []
    for name, declared in schema["properties"].items():
        prop = {k: v for k, v in declared.items() if k != "title"}
        branches = [b for b in prop.pop("anyOf", []) if b.get("type") != "null"]  # an absent parameter is the null
        if branches:
            prop = (branches[0] if len(branches) == 1 else {"anyOf": branches}) | prop
        if prop.get("default", 0) is None:
            prop.pop("default")
        description = prop.pop("description", None)
        param = {"name": name, "in": "query", "required": name in required, "schema": prop}
        params.append(param | ({"description": description} if description else {}))
    return params


def domain_errors() -> list[type[DomainError]]:
    """Every ``DomainError`` class the service defines (handlers imported first, so repositories' own are seen)."""
    from core.platform.errors import DomainError

    found: list[type[DomainError]] = []
    todo: list[type[DomainError]] = [DomainError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def error_schema(gateway_codes: set[str]) -> dict[str, Any]:
    """``{error, code}``: ``code`` is one of the application's codes or of the API's gateway responses."""
    codes = sorted({cls.code for cls in domain_errors()} | gateway_codes)
    return {
        "type": "object",
        "description": "Every error: a message for a person and a stable UPPER_SNAKE code for programs.",
        "properties": {"error": {"type": "string"}, "code": {"type": "string", "enum": codes}},
        "required": ["error", "code"],
        "additionalProperties": False,
    }


def gateway_codes(api_properties: dict[str, Any]) -> set[str]:
    """Codes written by the API's ``GatewayResponses`` templates (answers API Gateway gives without a function)."""
    found: set[str] = set()
    for response in api_properties.get("GatewayResponses", {}).values():
        for template in response.get("ResponseTemplates", {}).values():
            found.update(re.findall(r'"code"\s*:\s*"([A-Z_]+)"', str(template)))
    return found
