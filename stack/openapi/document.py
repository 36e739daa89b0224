"""One plane's OpenAPI 3.1 document, built from its operations (template routes + handler contracts)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from stack.openapi.catalog import (
    HEADERS,
    RATE_HEADERS,
    REQUEST_HEADERS,
    SECURITY,
    SECURITY_SCHEMES,
    gateway_limits,
    plane_errors,
)
from stack.openapi.contracts import PLANES, Operation, operations, stack
from stack.openapi.links import add_links
from stack.openapi.schemas import Refs, SchemaSet, error_schema, gateway_codes, query_parameters, resolve, schema_of

TITLES = {
    "portal": ("Workspace service: management plane (portal)", "Workspaces, members, brands, API keys, credits."),
    "brain": ("Workspace service: read plane (brain)", "An agent's published data, raw objects and chat."),
}
FALLBACK = (
    "Routes not listed here answer 404 NOT_FOUND; a listed path with a method it does not list answers "
    "405 METHOD_NOT_ALLOWED (`#/components/responses/MethodNotAllowed`). Errors are always "
    "`{error, code}` (`#/components/schemas/Error`)."
)
ERROR_REF = {"$ref": "#/components/schemas/Error"}


def _header_refs(names: tuple[str, ...], required: bool = False) -> dict[str, Any]:
    # inline, not $ref: a Reference Object may not carry ``required``
    return {name: HEADERS[name] | ({"required": True} if required else {}) for name in names}


def _content(op: Operation, schema: dict[str, Any] | None) -> dict[str, Any]:
    if op.method == "HEAD":  # HEAD answers carry headers only
        return {}
    media = op.contract.media_type
    return {"content": {media: {"schema": schema} if schema is not None else {}}}


def _responses(op: Operation, refs: Refs) -> dict[str, Any]:
    contract, brain = op.contract, op.plane == "brain"
    out: dict[str, Any] = {}
    success = {contract.status: "OK"} if contract.status else {}
    for status, text in (success | contract.statuses).items():
        headers = _header_refs(contract.headers_for(status)) | (_header_refs(RATE_HEADERS, True) if brain else {})
        body = schema_of(contract.response, refs, "serialization") if contract.response is not None else None
        with_body = status == contract.status and (body is not None or contract.media_type != "application/json")
        out[str(status)] = {"description": text} | ({"headers": headers} if headers else {})
        if with_body:
            out[str(status)] |= _content(op, body)
    codes: dict[int, set[str]] = defaultdict(set)
    own = {cls.status for cls in contract.errors}
    plane = plane_errors(op.plane, contract.auth, contract.body is not None, contract.request_headers)
    for cls in (*contract.errors, *plane):
        codes[cls.status].add(cls.code)
    for status, code in gateway_limits().items():
        codes[status].add(code)
    for status in sorted(codes):
        schema = {"allOf": [ERROR_REF, {"properties": {"code": {"enum": sorted(codes[status])}}}]}
        headers = _header_refs(contract.headers_for(status))
        if brain and (status in own or status == 429):  # raised after the key was counted
            headers |= _header_refs(RATE_HEADERS, True)
        if status == 429:
            headers |= _header_refs(("Retry-After",), True)
        entry = {"description": ", ".join(sorted(codes[status]))} | ({"headers": headers} if headers else {})
        out[str(status)] = entry | (
            {} if op.method == "HEAD" else {"content": {"application/json": {"schema": schema}}}
        )
    return dict(sorted(out.items()))


def _parameters(op: Operation) -> list[dict[str, Any]]:
    params = []
    for name in op.path_params:
        schema: dict[str, Any] = {"type": "string", "minLength": 1}
        values = op.contract.path_values.get(name, ())
        greedy = "{" + name + "+}" in stack_path(op)
        if values and not greedy:
            schema = {"type": "string", "enum": list(values)}
        description = None
        if greedy:  # prefixes in prose, not a pattern: fuzzers generate too few matches of one
            description = "a workspace-relative object key; may contain `/`" + (
                f"; under one of {', '.join(f'`{v}`' for v in values)} (else 403 PREFIX_NOT_ALLOWED)" if values else ""
            )
        params.append(
            {"name": name, "in": "path", "required": True, "schema": schema}
            | ({"description": description} if description else {})
            | ({"x-greedy": True} if greedy else {})  # API Gateway's {name+}: clients send its `/` as they are
        )
    if op.contract.query is not None:
        params.extend(query_parameters(op.contract.query))
    for name in op.contract.request_headers:
        params.append({"name": name, "in": "header", "required": False} | REQUEST_HEADERS[name])
    return params


def stack_path(op: Operation) -> str:
    route = next(r for r in stack().routes(PLANES[op.plane]) if r.path.replace("+}", "}") == op.path)
    return route.path


def _tag(op: Operation) -> str:
    parts = op.path.strip("/").split("/")
    if op.plane == "brain":
        return "media" if parts[1] == "r2" else "chat" if parts[-1] == "chat" else "agents"
    return "keys" if "keys" in parts else {"user": "account"}.get(parts[1], parts[1])


def _operation(op: Operation, refs: Refs) -> dict[str, Any]:
    contract = op.contract
    operation: dict[str, Any] = {
        "operationId": op.operation_id,
        "summary": contract.summary,
        "description": (contract.description or op.module_doc).strip(),
        "tags": [_tag(op)],
        "security": SECURITY[(op.plane, contract.auth)],
    }
    if params := _parameters(op):
        operation["parameters"] = params
    if contract.body is not None:
        schema = schema_of(contract.body, refs, "validation")
        operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": schema}}}
    operation["responses"] = _responses(op, refs)
    return operation


def build(plane: str) -> dict[str, Any]:
    ops = operations(plane)
    schemas = SchemaSet()
    for op in ops:
        schemas.want(op.contract.response, "serialization")
        schemas.want(op.contract.body, "validation")
    refs, defs = schemas.render()
    paths: dict[str, dict[str, Any]] = defaultdict(dict)
    for op in ops:
        paths[op.path][op.method.lower()] = _operation(op, refs)
    title, description = TITLES[plane]
    codes = gateway_codes(stack().api_properties(PLANES[plane])) | set(gateway_limits().values())
    add_links(paths, defs)  # derived from the paths and answers: links.py
    return {
        "openapi": "3.1.0",
        "info": {"title": title, "version": "1.0.0", "description": f"{description}\n\n{FALLBACK}"},
        "servers": [{"url": "/", "description": "the API's stage URL (PortalApiUrl / BrainApiUrl)"}],
        "tags": [{"name": tag} for tag in sorted({_tag(op) for op in ops})],
        "paths": dict(sorted(paths.items())),
        "components": {
            "schemas": dict(sorted((defs | {"Error": error_schema(codes)}).items())),
            "responses": {
                "MethodNotAllowed": {
                    "description": "METHOD_NOT_ALLOWED",
                    "headers": _header_refs(("Allow",), True),
                    "content": _error_content(),
                }
            },
            "securitySchemes": SECURITY_SCHEMES[plane],
        },
    }


def _error_content() -> dict[str, Any]:
    return {"application/json": {"schema": ERROR_REF}}


__all__ = ["build", "resolve"]
