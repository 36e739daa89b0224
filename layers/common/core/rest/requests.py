"""Reading a request: its JSON body or query string as a model (400 naming the field), a header, a parameter."""

from __future__ import annotations

from pydantic import BaseModel, ValidationError

from .. import json_body
from ..errors import ValidationFailed
from ..powertools_rest import APIGatewayRestResolver


def validation_failed(error: ValidationError) -> ValidationFailed:
    """A 400 whose message names the first offending field."""
    first = error.errors()[0]
    field = ".".join(str(part) for part in first.get("loc", ())) or "body"
    message = str(first.get("msg", "invalid value")).removeprefix("Value error, ")
    if first.get("type") == "string_pattern_mismatch":  # pydantic's message quotes the regex: say what it means
        message = "is not in the expected format (see the API document)"
    return ValidationFailed(f"{field}: {message}")


def parse_body[M: BaseModel](app: APIGatewayRestResolver, model: type[M]) -> M:
    """The JSON body as ``model``; 400 VALIDATION_ERROR naming the field when it is not."""
    try:
        data = json_body.loads(app.current_event.decoded_body or "null")
    except json_body.BodyRefused as exc:
        raise ValidationFailed(str(exc)) from exc
    except UnicodeDecodeError as exc:
        raise ValidationFailed("body: must be valid JSON") from exc
    if not isinstance(data, dict):
        raise ValidationFailed("body: must be a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise validation_failed(error) from error


def parse_query[M: BaseModel](app: APIGatewayRestResolver, model: type[M]) -> M:
    """The query string as ``model``; 400 VALIDATION_ERROR naming the parameter when it is not."""
    try:
        return model.model_validate(app.current_event.query_string_parameters or {})
    except ValidationError as error:
        raise validation_failed(error) from error


def header(app: APIGatewayRestResolver, name: str) -> str | None:
    return next((v for k, v in (app.current_event.headers or {}).items() if k.lower() == name.lower()), None)


def query_param(app: APIGatewayRestResolver, name: str) -> str | None:
    return (app.current_event.query_string_parameters or {}).get(name)
