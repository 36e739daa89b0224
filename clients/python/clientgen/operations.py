"""One typed method per JSON operation of a document, in a sync and an async mixin class."""

from __future__ import annotations

import re
from typing import Any

from .schema import HEADER, annotation, docstring, nullable, operations, ref_name, snake, success_content

# Operations whose answer is not a JSON document, or whose body a generated method cannot send (feedback's ``rating:
# null`` withdraws a rating; a generated method leaves out what is None): the client implements them by hand
# (brain.py, portal.py).
HAND_WRITTEN = {
    "chat",
    "feedback",
    "preview",
    "get_object",
    "get_object_head",
    "get_object_without_key",
    "get_object_without_key_head",
}
# Headers the client sets itself: a fresh Idempotency-Key per call (kept across its retries).
IDEMPOTENCY_HEADER = "Idempotency-Key"


def auth_mode(operation: dict[str, Any]) -> str:
    """'bearer': the call needs the plane's bearer; 'optional': sent when the client has one; 'none'."""
    requirements = operation.get("security", [])
    schemes = {name for requirement in requirements for name in requirement}
    if not schemes or schemes == {"sessionCookie"}:
        return "none"  # the session cookie travels in the client's cookie jar
    return "optional" if {} in requirements or "sessionCookie" in schemes else "bearer"


def request_body(operation: dict[str, Any], schemas: dict[str, Any], required: list[str], optional: list[str]) -> str:
    """The body model's construction, its fields added to the method's keyword arguments."""
    if "requestBody" not in operation:
        return ""
    model = ref_name(operation["requestBody"]["content"]["application/json"]["schema"]["$ref"])
    schema = schemas[model]
    if schema.get("additionalProperties") is True:  # a free-form document (wrap, site): taken whole, as a dict
        required.append("document: dict[str, Any]")
        return f"{model}.model_validate(document)"
    fields = []
    for wire, prop in schema.get("properties", {}).items():
        python_name, python_type = snake(wire), annotation(prop)
        if wire in schema.get("required", []):
            required.append(f"{python_name}: {python_type}")
        else:
            optional.append(f"{python_name}: {nullable(python_type)} = None")
        fields.append(f"{python_name}={python_name}")
    return f"{model}(**present({', '.join(fields)}))"  # a field left out keeps its default, and is not sent


def operation_method(operation: dict[str, Any], schemas: dict[str, Any], *, asynchronous: bool) -> str:
    """One typed method: path parameters positional; query parameters and body fields keyword-only."""
    name = operation["operationId"]
    content = success_content(operation)
    if "application/json" not in content:
        raise SystemExit(f"{name}: answers {sorted(content)}, not JSON: add it to HAND_WRITTEN and write it by hand")
    statuses = tuple(sorted(int(status) for status in operation["responses"] if status.startswith("2")))
    returns = annotation(content["application/json"]["schema"])
    positional: list[str] = []
    required: list[str] = []
    optional: list[str] = []
    path_args: list[str] = []
    query_args: list[str] = []
    idempotent = greedy = False
    for parameter in operation.get("parameters", []):
        python_name, python_type = snake(parameter["name"]), annotation(parameter["schema"])
        if parameter["in"] == "path":
            positional.append(f"{python_name}: {python_type}")
            path_args.append(f"{parameter['name']!r}: {python_name}")
            greedy = greedy or parameter.get("x-greedy", False)
        elif parameter["in"] == "query":
            optional.append(f"{python_name}: {nullable(python_type)} = None")
            query_args.append(f"{parameter['name']!r}: {python_name}")
        elif parameter["name"] == IDEMPOTENCY_HEADER:
            idempotent = True
        else:
            raise SystemExit(f"{name}: header parameter {parameter['name']} is not supported")
    body = request_body(operation, schemas, required, optional)
    if idempotent:
        optional.append("idempotency_key: str | None = None")
    keywords = [*required, *optional]
    signature = ", ".join(["self", *positional, *(["*", *keywords] if keywords else [])])
    call = [repr(operation["method"]), repr(operation["path"]), f"response={returns}", f"ok={statuses!r}"]
    call.append(f"auth={auth_mode(operation)!r}")
    if path_args:
        call.append(f"path={{{', '.join(path_args)}}}")
    if greedy:  # an object key: its `/` are part of the route
        call.append("keep_slashes=True")
    if query_args:
        call.append(f"query={{{', '.join(query_args)}}}")
    if body:
        call.append(f"body={body}")
    if idempotent:  # made once per call, so every retry of the call carries the same key
        call.append("idempotency_key=idempotency_key or new_idempotency_key()")
    summary = f"{operation['method']} {operation['path']}: {operation.get('summary', '').rstrip('.')}."
    prefix, awaiting = ("async def", "await ") if asynchronous else ("def", "")
    return (
        f"    {prefix} {name}({signature}) -> {returns}:\n"
        + docstring(summary, "        ")
        + f"        return {awaiting}self._call(Operation({', '.join(call)}))\n"
    )


def render_operations(plane: str, document: dict[str, Any]) -> str:
    schemas = document["components"]["schemas"]
    json_operations = [op for op in operations(document) if op["operationId"] not in HAND_WRITTEN]
    classes = []
    for asynchronous in (False, True):
        class_name = f"{'Async' if asynchronous else ''}{plane.capitalize()}Operations"
        methods = "\n".join(operation_method(op, schemas, asynchronous=asynchronous) for op in json_operations)
        kind = "awaits" if asynchronous else "calls"
        classes.append(
            f"class {class_name}:\n"
            f'    """Every JSON operation of the {plane} plane; the class it is mixed into {kind} ``_call``."""\n\n'
            f"    _call: Any\n\n{methods}"
        )
    text = "\n\n".join(classes)
    used = sorted(name for name in schemas if re.search(rf"\b{name}\b", text))
    return (
        HEADER.format(plane=plane)
        + "from __future__ import annotations\n\nfrom typing import Any, Literal\n\n"
        + "from .._operation import Operation, new_idempotency_key, present\n"
        + f"from .models_{plane} import {', '.join(used)}\n\n\n"
        + text
    )
