"""Field rules of the authoring bodies: slugs, free text, colours, timestamps, documents, names.

Each rule is written once and used by every body that takes such a field, so a slug or a key is checked the
same way on agents and brands, posts and items (object keys and upload types: ``core.objects.fields``). Messages name
what is wrong; ``validation_failed`` adds the field.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field

from core.platform.fields import Rules, name_rules, text_rules
from core.platform.ids import iso
from core.platform.models import ApiModel, RequestModel

SLUG_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
# An agent's or a brand's slug: lower-case ASCII words joined by single hyphens (as slugify makes them).
Slug = Annotated[str, *text_rules(1, 48, pattern=SLUG_PATTERN, documented=SLUG_PATTERN)]
# An id of another resource named in a body (a brand, a workflow): opaque, so only its size and alphabet are checked.
ResourceId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]

# Free text (titles, captions): any character a person types, newlines and tabs included, but no other control
# character. HTML is text like any other: stored as sent, and every client shows it as text.
_TEXT_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")  # C0 but \t \n \r, DEL, C1


def _no_controls(value: str) -> str:
    if _TEXT_CONTROLS.search(value):
        raise ValueError("must not contain control characters other than newlines and tabs")
    return value


def free_text_rules(max_length: int, *, min_length: int = 0) -> Rules:  # ``Annotated[str, *free_text_rules(200)]``
    return (Field(min_length=min_length, max_length=max_length), AfterValidator(_no_controls))


# A CSS hex colour (#rgb, #rgba, #rrggbb, #rrggbbaa): palettes reach pages through the CSSOM, as theme values.
Color = Annotated[str, Field(pattern=r"^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")]
Palette = Annotated[list[Color], Field(max_length=16)]

_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$")


def _timestamp(value: object) -> object:
    """RFC 3339 with a time zone, stored as the fixed-width UTC form the feed sorts by (``…T05:23:35.123Z``)."""
    if not isinstance(value, str) or not _RFC3339.fullmatch(value):
        raise ValueError("must be an RFC 3339 time with a zone, e.g. 2026-11-22T05:23:35.123Z")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError as exc:
        raise ValueError("is not a valid date and time") from exc
    if parsed.year < 1970:
        raise ValueError("must be 1970 or later")
    return iso(parsed.astimezone(UTC))


Timestamp = Annotated[str, BeforeValidator(_timestamp)]


MAX_DOCUMENT_BYTES = 64 * 1024  # a published document (wrap, site, suggestions, a workspace's wrapConfig)


def document_size_problem(value: Any) -> str | None:
    size = len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())
    return f"at most {MAX_DOCUMENT_BYTES} bytes of JSON (this is {size})" if size > MAX_DOCUMENT_BYTES else None


def _bounded_document(value: Any) -> Any:
    problem = document_size_problem(value)
    if problem:
        raise ValueError(problem)
    return value


JsonDocument = Annotated[Any, AfterValidator(_bounded_document)]
JsonObject = Annotated[dict[str, Any], AfterValidator(_bounded_document)]


Name = Annotated[str, *name_rules(80)]


def changes(request: RequestModel) -> dict[str, Any]:
    """The fields a PATCH body sent, by their Python names (an explicit ``null`` is not sent, it means absent, but for
    a field the model lists as ``clearable``: there it is sent, and clears the value)."""
    return {name: getattr(request, name) for name in request.model_fields_set}


class ListQuery(ApiModel):
    model_config = ApiModel.model_config | {"extra": "ignore", "validate_by_name": False}
