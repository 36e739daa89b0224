"""One pydantic class per component schema (snake_case attributes, the wire's camelCase as aliases)."""

from __future__ import annotations

from typing import Any

from .schema import HEADER, annotation, camel, docstring, operations, ref_name, snake, success_content


def model_class(name: str, schema: dict[str, Any]) -> str:
    if schema.get("type") != "object":
        raise SystemExit(f"component {name}: only object schemas are supported")
    out = f"class {name}(ApiModel):\n" + docstring(schema.get("description"), "    ")
    required = set(schema.get("required", []))
    fields = schema.get("properties", {})
    for wire, prop in fields.items():
        python_type = annotation(prop)
        if wire not in required:
            default = repr(prop["default"]) if "default" in prop else "None"
            python_type = python_type if "default" in prop or "None" in python_type else f"{python_type} | None"
            out += f"    {snake(wire)}: {python_type} = Field({default}, alias={wire!r})\n"
        else:
            out += f"    {snake(wire)}: {python_type} = Field(alias={wire!r})\n"
    if not fields:
        out += "    pass\n"
    return out


def render_models(plane: str, document: dict[str, Any]) -> str:
    schemas = document["components"]["schemas"]
    classes = [model_class(name, schema) for name, schema in sorted(schemas.items())]
    unions = []
    for operation in operations(document):
        for media in success_content(operation).values():
            one_of = (media.get("schema") or {}).get("oneOf")
            if one_of:  # a stream of events (chat's NDJSON): a union discriminated by their "type"
                union_name = f"{camel(operation['operationId'])}Event"
                members = " | ".join(ref_name(option["$ref"]) for option in one_of)
                unions.append(f'{union_name} = Annotated[{members}, Field(discriminator="type")]\n')
    return (
        HEADER.format(plane=plane)
        + "from __future__ import annotations\n\nfrom typing import Annotated, Any, Literal\n\n"
        + "from pydantic import Field\n\nfrom .._model import ApiModel\n\n\n"
        + "\n\n".join(classes)
        + ("\n\n" + "\n".join(unions) if unions else "")
        + "\n\n"
        + "".join(f"{name}.model_rebuild()\n" for name in sorted(schemas))
    )
