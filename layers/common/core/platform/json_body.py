"""A client's JSON request body, read strictly: JSON media type, bounded nesting, standard JSON, one value per key.

Every body the service accepts is a small object a few levels deep, so anything else is
refused as a 400 before it can cost anything: a body nested 10,000 levels deep would
otherwise exhaust the parser's recursion (a 500, and on a thread with a small stack a
crash), ``NaN``/``Infinity`` are not JSON, nor is a number too large for a double (``1e400``
parses as infinity, which would be stored and sent back as ``Infinity``), a repeated key
means two readers may disagree on its value, and an unpaired surrogate (``"\\ud800"``)
cannot be stored or sent as UTF-8.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_DEPTH = 32
_JSON_MEDIA_TYPE = re.compile(r"application/(?:[a-z0-9!#$&^_.-]+\+)?json")
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)  # unrolled: linear, no backtracking
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_SURROGATE = re.compile("[\ud800-\udfff]")


class BodyRefused(ValueError):
    """Why the body is not acceptable JSON (the message is safe to show the caller)."""


def is_json_media_type(content_type: str | None) -> bool:
    """``application/json`` or ``application/<anything>+json``, with any parameters (``charset=…``)."""
    media_type = (content_type or "").split(";", 1)[0].strip().lower()
    return _JSON_MEDIA_TYPE.fullmatch(media_type) is not None


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether arrays/objects nest deeper than ``limit``, found without parsing (brackets inside strings
    do not count; an unterminated string leaves its brackets counted, which only refuses malformed JSON)."""
    if text.count("[") + text.count("{") <= limit:  # the common case: too few openers to nest that deep
        return False
    depth = 0
    for char in _NOT_BRACKET.sub("", _STRING.sub("", text)):
        depth += 1 if char in "[{" else -1
        if depth > limit:
            return True
    return False


def _refuse_constant(name: str) -> Any:
    raise BodyRefused(f"body: {name} is not JSON")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:  # the first key seen twice is the one named
            if key in seen:
                raise BodyRefused(f"body: key {json.dumps(key)} appears more than once")
            seen.add(key)
    return found


def _field(path: str, key: str | int) -> str:
    """A field's name as a validation error names it (``theme.colors.2``, as pydantic's locations are joined)."""
    return f"{path}.{key}" if path else str(key)


def _problem(value: Any) -> str | None:
    """The first value, in document order, that parsing let through but is not plain JSON, named by its field
    (``theme.colors.2``): a number too large for a double, or an unpaired surrogate (after parsing, a valid pair
    is one code point, so any surrogate left is unpaired). Iterative: no recursion."""
    pending: list[tuple[str, Any]] = [("", value)]
    while pending:
        path, item = pending.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return f"{path or 'body'}: a number too large to represent (JSON numbers here must be finite doubles)"
        if isinstance(item, str) and _SURROGATE.search(item):
            return f"{path or 'body'}: contains an unpaired surrogate escape (not valid Unicode)"
        if isinstance(item, dict):
            for key in item:
                if _SURROGATE.search(key):
                    return f"{path or 'body'}: a key contains an unpaired surrogate escape (not valid Unicode)"
            pending.extend((_field(path, key), child) for key, child in reversed(item.items()))
        elif isinstance(item, list):
            pending.extend((_field(path, index), child) for index, child in reversed(list(enumerate(item))))
    return None


def loads(text: str) -> Any:
    """The parsed body; ``BodyRefused`` (a 400) for anything that is not plain, unambiguous JSON."""
    if too_deep(text):
        raise BodyRefused(f"body: nested more than {MAX_DEPTH} levels deep")
    try:
        value = json.loads(text, parse_constant=_refuse_constant, object_pairs_hook=_unique_keys)
    except BodyRefused:
        raise
    except (ValueError, RecursionError) as exc:
        raise BodyRefused("body: must be valid JSON") from exc
    if problem := _problem(value):
        raise BodyRefused(problem)
    return value
