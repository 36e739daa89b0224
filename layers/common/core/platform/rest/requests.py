"""Reading a request: its JSON body or query string as a model (400 naming the field), a header, a parameter.

``first``: on a workspace route, the caller's access check, run before a refusal of the body or query is raised,
so a stranger gets 404 (a member 403 where it may not write) before any word on what it sent (decisions.md,
"Order of checks"). A valid request costs nothing more: the service checks access as it reads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ValidationError

from core.platform import json_body
from core.platform.errors import DomainError, ValidationFailed
from core.platform.rest.router import RestResolver

First = Callable[[], object] | None


def validation_failed(error: ValidationError) -> ValidationFailed:
    """A 400 whose message names the first offending field."""
    first = error.errors()[0]
    field = ".".join(str(part) for part in first.get("loc", ())) or "body"
    message = str(first.get("msg", "invalid value")).removeprefix("Value error, ")
    if first.get("type") == "string_pattern_mismatch":  # pydantic's message quotes the regex: say what it means
        message = "is not in the expected format (see the API document)"
    return ValidationFailed(f"{field}: {message}")


def _refused_after[T](first: First, read: Callable[[], T]) -> T:
    try:
        return read()
    except DomainError:
        if first is not None:
            first()  # 404 or 403 when the caller may not be told about the request
        raise


def json_document(app: RestResolver, first: First = None) -> dict[str, Any]:
    """The body as a JSON object, whatever its fields (a published document); 400 when it is not one."""

    def read() -> dict[str, Any]:
        try:
            data = json_body.loads(app.current_event.decoded_body or "null")
        except json_body.BodyRefused as exc:
            raise ValidationFailed(str(exc)) from exc
        except UnicodeDecodeError as exc:
            raise ValidationFailed("body: must be valid JSON") from exc
        if not isinstance(data, dict):
            raise ValidationFailed("body: must be a JSON object")
        return data

    return _refused_after(first, read)


def parse_body[M: BaseModel](app: RestResolver, model: type[M], first: First = None) -> M:
    """The JSON body as ``model``; 400 VALIDATION_ERROR naming the field when it is not."""

    def read() -> M:
        data = json_document(app)
        try:
            return model.model_validate(data)
        except ValidationError as error:
            raise validation_failed(error) from error

    return _refused_after(first, read)


def parse_query[M: BaseModel](app: RestResolver, model: type[M], first: First = None) -> M:
    """The query string as ``model``; 400 VALIDATION_ERROR naming the parameter when it is not."""

    def read() -> M:
        try:
            return model.model_validate(app.current_event.query_string_parameters or {})
        except ValidationError as error:
            raise validation_failed(error) from error

    return _refused_after(first, read)


def header(app: RestResolver, name: str) -> str | None:
    return next((v for k, v in (app.current_event.headers or {}).items() if k.lower() == name.lower()), None)


def query_param(app: RestResolver, name: str) -> str | None:
    return (app.current_event.query_string_parameters or {}).get(name)
